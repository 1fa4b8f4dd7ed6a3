"""Functions and classes used as values rather than called — stored in a registry dict (with
the keys it is ever looked up with), passed as a callback, decorated by a registering decorator —
and the calls that build a project class: the places from which they may run.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Optional, Set, Tuple

from linter.facts.ir import sub_exprs, walk
from linter.facts.model import Stmt
from linter.index.values import Cls, Func
from linter.program.role_state import RolesState

if TYPE_CHECKING:   # annotations only
    from linter.index.project import Project


class Registries(RolesState):
    """References to project functions and classes as values, and constructions of classes."""

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
