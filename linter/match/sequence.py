"""Stage 5g: layer-order rules — where does a layer's output go first?

Starting from a layer (e.g. a conv without bias), its output is followed through whatever
consumes it:

* in a sequential container (``nn.SequentialCell([...])``, ``nn.Sequential(...)``,
  ``keras.Sequential([...])``, or a list built literally or with ``.append`` and passed to one):
  the next element, and after the last element the container's own consumers;
* in data flow: the layer stored in ``self.<attr>`` (directly or returned by a helper) is
  called in a method; the result is followed to the calls that use it (as an argument or
  as the receiver of a tensor method), through assignments and arithmetic, and through
  ``return`` into the instance calls of the cell.

A consumer matching ``not_followed_by`` ends the search silently, one matching ``until``
makes a finding; other framework layers and tensor methods pass the value on. A
project-defined layer, an unresolved call or a dead end makes the answer unknown, and
unknown is silent: only definite paths are reported.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from linter.compiler.build import CompiledRule, SequenceSpec
from linter.core.model import Finding
from linter.facts.ir import walk
from linter.facts.model import FileFacts
from linter.index.values import Cls, Func, Obj
from linter.match.context import MatchContext
from linter.match.findings import make_finding
from linter.match.severity import adjust
from linter.program.roles import _RUN_BY_INSTANCE

OK, BAD, UNKNOWN = "ok", "bad", "unknown"
Verdict = Tuple[str, str]
_MAX_DEPTH = 12


def _nested_calls(e: Any, out: List[int]) -> None:
    """Calls directly inside ``e`` through arithmetic and literals (not inside other calls)."""
    if not isinstance(e, tuple) or not e:
        return
    tag = e[0]
    if tag == "call":
        out.append(e[1])
    elif tag == "binop":
        _nested_calls(e[2], out)
        _nested_calls(e[3], out)
    elif tag == "unary":
        _nested_calls(e[2], out)
    elif tag == "ifexp":
        _nested_calls(e[2], out)
        _nested_calls(e[3], out)
    elif tag == "seq":
        for x in e[2]:
            _nested_calls(x, out)
    elif tag == "star":
        _nested_calls(e[1], out)


def _names_in(e: Any, out: List[Tuple[int, ...]]) -> None:
    """Reaching-definition sets of the names directly inside ``e`` (through arithmetic)."""
    if not isinstance(e, tuple) or not e:
        return
    tag = e[0]
    if tag == "name":
        out.append(e[2])
    elif tag == "binop":
        _names_in(e[2], out)
        _names_in(e[3], out)
    elif tag == "unary":
        _names_in(e[2], out)
    elif tag == "seq":
        for x in e[2]:
            _names_in(x, out)
    elif tag == "star":
        _names_in(e[1], out)


_CONTAINER_METHODS = ("append", "extend", "insert", "update", "setdefault", "add", "insert_child_to_cell")


class _FileIndex:
    """Per-file lookups: who consumes a call's result, and who uses a binding."""
    def __init__(self, facts: FileFacts) -> None:
        self.parent: Dict[int, int] = {}
        self.receiver_of: Dict[int, int] = {}
        self.assign_of: Dict[int, int] = {}
        self.uses: Dict[int, List[int]] = {}
        self.returned: Set[int] = set()
        self.returned_defs: Set[int] = set()
        self.rebound: Dict[int, List[int]] = {}
        for pid, c in enumerate(facts.calls):
            for a in c.args:
                inner: List[int] = []
                _nested_calls(a.value, inner)
                for x in inner:
                    self.parent.setdefault(x, pid)
                defs: List[Tuple[int, ...]] = []
                _names_in(a.value, defs)
                for ds in defs:
                    for d in ds:
                        self.uses.setdefault(d, []).append(pid)
            if c.func[0] == "attr":
                base = c.func[1]
                if base[0] == "call":
                    self.receiver_of.setdefault(base[1], pid)
                elif base[0] == "name":
                    for d in base[2]:
                        self.uses.setdefault(d, []).append(pid)
        for aid, asg in enumerate(facts.assigns):
            inner = []
            _nested_calls(asg.value, inner)
            for x in inner:
                self.assign_of.setdefault(x, aid)
            if asg.value[0] in ("binop", "unary", "name", "seq"):
                defs = []
                _names_in(asg.value, defs)
                for ds in defs:
                    for d in ds:
                        self.rebound.setdefault(d, []).append(aid)
        for f in facts.funcs:
            for st in walk(f.body):
                if st[0] == "return" and st[2] is not None:
                    inner = []
                    _nested_calls(st[2], inner)
                    self.returned.update(inner)
                    defs = []
                    _names_in(st[2], defs)
                    for ds in defs:
                        self.returned_defs.update(ds)


class _Sequence:
    def __init__(self, rule: CompiledRule, mc: MatchContext) -> None:
        self.rule = rule
        self.spec: SequenceSpec = rule.spec
        self.mc = mc
        self.p = mc.p
        self.idx: Dict[int, _FileIndex] = {}
        self._holders: Optional[Dict[Tuple[int, int], List[Tuple[int, int, str]]]] = None
        self._active: Set[Any] = set()

    def index(self, fi: int) -> _FileIndex:
        hit = self.idx.get(fi)
        if hit is None:
            hit = _FileIndex(self.p.files[fi])
            self.idx[fi] = hit
        return hit

    # ------------------------------------------------------------------ classification
    def consumer(self, fi: int, cid: int, depth: int) -> Verdict:
        """What happens when call ``cid`` consumes the value being followed."""
        for pat in self.spec.not_followed_by:
            if self.mc.match(pat, fi, cid) is not None:
                return OK, ""
        call = self.p.files[fi].calls[cid]
        names = self.p.call_names(fi, cid)
        for pat in self.spec.until:
            if self.mc.match(pat, fi, cid) is not None:
                shown = next((n for n in names if not n.startswith("?.")), names[0] if names else "?")
                return BAD, f"`{call.dotted or shown}` ({shown.replace('.__call__', '')}, line {call.line})"
        for pat in self.spec.output:
            if self.mc.match(pat, fi, cid) is not None:
                shown = next((n for n in names if not n.startswith("?.")), names[0] if names else "?")
                return BAD, f"the loss `{call.dotted or shown}` ({shown.replace('.__call__', '')}, line {call.line})"
        if not names:
            return UNKNOWN, ""
        head = names[0]
        if head.startswith("?."):
            # a method of the tensor itself (reshape, transpose, ...) passes the value on
            if call.func[0] == "attr":
                return self.follow_call(fi, cid, depth + 1)
            return UNKNOWN, ""
        if self.p.apis.framework_of(head) is None:
            return UNKNOWN, ""  # a project-defined layer or helper: cannot tell
        if self.p.apis.callable_kind(names) == "sequential":
            return UNKNOWN, ""
        return self.follow_call(fi, cid, depth + 1)

    # ------------------------------------------------------------------ following values
    def follow_call(self, fi: int, cid: int, depth: int) -> Verdict:
        """Where the result of call ``cid`` goes first."""
        if depth > _MAX_DEPTH:
            return UNKNOWN, ""
        key = ("call", fi, cid)
        if key in self._active:
            return UNKNOWN, ""
        self._active.add(key)
        try:
            idx = self.index(fi)
            parent = idx.parent.get(cid)
            if parent is not None:
                if self.p.apis.callable_kind(self.p.call_names(fi, parent)) == "sequential":
                    return self.in_container(fi, cid, depth) or (UNKNOWN, "")
                return self.consumer(fi, parent, depth)
            recv = idx.receiver_of.get(cid)
            if recv is not None:
                return self.consumer(fi, recv, depth)
            aid = idx.assign_of.get(cid)
            if aid is not None:
                return self.follow_def(fi, aid, depth)
            if cid in idx.returned:
                return self.follow_return(fi, self.p.files[fi].calls[cid].scope, depth)
            return UNKNOWN, ""
        finally:
            self._active.discard(key)

    def follow_def(self, fi: int, aid: int, depth: int) -> Verdict:
        if depth > _MAX_DEPTH:
            return UNKNOWN, ""
        idx = self.index(fi)
        facts = self.p.files[fi]
        a = facts.assigns[aid]
        if a.target[0] != "name":
            return UNKNOWN, ""
        uses = sorted(set(idx.uses.get(aid, ())))
        rebinds = [r for r in idx.rebound.get(aid, ()) if r != aid]
        first_use = (facts.calls[uses[0]].stmt, uses[0]) if uses else None
        first_rebind = (facts.assigns[rebinds[0]].stmt, rebinds[0]) if rebinds else None
        if first_use is not None and (first_rebind is None or first_use[0] <= first_rebind[0]):
            return self.consumer(fi, first_use[1], depth)
        if first_rebind is not None:
            return self.follow_def(fi, first_rebind[1], depth + 1)
        if aid in idx.returned_defs:
            return self.follow_return(fi, a.scope, depth)
        return UNKNOWN, ""

    def follow_return(self, fi: int, scope: int, depth: int) -> Verdict:
        """The value leaves a function: follow it at the function's call sites."""
        f = Func(fi, scope)
        sites = [(cfi, cid) for cfi, cid, _ in self.p.callers(f)] + self.p.instance_callers(f)
        if not sites:
            return self._network_output(fi, scope)
        verdicts = [self.follow_call(cfi, cid, depth + 1) for cfi, cid in sorted(set(sites))]
        return _combine(verdicts)

    def _network_output(self, fi: int, scope: int) -> Verdict:
        """A value returned by the ``construct``/``forward`` of a cell that is built but never
        called by the project — the framework runs it: the network's output."""
        f = self.p.files[fi].funcs[scope]
        if not self.spec.output or f.kind != "method" or f.cls < 0 or f.name not in _RUN_BY_INSTANCE:
            return UNKNOWN, ""
        built = self.mc.roles.constructions(Cls(fi, f.cls))
        if not built or any(self._handed_on(cfi, ccid) for cfi, ccid in built):
            return UNKNOWN, ""
        qual = self.p.files[fi].funcs[scope].qualname
        return BAD, f"the network's output (returned by `{qual}`)"

    def _handed_on(self, fi: int, cid: int) -> bool:
        """The cell built by call ``cid`` goes into a container — ``blocks["conv2_1"] = Block(...)``,
        ``layers.append(Block(...))``, an element of a list or a ``SequentialCell``: another cell
        runs it, in an order this rule may not see (DPN's ``OrderedDict`` of blocks), so what its
        ``construct`` returns is not the network's output."""
        facts = self.p.files[fi]
        parent = self.index(fi).parent.get(cid)
        if parent is not None:
            pc = facts.calls[parent]
            if pc.func[0] == "attr" and pc.func[2] in _CONTAINER_METHODS:
                return True
            if self.p.apis.callable_kind(self.p.call_names(fi, parent)) == "sequential" or \
                    any(n.startswith(("mindspore.nn.Cell", "collections.OrderedDict", "builtins.dict", "builtins.list"))
                        for n in self.p.call_names(fi, parent)):
                return True
        aid = self.index(fi).assign_of.get(cid)
        if aid is not None and facts.assigns[aid].target[0] == "subscript":
            return True
        return any(a.value[0] == "seq" and ("call", cid) in a.value[2] for a in facts.assigns
                   if a.scope == facts.calls[cid].scope)

    # ------------------------------------------------------------------ containers
    def in_container(self, fi: int, cid: int, depth: int) -> Optional[Verdict]:
        idx = self.index(fi)
        facts = self.p.files[fi]
        parent = idx.parent.get(cid)
        elements: Optional[List[Any]] = None
        container: Optional[int] = None
        if parent is not None and self.p.apis.callable_kind(self.p.call_names(fi, parent)) == "sequential":
            elements = self._elements(facts.calls[parent].args)
            container = parent
        else:
            aid = idx.assign_of.get(cid)
            if aid is not None:
                a = facts.assigns[aid]
                if a.value[0] == "seq" and a.target[0] == "name":
                    container = self._sequential_user(fi, aid)
                    if container is not None:
                        elements = list(a.value[2])
            if elements is None:
                found = self._append_chain(fi, cid)
                if found is not None:
                    elements, container = found
        if elements is None:
            return None
        for i, e in enumerate(elements):
            if e[0] == "call" and e[1] == cid:
                for nxt in elements[i + 1:]:
                    if nxt[0] != "call":
                        return UNKNOWN, ""
                    verdict = self._element(fi, nxt[1])
                    if verdict is not None:
                        return verdict
                # past the last element: the container's own output
                return self.follow_call(fi, container, depth + 1) if container is not None else (UNKNOWN, "")
        return None

    def _element(self, fi: int, cid: int) -> Optional[Verdict]:
        """A container element: a verdict, or None when it passes the value on."""
        for pat in self.spec.not_followed_by:
            if self.mc.match(pat, fi, cid) is not None:
                return OK, ""
        for pat in self.spec.until:
            if self.mc.match(pat, fi, cid) is not None:
                call = self.p.files[fi].calls[cid]
                names = self.p.call_names(fi, cid)
                return BAD, f"`{call.dotted or names[0]}` ({names[0]}, line {call.line})"
        names = self.p.call_names(fi, cid)
        if not names or names[0].startswith("?.") or self.p.apis.framework_of(names[0]) is None:
            return UNKNOWN, ""
        return None

    def _elements(self, args: Sequence[Any]) -> List[Any]:
        if len(args) == 1 and args[0].value[0] == "seq":
            return list(args[0].value[2])
        return [a.value for a in args]

    def _sequential_user(self, fi: int, aid: int) -> Optional[int]:
        for pid in self.index(fi).uses.get(aid, ()):
            if self.p.apis.callable_kind(self.p.call_names(fi, pid)) == "sequential":
                return pid
        return None

    def _append_chain(self, fi: int, cid: int) -> Optional[Tuple[List[Any], int]]:
        """``layers.append(conv); layers.append(relu)`` → the appended elements, in order."""
        facts = self.p.files[fi]
        parent = self.index(fi).parent.get(cid)
        if parent is None:
            return None
        pc = facts.calls[parent]
        if pc.func[0] != "attr" or pc.func[2] != "append" or pc.func[1][0] != "name":
            return None
        lst = pc.func[1][1]
        defs = set(pc.func[1][2])
        chain: List[Any] = []
        for c in facts.calls:
            if c.scope == pc.scope and c.func[0] == "attr" and c.func[2] == "append" and c.func[1][0] == "name" \
                    and c.func[1][1] == lst and set(c.func[1][2]) & defs and c.args:
                chain.append(c.args[0].value)
        for d in sorted(defs):
            user = self._sequential_user(fi, d)
            if user is not None:
                return chain, user
        return None

    # ------------------------------------------------------------------ layer objects
    def holders(self) -> Dict[Tuple[int, int], List[Tuple[int, int, str]]]:
        """origin of a layer object → (file, class, attribute) holding it as ``self.<attr>``."""
        if self._holders is None:
            out: Dict[Tuple[int, int], List[Tuple[int, int, str]]] = {}
            for fi, facts in enumerate(self.p.files):
                for ci, c in enumerate(facts.classes):
                    for attr, ids in c.attrs.items():
                        for aid in ids:
                            a = facts.assigns[aid]
                            if a.value[0] != "call":
                                continue
                            for v in self.p.values(fi, a.scope, a.value):
                                if isinstance(v, Obj):
                                    out.setdefault(v.origin, []).append((fi, ci, attr))
            self._holders = out
        return self._holders

    def layer_verdict(self, fi: int, cid: int) -> Verdict:
        found = self.in_container(fi, cid, 0)
        if found is not None:
            return found
        verdicts: List[Verdict] = []
        for hfi, ci, attr in self.holders().get((fi, cid), ()):
            facts = self.p.files[hfi]
            for m in facts.classes[ci].methods.values():
                f = facts.funcs[m]
                if not f.params:
                    continue
                for ucid, c in enumerate(facts.calls):
                    if c.scope == m and c.func[0] == "attr" and c.func[2] == attr and c.func[1][0] == "name" \
                            and c.func[1][1] == f.params[0].name:
                        verdicts.append(self.follow_call(hfi, ucid, 0))
        return _combine(verdicts)


def _combine(verdicts: List[Verdict]) -> Verdict:
    """Definite only when every path agrees: any OK or UNKNOWN path makes it silent."""
    if not verdicts:
        return UNKNOWN, ""
    if any(v == OK for v, _ in verdicts):
        return OK, ""
    if any(v == UNKNOWN for v, _ in verdicts):
        return UNKNOWN, ""
    return BAD, verdicts[0][1]


def run_sequence_rule(rule: CompiledRule, mc: MatchContext, files: Sequence[int], lang: str) -> List[Finding]:
    spec: SequenceSpec = rule.spec
    seq = _Sequence(rule, mc)
    out: List[Finding] = []
    for fi, cid in mc.candidates(spec.layer, files):
        site = mc.match(spec.layer, fi, cid, framework=rule.framework)
        if site is None:
            continue
        verdict, nxt = seq.layer_verdict(fi, cid)
        if verdict != BAD:
            continue
        call = site.call
        data = dict(site.data)
        data["callee"] = call.dotted or site.qual
        data["next"] = nxt
        severity, note = None, ""
        if rule.severity_if:

            severity, note = adjust(rule, mc, lang, fi, (), site)
        out.append(make_finding(rule, mc.p.files[fi].path, (call.line, call.column, call.end_line, call.end_column), data, lang,
                                severity=severity, note=note))
    return out
