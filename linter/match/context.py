"""Stage 5a: what every matcher needs — candidate calls, call patterns, bound arguments,
and where values come from.

Rules are dispatched by name: a pattern's globs name the last segment of the callee
(``Dropout`` for ``mindspore.nn.Dropout``), so only calls indexed under matching segments
are resolved. Patterns on instance calls (``X.__call__``) or on ``creates`` look at more
calls but still resolve each one once (the project index memoises).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from linter.compiler.build import CallPattern, CallPred
from linter.core.globs import GlobSet
from linter.core.versions import parse_version
from linter.facts.ir import child_blocks, walk
from linter.facts.model import ArgFact, CallFact, Expr, Stmt
from linter.index.apis import NO_DEFAULT
from linter.index.apis import Param as ApiParam
from linter.index.project import BoundArgs, bind_args
from linter.index.values import Cls, Func, Obj, ordered
from linter.program.model import ProgramModel

Call = Tuple[int, int]
"""(file index, call id)."""


class CallSite:
    """A call that matched a pattern, with its arguments bound to a signature."""

    __slots__ = ("fi", "cid", "call", "names", "bound", "params", "qual", "framework", "version", "data", "places")

    def __init__(self, fi: int, cid: int, call: CallFact, names: Tuple[str, ...], bound: BoundArgs,
                 params: Optional[Sequence[ApiParam]], qual: str, framework: Optional[str],
                 version: Optional[str]) -> None:
        self.fi = fi
        self.cid = cid
        self.call = call
        self.names = names
        self.bound = bound
        self.params = params
        self.qual = qual
        self.framework = framework
        self.version = version
        self.data: Dict[str, str] = {}
        self.places: List[Tuple[int, int, str]] = []
        """Other places a predicate found the match's cause at, as (file, line, note): the
        finding's related places (the softmax at the end of the model whose output this is)."""

    def default(self, name: str) -> Any:
        """The signature default of parameter ``name`` (NO_DEFAULT if required/unknown)."""
        for p in self.params or ():
            if p.name == name:
                return p.default
        return NO_DEFAULT

    def arg(self, name: str) -> Optional[ArgFact]:
        a = self.bound.get(name)
        if a is not None:
            return a
        if name.isdigit():
            positional = [x for x in self.call.args if x.keyword is None and not x.star]
            i = int(name)
            return positional[i] if i < len(positional) else None
        if self.params is None or all(p.name != name for p in self.params):
            # Not in the known signature (e.g. `training=` through **kwargs): match by keyword.
            for x in self.call.args:
                if x.keyword == name:
                    return x
        return None


Matcher = Callable[["MatchContext", CallPattern, int, int, Optional[str]], Optional[CallSite]]
"""Tests a call against a pattern (:func:`linter.match.pattern.match_call`)."""


class MatchContext:
    """Project index + roles + the options of this run."""

    _TRANSIENT = ("assume", "site_crashes")
    """The pattern being tested assumes (set for one match) and the sites a rule could not
    evaluate (drained after each rule); every answer lives in the program model's store."""

    def __init__(self, program: ProgramModel, versions: Dict[str, str], matcher: Matcher) -> None:
        self.program = program
        self.match: Callable[..., Optional[CallSite]] = \
            lambda pattern, fi, cid, framework=None: matcher(self, pattern, fi, cid, framework)
        """``match(pattern, fi, cid, framework=None)``: a :class:`CallSite` when the call matches
        (:func:`linter.match.pattern.match_call`, handed in: patterns nest, so the pattern test
        and the predicates it evaluates sit above this context, which they both use)."""
        self.p = program.p
        self.roles = program.roles
        self.versions = versions
        self.version_sources: Dict[str, str] = {}
        """framework → where its version came from: ``config``, ``command line``, ``installed``."""
        t = program.store.table
        self._withs: Dict[Tuple[int, int], Dict[int, Tuple[int, ...]]] = t("match.withs")
        self._loops: Dict[Tuple[int, int], Dict[int, Tuple[Stmt, ...]]] = t("match.loops")
        self._result_uses: Dict[int, Dict[int, Tuple[str, ...]]] = t("match.result_uses")
        self._file_fw: Dict[int, FrozenSet[str]] = t("match.file_frameworks")
        self._discarded: Dict[Tuple[int, int], Set[int]] = t("match.discarded")
        self._acts: Dict[Tuple[Any, ...], bool] = t("match.acts")
        self._operand_index: Dict[Tuple[Any, ...], Dict[Tuple[int, int], List[Call]]] = t("match.operand_index")
        self._origins: Dict[Tuple[Any, ...], Tuple[List[Call], bool]] = t("match.origins")
        self._pattern_sites: Dict[int, List[Call]] = t("match.pattern_sites")
        self._pattern_files: Dict[int, Dict[int, List[Call]]] = t("match.pattern_files")
        self._pattern_entries: Dict[int, Dict[int, List[Call]]] = t("match.pattern_entries")
        self._all_candidates: Dict[int, List[Call]] = t("match.all_candidates")
        self._made_by: Dict[Tuple[str, ...], bool] = t("match.made_by")
        self._renamed: Dict[int, Dict[str, Tuple[str, ...]]] = t("match.renamed")
        self._aliased: Dict[int, Dict[str, List[int]]] = t("match.aliased")
        self._built: Dict[str, Any] = t("match.built")
        """Indexes built once: ``by_name`` (:meth:`index_names`), ``joins`` (:meth:`joined_at`)."""
        self.assume: Dict[str, Any] = {}
        """Parameter values the pattern being tested assumes (``do_train=True`` for a training
        pipeline): the hypothesis its argument values are computed under, set for one match."""
        self.site_crashes: List[Tuple[int, BaseException]] = []
        """(file, exception) of sites a rule could not evaluate (see :meth:`isolated`); drained
        into diagnostics by the rule runner after each rule."""

    def isolated(self, fi: int, compute: Callable[[], Any], default: Any) -> Any:
        """``compute()``, or ``default`` when it raises: a project-wide rule (flow, entry)
        that trips on one site loses that site, not every file's findings — and is not
        re-run file by file, which would cost the whole project once per file."""
        try:
            return compute()
        except Exception as exc:   # RecursionError included
            self.site_crashes.append((fi, exc))
            return default

    # ------------------------------------------------------------------ versions
    def version_label(self, framework: Optional[str]) -> str:
        """E.g. ``MindSpore 2.10.0 (default)`` — said in messages whose meaning depends on it."""
        if framework is None:
            return ""
        pretty = {"mindspore": "MindSpore", "pytorch": "PyTorch", "tensorflow": "TensorFlow"}.get(framework, framework)
        version = self.version_of(framework) or "?"
        how = self.version_sources.get(framework, "default")
        return f"{pretty} {version} ({how})"

    def version_of(self, framework: Optional[str]) -> Optional[str]:
        if framework is None:
            return None
        v = self.versions.get(framework)
        if v:
            return v
        fw = self.p.apis.frameworks.get(framework)
        return fw.default_version if fw else None

    # ------------------------------------------------------------------ candidates
    def candidates(self, pattern: CallPattern, files: Iterable[int]) -> Iterator[Call]:
        """Calls that may match ``pattern`` (cheap, by callee name), in file/id order."""
        where = pattern.where
        if type(where) is CallPred and where.callee_made_by is not None and not self._anything_made_by(where.callee_made_by):
            return   # nothing in the project is called that could have made the callee
        for fi in files:
            facts = self.p.files[fi]
            if pattern.scan_all and pattern.creates is None:
                by_name = self._built.get("by_name")
                if by_name is None or pattern.names is None or "*" in pattern.names.globs:
                    yield from ((fi, cid) for cid in range(len(facts.calls)))
                    continue
                # `Cell.__call__` cannot be looked up by the name as written (`self.conv(x)`):
                # test the file's distinct resolved names instead of every call
                names = pattern.names
                named: Set[int] = set()
                for name, cids in by_name[fi].items():
                    if names.match(name):
                        named.update(cids)
                for cid in sorted(named):
                    yield fi, cid
                continue
            keys: Set[str] = set()
            if pattern.names is not None:
                keys.update(pattern.names.keys_in(facts.callee_index))
                renamed = self._renamed_imports(fi)
                if renamed:   # `from torch.nn.parallel import DistributedDataParallel as DDP`: called as `DDP(...)`
                    keys.update(alias for name in pattern.names.keys_in(renamed) for alias in renamed[name]
                                if alias in facts.callee_index)
            if pattern.creates is not None:
                keys.update(self.program.creating_keys(pattern.creates, facts.callee_index))
            ids: Set[int] = set()
            for k in keys:
                ids.update(facts.callee_index[k])
            if pattern.names is not None:
                aliased = self._aliased_calls(fi)
                for name in pattern.names.keys_in(aliased) if aliased else ():
                    ids.update(aliased[name])
            for cid in sorted(ids):
                yield fi, cid

    def _aliased_calls(self, fi: int) -> Dict[str, List[int]]:
        """Last segment of a resolved name → calls of a local variable holding a class or function (`loader =
        DataLoader if image_weights else InfiniteDataLoader; loader(dataset, ...)`): the callee
        index holds them under the variable's name, which no pattern names."""
        hit = self._aliased.get(fi)
        if hit is None:
            hit = {}
            facts = self.p.files[fi]
            for cid, c in enumerate(facts.calls):
                if c.func[0] == "name" and c.func[2]:
                    for name in self.p.call_names(fi, cid):
                        if not name.startswith("?.") and not name.endswith(".__call__"):
                            last = name.rsplit(".", 1)[-1]   # keyed as the callee index is: last segment
                            if cid not in hit.get(last, ()):
                                hit.setdefault(last, []).append(cid)
            self._aliased[fi] = hit
        return hit

    def index_names(self) -> None:
        """Index every call by the names it answers to (:meth:`Project.call_names`, resolving
        them all, in file order), so that patterns on names no callee index holds (``__call__``)
        test each file's distinct names rather than each call. A call is a candidate exactly
        when one of its names matches, which :meth:`match` asks first anyway."""
        p = self.p
        out: List[Dict[str, List[int]]] = []
        for fi, facts in enumerate(p.files):
            by_name: Dict[str, List[int]] = {}
            for cid in range(len(facts.calls)):
                for name in p.call_names(fi, cid):
                    by_name.setdefault(name, []).append(cid)
            out.append(by_name)
        self._built["by_name"] = out

    def _anything_made_by(self, globs: GlobSet) -> bool:
        """Whether some call of the project answers to ``globs``: else no callee was made by
        one (:meth:`callee_made_by` asks exactly this of a call's origins)."""
        by_name = self._built.get("by_name")
        if by_name is None:
            return True
        hit = self._made_by.get(globs.globs)
        if hit is None:
            hit = self._made_by[globs.globs] = any(globs.any(names) for names in by_name)
        return hit

    def all_candidates(self, pattern: CallPattern) -> List[Call]:
        """:meth:`candidates` over every file, memoised: per-call questions ("does some call
        anywhere use this object?") would otherwise rescan every file's index for every call."""
        hit = self._all_candidates.get(id(pattern))
        if hit is None:
            hit = self._all_candidates[id(pattern)] = list(self.candidates(pattern, range(len(self.p.files))))
        return hit

    def _renamed_imports(self, fi: int) -> Dict[str, Tuple[str, ...]]:
        """Imported name → the local names it is bound to under ``as`` (callee-index keys are
        the names as written)."""
        hit = self._renamed.get(fi)
        if hit is None:
            tmp: Dict[str, List[str]] = {}
            for imp in self.p.files[fi].imports:
                if imp.asname and imp.name and imp.name != "*" and imp.asname != imp.name:
                    tmp.setdefault(imp.name, []).append(imp.asname)
            hit = self._renamed[fi] = {k: tuple(v) for k, v in tmp.items()}
        return hit

    # ------------------------------------------------------------------ pattern test
    def callee_made_by(self, globs: GlobSet, fi: int, cid: int) -> bool:
        """The called object is the result of a call matching ``globs`` (a function made by
        ``value_and_grad``)."""
        call = self.p.files[fi].calls[cid]
        calls, _ = self.origin_calls(fi, call.scope, call.func)
        return any(globs.any(self.p.call_names(cfi, ccid)) for cfi, ccid in calls)

    def assumptions(self, role: str) -> Dict[str, Any]:
        """The flag values a pipeline of ``role`` is checked under (``do_train=True``, ...)."""
        spec = self.roles.spec
        training = role == "training"
        out: Dict[str, Any] = {}
        for f in spec.train_flags:
            out[f] = training
        for f in spec.eval_flags:
            out[f] = not training
        for f in spec.split_flags:
            out[f] = "train" if training else "eval"
        return out

    def bind(self, fi: int, cid: int, names: Tuple[str, ...], qual: str) -> CallSite:
        """Bind the call's arguments to the signature of ``qual`` (version-aware) or of the project callee."""
        p = self.p
        call = p.files[fi].calls[cid]
        framework = p.apis.framework_of(qual) if qual and not qual.startswith("?.") else None
        version = self.version_of(framework)
        params: Optional[Sequence[ApiParam]] = None
        api = p.apis.get(qual) if qual else None
        if api is not None:
            params = api.signature(parse_version(version) if version else None)
        skip_first = False
        # a project subclass that defines its own `__init__` takes its own parameters and defaults
        # (`class Step(nn.TrainOneStepCell): def __init__(self, network, optimizer, sens=1024.0)`)
        own = [v for v in p.callee_values(fi, cid) if isinstance(v, Cls)]
        if params is not None and len(own) == 1 and any(isinstance(iv, Func) for iv in p.class_attr(own[0], "__init__", None)):
            params = None
        if params is None:
            for v in ordered(p.callee_values(fi, cid)):
                sig, skip = p.signature_of(v)
                if sig is not None:
                    params, skip_first = sig, skip
                    break
        bound = bind_args(call.args, params or (), skip_first) if params is not None else BoundArgs()
        if params is None:
            # No signature: keywords are matched by name; only a `*`/`**` spread hides an argument.
            bound.uncertain = any(a.star for a in call.args)
            for a in call.args:
                if a.keyword is not None:
                    bound.args[a.keyword] = a
        return CallSite(fi, cid, call, names, bound, params, qual, framework, version)

    def created_types(self, fi: int, cid: int) -> List[str]:
        """Qualified names of the class instantiated by a call and all its bases."""
        return self.program.created_types(fi, cid)

    # ------------------------------------------------------------------ structure
    def withs(self, fi: int, scope: int) -> Dict[int, Tuple[int, ...]]:
        """statement id → call ids of the enclosing ``with`` items (innermost last)."""
        key = (fi, scope)
        hit = self._withs.get(key)
        if hit is None:
            hit = {}
            self._collect_withs(fi, scope, self.p.files[fi].funcs[scope].body, (), hit)
            self._withs[key] = hit
        return hit

    def _collect_withs(self, fi: int, scope: int, block: Sequence[Stmt], outer: Tuple[int, ...],
                       out: Dict[int, Tuple[int, ...]]) -> None:
        for st in block:
            out[st[1]] = outer
            inner = outer
            if st[0] == "with":
                items = tuple(e[1] for e, _ids in st[2] if e[0] == "call")
                inner = outer + items
            for b in child_blocks(st):
                self._collect_withs(fi, scope, b, inner, out)

    def branch_twins(self, fi: int, a: int, b: int) -> bool:
        """Calls ``a`` and ``b`` of file ``fi`` are written alike (callee and argument texts)
        in exclusive branches of one ``if``/``elif`` chain of the same function."""
        facts = self.p.files[fi]
        ca, cb = facts.calls[a], facts.calls[b]
        if ca.scope != cb.scope or ca.dotted != cb.dotted or ca.dotted is None \
                or [(x.keyword, x.text) for x in ca.args] != [(x.keyword, x.text) for x in cb.args]:
            return False
        guards = self.roles.guards(fi, ca.scope)
        ga, gb = guards.get(ca.stmt, ()), guards.get(cb.stmt, ())
        for (ta, pa), (tb, pb) in zip(ga, gb):
            if ta is not tb:
                return False
            if pa != pb:
                return True
        return False

    def inside_with(self, pattern: CallPattern, fi: int, cid: int) -> bool:
        call = self.p.files[fi].calls[cid]
        for wcid in self.withs(fi, call.scope).get(call.stmt, ()):
            if self.match(pattern, fi, wcid) is not None:
                return True
        return False

    def loops(self, fi: int, scope: int) -> Dict[int, Tuple[Stmt, ...]]:
        """statement id → enclosing loop statements (innermost last)."""
        key = (fi, scope)
        hit = self._loops.get(key)
        if hit is None:
            hit = {}
            _collect_loops(self.p.files[fi].funcs[scope].body, (), hit)
            self._loops[key] = hit
        return hit

    def in_loop(self, fi: int, cid: int) -> bool:
        call = self.p.files[fi].calls[cid]
        return bool(self.loops(fi, call.scope).get(call.stmt))

    def loop_contains(self, fi: int, cid: int, globs: GlobSet) -> bool:
        call = self.p.files[fi].calls[cid]
        loops = self.loops(fi, call.scope).get(call.stmt)
        if not loops:
            return False
        for other in self.p.calls_in_stmt(fi, loops[-1], call.scope):
            if globs.any(self.p.call_names(fi, other)):
                return True
        return False

    def result_methods(self, fi: int, cid: int) -> Tuple[str, ...]:
        """Methods called on the result of call ``cid`` (chained, or through a local name)."""
        table = self._result_uses.get(fi)
        if table is None:
            tmp: Dict[int, List[str]] = {}
            facts = self.p.files[fi]
            for c in facts.calls:
                if c.func[0] != "attr":
                    continue
                base = c.func[1]
                if base[0] == "call":
                    tmp.setdefault(base[1], []).append(c.func[2])
                elif base[0] == "name":
                    for aid in base[2]:
                        v = facts.assigns[aid].value
                        if v[0] == "call":
                            tmp.setdefault(v[1], []).append(c.func[2])
            table = {k: tuple(v) for k, v in tmp.items()}
            self._result_uses[fi] = table
        return table.get(cid, ())

    def result_discarded(self, fi: int, cid: int) -> bool:
        """Whether call ``cid``'s result is thrown away: the call is an expression statement
        (``load_param_into_net(net, params)``), or every name it is bound to is a throwaway
        (``_ = f()``, ``_, _ = f()``). A result that is returned, passed on or kept in a
        real variable counts as used — whether that variable is read is not asked."""
        facts = self.p.files[fi]
        call = facts.calls[cid]
        key = (fi, call.scope)
        table = self._discarded.get(key)
        if table is None:
            table = set()
            for st in walk(facts.funcs[call.scope].body):
                if st[0] == "expr" and st[2][0] == "call":
                    table.add(st[2][1])
                elif st[0] == "assign" and st[2]:
                    targets = [facts.assigns[a] for a in st[2]]
                    origin = {_call_of(a.value) for a in targets}
                    only = origin.pop() if len(origin) == 1 else None
                    if only is not None and all(a.target[0] == "name" and set(a.target[1]) == {"_"} for a in targets):
                        table.add(only)
            self._discarded[key] = table
        return cid in table

    def file_frameworks(self, fi: int) -> FrozenSet[str]:
        """Frameworks a file imports (directly or through the project modules it imports)."""
        hit = self._file_fw.get(fi)
        if hit is not None:
            return hit
        self._file_fw[fi] = frozenset()
        out: Set[str] = set()
        p = self.p
        for imp in p.files[fi].imports:
            target = p.file_of(fi, imp.module, imp.level)
            if target is None:
                fw = p.apis.framework_of(p.apis.canonical(imp.module or "")) if imp.module else None
                if fw:
                    out.add(fw)
            elif target >= 0 and target != fi:
                out |= self.file_frameworks(target)
        result = frozenset(out)
        self._file_fw[fi] = result
        return result

    # ------------------------------------------------------------------ entries
    def entries_reaching(self, fi: int, cid: int) -> List[int]:
        """:meth:`linter.program.model.ProgramModel.entries_reaching`."""
        return self.program.entries_reaching(fi, cid)

    def live(self, fi: int, cid: int) -> Optional[bool]:
        """:func:`linter.program.liveness.live`: True, False (evidence that nothing runs it) or None."""
        return self.program.live(fi, cid)

    def stored_unused(self, fi: int, cid: int) -> bool:
        return self.program.stored_unused(fi, cid)

    def multi_device_launch(self, fi: int, cid: int) -> Optional[bool]:
        return self.program.multi_device_launch(fi, cid)

    def port_evidence(self, fi: int) -> bool:
        return self.program.port_evidence(fi)

    def sites_matching(self, pattern: CallPattern) -> List[Call]:
        """Every call of the project matching ``pattern``, in file/id order (memoised)."""
        sites = self._pattern_sites.get(id(pattern))
        if sites is None:
            saved, self.assume = self.assume, {}   # the answer must not depend on the question asked
            try:
                sites = [(fi, cid) for fi, cid in self.all_candidates(pattern)
                         if self.match(pattern, fi, cid) is not None]
            finally:
                self.assume = saved
            self._pattern_sites[id(pattern)] = sites
        return sites

    def other_call(self, patterns: Sequence[CallPattern], fi: int, cid: int, same_file: bool) -> Optional[Call]:
        """The first call other than ``(fi, cid)`` matching one of ``patterns``: in file ``fi``
        when ``same_file``, else in the call's project (see :meth:`project_of`)."""
        files = {fi} if same_file else self.project_of(fi, cid)
        for pattern in patterns:
            if files is None:
                hit = next((h for h in self.sites_matching(pattern) if h != (fi, cid)), None)
            else:
                # per file of the program, not over every site of the tree (questions × sites
                # on a tree of many projects)
                by_file = self._sites_by_file(pattern)
                firsts = [next((h for h in by_file.get(f, ()) if h != (fi, cid)), None) for f in files]
                hit = min((h for h in firsts if h is not None), default=None)
            if hit is not None:
                return hit
        return None

    def _sites_by_file(self, pattern: CallPattern) -> Dict[int, List[Call]]:
        hit = self._pattern_files.get(id(pattern))
        if hit is None:
            hit = {}
            for site in self.sites_matching(pattern):
                hit.setdefault(site[0], []).append(site)
            self._pattern_files[id(pattern)] = hit
        return hit

    def project_of(self, fi: int, cid: int) -> Optional[Set[int]]:
        """:func:`linter.program.liveness.project_of`."""
        return self.program.project_of(fi, cid)

    def entry_reaches(self, entry: int, pattern: CallPattern, along: Optional[Call] = None) -> Optional[Call]:
        """The first call matching ``pattern`` (any file) that entry script ``entry`` reaches —
        on a path that can also run call ``along`` when it is given (not in the other branch
        of an ``if`` that decides between them)."""
        by_entry = self._pattern_entries.get(id(pattern))
        if by_entry is None:
            # entry → the sites it reaches, in one pass over the sites (asked per entry, the
            # scan would cost entries × sites on a tree of many projects)
            by_entry = {}
            for fi, cid in self.sites_matching(pattern):
                for e in self.program.running_entries(fi, cid):
                    by_entry.setdefault(e, []).append((fi, cid))
            self._pattern_entries[id(pattern)] = by_entry
        for site in by_entry.get(entry, ()):
            if along is None or self.program.paths.compatible(entry, along, site):
                return site
        return None

    # ------------------------------------------------------------------ provenance
    def origin_calls(self, fi: int, scope: int, e: Expr, depth: int = 0) -> Tuple[List[Call], bool]:
        """Calls whose result ``e`` may be (through names, ``self`` attributes, parameters and
        project-function returns); the flag is False when some path ends elsewhere.

        Memoised per depth: a parameter with many call sites whose arguments are parameters
        again fans out exponentially (minutes on the standard library without it), and keying
        on the depth keeps the answer independent of the order questions are asked in."""
        if depth > 8:
            return [], False
        tag = e[0]
        if tag == "call":
            # a project function's result also comes from the calls it returns
            return [(fi, e[1])], True
        if tag == "unpack":
            return self._unpacked_origins(fi, e, depth)
        if tag not in ("name", "attr", "ifexp"):
            return [], False
        # Only these come from the facts, which live as long as this context, so their ids are
        # stable keys; parameter values assumed by the current question change the answer.
        key = (fi, scope, id(e), depth, self.p.hypothesis)
        hit = self._origins.get(key)
        if hit is None:
            calls, complete = self._origin_sources(fi, scope, e, depth)
            hit = self._origins[key] = (list(dict.fromkeys(calls)), complete)
        return list(hit[0]), hit[1]

    def _origin_sources(self, fi: int, scope: int, e: Expr, depth: int) -> Tuple[List[Call], bool]:
        tag = e[0]
        live: List[int] = []
        if tag == "name" and e[2]:
            facts = self.p.files[fi]
            # a binding in a branch the shipped values never take gives the name nothing
            # (`if args.model == "Transformer": output = model(data)` with the default LSTM)
            live = [aid for aid in e[2] if not self.program.paths.dead(fi, facts.assigns[aid].scope, facts.assigns[aid].stmt)]
            values = [facts.assigns[aid].value for aid in (live or e[2])]
            if any(v[0] == "unpack" for v in values):
                # `output, hidden = model(x)`: the element of what the callee returns
                found: List[Call] = []
                whole = True
                for v in values:
                    calls, ok = self._unpacked_origins(fi, v, depth + 1) if v[0] == "unpack" \
                        else self.origin_calls(fi, scope, v, depth + 1)
                    found += calls
                    whole = whole and ok
                return found, whole
        if tag in ("name", "attr"):
            if tag == "name" and e[2] and live and len(live) < len(e[2]):
                # only the bindings some path takes (`if loss_fn is None: loss_fn = Default()` where
                # every caller passes a loss); a fresh name expression is not a memo key here
                srcs = self.p.defining_exprs(fi, scope, ("name", e[1], tuple(live)))
            else:
                srcs = self.p.defining_exprs(fi, scope, e)
            if not srcs:
                return [], False
            acc: List[Call] = []
            complete = True
            for sfi, sscope, sexpr, _line, _via in srcs:
                if sexpr is None:
                    complete = False
                    continue
                calls, ok = self.origin_calls(sfi, sscope, sexpr, depth + 1)
                acc += calls
                complete = complete and ok
            return acc, complete
        a, ka = self.origin_calls(fi, scope, e[2], depth + 1)   # ifexp
        b, kb = self.origin_calls(fi, scope, e[3], depth + 1)
        return a + b, ka and kb

    def _unpacked_origins(self, fi: int, e: Expr, depth: int) -> Tuple[List[Call], bool]:
        """``output, hidden = model(x)``: element ``i`` of what the project function or network
        called returns, when every ``return`` of it is a tuple literal (the decoder's output
        of an RNN language model's ``forward``)."""
        src, index = e[1], e[2]
        if src[0] != "call" or not isinstance(index, int):
            return [], False
        elements = self.p.unpacked_elements(fi, src[1], index, only_tuples=True)
        if not elements:
            return [], False
        acc: List[Call] = []
        complete = True
        for efi, scope, element in elements:
            calls, ok = self.origin_calls(efi, scope, element, depth + 1)
            acc += calls
            complete = complete and ok
        return acc, complete

    def joined_at(self, fi: int, cid: int) -> Optional[Call]:
        """The first call (in file/line order) that joins the object created by call ``cid`` with
        objects of other lineages — a ``zip``/``concat`` whose API table entry says
        ``returns: derived-all`` — or None: where two datasets become one pipeline."""
        joins = self._built.get("joins")
        if joins is None:
            joins = {}
            for jfi, facts in enumerate(self.p.files):
                for name in ("zip", "concat"):
                    for jcid in facts.callee_index.get(name, ()):
                        origins = {v.origin for v in self.p.call_values(jfi, jcid) if isinstance(v, Obj)}
                        if len(origins) < 2:
                            continue
                        for o in sorted(origins):
                            here = joins.get(o)
                            if here is None or (jfi, facts.calls[jcid].line) < (here[0], self.p.files[here[0]].calls[here[1]].line):
                                joins[o] = (jfi, jcid)
            self._built["joins"] = joins
        return joins.get((fi, cid))

    def attribute_used_by(self, attr: str, pattern: CallPattern, fi: int, cid: int) -> bool:
        """Whether a call matching ``pattern`` takes ``<obj>.<attr>`` (``.data`` allowed) as its
        receiver or first argument, ``obj`` being the object call ``cid`` creates."""
        def operands(c: CallFact) -> List[Expr]:
            exprs: List[Expr] = [c.func[1]] if c.func[0] == "attr" else []
            exprs += [a.value for a in c.args[:1] if a.keyword is None and not a.star]
            return [e[1] for e in map(_strip_data, exprs) if e[0] == "attr" and e[2] == attr]

        return self._acts_on(("attr", id(pattern), attr), (fi, cid), pattern, operands)

    def result_used_by(self, pattern: CallPattern, fi: int, cid: int) -> bool:
        """Whether a call matching ``pattern`` acts on an object derived from call ``cid``'s result."""
        def operands(c: CallFact) -> List[Expr]:
            return ([c.func[1]] if c.func[0] == "attr" else []) + [a.value for a in c.args[:1]]

        return self._acts_on(("result", id(pattern)), (fi, cid), pattern, operands)

    def _acts_on(self, question: Tuple[Any, ...], origin: Call, pattern: CallPattern,
                 operands: Callable[[CallFact], List[Expr]]) -> bool:
        """Whether some call matching ``pattern`` has an operand (receiver or first argument, as
        ``operands`` picks them) whose value is the object call ``origin`` created (memoised;
        a question asked again while it is being answered is answered False). The operands of
        every candidate are evaluated once per question kind and indexed by the objects they
        may be, so each object's question reads its own few calls (the zoo asks thousands)."""
        key = question + origin
        hit = self._acts.get(key)
        if hit is not None:
            return hit
        self._acts[key] = False
        index = self._operand_index.get(question)
        if index is None:
            index = {}
            for gfi, gcid in self.all_candidates(pattern):
                c = self.p.files[gfi].calls[gcid]
                for e in operands(c):
                    for v in self.p.expand_params(self.p.values(gfi, c.scope, e)):
                        if isinstance(v, Obj):
                            sites = index.setdefault(v.origin, [])
                            if not sites or sites[-1] != (gfi, gcid):
                                sites.append((gfi, gcid))
            self._operand_index[question] = index
        found = any(self.match(pattern, gfi, gcid) is not None for gfi, gcid in index.get(origin, ()))
        self._acts[key] = found
        return found


def _strip_data(e: Expr) -> Expr:
    """``w.data`` → ``w`` (torch code initializes through ``.data``)."""
    while e[0] == "attr" and e[2] == "data":
        e = e[1]
    return e


def _call_of(value: Expr) -> Optional[int]:
    """The call id an assigned value comes from directly (``x = f()``, ``a, b = f()``)."""
    if value[0] == "call":
        return value[1]
    if value[0] == "unpack" and value[1][0] == "call":
        return value[1][1]
    return None


def _collect_loops(block: Sequence[Stmt], outer: Tuple[Stmt, ...], out: Dict[int, Tuple[Stmt, ...]]) -> None:
    for st in block:
        out[st[1]] = outer
        if st[0] in ("for", "while"):
            body = st[4] if st[0] == "for" else st[3]
            _collect_loops(body, outer + (st,), out)
            orelse = st[5] if st[0] == "for" else st[4]
            _collect_loops(orelse, outer, out)
        else:
            for b in child_blocks(st):
                _collect_loops(b, outer, out)


