"""Reachability: the entry scripts whose module code reaches a function, answered backwards — from
the few calls a question is about, through the call sites of their enclosing functions, up to the
module code of entry scripts. That touches only the functions on those paths instead of resolving
every call of a project. A ``construct``/``forward``/``call`` method (or any method nobody calls by
name, such as a callback hook) runs where its instances are called or, failing that, built; a call
through a name bound on several paths, or through a parameter, runs only what a live path gives it.
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Optional, Set, Tuple

from linter.core.graphs import components
from linter.index.values import Cls, Func
from linter.program.role_spec import Site
from linter.program.role_state import RolesState


class Reaching(RolesState):
    """The entries reaching a function, over its callers."""

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


_RUN_BY_INSTANCE = frozenset({"construct", "forward", "call", "__call__"})
