"""Who calls a project function, and what its parameters receive: call arguments bound to a
signature (:func:`bind_args`), the call sites of a function (by its name, an alias, or
whatever value runs it, instance calls included), the scopes from which a function is
reached, and the values of a parameter through its call sites.

One part of :class:`~linter.index.project.Project`; what a call runs is :mod:`linter.index.calls`.
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from linter.facts.model import ArgFact
from linter.index.apis import NO_DEFAULT
from linter.index.apis import Param as ApiParam
from linter.index.state import _EMPTY, _MAX_DEPTH, ProjectState, _cap
from linter.index.values import UNKNOWN, Bound, Cls, Ext, Func, Param, Value

_INSTANCE_METHODS = frozenset({"construct", "forward", "call", "__call__"})


class BoundArgs:
    """Arguments of one call bound to parameter names."""

    __slots__ = ("args", "uncertain", "extra")

    def __init__(self) -> None:
        self.args: Dict[str, ArgFact] = {}
        self.uncertain = False
        """True when ``*args``/``**kwargs`` at the call site hide which parameters are set."""
        self.extra: List[ArgFact] = []

    def get(self, name: str) -> Optional[ArgFact]:
        return self.args.get(name)


def bind_args(args: Sequence[ArgFact], params: Sequence[ApiParam], skip_first: bool = False) -> BoundArgs:
    """Bind call arguments to a signature the way Python would (without raising)."""
    out = BoundArgs()
    plist = list(params)
    if skip_first and plist and plist[0].kind in ("pos", "posonly"):
        plist = plist[1:]
    positional = [p for p in plist if p.kind in ("pos", "posonly")]
    varargs = next((p for p in plist if p.kind == "varargs"), None)
    by_name = {p.name: p for p in plist if p.kind in ("pos", "kwonly")}
    varkw = next((p for p in plist if p.kind == "varkw"), None)
    i = 0
    for a in args:
        if a.star == "*":
            out.uncertain = True
            i = len(positional) + 1  # later positionals can no longer be placed
            continue
        if a.star == "**":
            out.uncertain = True
            continue
        if a.keyword is None:
            if i < len(positional):
                out.args[positional[i].name] = a
            elif varargs is not None:
                out.extra.append(a)
            i += 1
        else:
            if a.keyword in by_name:
                out.args[a.keyword] = a
            elif varkw is not None:
                out.extra.append(a)
    return out


class Callers(ProjectState):
    """Call sites of project functions and the values their parameters receive."""

    def instance_callers(self, f: Func) -> List[Tuple[int, int]]:
        """Instance calls that run method ``f`` (``net(x)`` runs ``construct``/``forward``/``call``)."""
        fact = self.files[f.file].funcs[f.index]
        if fact.kind != "method" or fact.name not in _INSTANCE_METHODS:
            return []
        return self.resolved_callers(f)

    def import_aliases(self, name: str) -> Tuple[str, ...]:
        """Names the project imports ``name`` under (``import ... as``), sorted."""
        aliases = self._built.get("import_aliases")
        if aliases is None:
            acc: Dict[str, Set[str]] = {}
            for facts in self.files:
                for imp in facts.imports:
                    if imp.name and imp.asname and imp.name != "*" and imp.asname != imp.name:
                        acc.setdefault(imp.name, set()).add(imp.asname)
            aliases = self._built["import_aliases"] = {k: tuple(sorted(v)) for k, v in acc.items()}
        return aliases.get(name, ())

    def resolved_callers(self, f: Func) -> List[Tuple[int, int]]:
        """Every call that runs project function ``f``, whatever name it is called by
        (``step_fn = train_step if a else b; step_fn(x)``, instance calls, constructors).

        The first question resolves every call of the project once and indexes the calls by
        the functions they run; later questions are dictionary lookups."""
        index = self._built.get("instance")
        if index is None:
            if self._building_instance:
                self._partial += 1   # asked while the index is being built: not known yet
                return []
            self._building_instance = True
            try:
                index = self._built["instance"] = self.top_level(self._build_instance_index)
            finally:
                self._building_instance = False
        return index.get(f, [])

    def _build_instance_index(self) -> Dict[Func, List[Tuple[int, int]]]:
        index: Dict[Func, List[Tuple[int, int]]] = {}
        for gfi, facts in enumerate(self.files):
            for cid in range(len(facts.calls)):
                for t, _ in self.call_targets(gfi, cid):
                    bucket = index.setdefault(t, [])
                    if not bucket or bucket[-1] != (gfi, cid):
                        bucket.append((gfi, cid))
        return index

    def name_sites(self, name: str) -> List[Tuple[int, int]]:
        """Every call ``(file, call)`` whose callee is written with this last name, project-wide."""
        index = self._built.get("name_sites")
        if index is None:
            index = {}
            for gfi, facts in enumerate(self.files):
                for k, ids in facts.callee_index.items():
                    index.setdefault(k, []).extend((gfi, cid) for cid in ids)
            self._built["name_sites"] = index
        return index.get(name, [])

    def calling_scopes(self, seeds: Iterable[Tuple[int, int]], *, instances: bool = False,
                       lexical: bool = False, resolved: bool = False) -> Set[Tuple[int, int]]:
        """Scopes ``(file, function)`` from which a seed scope can be reached: the seeds and,
        transitively, the scopes of their call sites (``instances``: also instance calls that
        run a ``construct``/``forward``; ``lexical``: also the function a nested function or
        lambda is defined in, which may call it through a name we cannot see; ``resolved``:
        also calls that run it under another name, such as a parameter it is passed as)."""
        out: Set[Tuple[int, int]] = set()
        todo = list(seeds)
        while todo:
            site = todo.pop()
            if site in out:
                continue
            out.add(site)
            fi, scope = site
            if scope == 0:
                continue
            f = self.files[fi].funcs[scope]
            if f.kind == "class":
                continue
            for cfi, cid, _ in self.callers(Func(fi, scope)):
                todo.append((cfi, self.files[cfi].calls[cid].scope))
            if instances:
                for cfi, cid in self.instance_callers(Func(fi, scope)):
                    todo.append((cfi, self.files[cfi].calls[cid].scope))
            if resolved:
                for cfi, cid in self.resolved_callers(Func(fi, scope)):
                    todo.append((cfi, self.files[cfi].calls[cid].scope))
            if lexical and (f.kind == "lambda" or f.parent > 0):
                todo.append((fi, f.parent))
        return out

    # ------------------------------------------------------------------ parameters and call sites
    def signature_of(self, v: Value, version: Optional[Tuple[int, ...]] = None) -> Tuple[Optional[Sequence[ApiParam]], bool]:
        """Parameters of a callee value and whether the first one is bound implicitly (self)."""
        if isinstance(v, Func):
            f = self.files[v.file].funcs[v.index]
            return [ApiParam(p.name, p.kind, p.default if p.default is not None else NO_DEFAULT) for p in f.params], False
        if isinstance(v, Bound) and isinstance(v.func, Func):
            f = self.files[v.func.file].funcs[v.func.index]
            params = [ApiParam(p.name, p.kind, p.default if p.default is not None else NO_DEFAULT) for p in f.params]
            return params, True
        if isinstance(v, Cls):
            init = self.class_attr(v, "__init__", None)
            for iv in init:
                if isinstance(iv, Func):
                    sig, _ = self.signature_of(iv)
                    return sig, True
                if isinstance(iv, Ext):
                    api = self.apis.get(iv.qual.rsplit(".", 1)[0])
                    return (api.signature(version) if api else None), False
            return None, False
        if isinstance(v, Ext):
            api = self.apis.get(v.qual)
            return (api.signature(version) if api else None), False
        if isinstance(v, Bound) and isinstance(v.func, Ext):
            api = self.apis.get(v.func.qual)
            return (api.signature(version) if api else None), False
        return None, False

    def callers(self, f: Func) -> List[Tuple[int, int, BoundArgs]]:
        """Call sites of project function ``f`` with their arguments bound to its parameters."""
        key = (f.file, f.index)
        hit = self._callers.get(key)
        if hit is not None:
            return hit
        if ("callers", key) in self._active:
            self._partial += 1
            return []
        self._active.add(("callers", key))
        try:
            return self._callers_uncached(f, key)
        finally:
            self._active.discard(("callers", key))

    def _callers_uncached(self, f: Func, key: Tuple[int, int]) -> List[Tuple[int, int, BoundArgs]]:
        fact = self.files[f.file].funcs[f.index]
        keys = [fact.name]
        if fact.kind == "method" and fact.name == "__init__":
            keys.append(self.files[f.file].classes[fact.cls].name)
        # `from src.dataset import create_dataset1 as create_dataset`: called by its alias
        keys += [a for k in list(keys) for a in self.import_aliases(k) if a not in keys]
        params = [ApiParam(p.name, p.kind, NO_DEFAULT) for p in fact.params]
        out: List[Tuple[int, int, BoundArgs]] = []
        seen: Set[Tuple[int, int]] = set()
        for k in keys:
            for gfi, cid, self_bound in self._resolved_sites(k).get(f, ()):
                if (gfi, cid) not in seen:
                    seen.add((gfi, cid))
                    out.append((gfi, cid, bind_args(self.files[gfi].calls[cid].args, params, self_bound)))
        out.sort(key=lambda t: (t[0], t[1]))
        if any(k in self._resolving for k in keys):   # partial: asked while its sites were being resolved
            self._partial += 1
        else:
            self._callers[key] = out
        return out

    def _resolved_sites(self, name: str) -> Dict[Func, List[Tuple[int, int, bool]]]:
        """The calls written with this last name, grouped by the project function they run
        (with whether ``self`` is bound): each site is resolved once per run, however many
        functions share the name (every ``__init__`` is reached by ``super().__init__()``)."""
        hit = self._by_name.get(name)
        if hit is not None:
            return hit
        index: Dict[Func, List[Tuple[int, int, bool]]] = {}
        # Resolving a site can ask for the callers of a function of the same name (a
        # parameter's values); that inner question sees the sites resolved so far, as the
        # per-function cycle cut did before.
        self._by_name[name] = index
        self._resolving.add(name)
        for gfi, cid in self.name_sites(name):
            for v in self.callee_values(gfi, cid):
                if isinstance(v, Func):
                    index.setdefault(v, []).append((gfi, cid, False))
                elif isinstance(v, Bound) and isinstance(v.func, Func):
                    index.setdefault(v.func, []).append((gfi, cid, True))
                elif isinstance(v, Cls):
                    for x in self.class_attr(v, "__init__", None):
                        if isinstance(x, Func):
                            index.setdefault(x, []).append((gfi, cid, True))
        self._resolving.discard(name)
        return index

    def expand_params(self, vals: FrozenSet[Value]) -> FrozenSet[Value]:
        """Replace parameters by what their call sites pass, transitively (cycles cut)."""
        out: Set[Value] = set()
        todo = list(vals)
        seen: Set[Param] = set()
        while todo:
            v = todo.pop()
            if isinstance(v, Param):
                if v in seen or len(seen) > 64:
                    continue
                seen.add(v)
                todo.extend(self.param_values(v))
            else:
                out.add(v)
        return _cap(out) if out else _EMPTY

    def param_values(self, p: Param) -> FrozenSet[Value]:
        """Values a parameter receives: from every known call site, else its default. Memoised
        unless a cycle or the depth bound cut the answer short: a transformer library's
        configuration objects pass through dozens of constructors, and without the memo every
        constant question walked the same parameter graph again (hours on such a tree)."""
        hit = self._params.get(p)
        if hit is not None:
            return hit
        key = ("p", p)
        if key in self._active or self._depth > _MAX_DEPTH * 4:
            self._param_cuts += 1
            return _EMPTY
        cuts, partial = self._param_cuts, self._partial
        out = self._param_values_uncached(p, key)
        if self._param_cuts == cuts and self._partial == partial:
            self._params[p] = out
        return out

    def _param_values_uncached(self, p: Param, key: Any) -> FrozenSet[Value]:
        self._active.add(key)
        try:
            fact = self.files[p.file].funcs[p.func]
            param = next((x for x in fact.params if x.name == p.name), None)
            if param is None:
                return _EMPTY
            acc: Set[Value] = set()
            sites = self.callers(Func(p.file, p.func))
            for cfi, cid, bound in sites:
                a = bound.get(p.name)
                if a is not None:
                    acc |= self.values(cfi, self.files[cfi].calls[cid].scope, a.value)
                elif param.default is not None:
                    acc |= self.values(p.file, fact.parent, param.default)
                else:
                    acc.add(UNKNOWN)
            if not sites and param.default is not None:
                acc |= self.values(p.file, fact.parent, param.default)
            return _cap(acc)
        finally:
            self._active.discard(key)
