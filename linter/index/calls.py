"""What a call runs and returns: the values of its callee, what calling it returns (instances,
objects derived from their receiver, returns of project functions, configurations loaded),
the qualified names it answers to (what rule patterns are matched against), and the project
functions it runs, with those they call in turn.

One part of :class:`~linter.index.project.Project`; who calls a function is
:mod:`linter.index.callers`.
"""
from __future__ import annotations

from typing import Any, FrozenSet, Iterable, List, Optional, Set, Tuple

from linter.facts.ir import iter_returns
from linter.facts.model import CallFact
from linter.index.state import _UNK, ProjectState, _cap
from linter.index.values import UNKNOWN, Bound, Cls, Ext, Func, Obj, Param, Super, Value, const, ordered


def _is_super_call(project: Calls, fi: int, call: CallFact) -> bool:
    base = call.func[1] if call.func[0] == "attr" else None
    return base is not None and base[0] == "call" and \
        project.call_names(fi, base[1])[:1] == ("builtins.super",)


class Calls(ProjectState):
    """Callees, return values, qualified names and targets of calls."""

    # ------------------------------------------------------------------ calls
    def callee_values(self, fi: int, cid: int) -> FrozenSet[Value]:
        key = (fi, cid)
        hit = self._callees.get(key)
        if hit is None:
            partial = self._partial
            c = self.files[fi].calls[cid]
            vals = self.values(fi, c.scope, c.func)
            if any(isinstance(v, Param) for v in vals):
                # `model(x)` where `model` is a parameter: what the call sites pass.
                vals = self.expand_params(vals) or _UNK
            hit = self._share(vals)
            if self._partial == partial:
                self._callees[key] = hit
        return hit

    def call_values(self, fi: int, cid: int) -> FrozenSet[Value]:
        """What calling ``calls[cid]`` returns (instances, derived objects, returns of project functions)."""
        key = (fi, cid)
        hit = self._calls.get(key)
        if hit is not None:
            return hit
        if ("c", key) in self._active:
            return _UNK
        self._active.add(("c", key))
        partial = self._partial
        try:
            out = self._call_uncached(fi, cid)
        finally:
            self._active.discard(("c", key))
        out = self._share(out)
        if self._partial == partial:
            self._calls[key] = out
        return out

    def _call_uncached(self, fi: int, cid: int) -> FrozenSet[Value]:
        call = self.files[fi].calls[cid]
        out: Set[Value] = set()
        here = (fi, cid)
        for v in self.callee_values(fi, cid):
            if isinstance(v, Cls):
                out.add(Obj(v, fi, cid, here))
            elif isinstance(v, Ext):
                out |= self._ext_call(fi, call, cid, v.qual, None)
            elif isinstance(v, Func):
                default = self.config_loader(v)
                if default is not None:
                    out |= self._loaded_config(default, fi, cid)
                else:
                    out |= self.returns(v)
            elif isinstance(v, Bound):
                if isinstance(v.func, Func):
                    out |= self.returns(v.func)
                else:
                    out |= self._ext_call(fi, call, cid, v.func.qual, v.recv)
            else:
                out.add(UNKNOWN)
        return _cap(out) if out else _UNK

    def _ext_call(self, fi: int, call: CallFact, cid: int, qual: str, recv: Any) -> FrozenSet[Value]:
        here = (fi, cid)
        if qual == "builtins.super":
            f = self.files[fi].funcs[call.scope]
            if f.cls >= 0 and f.params:
                return frozenset((Super(fi, f.cls, Obj(Cls(fi, f.cls), -1, -1, (-1, -1))),))
            return _UNK
        spec = self.apis.callables.get(qual)
        if spec is not None and spec.get("kind") == "record":
            return frozenset((self._record(fi, call, cid, spec),))
        if spec is not None and spec.get("kind") == "argparse-parse" and isinstance(recv, Obj):
            return frozenset((self._argparse_record(recv, fi, cid),))
        api = self.apis.get(qual)
        returns = api.returns if api is not None else ("instance" if self.apis.is_class(qual) else "")
        if not returns:
            returns = self.apis.factory_type(qual)
        if returns == "arg:0":
            # returns its first argument (`auto_mixed_precision(net)`, `model.to(device)` style)
            return self.values(fi, call.scope, call.args[0].value) if call.args else _UNK
        if returns == "instance":
            return frozenset((Obj(Ext(qual), fi, cid, here),))
        if returns in ("derived", "derived-items") and isinstance(recv, Obj):
            return frozenset((Obj(recv.type, fi, cid, recv.origin),))
        if returns == "derived-all":
            # `a.zip(b)`, `ds.zip((a, b))`, `a.concat([b, c])`: one object per lineage joined, so
            # a `.shuffle()` after the join is seen from every source
            objs = [recv] if isinstance(recv, Obj) else []
            for a in call.args:
                for x in (a.value[2] if a.value[0] == "seq" else (a.value,)):
                    objs += [v for v in self.values(fi, call.scope, x) if isinstance(v, Obj)]
            return _cap({Obj(o.type, fi, cid, o.origin) for o in objs}) if objs else _UNK
        if returns == "self" and recv is not None:
            return frozenset((recv,))
        if returns and returns not in ("derived", "derived-items", "derived-all", "self", "instance"):
            return frozenset((Obj(Ext(returns), fi, cid, here),))
        return _UNK

    def callee_closure(self, seeds: Iterable[Tuple[int, int]], depth: int,
                       cap: Optional[int] = None) -> List[Tuple[int, int]]:
        """``seeds`` (file, function) and the project functions they call, ``depth`` levels
        down, in breadth-first order (at most ``cap`` in all)."""
        out = list(seeds)
        seen = set(out)
        frontier = list(out)
        for _ in range(depth):
            nxt = []
            for sfi, sscope in frontier:
                for cid, c in enumerate(self.files[sfi].calls):
                    if c.scope != sscope:
                        continue
                    for t, _bound in self.call_targets(sfi, cid):
                        key = (t.file, t.index)
                        if key not in seen and (cap is None or len(out) < cap):
                            seen.add(key)
                            out.append(key)
                            nxt.append(key)
            frontier = nxt
        return out

    def returns(self, f: Func) -> FrozenSet[Value]:
        key = (f.file, f.index)
        hit = self._returns.get(key)
        if hit is not None:
            return hit
        if ("r", key) in self._active:
            return _UNK
        self._active.add(("r", key))
        partial = self._partial
        try:
            fact = self.files[f.file].funcs[f.index]
            if fact.is_generator:
                out: FrozenSet[Value] = _UNK
            else:
                acc: Set[Value] = set()
                exprs = list(iter_returns(fact.body))
                for e in exprs:
                    acc |= self.values(f.file, f.index, e) if e is not None else {const(None)}
                if not exprs:
                    acc.add(const(None))
                out = _cap(acc)
        finally:
            self._active.discard(("r", key))
        out = self._share(out)
        if self._partial == partial:
            self._returns[key] = out
        return out

    def call_names(self, fi: int, cid: int) -> Tuple[str, ...]:
        """Qualified names a call answers to, most specific first.

        A method call on an instance answers to ``Type.method`` for the instance's type and
        each of its framework bases, so a pattern on a base class matches subclasses too.
        Calls whose receiver cannot be typed answer to ``?.method``.
        """
        key = (fi, cid)
        hit = self._names.get(key)
        if hit is not None:
            return hit
        call = self.files[fi].calls[cid]
        names: List[str] = []
        partial = self._partial

        def add(n: str) -> None:
            if n and n not in names:
                names.append(n)

        for v in ordered(self.callee_values(fi, cid)):
            if isinstance(v, Ext):
                add(v.qual)
            elif isinstance(v, (Func, Cls)):
                add(self.project_qual(v))
            elif isinstance(v, Bound):
                method = call.func[2] if call.func[0] == "attr" else ""
                if isinstance(v.func, Ext):
                    add(v.func.qual)
                else:
                    add(self.project_qual(v.func))
                t = v.recv.type if isinstance(v.recv, Obj) else None
                if _is_super_call(self, fi, call):
                    t = None  # super().m() is the base's m, not the subclass's
                if method:
                    for q in self.type_quals(t):
                        add(f"{q}.{method}")
                    if (isinstance(t, Cls) and self._unknown_framework(t)) or self.unknown_ext(t):
                        # derived from a library class the tables do not describe (mindspore_gl's
                        # GNNCell, itself a Cell), or an instance of one (texar's BERTClassifier):
                        # its framework methods are unknown, not absent
                        add(f"?.{method}")
            elif isinstance(v, Obj):
                for q in self.type_quals(v.type):
                    add(f"{q}.__call__")
                if self.unknown_ext(v.type):
                    add("?.__call__")
        if not names and call.func[0] == "attr":
            add(f"?.{call.func[2]}")
        elif not names and call.func[0] == "name":
            add(f"?.{call.func[1]}")  # a local whose value is unknown, e.g. a function made by value_and_grad
        result = tuple(names)
        if self._partial == partial:
            self._names[key] = result
        return result

    def unknown_ext(self, t: Any) -> bool:
        """An instance of a library class the API tables do not describe, from a library they do
        not cover (``texar.torch.modules.BERTClassifier``): what its methods are is unknown."""
        return isinstance(t, Ext) and self.apis.get(t.qual) is None and not self.apis.framework_of(t.qual)

    def _unknown_framework(self, c: Cls) -> bool:
        """Project class ``c`` derives from library classes, none of which the API tables know."""
        bases = self.framework_bases(c)
        return bool(bases) and all(self.apis.get(q) is None for q in bases)

    def type_quals(self, t: Optional[Value]) -> List[str]:
        """The qualified names of a type and its bases (project names first)."""
        if isinstance(t, Ext):
            return list(self.apis.mro(t.qual))
        if isinstance(t, Cls):
            return [self.project_qual(k) for k in self.project_mro(t)] + list(self.framework_bases(t))
        return []

    def call_targets(self, fi: int, cid: int) -> List[Tuple[Func, bool]]:
        """Project functions a call runs, with whether ``self`` is bound implicitly:
        functions, bound methods, constructors (``__init__``) and instance calls
        (``__call__`` or the framework's ``construct``/``forward``/``call``)."""
        out: List[Tuple[Func, bool]] = []
        for v in ordered(self.callee_values(fi, cid)):
            if isinstance(v, Func):
                out.append((v, False))
            elif isinstance(v, Bound) and isinstance(v.func, Func):
                out.append((v.func, True))
            elif isinstance(v, Cls):
                for iv in self.class_attr(v, "__init__", None):
                    if isinstance(iv, Func):
                        out.append((iv, True))
            elif isinstance(v, Obj) and isinstance(v.type, Cls):
                names = ["__call__"]
                for q in self.framework_bases(v.type):
                    m = self.apis.call_method(q)
                    if m != "__call__":
                        names.append(m)
                        break
                for name in names:
                    hit = [iv for iv in self.class_attr(v.type, name, None) if isinstance(iv, Func)]
                    if hit:
                        out.extend((h, True) for h in hit)
                        break
        return out
