"""The values of expressions — the core of the lazy evaluator: names through their reaching
bindings, enclosing scopes and module globals (following ``from x import *``), imports across
files, attributes of modules, classes, instances and records, and arithmetic on constants.

One part of :class:`~linter.index.project.Project`; it asks :mod:`linter.index.calls` what a
call returns and :mod:`linter.index.classes` what a class holds.
"""
from __future__ import annotations

import builtins
from typing import FrozenSet, Iterable, List, Optional, Set, Tuple

from linter.facts.ir import iter_returns
from linter.facts.model import Expr, ImportFact
from linter.index.configs import ConfigMap
from linter.index.state import _ARITH, _EMPTY, _UNK, ProjectState, _cap
from linter.index.values import UNKNOWN, Cls, Const, Ext, Func, Mod, Obj, Param, Record, Super, Value, const

_BUILTINS = frozenset(dir(builtins))


class Evaluation(ProjectState):
    """What an expression may evaluate to (a bounded *may* set of values), memoised."""

    # ------------------------------------------------------------------ evaluation
    def values(self, fi: int, scope: int, e: Expr) -> FrozenSet[Value]:
        """Every value ``e`` (an expression in scope ``scope`` of file ``fi``) may have."""
        tag = e[0]
        if tag == "const":
            return frozenset((const(e[1]),))
        key = (fi, scope, id(e))   # expressions are shared within a file (facts/expressions.py)
        hit = self._values.get(key)
        if hit is not None:
            return hit
        if key in self._active or self._depth > 40:
            return _UNK
        self._active.add(key)
        self._depth += 1
        partial = self._partial
        try:
            out = self._values_uncached(fi, scope, e)
        finally:
            self._depth -= 1
            self._active.discard(key)
        out = self._share(out)
        if self._partial == partial:
            self._values[key] = out
        return out

    def _values_uncached(self, fi: int, scope: int, e: Expr) -> FrozenSet[Value]:
        tag = e[0]
        if tag == "name":
            if e[2]:
                acc: Set[Value] = set()
                for d in e[2]:
                    acc |= self.binding_values(fi, d)
                return _cap(acc)
            return self.free_name(fi, scope, e[1]) or _UNK
        if tag == "attr":
            return self.attr_values(fi, self.values(fi, scope, e[1]), e[2])
        if tag == "call":
            return self.call_values(fi, e[1])
        if tag in ("binop", "unary"):
            return self._arith(fi, scope, e)
        if tag == "ifexp":
            return _cap(set(self.values(fi, scope, e[2])) | set(self.values(fi, scope, e[3])))
        if tag == "boolop":
            acc = set()
            for sub in e[2]:
                acc |= self.values(fi, scope, sub)
            return _cap(acc)
        if tag == "lambda":
            return frozenset((Func(fi, e[1]),))
        if tag == "config":
            value = e[1].items[e[2]][0]
            if isinstance(value, ConfigMap):
                return frozenset((self._config_record(value, fi, -1),))
            try:
                return frozenset((const(value),))
            except TypeError:
                return _UNK
        if tag == "seq" and e[1] == "tuple":
            items = [self.values(fi, scope, x) for x in e[2]]
            consts = [next(iter(s)) for s in items if len(s) == 1]
            if len(consts) == len(items) and all(isinstance(c, Const) for c in consts):
                return frozenset((const(tuple(c.value for c in consts if isinstance(c, Const))),))
        return _UNK

    def _arith(self, fi: int, scope: int, e: Expr) -> FrozenSet[Value]:
        if e[0] == "unary":
            out: Set[Value] = set()
            for v in self.values(fi, scope, e[2]):
                if isinstance(v, Const) and e[1] == "-" and type(v.value) in (int, float):
                    out.add(const(-v.value))
                elif isinstance(v, Const) and e[1] == "not":
                    out.add(const(not v.value))
                else:
                    out.add(UNKNOWN)
            return _cap(out)
        fn = _ARITH.get(e[1])
        left = self.values(fi, scope, e[2])
        right = self.values(fi, scope, e[3])
        out = set()
        for a in left:
            for b in right:
                if fn is not None and isinstance(a, Const) and isinstance(b, Const) \
                        and type(a.value) in (int, float) and type(b.value) in (int, float):
                    try:
                        r = fn(a.value, b.value)
                    except (ArithmeticError, ValueError):
                        r = None
                    out.add(UNKNOWN if r is None else const(r))
                else:
                    out.add(UNKNOWN)
        return _cap(out)

    def binding_values(self, fi: int, aid: int) -> FrozenSet[Value]:
        key = (fi, aid)
        hit = self._bindings.get(key)
        if hit is not None:
            return hit
        if ("b", key) in self._active:
            return _UNK
        self._active.add(("b", key))
        partial = self._partial
        try:
            out = self._binding_uncached(fi, aid)
        finally:
            self._active.discard(("b", key))
        out = self._share(out)
        if self._partial == partial:
            self._bindings[key] = out
        return out

    def _binding_uncached(self, fi: int, aid: int) -> FrozenSet[Value]:
        a = self.files[fi].assigns[aid]
        v = a.value
        tag = v[0]
        if tag == "param":
            f = self.files[fi].funcs[v[1]]
            if f.kind == "method" and f.params and f.params[0].name == v[2] and f.cls >= 0 \
                    and not any(d[0] == "name" and d[1] in ("staticmethod", "classmethod") for d in f.decorators):
                # `self`: an instance of the method's own class.
                return frozenset((Obj(Cls(fi, f.cls), -1, -1, (-1, -1)),))
            return frozenset((Param(fi, v[1], v[2]),))
        if tag == "import":
            return self.import_values(fi, v[1])
        if tag == "def":
            return frozenset((Func(fi, v[1]),))
        if tag == "class":
            return frozenset((Cls(fi, v[1]),))
        if tag == "enter":
            return self.values(fi, a.scope, v[1])
        if tag == "unpack":
            src = v[1]
            if src[0] == "seq" and isinstance(v[2], int) and v[2] < len(src[2]):
                return self.values(fi, a.scope, src[2][v[2]])
            if src[0] == "call" and isinstance(v[2], int):
                return self._unpacked_return(fi, src[1], v[2])
            return _UNK
        if tag in ("iter", "except"):
            return _UNK
        return self.values(fi, a.scope, v)

    def _unpacked_return(self, fi: int, cid: int, index: int) -> FrozenSet[Value]:
        """Element ``index`` of what a project function returns, when every ``return`` of it
        is a tuple/list literal (``net, loss = build()``)."""
        elements = self.unpacked_elements(fi, cid, index)
        if elements is None:
            return _UNK
        acc: Set[Value] = set()
        for efi, scope, e in elements:
            acc |= self.values(efi, scope, e)
        return _cap(acc) if acc else _UNK

    def unpacked_elements(self, fi: int, cid: int, index: int,
                          only_tuples: bool = False) -> Optional[List[Tuple[int, int, Expr]]]:
        """(file, function, expression) of element ``index`` in every ``return`` of the project
        functions call ``cid`` runs (``a, b = build()``); None when one cannot be traced — a
        generator, a constructor, a return that is not a long enough tuple/list literal.
        ``only_tuples``: constructors and functions none of whose returns is a tuple literal are
        left out, as not what the statement unpacks (the other model class a ``--model`` switch
        builds, whose ``forward`` returns one tensor)."""
        out: List[Tuple[int, int, Expr]] = []
        for f, _bound in self.call_targets(fi, cid):
            fact = self.files[f.file].funcs[f.index]
            rets = list(iter_returns(fact.body))
            if only_tuples and (fact.name == "__init__" or (
                    not fact.is_generator and not any(r is not None and r[0] == "seq" for r in rets))):
                continue
            if fact.is_generator or fact.name == "__init__":
                return None
            for r in rets:
                if r is None or r[0] != "seq" or index >= len(r[2]) or r[2][index][0] == "star":
                    return None
                out.append((f.file, f.index, r[2][index]))
        return out

    def free_name(self, fi: int, scope: int, name: str) -> FrozenSet[Value]:
        """A name with no reaching local binding: later locals, enclosing scopes, globals."""
        funcs = self.files[fi].funcs
        f = funcs[scope]
        if scope != 0:
            ids = f.defs.get(name)
            if ids:
                return self._union_bindings(fi, ids)
        p = f.parent
        while p > 0:
            pf = funcs[p]
            if pf.kind != "class":
                ids = pf.defs.get(name)
                if ids:
                    return self._union_bindings(fi, ids)
            p = pf.parent
        return self.global_values(fi, name)

    def _union_bindings(self, fi: int, ids: Iterable[int]) -> FrozenSet[Value]:
        acc: Set[Value] = set()
        for d in ids:
            acc |= self.binding_values(fi, d)
        return _cap(acc)

    def _star_imports(self, fi: int) -> List[ImportFact]:
        hit = self._star.get(fi)
        if hit is None:
            hit = [imp for imp in self.files[fi].imports if imp.name == "*" and imp.scope == 0]
            self._star[fi] = hit
        return hit

    def global_values(self, fi: int, name: str, _seen: FrozenSet[int] = frozenset()) -> FrozenSet[Value]:
        """Module-level binding of ``name`` in file ``fi`` (following ``from x import *``)."""
        key = (fi, name)
        hit = self._globals.get(key)
        if hit is not None:
            return hit
        out = self._global_uncached(fi, name, _seen | {fi})
        self._globals[key] = out = self._share(out)
        return out

    def _global_uncached(self, fi: int, name: str, seen: FrozenSet[int]) -> FrozenSet[Value]:
        ids = self.files[fi].funcs[0].defs.get(name)
        if ids:
            return self._union_bindings(fi, ids)
        for imp in reversed(self._star_imports(fi)):
            target = self.file_of(fi, imp.module, imp.level)
            if target is None:
                if imp.level == 0:
                    return frozenset((Ext(self.apis.canonical(f"{imp.module}.{name}")),))
                continue
            if target >= 0 and target not in seen:
                vals = self.global_values(target, name, seen)
                if vals:
                    return vals
        if name in _BUILTINS:
            return frozenset((Ext("builtins." + name),))
        return _EMPTY

    def import_values(self, fi: int, iid: int) -> FrozenSet[Value]:
        imp = self.files[fi].imports[iid]
        if imp.name is None:
            module = imp.module if imp.asname else imp.module.split(".", 1)[0]
            target = self.file_of(fi, module, imp.level)
            if target is None:
                return frozenset((Ext(self.apis.canonical(module)),))
            return frozenset((Mod(target),)) if target >= 0 else _UNK
        target = self.file_of(fi, imp.module, imp.level)
        if target is None:
            # `from src import config` where src/ has no __init__.py (a namespace package)
            sub = self.file_of(fi, f"{imp.module}.{imp.name}" if imp.module else imp.name, imp.level)
            if sub is not None:
                return frozenset((Mod(sub),)) if sub >= 0 else _UNK
            if imp.level:
                return _UNK
            return frozenset((Ext(self.apis.canonical(f"{imp.module}.{imp.name}")),))
        if target < 0:
            return _UNK
        # `from . import models` in a package's own __init__.py: the name is the submodule (asking
        # the package's globals would ask this very import again)
        vals = self.global_values(target, imp.name) if target != fi else frozenset()
        if vals:
            return vals
        subpath = self.modmap.submodule(self.abspaths[target], imp.name, self._exists)
        if subpath is not None:
            sfi = self.by_abspath.get(subpath, -1)
            return frozenset((Mod(sfi),)) if sfi >= 0 else _UNK
        return _UNK

    # ------------------------------------------------------------------ attributes
    def attr_values(self, fi: int, bases: FrozenSet[Value], name: str) -> FrozenSet[Value]:
        out: Set[Value] = set()
        for v in bases:
            if isinstance(v, Ext):
                out.add(Ext(self.apis.canonical(f"{v.qual}.{name}")))
            elif isinstance(v, Mod):
                vals = self.global_values(v.file, name)
                if not vals:
                    sub = self.modmap.submodule(self.abspaths[v.file], name, self._exists)
                    sfi = self.by_abspath.get(sub, -1) if sub else -1
                    vals = frozenset((Mod(sfi),)) if sfi >= 0 else _UNK
                out |= vals
            elif isinstance(v, Cls):
                out |= self.class_attr(v, name, None)
            elif isinstance(v, Obj):
                out |= self.instance_attr(v, name)
            elif isinstance(v, Super):
                out |= self.super_attr(v, name)
            elif isinstance(v, Param):
                expanded = self.expand_params(frozenset((v,)))
                out |= self.attr_values(fi, expanded, name) if expanded else _UNK
            elif isinstance(v, Record):
                out |= self.record_field(v, name)
            else:
                out.add(UNKNOWN)
        return _cap(out) if out else _UNK

    def record_field(self, rec: Record, name: str) -> FrozenSet[Value]:
        """A field's values — every variant's, for a configuration read from several files."""
        acc: Set[Value] = set()
        for fname, (rfi, rscope, expr) in rec.fields:
            if fname == name:
                acc |= self.values(rfi, rscope, expr)
                if rec.kind != "config":
                    break
        return _cap(acc) if acc else _UNK
