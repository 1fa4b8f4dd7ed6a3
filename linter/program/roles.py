"""Stage 3c: the program model — entry scripts, what each program really does (training,
evaluation, inference, export, data preparation, conversion), reachability, and whether a
data pipeline is built for training — all from ``rules/roles.yaml``.

A program is an entry script with everything it reaches. Its roles come from evidence: the
calls it reaches (a parameter update makes it a training program); file names only break
ties. Every role keeps the call that decided it, for messages and for ``audit``.

Reachability is answered backwards: from the few calls a question is about, through the
call sites of their enclosing functions, up to the module code of entry scripts. That
touches only the functions on those paths instead of resolving every call of a project.
A ``construct``/``forward``/``call`` method (or any method nobody calls by name, such as a
callback hook) runs where its instances are called or, failing that, built.
"""
from __future__ import annotations

import os
import re
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from linter.core.globs import GlobSet, Regex
from linter.core.graphs import components
from linter.facts.ir import child_blocks, sub_exprs, walk
from linter.facts.model import Expr, Stmt
from linter.index.values import Bound, Cls, Func

if TYPE_CHECKING:   # annotations only: the packs' RoleSpec is unpickled without the program model
    from linter.index.project import Project

TRAINING = "training"
EVALUATION = "evaluation"
INFERENCE = "inference"
EXPORT = "export"
_NAMED_ONLY = ("evaluation", "inference", "export")
"""Roles a file name may give a program that reaches no step of any role (never training)."""

Site = Tuple[int, int]
"""(file index, scope index): a function (or module body when scope is 0)."""


class RoleSpec:
    """The compiled contents of ``roles.yaml``."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.steps: Dict[str, GlobSet] = {}
        """Every call that performs (part of) a role: for training, updates, gradients and untyped updates."""
        self.file_names: Dict[str, Regex] = {}
        self.updates = GlobSet(())
        self.gradients = GlobSet(())
        self.untyped_updates = GlobSet(())
        self.optimizers = GlobSet(())
        """Classes whose construction takes the parameters they update (first argument)."""
        self.parameter_methods: FrozenSet[str] = frozenset()
        """Methods/properties that read a network's parameters (``trainable_params``)."""
        for role, spec in (data.get("roles") or {}).items():
            if role == TRAINING:
                self.updates = GlobSet(spec.get("updates", ()))
                self.gradients = GlobSet(spec.get("gradients", ()))
                self.untyped_updates = GlobSet(spec.get("untyped_updates", ()))
                self.optimizers = GlobSet(spec.get("optimizers", ()))
                self.parameter_methods = frozenset(spec.get("parameters", ()))
                self.steps[role] = GlobSet(tuple(spec.get("updates", ())) + tuple(spec.get("gradients", ()))
                                           + tuple(spec.get("untyped_updates", ())) + tuple(spec.get("steps", ())))
            else:
                self.steps[role] = GlobSet(spec.get("steps", ()))
            if spec.get("file_names"):
                self.file_names[role] = Regex(spec["file_names"], re.I)
        words = data.get("words") or {}
        self.train_words = Regex(words.get("training", r"(^|_)train(_|$)"), re.I)
        self.eval_words = Regex(words.get("evaluation", r"(^|_)(eval|val|test)(_|$)"), re.I)
        flags = data.get("flags") or {}
        self.train_flags = frozenset(flags.get("training_bool", ()))
        self.eval_flags = frozenset(flags.get("evaluation_bool", ()))
        self.split_flags = frozenset(flags.get("split_string", ()))
        self.train_values = frozenset(flags.get("training_values", ()))
        self.eval_values = frozenset(flags.get("evaluation_values", ()))
        self.split_keywords = Regex(flags.get("split_keywords", "^$"), re.I)


class Roles:
    _TRANSIENT = ("_passing",)
    """Cycle guards, empty between questions; every answer lives in the project's store."""

    def __init__(self, project: Project, spec: RoleSpec) -> None:
        self.p = project
        self.spec = spec
        self._reach: Dict[Tuple[int, int, bool], FrozenSet[int]] = self.p.store.table("roles.reach")
        self._step_sites: Dict[str, List[Tuple[int, int]]] = self.p.store.table("roles.step_sites")
        self._leads: Dict[str, Set[Site]] = self.p.store.table("roles.leads")
        self._step_fws: Dict[str, Dict[int, Set[str]]] = self.p.store.table("roles.step_fws")
        self._guards: Dict[Site, Dict[int, Tuple[Tuple[Expr, bool], ...]]] = self.p.store.table("roles.guards")
        self._targets: Dict[int, Dict[int, Tuple[str, ...]]] = self.p.store.table("roles.targets")
        self._ctx: Dict[Tuple[str, int, int], Dict[str, str]] = self.p.store.table("roles.ctx")
        self._programs: Dict[int, Dict[str, Tuple[int, int]]] = self.p.store.table("roles.programs")
        self._closures: Dict[int, FrozenSet[int]] = self.p.store.table("roles.closures")
        self._constructed: Dict[Tuple[int, int], FrozenSet[Tuple[int, int]]] = self.p.store.table("roles.constructed")
        self._caller_stmts: Dict[Site, List[Tuple[int, int, int]]] = self.p.store.table("roles.caller_stmts")
        self._read_index: Dict[Site, Dict[int, List[int]]] = self.p.store.table("roles.read_index")
        self._scope_names: Dict[int, Dict[int, Set[str]]] = self.p.store.table("roles.scope_names")
        self._selects: Dict[Tuple[int, int, int], Optional[FrozenSet[Any]]] = self.p.store.table("roles.selects")
        self._passers: Dict[Tuple[int, int, str, Any], bool] = self.p.store.table("roles.passers")
        self._passing: Set[Tuple[int, int, str, Any]] = set()
        """Questions being answered (a cycle guard, empty between questions)."""
        self._built: Dict[str, Any] = self.p.store.table("roles.built")
        """Indexes built once, on the first question that needs them."""
        self.paths: Any = None
        """The path conditions of this project's programs (:class:`linter.program.paths.PathConditions`),
        which this reachability asks which branches are dead; attached by the program model
        (:class:`linter.program.model.ProgramModel`), which builds both."""

    # ------------------------------------------------------------------ words

    def word_role(self, name: str) -> Optional[str]:
        """``train_loader`` → training, ``val_ds`` → evaluation, ``loader`` → None."""
        n = name.lower()
        t = bool(self.spec.train_words.search(n))
        e = bool(self.spec.eval_words.search(n))
        if t and not e:
            return TRAINING
        if e and not t:
            return EVALUATION
        return None

    # ------------------------------------------------------------------ entries
    def imported_files(self) -> Set[int]:
        if self._built.get("imported") is None:
            out: Set[int] = set()
            p = self.p
            for fi, facts in enumerate(p.files):
                for imp in facts.imports:
                    t = p.file_of(fi, imp.module, imp.level)
                    if t is not None and t >= 0:
                        out.add(t)
                        if imp.name and imp.name != "*":
                            sub = p.modmap.submodule(p.abspaths[t], imp.name, p._exists)
                            if sub is not None and sub in p.by_abspath:
                                out.add(p.by_abspath[sub])
            self._built["imported"] = out
        return self._built["imported"]

    def entries(self) -> List[int]:
        """Scripts: a ``__main__`` guard, or — when no project file imports it — module code
        that does something (a call statement, a loop, a ``with`` block). Library modules
        that only assign at module level (``_grad_scale = MultitypeFuncGraph(...)``) are not
        scripts, whatever their name."""
        if self._built.get("entries") is None:
            imported = self.imported_files()
            out = []
            for fi, facts in enumerate(self.p.files):
                base = os.path.basename(facts.path)
                if base == "__init__.py" or base.startswith("test_") or base == "conftest.py":
                    continue
                if facts.has_main_guard:
                    out.append(fi)
                elif fi not in imported and _acts_at_module_level(self.p, fi):
                    out.append(fi)
            self._built["entries"] = out
        return self._built["entries"]

    def import_closure(self, fi: int) -> FrozenSet[int]:
        """``fi`` and the project files it imports, transitively (memoised)."""
        hit = self._closures.get(fi)
        if hit is not None:
            return hit
        p = self.p
        out = {fi}
        todo = [fi]
        while todo:
            cur = todo.pop()
            for imp in p.files[cur].imports:
                for module, level in ((imp.module, imp.level),
                                      ((imp.module + "." if imp.module else "") + (imp.name or ""), imp.level)):
                    if not module:
                        continue
                    t = p.file_of(cur, module, level)
                    if t is not None and t >= 0 and t not in out:
                        out.add(t)
                        todo.append(t)
        result = frozenset(out)
        self._closures[fi] = result
        return result

    def importing_entries(self, fi: int) -> FrozenSet[int]:
        """Entry scripts whose import closure holds ``fi`` (whose module code runs ``fi``'s)."""
        if self._built.get("importers") is None:
            acc: Dict[int, Set[int]] = {}
            for e in self.entries():
                for f in self.import_closure(e):
                    acc.setdefault(f, set()).add(e)
            self._built["importers"] = {f: frozenset(es) for f, es in acc.items()}
        return self._built["importers"].get(fi, frozenset())

    def call_entries(self, fi: int, cid: int) -> FrozenSet[int]:
        """Entry scripts that run call ``cid`` of file ``fi``: none when it sits in a branch no
        path takes; only the file itself under its ``if __name__ == "__main__":``."""
        call = self.p.files[fi].calls[cid]
        if self.paths.dead_call(fi, cid):
            return frozenset()
        if call.scope == 0 and self.main_guarded(fi, call.stmt):
            return frozenset((fi,)) if fi in self._entry_set() else frozenset()
        return self.reaching_entries(fi, call.scope)

    def main_guarded(self, fi: int, stmt: int) -> bool:
        """Module statement ``stmt`` of file ``fi`` sits under ``if __name__ == "__main__":``
        (it runs when the file is the script, not when another script imports it)."""
        if stmt < 0:
            return False
        for test, positive in self.guards(fi, 0).get(stmt, ()):
            if positive and test[0] == "compare" and len(test[1]) == 1 and test[1][0] == "==" and \
                    any(x[0] == "name" and x[1] == "__name__" for x in test[2]):
                return True
        return False

    def _entry_set(self) -> FrozenSet[int]:
        if self._built.get("entries_set") is None:
            self._built["entries_set"] = frozenset(self.entries())
        return self._built["entries_set"]

    def in_program_tree(self, fi: int) -> bool:
        """Whether an entry script of the run lives in ``fi``'s folder or above it: then the
        programs that could run ``fi``'s code are known, and code none of them reaches is dead."""
        if self._built.get("entry_dirs") is None:
            self._built["entry_dirs"] = frozenset(os.path.dirname(self.p.abspaths[e]) for e in self.entries())
        d = os.path.dirname(self.p.abspaths[fi])
        while True:
            if d in self._built["entry_dirs"]:
                return True
            parent = os.path.dirname(d)
            if parent == d:
                return False
            d = parent

    def name_roles(self, fi: int) -> Set[str]:
        base = os.path.splitext(os.path.basename(self.p.files[fi].path))[0]
        return {role for role, rx in self.spec.file_names.items() if rx.search(base)}

    def step_sites(self, role: str) -> List[Tuple[int, int]]:
        """Every call in the project that performs a step of ``role``."""
        return self.p.memo(self._step_sites, role, lambda: self._step_sites_uncached(role))

    def _step_sites_uncached(self, role: str) -> List[Tuple[int, int]]:
        globs = self.spec.steps.get(role)
        out: List[Tuple[int, int]] = []
        if globs:
            for fi, facts in enumerate(self.p.files):
                if globs.scan_all:
                    ids: Iterable[int] = range(len(facts.calls))  # instance calls: any callee name
                else:
                    ids = sorted({cid for key in globs.keys_in(facts.callee_index) for cid in facts.callee_index[key]})
                for cid in ids:
                    if globs.any(self.p.call_names(fi, cid)):
                        out.append((fi, cid))
        return out

    def reaching_entries(self, fi: int, scope: int, strict: bool = False) -> FrozenSet[int]:
        """Entry scripts whose module code reaches function ``scope`` of file ``fi`` (the
        whole caller graph is walked, cycles cut, so the answer is exact for the question).
        ``strict``: a ``construct``/``forward`` counts only where its instances are called, not
        where they are built — building a train-one-step cell is not training with it."""
        return self.p.memo(self._reach, (fi, scope, strict), lambda: self._reaching(fi, scope, strict))

    def _reaching(self, fi: int, scope: int, strict: bool) -> FrozenSet[int]:
        """The entries reaching function ``scope`` of file ``fi``, over the caller graph: the
        functions that call it, their callers, up to module code (the entries importing its
        file) and ``__main__`` blocks (that script). Every function of a strongly connected
        group of callers (mutual recursion: a library's modules calling one another) is reached
        by the same entries, so the graph is walked once, group by group (Tarjan), and every
        function met is memoised: a path-by-path walk cost exponential time on a large library."""
        def successors(site: Site) -> Tuple[List[Site], Set[int]]:
            """(the callers' functions, the entries reached directly)."""
            sfi, sscope = site
            if sscope == 0:
                return [], set(self.importing_entries(sfi))
            f = self.p.files[sfi].funcs[sscope]
            if f.kind == "class":
                return [(sfi, f.parent)], set()
            callers = self.caller_statements(sfi, sscope, strict)
            nxt = sorted({(c[0], c[1]) for c in callers if not (c[1] == 0 and self.main_guarded(c[0], c[2]))})
            direct = {c[0] for c in callers if c[1] == 0 and self.main_guarded(c[0], c[2]) and c[0] in self._entry_set()}
            return nxt, direct

        def known(site: Site) -> Optional[FrozenSet[int]]:
            return self._reach.get((site[0], site[1], strict))

        root: Site = (fi, scope)
        hit = known(root)
        if hit is not None:
            return hit
        edges: Dict[Site, Tuple[List[Site], Set[int]]] = {}

        def callers_of(site: Site) -> List[Site]:
            edges[site] = successors(site)
            return edges[site][0]

        # a group completes after every group it reaches, whose answers are then known
        for group in components([root], callers_of, skip=lambda w: known(w) is not None):
            members = set(group)
            acc: Set[int] = set()
            for member in group:
                nxt, direct = edges[member]
                acc |= direct
                for w in nxt:
                    if w not in members:
                        acc |= known(w) or frozenset()
            result = frozenset(acc)
            for member in group:
                self._reach[(member[0], member[1], strict)] = result
        return known(root) or frozenset()

    def caller_statements(self, fi: int, scope: int, strict: bool = False) -> List[Tuple[int, int, int]]:
        """(file, function, statement) of every place that runs function ``scope`` of file
        ``fi``: its call sites under any name (aliases, instance calls), for a method nobody
        calls by name or a ``construct``/``forward`` the constructions of its class (the
        framework calls it), and for closures and lambdas the function defining them
        (statement -1: they run where they are passed)."""
        return self.p.memo(self._caller_stmts, (fi, scope, strict), lambda: self._caller_statements(fi, scope, strict))

    def _caller_statements(self, fi: int, scope: int, strict: bool) -> List[Tuple[int, int, int]]:
        p = self.p
        f = p.files[fi].funcs[scope]
        me = Func(fi, scope)
        calls = {(cfi, cid) for cfi, cid, _ in p.callers(me)}
        calls.update(p.resolved_callers(me))   # aliases, instance calls
        calls = {c for c in calls if self._named_by_live_binding(c[0], c[1], me)}
        refs: Set[Tuple[int, int, int]] = set(self.references(me))
        if f.kind == "method" and f.cls >= 0 and not (strict and f.name in _RUN_BY_INSTANCE) and \
                (not calls or f.name in _RUN_BY_INSTANCE or f.name == "__init__"):
            # called by the framework (Model.train runs construct, callbacks run their hooks)
            # or through a name we cannot see: it runs where an instance is built — or where
            # the class is handed on as a value (a registry `{"resnet": ResNet}`)
            cls = Cls(fi, f.cls)
            calls.update(c for c in self.constructions(cls) if self._named_by_live_binding(c[0], c[1], cls))
            refs.update(self.references(cls))
        dead = self.paths.dead
        out = sorted({(cfi, p.files[cfi].calls[cid].scope, p.files[cfi].calls[cid].stmt) for cfi, cid in calls}
                     | refs)
        out = [c for c in out if not dead(*c)]
        if f.kind == "lambda" or f.parent > 0 and p.files[fi].funcs[f.parent].kind != "class":
            out.append((fi, f.parent, -1))
        return out

    def _named_by_live_binding(self, cfi: int, cid: int, target: Any) -> bool:
        """Whether call ``cid`` may call ``target`` through a module-level binding of its name
        that some path makes: ``resnet(...)`` after ``if config.net_name == "resnet18": from
        src.resnet import resnet18 as resnet`` / ``elif ...: ... resnet50 as resnet`` calls only
        the builder the shipped configuration selects (module or function bindings alike).
        Calls whose bindings are all live (or all dead: the call is then judged by its own
        statement) keep the edge."""
        p = self.p
        facts = p.files[cfi]
        e = facts.calls[cid].func
        if e[0] != "name":
            return True
        name = e[1]
        scope = facts.calls[cid].scope
        s = scope
        while s > 0 and not (facts.funcs[s].kind != "class" and facts.funcs[s].defs.get(name)):
            s = facts.funcs[s].parent   # the innermost function (or the module) binding the name
        ids = facts.funcs[s].defs.get(name) or ()
        if s > 0 and ids and all(facts.assigns[d].value[0] == "param" for d in ids):
            # `block(...)` with `block` a parameter: the class or function comes from the
            # callers, and only those some program runs hand it on
            return self._passed_by_live_site(cfi, s, name, target, 0)
        if len(ids) < 2:
            return True
        dead = self.paths.dead
        live = [d for d in ids if not dead(cfi, s, facts.assigns[d].stmt)]
        if not live or len(live) == len(ids):
            return True
        vals: Set[Any] = set()
        for d in live:
            vals |= p.binding_values(cfi, d)
        return target in vals or not any(isinstance(v, (Func, Cls)) for v in vals)

    def _passed_by_live_site(self, fi: int, scope: int, name: str, target: Any, depth: int) -> bool:
        """Whether some call that a program runs passes ``target`` to parameter ``name`` of
        function ``scope`` — directly, or through a parameter of its own caller (``ResNet(
        Bottleneck1, ...)`` in a builder no entry calls does not build ``Bottleneck1`` in
        ``_make_layer``'s ``block(...)``). True when the question cannot be answered: the value
        comes another way, the chain is deep, or it is being answered further up (a cycle)."""
        key = (fi, scope, name, target)
        hit = self._passers.get(key)
        if hit is not None:
            return hit
        if depth > 4 or key in self._passing:
            return True
        self._passing.add(key)
        try:
            out = self._passed_uncached(fi, scope, name, target, depth)
        finally:
            self._passing.discard(key)
        self._passers[key] = out
        return out

    def _passed_uncached(self, fi: int, scope: int, name: str, target: Any, depth: int) -> bool:
        p = self.p
        wanted = {target}
        if isinstance(target, Func):
            tf = p.files[target.file].funcs[target.index]
            if tf.kind == "method" and tf.cls >= 0:
                wanted.add(Cls(target.file, tf.cls))   # `block(...)` runs the class's __init__
        found = False
        for cfi, cid, bound in p.callers(Func(fi, scope)):
            a = bound.get(name)
            if a is None:
                continue
            cscope = p.files[cfi].calls[cid].scope
            if not wanted & p.expand_params(p.values(cfi, cscope, a.value)):
                continue
            found = True
            if self.paths.dead_call(cfi, cid):
                continue
            cf = p.files[cfi].funcs[cscope]
            if a.value[0] == "name" and cscope > 0 and any(x.name == a.value[1] for x in cf.params) and \
                    all(p.files[cfi].assigns[d].value[0] == "param" for d in cf.defs.get(a.value[1], ())):
                if self._passed_by_live_site(cfi, cscope, a.value[1], target, depth + 1):
                    return True
                continue
            if not self.in_program_tree(cfi) or self.reaching_entries(cfi, cscope):
                return True
        return not found

    def references(self, v: Any) -> List[Tuple[int, int, int]]:
        """(file, function, statement) where project function or class ``v`` (or a subclass)
        is used as a value rather than called — stored in a registry dict, passed as a
        callback, decorated by a registering decorator: it may run from there."""
        p = self.p
        if isinstance(v, Func):
            f = p.files[v.file].funcs[v.index]
            names = [(f.name, v)]
        else:
            names = [(p.files[k.file].classes[k.index].name, k) for k in [v] + p.subclasses(v)]
        if self._built.get("refs") is None:
            self._built["refs"] = _reference_index(p)
        out: Set[Tuple[int, int, int]] = set()
        for name, target in names:
            for rfi, rscope, stmt, e, key in self._built["refs"].get(name, ()):
                if e is None:
                    # a decorated definition: `@register_model def resnet50(...)`
                    if (rfi, rscope, stmt) == _definition(p, target):
                        out.add((rfi, rscope, stmt))
                elif target in p.values(rfi, rscope, e):
                    selected = self._registry_keys(rfi, rscope, stmt) if key is not None else None
                    if selected is None or key in selected:
                        out.add((rfi, rscope, stmt))
        return sorted(out)

    def _registry_keys(self, fi: int, scope: int, stmt: int) -> Optional[FrozenSet[Any]]:
        """The keys a registry dict built at statement ``stmt`` is ever looked up with, when
        every use of it is a lookup by known constants (``dict_lwnet()[config.model_name]``
        with ``model_name: LWNet_3`` in every shipped configuration; ``models = {...}`` then
        ``models[args.arch]`` only when ``arch`` is decided); None when any use is something
        else (iterated, passed on, looked up by an unknown key): every entry may run."""
        k = (fi, scope, stmt)
        if k not in self._selects:
            self._selects[k] = None   # a cycle through the lookups' values: every entry may run
            self._selects[k] = self._registry_keys_uncached(fi, scope, stmt)
        return self._selects[k]

    def _registry_keys_uncached(self, fi: int, scope: int, stmt: int) -> Optional[FrozenSet[Any]]:
        p = self.p
        facts = p.files[fi]
        names = [a.target[1] for a in facts.assigns
                 if a.stmt == stmt and a.scope == scope and a.target[0] == "name" and a.value[0] == "dict"]
        returned = any(st[0] == "return" and st[1] == stmt for st in walk(facts.funcs[scope].body)) if scope else False
        lookups: List[Tuple[int, int, Any]] = []      # (file, scope, key expression)
        if len(names) == 1:
            name = names[0]
            uses, subs = self._lookup_index().get((fi, scope), ({}, []))
            mine = [(fi, scope, key) for base, key in subs if base == ("name", name, base[2] if len(base) > 2 else ())
                    or (base[0] == "name" and base[1] == name)]
            if uses.get(name, 0) > len(mine):
                # used otherwise too: returned by its function (a registry accessor) or passed on
                if scope and any(st[0] == "return" and st[2] is not None and st[2][0] == "name" and st[2][1] == name
                                 for st in walk(facts.funcs[scope].body)) and uses.get(name, 0) == len(mine) + 1:
                    more = self._accessor_lookups(fi, scope)
                    if more is None:
                        return None
                    mine += more
                else:
                    return None
            lookups = mine
        elif returned:
            more = self._accessor_lookups(fi, scope)
            if more is None:
                return None
            lookups = more
        else:
            return None
        if not lookups:
            return None
        keys: Set[Any] = set()
        for lfi, lscope, kexpr in lookups:
            vals, known = p.constants(lfi, lscope, kexpr)
            if not known or not vals:
                return None
            keys.update(v.value for v in vals if isinstance(v.value, (str, int)))
        return frozenset(keys)

    def _accessor_lookups(self, fi: int, scope: int) -> Optional[List[Tuple[int, int, Any]]]:
        """The lookups on the result of every call of registry accessor ``scope`` (a function
        returning the dict); None when a call's result is used in another way."""
        p = self.p
        out: List[Tuple[int, int, Any]] = []
        sites = {(cfi, cid) for cfi, cid, _ in p.callers(Func(fi, scope))} | set(p.resolved_callers(Func(fi, scope)))
        if not sites:
            return None
        index = self._lookup_index()
        for cfi, cid in sorted(sites):
            cscope = p.files[cfi].calls[cid].scope
            _uses, subs = index.get((cfi, cscope), ({}, []))
            keys = [key for base, key in subs if base[0] == "call" and base[1] == cid]
            if not keys:
                return None
            out += [(cfi, cscope, key) for key in keys]
        return out

    def _lookup_index(self) -> Dict[Tuple[int, int], Tuple[Dict[str, int], List[Tuple[Any, Any]]]]:
        """(file, function) → (name → number of value uses, [(base, key) of each subscript]),
        callee expressions included (``models[name](...)``)."""
        if self._built.get("lookups") is not None:
            return self._built["lookups"]
        out: Dict[Tuple[int, int], Tuple[Dict[str, int], List[Tuple[Any, Any]]]] = {}
        for fi, facts in enumerate(self.p.files):
            def visit(e: Any, scope: int, depth: int = 0) -> None:
                if not isinstance(e, tuple) or not e or depth > 30:
                    return
                uses, subs = out.setdefault((fi, scope), ({}, []))
                tag = e[0]
                if tag == "name":
                    uses[e[1]] = uses.get(e[1], 0) + 1
                    return
                if tag in ("call", "const", "lambda", "other"):
                    return
                if tag == "subscript":
                    subs.append((e[1], e[2]))
                for x in sub_exprs(e):
                    visit(x, scope, depth + 1)
            for c in facts.calls:
                visit(c.func, c.scope)
                for a in c.args:
                    visit(a.value, c.scope)
            for asg in facts.assigns:
                if asg.value[0] not in ("param", "import", "def", "class", "except"):
                    visit(asg.value, asg.scope)
            for index, f in enumerate(facts.funcs):
                for st in walk(f.body):
                    if st[0] == "return" and st[2] is not None:
                        visit(st[2], index)
        self._built["lookups"] = out
        return out

    def constructions(self, c: Cls) -> FrozenSet[Tuple[int, int]]:
        """Calls (file, call) that build an instance of project class ``c`` or of a subclass."""
        return self.p.memo(self._constructed, (c.file, c.index),
                           lambda: self.p.guard(("constructions", c), lambda: self._constructions(c), frozenset()))

    def _constructions(self, c: Cls) -> FrozenSet[Tuple[int, int]]:
        p = self.p
        out: Set[Tuple[int, int]] = set()
        for k in [c] + p.subclasses(c):
            name = p.files[k.file].classes[k.index].name
            for gfi, gcid in p.name_sites(name):
                if k in p.callee_values(gfi, gcid):
                    out.add((gfi, gcid))
        return frozenset(out)

    def entry_roles(self, fi: int) -> Set[str]:
        """The roles of the program of entry script ``fi``, from the calls it reaches."""
        return set(self.program_evidence(fi))

    def program_evidence(self, fi: int) -> Dict[str, Tuple[int, int]]:
        """Role → the call that shows it ``(file, call)``, ``(-1, -1)`` for a role taken from
        the file name. A program trains when it reaches a parameter update, or a gradient
        together with an update whose type is unknown; a training file name lets either
        alone count. Names give no role to a program that shows one by its calls."""
        return self.p.memo(self._programs, fi, lambda: self._program_evidence(fi))

    def _program_evidence(self, fi: int) -> Dict[str, Tuple[int, int]]:
        names = self.name_roles(fi)
        reached = self._step_evidence().get(fi, {})
        out = {role: site for role, site in reached.items() if role in self.spec.steps and role != TRAINING}
        if "update" in reached:
            out[TRAINING] = reached["update"]
        elif "gradient" in reached and ("untyped" in reached or TRAINING in names):
            out[TRAINING] = reached["untyped"] if "untyped" in reached else reached["gradient"]
        elif "untyped" in reached and TRAINING in names:
            out[TRAINING] = reached["untyped"]
        if not out:
            for role in _NAMED_ONLY:
                if role in names:
                    out[role] = (-1, -1)
        return out

    def _step_evidence(self) -> Dict[int, Dict[str, Tuple[int, int]]]:
        """Entry → kind of step (a role other than training; ``update``, ``gradient`` or
        ``untyped`` for training) → the first such call it reaches. Built once, walking from
        each step call up to the entries (not from each entry to every step: a tree of many
        projects has many of both)."""
        if self._built.get("evidence") is None:
            spec = self.spec
            out: Dict[int, Dict[str, Tuple[int, int]]] = {}
            for role in sorted(spec.steps):
                for sfi, cid in self.step_sites(role):
                    entries = self._step_entries(sfi, cid, strict=True)
                    if not entries:
                        continue
                    if role == TRAINING:
                        cnames = self.p.call_names(sfi, cid)
                        kinds = [kind for kind, globs in (("update", spec.updates), ("gradient", spec.gradients),
                                                         ("untyped", spec.untyped_updates)) if globs.any(cnames)]
                    else:
                        kinds = [role]
                    for e in entries:
                        mine = out.setdefault(e, {})
                        for kind in kinds:
                            mine.setdefault(kind, (sfi, cid))
            self._built["evidence"] = out
        return self._built["evidence"]

    def describe_program(self, fi: int, role: str) -> str:
        """``train.py (trains: `model.train(...)` at train.py:88)`` — why a program has a role."""
        ev = self.program_evidence(fi).get(role)
        path = self.p.files[fi].path
        if ev is None:
            return path
        if ev == (-1, -1):
            return f"{path} (named like a {role} script)"
        sfi, cid = ev
        call = self.p.files[sfi].calls[cid]
        return f"{path} ({_VERBS.get(role, role)}: `{call.dotted or self.p.call_names(sfi, cid)[0]}(...)` at " \
               f"{self.p.files[sfi].path}:{call.line})"

    def entry_step_frameworks(self, fi: int, role: str) -> Set[str]:
        """Frameworks of the ``role`` steps the entry reaches."""
        return set(self.p.memo(self._step_fws, role, lambda: self._step_frameworks(role)).get(fi, ()))

    def _step_frameworks(self, role: str) -> Dict[int, Set[str]]:
        """Entry → frameworks of the ``role`` steps it reaches, in one pass over the steps
        (per entry, that pass would cost entries × steps on a tree of many projects)."""
        out: Dict[int, Set[str]] = {}
        for sfi, cid in self.step_sites(role):
            fws: Set[str] = set()
            for n in self.p.call_names(sfi, cid):
                if n.startswith("?."):
                    # `loss.backward()` on an untyped value: the framework of its file
                    fws = self._file_frameworks(sfi)
                    break
                fw = self.p.apis.framework_of(n)
                if fw:
                    fws = {fw}
                    break
            if fws:
                for e in self._step_entries(sfi, cid):
                    out.setdefault(e, set()).update(fws)
        return out

    def _step_entries(self, sfi: int, cid: int, strict: bool = False) -> FrozenSet[int]:
        """The entries that run step call ``cid``: a step under a module's own
        ``if __name__ == "__main__":`` (a self-test of a layer file) runs only when that file is
        the script — importing the module does not make the importer train."""
        call = self.p.files[sfi].calls[cid]
        if call.scope == 0 and self.main_guarded(sfi, call.stmt):
            return frozenset((sfi,)) if sfi in self._entry_set() else frozenset()
        return frozenset(self.reaching_entries(sfi, call.scope, strict=strict))

    def _file_frameworks(self, fi: int) -> Set[str]:
        """Frameworks a file imports directly."""
        out: Set[str] = set()
        for imp in self.p.files[fi].imports:
            if imp.module and self.p.file_of(fi, imp.module, imp.level) is None:
                fw = self.p.apis.framework_of(self.p.apis.canonical(imp.module))
                if fw:
                    out.add(fw)
        return out

    def leading_sites(self, role: str) -> Set[Site]:
        """Functions from which a ``role`` step is reachable (those on the backward paths)."""
        return self.p.memo(self._leads, role, lambda: self.p.calling_scopes(
            ((sfi, self.p.files[sfi].calls[cid].scope) for sfi, cid in self.step_sites(role)), lexical=True))

    def main_path_line(self, fi: int, role: str) -> Tuple[int, int]:
        """First statement on the entry's main path that leads to a ``role`` step."""
        leads = self.leading_sites(role)
        steps = {(sfi, cid) for sfi, cid in self.step_sites(role) if sfi == fi}
        facts = self.p.files[fi]
        scope = 0
        visited: Set[int] = set()
        last: Optional[Tuple[int, int]] = None
        while scope not in visited:
            visited.add(scope)
            found = self._first_leading(fi, scope, facts.funcs[scope].body, leads, steps)
            if found is None:
                break
            sid, target = found
            last = facts.stmts[sid]
            if target is None:
                break
            scope = target  # the statement calls a function of this file (e.g. main()): look inside
        if last is not None:
            return last
        for st in facts.funcs[0].body:
            if st[0] in ("import", "def", "class") or (st[0] == "expr" and st[2][0] == "const"):
                continue  # definitions and docstrings are not where training starts
            return facts.stmts[st[1]]
        return (1, 1)

    def _first_leading(self, fi: int, scope: int, block: Sequence[Stmt], leads: Set[Site],
                       steps: Set[Tuple[int, int]]) -> Optional[Tuple[int, Optional[int]]]:
        """(statement id, same-file function to descend into or None) of the first leading
        statement. Statements that run something (calls, loops) are preferred over
        assignments that only prepare training (``grad_fn = value_and_grad(...)``)."""
        found = self._first_leading_of(fi, scope, [st for st in block if st[0] != "assign"], leads, steps)
        return found or self._first_leading_of(fi, scope, block, leads, steps)

    def _first_leading_of(self, fi: int, scope: int, block: Sequence[Stmt], leads: Set[Site],
                          steps: Set[Tuple[int, int]]) -> Optional[Tuple[int, Optional[int]]]:
        for st in block:
            if st[0] in ("def", "class", "import"):
                continue
            for cid in self.p.calls_in_stmt(fi, st, scope):
                if (fi, cid) in steps:
                    return st[1], None
                for v in self.p.callee_values(fi, cid):
                    target = v.func if isinstance(v, Bound) and isinstance(v.func, Func) else v
                    if isinstance(target, Func) and (target.file, target.index) in leads:
                        if target.file == fi and st[0] in ("expr", "assign", "if"):
                            return st[1], target.index
                        return st[1], None
        return None

    # ------------------------------------------------------------------ pipeline context
    def pipeline_context(self, fi: int, cid: int) -> Dict[str, str]:
        """Roles (training/evaluation) the pipeline built by call ``cid`` serves, with reasons.
        Flags and names say which role a pipeline is built for; a program decides whether it
        runs: a pipeline no entry script reaches serves nothing, and a training pipeline
        needs a training program (one that updates parameters) to run it — a converter or an
        export script that builds `create_dataset(do_train=True)` trains nothing."""
        ctx = self._call_context(fi, cid, 0)
        if not ctx:
            return ctx
        entries = self.call_entries(fi, cid)
        if not entries:
            # dead code where the project's entry scripts are known; judged by its names and
            # flags alone where they are not (a snippet, a library, a file checked on its own)
            return {} if self.in_program_tree(fi) else ctx
        if TRAINING in ctx and not any(TRAINING in self.entry_roles(e) for e in entries):
            ctx = {r: why for r, why in ctx.items() if r != TRAINING}
        return ctx

    def _call_context(self, fi: int, cid: int, depth: int) -> Dict[str, str]:
        # keyed by depth too: how far callers are followed depends on it
        key = ("c", fi, cid, depth)
        return self.p.memo(self._ctx, key, lambda: self.p.guard(key, lambda: self._call_context_uncached(fi, cid, depth), {}))

    def _call_context_uncached(self, fi: int, cid: int, depth: int) -> Dict[str, str]:
        p = self.p
        facts = p.files[fi]
        call = facts.calls[cid]
        here = f"{facts.path}:{call.line}"
        # 1. flags passed to this call, or to the calls that build its arguments
        flagged = self._flag_role_of_call(fi, cid)
        if flagged:
            return {flagged[0]: f"{flagged[1]} at {here}"}
        for a in call.args:
            for inner in _arg_calls(p, fi, call.scope, a.value):
                flagged = self._flag_role_of_call(fi, inner)
                if flagged:
                    return {flagged[0]: f"{flagged[1]} at {facts.path}:{facts.calls[inner].line}"}
        # 2. an enclosing `if do_train:` / `if mode == "train":`
        for test, positive in self.guards(fi, call.scope).get(call.stmt, ()):
            role = self._guard_role(test, positive)
            if role:
                return {role: f"inside a branch taken when {'training' if role == TRAINING else 'evaluating'} ({here})"}
        # 2b. built unconditionally, but used only in such a branch (`flip = RandomFlip()`,
        # then `if training: ops.append(flip)`)
        used = self._use_role(fi, call.scope, cid)
        if used:
            return {used[0]: f"used only in a branch taken when {'training' if used[0] == TRAINING else 'evaluating'} "
                             f"({facts.path}:{facts.stmts[used[1]][0]})"}
        # 3. the variable the result is stored in
        for name in self.assigned_names(fi, call.stmt):
            role = self.word_role(name)
            if role:
                return {role: f"assigned to '{name}' at {facts.path}:{facts.stmts[call.stmt][0]}"}
        return self._scope_context(fi, call.scope, depth)

    def _use_role(self, fi: int, scope: int, cid: int) -> Optional[Tuple[str, int]]:
        """(role, first use statement) when call ``cid``'s result is bound to local names and
        every statement reading them lies in a branch of that role."""
        facts = self.p.files[fi]
        aids = [aid for aid, a in enumerate(facts.assigns)
                if a.scope == scope and a.value[0] == "call" and a.value[1] == cid and a.target[0] == "name"]
        if not aids:
            return None
        reads = self._reads(fi, scope)
        stmts = sorted({sid for aid in aids for sid in reads.get(aid, ())})
        if not stmts:
            return None
        roles: Set[Optional[str]] = set()
        guards = self.guards(fi, scope)
        for sid in stmts:
            roles.add(next((r for r in (self._guard_role(t, pos) for t, pos in guards.get(sid, ())) if r), None))
        found = roles.pop() if len(roles) == 1 else None
        return (found, stmts[0]) if found is not None else None

    def _reads(self, fi: int, scope: int) -> Dict[int, List[int]]:
        """Binding id → statements of function ``scope`` that read a name it may define."""
        key = (fi, scope)
        hit = self._read_index.get(key)
        if hit is not None:
            return hit
        out: Dict[int, List[int]] = {}
        for _scope, sid, e in _names_read(self.p.files[fi], scope):
            for d in e[2]:
                out.setdefault(d, []).append(sid)
        for ids in out.values():
            ids[:] = sorted(set(ids))
        self._read_index[key] = out
        return out

    def _scope_context(self, fi: int, scope: int, depth: int) -> Dict[str, str]:
        key = ("s", fi, scope, depth)
        return self.p.memo(self._ctx, key, lambda: self.p.guard(key, lambda: self._scope_context_uncached(fi, scope, depth), {}))

    def _scope_context_uncached(self, fi: int, scope: int, depth: int) -> Dict[str, str]:
        p = self.p
        facts = p.files[fi]
        f = facts.funcs[scope]
        # 4. the function's (or class's) name
        if scope:
            for part in reversed(f.qualname.split(".")):
                role = self.word_role(part)
                if role:
                    return {role: f"built in '{f.qualname}'"}
        # 5. how the callers use it: flag values, their own context
        if scope and f.kind != "class" and depth < 6:
            out: Dict[str, str] = {}
            flags = [x.name for x in f.params if self._is_flag(x.name)]
            for cfi, cid, bound in p.callers(Func(fi, scope)):
                caller = p.files[cfi].calls[cid]
                where = f"{p.files[cfi].path}:{caller.line}"
                decided = False
                for flag in flags:
                    a = bound.get(flag)
                    param = next(x for x in f.params if x.name == flag)
                    expr = a.value if a is not None else param.default
                    if expr is None:
                        continue
                    escope = caller.scope if a is not None else f.parent
                    efi = cfi if a is not None else fi
                    vals, known = p.constants(efi, escope, expr)
                    roles = {r for r in (self._flag_value_role(flag, v.value) for v in vals) if r is not None}
                    if known and len(roles) == 1:
                        r = roles.pop()
                        text = f"{flag}={vals[0].value!r}" if a is not None else f"{flag} defaults to {vals[0].value!r}"
                        out.setdefault(r, f"{f.qualname}({text}) called at {where}")
                        decided = True
                        break
                if not decided:
                    for r, why in self._call_context(cfi, cid, depth + 1).items():
                        out.setdefault(r, why)
            if out:
                return out
        # 6. the entry scripts that reach it
        out = {}
        for e in sorted(self.reaching_entries(fi, scope)):
            for r in sorted(self.entry_roles(e) & {TRAINING, EVALUATION, INFERENCE}):
                r = EVALUATION if r == INFERENCE else r
                out.setdefault(r, f"reached from {'training' if r == TRAINING else 'evaluation'} script {p.files[e].path}")
        return out

    def _is_flag(self, name: str) -> bool:
        s = self.spec
        return name in s.train_flags or name in s.eval_flags or name in s.split_flags

    def _split_value_role(self, value: Any) -> Optional[str]:
        """``"train"`` → training, ``"val"``/``"test"`` → evaluation: a split named outright."""
        if not isinstance(value, str):
            return None
        v = value.lower()
        if v in self.spec.train_values:
            return TRAINING
        if v in self.spec.eval_values:
            return EVALUATION
        return None

    def _flag_value_role(self, flag: str, value: Any) -> Optional[str]:
        s = self.spec
        if flag in s.train_flags and isinstance(value, bool):
            return TRAINING if value else EVALUATION
        if flag in s.eval_flags and isinstance(value, bool):
            return EVALUATION if value else TRAINING
        if flag in s.split_flags and isinstance(value, str):
            v = value.lower()
            if v in s.train_values:
                return TRAINING
            if self.word_role(v) == EVALUATION or v in ("val", "test", "eval", "valid", "validation", "infer"):
                return EVALUATION
        return None

    def _flag_role_of_call(self, fi: int, cid: int) -> Optional[Tuple[str, str]]:
        call = self.p.files[fi].calls[cid]
        for a in call.args:
            if a.keyword is None:
                continue
            decide: Callable[[Any], Optional[str]]
            if self._is_flag(a.keyword):
                decide = partial(self._flag_value_role, a.keyword)
            elif self.spec.split_keywords.search(a.keyword):
                decide = self._split_value_role   # `data_mode="val"`
            else:
                continue
            vals, known = self.p.constants(fi, call.scope, a.value)
            roles = {r for r in (decide(v.value) for v in vals) if r is not None}
            if known and len(roles) == 1:
                return roles.pop(), f"{a.keyword}={a.text}"
        return None

    def _guard_role(self, test: Expr, positive: bool) -> Optional[str]:
        role: Optional[str] = None
        if test[0] == "name" and self._is_flag(test[1]):
            role = self._flag_value_role(test[1], True)
        elif test[0] == "attr" and self._is_flag(test[2]):
            role = self._flag_value_role(test[2], True)
        elif test[0] == "unary" and test[1] == "not":
            role = self._guard_role(test[2], True)
            role = {TRAINING: EVALUATION, EVALUATION: TRAINING}.get(role) if role else None
        elif test[0] == "compare" and len(test[1]) == 1 and test[1][0] in ("==", "!="):
            left, right = test[2]
            name = left[1] if left[0] == "name" else left[2] if left[0] == "attr" else None
            if name and right[0] == "const":
                # `mode == "train"`; any name compared with "train"/"val" says the same (`data_mode`)
                role = self._flag_value_role(name, right[1]) if self._is_flag(name) else self._split_value_role(right[1])
                if test[1][0] == "!=" and role:
                    role = {TRAINING: EVALUATION, EVALUATION: TRAINING}[role]
        if role is None:
            return None
        if not positive:
            return {TRAINING: EVALUATION, EVALUATION: TRAINING}[role]
        return role

    def guards(self, fi: int, scope: int) -> Dict[int, Tuple[Tuple[Expr, bool], ...]]:
        """statement id → enclosing (if-test, branch) pairs within its function."""
        key = (fi, scope)
        hit = self._guards.get(key)
        if hit is None:
            hit = {}
            _collect_guards(self.p.files[fi].funcs[scope].body, (), hit)
            self._guards[key] = hit
        return hit

    def never_read(self, fi: int, cid: int) -> bool:
        """The value built by call ``cid`` — through the calls chained on it
        (``GeneratorDataset(...).batch(...)``) — is bound only to local names of a function that
        nothing in that function reads, and the function neither returns it nor looks names up
        dynamically (``locals()``, ``eval``): a pipeline built and never used."""
        p = self.p
        facts = p.files[fi]
        scope = facts.calls[cid].scope
        if scope <= 0 or facts.funcs[scope].kind not in ("function", "method"):
            return False
        outer = cid
        while True:   # climb the method chain: `x.batch(...)` has `x` = ("call", outer) as receiver
            nxt = next((j for j, c in enumerate(facts.calls)
                        if c.scope == scope and c.func[0] == "attr" and c.func[1] == ("call", outer)), None)
            if nxt is None:
                break
            outer = nxt
        aids = [aid for aid, a in enumerate(facts.assigns)
                if a.scope == scope and a.value == ("call", outer)]
        if not aids or any(facts.assigns[a].target[0] != "name" for a in aids):
            return False
        if any(c.scope == scope and c.dotted in ("locals", "eval", "exec", "vars") for c in facts.calls):
            return False
        reads = self._reads(fi, scope)
        if any(reads.get(aid) for aid in aids):
            return False
        # a nested function or a `global` declaration may read it by name from another scope
        names = {facts.assigns[a].target[1] for a in aids}
        return not any(names & read for other, read in self._names_by_scope(fi).items() if other != scope)

    def _names_by_scope(self, fi: int) -> Dict[int, Set[str]]:
        """Function → the names read in it (by any binding: closures, globals)."""
        hit = self._scope_names.get(fi)
        if hit is not None:
            return hit
        out: Dict[int, Set[str]] = {}
        for scope, _sid, e in _names_read(self.p.files[fi], None):
            out.setdefault(scope, set()).add(e[1])
        self._scope_names[fi] = out
        return out

    def assigned_names(self, fi: int, sid: int) -> Tuple[str, ...]:
        """Names a statement assigns (``train_ds = ...``, ``self.val_loader = ...``)."""
        table = self._targets.get(fi)
        if table is None:
            table = {}
            for a in self.p.files[fi].assigns:
                t = a.target
                name = t[1] if t[0] == "name" else t[2] if t[0] == "attr" else None
                if name and a.value[0] not in ("param", "import", "def", "class", "iter", "except"):
                    table[a.stmt] = table.get(a.stmt, ()) + (name,)
            self._targets[fi] = table
        return table.get(sid, ())


def _names_read(facts: Any, scope: Optional[int]) -> Iterator[Tuple[int, int, Any]]:
    """(function, statement, ``("name", id, binding ids)``) for every name read in function
    ``scope`` of a file (every function when None): in calls and their arguments, assigned values,
    and the tests, returns and loop iterables of its statements."""
    def visit(e: Any, where: int, sid: int, depth: int = 0) -> Iterator[Tuple[int, int, Any]]:
        if not isinstance(e, tuple) or not e or depth > 40:
            return
        tag = e[0]
        if tag == "name":
            yield where, sid, e
            return
        if tag == "call":
            c = facts.calls[e[1]]
            yield from visit(c.func, where, sid, depth + 1)
            for a in c.args:
                yield from visit(a.value, where, sid, depth + 1)
            return
        if tag in ("const", "lambda", "other"):
            return
        for x in sub_exprs(e):
            yield from visit(x, where, sid, depth + 1)
    for c in facts.calls:
        if scope is None or c.scope == scope:
            yield from visit(c.func, c.scope, c.stmt)
            for a in c.args:
                yield from visit(a.value, c.scope, c.stmt)
    for asg in facts.assigns:
        if (scope is None or asg.scope == scope) and asg.value[0] not in ("param", "import", "def", "class"):
            yield from visit(asg.value[1] if asg.value[0] in ("iter", "enter", "unpack", "except") else asg.value,
                             asg.scope, asg.stmt)
    for k in (range(len(facts.funcs)) if scope is None else (scope,)):
        for st in walk(facts.funcs[k].body):
            if st[0] in ("return", "expr", "if", "while", "raise", "branches") and isinstance(st[2], tuple):
                yield from visit(st[2], k, st[1])   # calls in them were visited above; this adds bare names
            elif st[0] == "for":
                yield from visit(st[3], k, st[1])


_RUN_BY_INSTANCE = frozenset({"construct", "forward", "call", "__call__"})
_VERBS = {TRAINING: "trains", EVALUATION: "evaluates", INFERENCE: "predicts", EXPORT: "exports",
          "data": "writes a dataset", "conversion": "writes a checkpoint"}


_REGISTRY = re.compile(r"(?i)regist")


def _definition(p: Project, v: Any) -> Tuple[int, int, int]:
    """(file, enclosing function, statement) of the ``def``/``class`` statement of ``v``."""
    facts = p.files[v.file]
    if isinstance(v, Func):
        want, parent = ("def", v.index), facts.funcs[v.index].parent
    else:
        want, parent = ("class", v.index), facts.classes[v.index].scope
    for st in walk(facts.funcs[max(parent, 0)].body):
        if (st[0], st[2] if len(st) > 2 else None) == want:
            return v.file, max(parent, 0), st[1]
    return v.file, max(parent, 0), -1


def _reference_index(p: Project) -> Dict[str, List[Tuple[int, int, int, Any, Any]]]:
    """Identifier → (file, function, statement, expression, registry key) of each use of a name
    or attribute as a value (not as the callee of a call); decorated definitions with expression
    None; the key is the constant key of a dict literal's entry (a registry), else None."""
    out: Dict[str, List[Tuple[int, int, int, Any, Any]]] = {}
    for fi, facts in enumerate(p.files):
        def visit(e: Any, scope: int, sid: int, depth: int = 0, key: Any = None) -> None:
            if not isinstance(e, tuple) or not e or depth > 30:
                return
            tag = e[0]
            if tag == "name":
                out.setdefault(e[1], []).append((fi, scope, sid, e, key))
                return
            if tag == "attr":
                out.setdefault(e[2], []).append((fi, scope, sid, e, key))
                return
            if tag in ("call", "const", "lambda", "other"):
                return   # a call's callee is a call site, its arguments are visited on their own
            if tag == "dict" and depth == 0:
                # a registry `{"resnet50": resnet50, ...}`: each entry remembers its key
                for k, v in zip(e[1], e[2]):
                    visit(v, scope, sid, depth + 1, k[1] if k is not None and k[0] == "const" else None)
                return
            for x in sub_exprs(e):
                visit(x, scope, sid, depth + 1)
        for c in facts.calls:
            for a in c.args:
                visit(a.value, c.scope, c.stmt)
        for asg in facts.assigns:
            if asg.value[0] not in ("param", "import", "def", "class", "iter", "enter", "unpack", "except"):
                visit(asg.value, asg.scope, asg.stmt)
        for index, f in enumerate(facts.funcs):
            for st in walk(f.body):
                if st[0] == "return" and st[2] is not None:
                    visit(st[2], index, st[1])
                elif st[0] in ("def", "class") and _registering(facts, st):
                    name = facts.funcs[st[2]].name if st[0] == "def" else facts.classes[st[2]].name
                    out.setdefault(name, []).append((fi, index, st[1], None, None))
    return out


def _registering(facts: Any, st: Stmt) -> bool:
    """A ``def``/``class`` statement decorated by a registry (``@register_model``,
    ``@MODELS.register_module()``, ``@ClassFactory.register(...)``): code may look it up by
    name and run it. Other decorators (``@jit``, ``@add_flags``, ``@lru_cache``) do not."""
    f = facts.funcs[st[2]] if st[0] == "def" else facts.funcs[facts.classes[st[2]].body]
    for d in f.decorators:
        head = d
        if head[0] == "call":
            head = facts.calls[head[1]].func
        if head[0] == "attr" and head[1][0] == "name" and _dispatch_graph(facts, head[1][1]):
            continue   # `@_adam_opt.register(...)`: runs where the graph is applied, not where it is defined
        parts = []
        while head[0] == "attr":
            parts.append(head[2])
            head = head[1]
        if head[0] == "name":
            parts.append(head[1])
        if any(_REGISTRY.search(x) for x in parts):
            return True
    return False


def _dispatch_graph(facts: Any, name: str) -> bool:
    """``name`` is a module-level ``MultitypeFuncGraph`` (MindSpore's overload dispatch): the
    functions registered on it run only when it is called (``hyper_map(partial(graph, ...))``)."""
    for a in facts.assigns:
        if a.scope == 0 and a.target == ("name", name, ()) and a.value[0] == "call":
            dotted = facts.calls[a.value[1]].dotted or ""
            if dotted.endswith("MultitypeFuncGraph"):
                return True
    return False


def _acts_at_module_level(p: Project, fi: int) -> bool:
    """Module code that does something: a call statement, or a loop / ``with`` block that
    calls something, possibly under an ``if``/``try``. Assignments, imports and definitions
    (``x = Factory()``, version-conditional imports) are set-up, not work."""

    def acts(block: Sequence[Stmt]) -> bool:
        for st in block:
            if st[0] in ("expr", "for", "while", "with") and p.calls_in_stmt(fi, st, 0):
                return True
            if st[0] in ("if", "try", "branches") and any(acts(b) for b in child_blocks(st)):
                return True
        return False

    return acts(p.files[fi].funcs[0].body)


def _collect_guards(block: Sequence[Stmt], guards: Tuple[Tuple[Expr, bool], ...],
                    out: Dict[int, Tuple[Tuple[Expr, bool], ...]]) -> None:
    for st in block:
        out[st[1]] = guards
        if st[0] == "if":
            _collect_guards(st[3], guards + ((st[2], True),), out)
            _collect_guards(st[4], guards + ((st[2], False),), out)
            if st[3] and st[3][-1][0] in ("return", "raise") and not st[4]:
                # `if is_train: return ...` — what follows is the implicit else
                guards = guards + ((st[2], False),)
        else:
            for b in child_blocks(st):
                _collect_guards(b, guards, out)


def _arg_calls(p: Project, fi: int, scope: int, e: Expr) -> List[int]:
    """Calls that build an argument: the call itself, or the calls bound to a local name."""
    if e[0] == "call":
        return [e[1]]
    if e[0] == "name":
        out = []
        for aid in e[2]:
            v = p.files[fi].assigns[aid].value
            if v[0] == "call":
                out.append(v[1])
        return out
    return []
