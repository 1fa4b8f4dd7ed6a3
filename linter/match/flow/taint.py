"""Flow rules with ``track: value``: taint.

Taint (loss-scaled gradients) follows values through the reaching definitions computed at
extraction: a call's result carries the taint of its arguments unless it is a sanitizer;
project functions are summarised (which parameters reach the return, which reach a sink),
``partial``/``hyper_map`` apply their function to the elements, and dispatch registries
(``MultitypeFuncGraph``) use their registered implementations. A sink whose argument is
tainted by a source of its own function is reported there; one tainted only through a
parameter is reported at the call sites that pass a tainted value.
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from linter.compiler.build import CompiledRule, Effect, FlowSpec
from linter.core.model import Finding
from linter.facts.ir import iter_returns
from linter.facts.model import Expr
from linter.index.apis import Param as ApiParam
from linter.index.project import bind_args
from linter.index.values import Bound, Cls, Func, Obj, ordered
from linter.match.context import MatchContext
from linter.match.findings import make_finding, render
from linter.match.flow.sites import CallKey, Site, _label

Taint = FrozenSet[Tuple[Any, ...]]
_CLEAN: Taint = frozenset()


class TaintFlow:
    def __init__(self, rule: CompiledRule, mc: MatchContext, lang: str) -> None:
        self.rule = rule
        self.spec: FlowSpec = rule.spec
        self.mc = mc
        self.p = mc.p
        self.lang = lang
        self._memo: Dict[Tuple[int, int, int], Taint] = {}
        self._assign_memo: Dict[Tuple[int, int], Taint] = {}
        self._active: Set[Any] = set()
        self._returns: Dict[Site, Taint] = {}
        self._call_effects: Dict[CallKey, str] = {}
        self._registered: Optional[Dict[Tuple[int, int], List[Func]]] = None
        self._parents: Dict[int, Dict[int, int]] = {}
        self.reports: Dict[CallKey, Dict[str, Any]] = {}
        self._param_seen: Set[Tuple[Site, str]] = set()
        self._partials: Optional[Dict[Func, List[CallKey]]] = None

    # ------------------------------------------------------------------ classification
    def _classify(self, fi: int, cid: int) -> str:
        """``source``, ``sanitizer``, ``transparent`` or ``""`` for a call."""
        key = (fi, cid)
        hit = self._call_effects.get(key)
        if hit is not None:
            return hit
        kind = ""
        names = self.p.call_names(fi, cid)
        fw = self.rule.framework
        for eff in self.spec.sanitizers:
            if eff.kind == "call" and eff.pattern is not None and eff.pattern.names is not None \
                    and eff.pattern.names.any(names) and self.mc.match(eff.pattern, fi, cid, framework=fw) is not None:
                kind = "sanitizer"
                break
        if not kind:
            for eff in self.spec.sources:
                if eff.kind == "call" and eff.pattern is not None and eff.pattern.names is not None \
                        and eff.pattern.names.any(names) and self.mc.match(eff.pattern, fi, cid, framework=fw) is not None:
                    kind = "source"
                    break
        if not kind and self.spec.transparent is not None and self.spec.transparent.any(names):
            kind = "transparent"
        self._call_effects[key] = kind
        return kind

    # ------------------------------------------------------------------ taint of expressions
    def taint(self, fi: int, scope: int, e: Expr) -> Taint:
        tag = e[0]
        if tag in ("const", "lambda", "other"):
            return _CLEAN
        key = (fi, scope, id(e))   # expressions are shared within a file (facts/expressions.py)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        if key in self._active:
            return _CLEAN
        self._active.add(key)
        try:
            out = self._taint(fi, scope, e)
        finally:
            self._active.discard(key)
        self._memo[key] = out
        return out

    def _union(self, fi: int, scope: int, exprs: Iterable[Any]) -> Taint:
        acc: Set[Tuple[Any, ...]] = set()
        for x in exprs:
            if isinstance(x, tuple) and x and isinstance(x[0], str):
                acc |= self.taint(fi, scope, x)
        return frozenset(acc)

    def _taint(self, fi: int, scope: int, e: Expr) -> Taint:
        tag = e[0]
        if tag == "name":
            if e[2]:
                acc: Set[Tuple[Any, ...]] = set()
                for aid in e[2]:
                    acc |= self.assign_taint(fi, aid)
                return frozenset(acc)
            return self._free_name(fi, scope, e[1])
        if tag == "attr":
            src = self._attribute_source(fi, scope, e)
            if src:
                return src
            if e[1][0] == "name" and self._is_self(fi, scope, e[1]):
                return _CLEAN
            return self.taint(fi, scope, e[1])
        if tag == "call":
            return self._call_taint(fi, e[1])
        if tag == "binop":
            if self._sanitizing_binop(fi, scope, e):
                return _CLEAN
            return self.taint(fi, scope, e[2]) | self.taint(fi, scope, e[3])
        if tag == "unary":
            return self.taint(fi, scope, e[2])
        if tag in ("await", "yield", "star"):
            return self.taint(fi, scope, e[1]) if e[1] is not None else _CLEAN
        if tag == "compare":
            return _CLEAN
        if tag == "boolop":
            return self._union(fi, scope, e[2])
        if tag == "ifexp":
            return self.taint(fi, scope, e[2]) | self.taint(fi, scope, e[3])
        if tag == "seq" or tag == "fstr":
            return self._union(fi, scope, e[2] if tag == "seq" else e[1])
        if tag == "dict":
            return self._union(fi, scope, e[2])
        if tag == "subscript":
            return self.taint(fi, scope, e[1])
        if tag == "comp":
            return self.taint(fi, scope, e[2])
        return _CLEAN

    def _is_self(self, fi: int, scope: int, name_expr: Expr) -> bool:
        for aid in name_expr[2]:
            v = self.p.files[fi].assigns[aid].value
            if v[0] == "param":
                f = self.p.files[fi].funcs[v[1]]
                if f.kind == "method" and f.params and f.params[0].name == v[2]:
                    return True
        return False

    def assign_taint(self, fi: int, aid: int) -> Taint:
        key = (fi, aid)
        hit = self._assign_memo.get(key)
        if hit is not None:
            return hit
        if ("a", key) in self._active:
            return _CLEAN
        self._active.add(("a", key))
        try:
            a = self.p.files[fi].assigns[aid]
            v = a.value
            tag = v[0]
            if tag == "param":
                f = self.p.files[fi].funcs[v[1]]
                is_self = f.kind == "method" and f.params and f.params[0].name == v[2]
                out: Taint = _CLEAN if is_self else frozenset((("P", v[1], v[2]),))
            elif tag in ("import", "class", "except"):
                out = _CLEAN
            elif tag == "def":
                out = self._function_value(Func(fi, v[1]))
            elif tag in ("iter", "enter"):
                out = self.taint(fi, a.scope, v[1])
            elif tag == "unpack":
                src = v[1]
                if src[0] == "seq" and isinstance(v[2], int) and v[2] < len(src[2]):
                    out = self.taint(fi, a.scope, src[2][v[2]])
                else:
                    element = self._unpacked_return(fi, src, v[2]) if src[0] == "call" else None
                    out = element if element is not None else self.taint(fi, a.scope, src)
            else:
                out = self.taint(fi, a.scope, v)
        finally:
            self._active.discard(("a", key))
        self._assign_memo[key] = out
        return out

    def _free_name(self, fi: int, scope: int, name: str) -> Taint:
        """Module constants and closures: their own taint, minus parameters of other functions."""
        acc: Set[Tuple[Any, ...]] = set()
        for sfi, sscope, sexpr, _line, _via in self.p.defining_exprs(fi, scope, ("name", name, ())):
            if sexpr is None:
                continue
            acc |= {o for o in self.taint(sfi, sscope, sexpr) if o[0] == "S"}
        # functions referenced by name (e.g. passed to value_and_grad)
        for v in self.p.free_name(fi, scope, name):
            if isinstance(v, Func):
                acc |= self._function_value(v)
        return frozenset(acc)

    def _function_value(self, f: Func) -> Taint:
        """A function used as a value carries the sources its result always carries."""
        return frozenset(o for o in self.returns(f) if o[0] == "S")

    def _attribute_source(self, fi: int, scope: int, e: Expr) -> Taint:
        for eff in self.spec.sources:
            if eff.kind != "attribute" or e[2] != eff.attr_name or e[1][0] != "name":
                continue
            if not self._is_self(fi, scope, e[1]):
                continue
            f = self.p.files[fi].funcs[scope]
            if f.cls < 0 or eff.attr_classes is None:
                continue
            if eff.attr_classes.any(self.p.framework_bases(Cls(fi, f.cls))):
                line = self.p.files[fi].funcs[scope].line
                return frozenset((("S", fi, line, f"`self.{eff.attr_name}`", f.qualname),))
        return _CLEAN

    def _sanitizing_binop(self, fi: int, scope: int, e: Expr) -> bool:
        op = e[1]
        for eff in self.spec.sanitizers:
            if eff.kind == "divide" and op == "/" and self.taint(fi, scope, e[3]):
                return True
            if eff.kind == "multiply_inverse" and op == "*":
                if self._inverse_of_tainted(fi, scope, e[2], eff) or self._inverse_of_tainted(fi, scope, e[3], eff):
                    return True
        return False

    def _inverse_of_tainted(self, fi: int, scope: int, e: Expr, eff: Effect, depth: int = 0) -> bool:
        if depth > 4:
            return False
        if e[0] == "binop" and e[1] == "/" and e[2][0] == "const" and e[2][1] in (1, 1.0):
            return bool(self.taint(fi, scope, e[3]))
        if e[0] == "name" and e[2]:
            return any(self._inverse_of_tainted(fi, self.p.files[fi].assigns[aid].scope,
                                                self.p.files[fi].assigns[aid].value, eff, depth + 1)
                       for aid in e[2] if self.p.files[fi].assigns[aid].value[0] not in ("param", "import", "def", "class"))
        if e[0] == "call":
            call = self.p.files[fi].calls[e[1]]
            names = self.p.call_names(fi, e[1])
            if self.spec.transparent is not None and self.spec.transparent.any(names) and call.args:
                return self._inverse_of_tainted(fi, call.scope, call.args[0].value, eff, depth + 1)
            if eff.inverse is not None and eff.inverse.any(names) and call.args:
                return bool(self.taint(fi, call.scope, call.args[0].value))
        return False

    # ------------------------------------------------------------------ calls
    def _call_taint(self, fi: int, cid: int) -> Taint:
        call = self.p.files[fi].calls[cid]
        kind = self._classify(fi, cid)
        if kind == "sanitizer":
            return _CLEAN
        if kind == "source":
            return frozenset((("S", fi, call.line, _label(self.mc, fi, cid), ""),))
        if kind == "transparent":
            return self.taint(fi, call.scope, call.args[0].value) if call.args else _CLEAN
        names = self.p.call_names(fi, cid)
        ck = self.p.apis.callable_kind(names)
        if ck == "map" and call.args:
            applied = self._apply_map(fi, cid)
            if applied is not None:
                return applied
        # a call of `partial(f, a)` object: f(a, *args)
        if call.func[0] == "call":
            pcid = call.func[1]
            if self.p.apis.callable_kind(self.p.call_names(fi, pcid)) == "partial":
                applied = self._apply_partial(fi, pcid, [a.value for a in call.args], fi, call.scope)
                if applied is not None:
                    return applied
        targets = self.p.call_targets(fi, cid)
        if targets and all(self._has_body(t) for t, _ in targets):
            acc: Set[Tuple[Any, ...]] = set()
            for t, skip_self in targets:
                acc |= self._apply_summary(t, skip_self, fi, cid)
            return frozenset(acc)
        # default: the result carries the taint of everything it was computed from
        parts: List[Any] = [a.value for a in call.args]
        if call.func[0] == "attr":
            parts.append(call.func[1])
        elif call.func[0] in ("call", "name", "subscript"):
            parts.append(call.func)
        return self._union(fi, call.scope, parts)

    def _unpacked_return(self, fi: int, src: Expr, index: Any) -> Optional[Taint]:
        """``loss, overflow, grads = step(x, y)`` with every ``return`` of the project function
        (or ``construct``) a tuple literal of that length: element ``index`` carries the taint of
        that element only (the unscaled gradients next to a flag computed from the scale)."""
        if not isinstance(index, int) or self._classify(fi, src[1]):
            return None
        targets = self.p.call_targets(fi, src[1])
        if not targets or not all(self._has_body(t) for t, _ in targets):
            return None
        out: Set[Tuple[Any, ...]] = set()
        for t, skip_self in targets:
            rets = list(iter_returns(self.p.files[t.file].funcs[t.index].body))
            if not rets or any(r is None or r[0] != "seq" or len(r[2]) <= index for r in rets):
                return None
            for r in rets:
                out |= self._at_call(self.taint(t.file, t.index, r[2][index]), t, skip_self, fi, src[1])
        return frozenset(out)

    def _has_body(self, f: Func) -> bool:
        return self.p.files[f.file].funcs[f.index].kind != "class"

    def returns(self, f: Func) -> Taint:
        site = (f.file, f.index)
        hit = self._returns.get(site)
        if hit is not None:
            return hit
        if ("r", site) in self._active:
            return _CLEAN
        self._active.add(("r", site))
        try:
            fact = self.p.files[f.file].funcs[f.index]
            acc: Set[Tuple[Any, ...]] = set()
            for e in iter_returns(fact.body):
                if e is not None:
                    acc |= self.taint(f.file, f.index, e)
        finally:
            self._active.discard(("r", site))
        out = frozenset(acc)
        self._returns[site] = out
        return out

    def _apply_summary(self, f: Func, skip_self: bool, fi: int, cid: int,
                       arg_exprs: Optional[Sequence[Tuple[int, int, Any]]] = None) -> Taint:
        """Taint of calling ``f``: its own sources plus the taint of the arguments that reach its return."""
        return self._at_call(self.returns(f), f, skip_self, fi, cid, arg_exprs)

    def _at_call(self, ret: Taint, f: Func, skip_self: bool, fi: int, cid: int,
                 arg_exprs: Optional[Sequence[Tuple[int, int, Any]]] = None) -> Taint:
        """A taint computed inside ``f``, seen at call ``cid``: its sources, and each parameter
        it depends on replaced by the taint of what this call passes."""
        out: Set[Tuple[Any, ...]] = {o for o in ret if o[0] == "S"}
        params = self.p.files[f.file].funcs[f.index].params
        if skip_self:
            params = params[1:]
        bound = self._bind(params, fi, cid, arg_exprs)
        for o in ret:
            if o[0] == "P" and o[1] == f.index:
                src = bound.get(o[2])
                if src is not None:
                    out |= self.taint(*src)
        return frozenset(out)

    def _bind(self, params: Sequence[Any], fi: int, cid: int,
              arg_exprs: Optional[Sequence[Tuple[int, int, Any]]]) -> Dict[str, Tuple[int, int, Any]]:
        out: Dict[str, Tuple[int, int, Any]] = {}
        if arg_exprs is not None:
            positional = [p for p in params if p.kind in ("pos", "posonly")]
            for p, a in zip(positional, arg_exprs):
                out[p.name] = a
            return out
        call = self.p.files[fi].calls[cid]

        b = bind_args(call.args, [ApiParam(p.name, p.kind) for p in params])
        for name, bound in b.args.items():
            out[name] = (fi, call.scope, bound.value)
        return out

    def _fn_targets(self, fi: int, scope: int, e: Expr) -> List[Func]:
        """Project functions a function-valued expression stands for (dispatch registries expanded)."""
        out: List[Func] = []
        for v in ordered(self.p.values(fi, scope, e)):
            if isinstance(v, Func):
                out.append(v)
            elif isinstance(v, Bound) and isinstance(v.func, Func):
                out.append(v.func)
            elif isinstance(v, Obj):
                out += self.registered().get(v.origin, [])
        return out

    def registered(self) -> Dict[Tuple[int, int], List[Func]]:
        """Dispatch registries: origin of the registry object → functions registered with ``@obj.register``."""
        if self._registered is None:
            reg: Dict[Tuple[int, int], List[Func]] = {}
            for fi, facts in enumerate(self.p.files):
                for idx, f in enumerate(facts.funcs):
                    for d in f.decorators:
                        if d[0] != "call":
                            continue
                        dc = facts.calls[d[1]]
                        if dc.func[0] != "attr" or dc.func[2] != "register":
                            continue
                        for v in self.p.values(fi, dc.scope, dc.func[1]):
                            if isinstance(v, Obj):
                                reg.setdefault(v.origin, []).append(Func(fi, idx))
            self._registered = reg
        return self._registered

    def _apply_partial(self, fi: int, pcid: int, extra: Sequence[Any], efi: int, escope: int) -> Optional[Taint]:
        pcall = self.p.files[fi].calls[pcid]
        if not pcall.args:
            return None
        funcs = self._fn_targets(fi, pcall.scope, pcall.args[0].value)
        if not funcs:
            return None
        args = [(fi, pcall.scope, a.value) for a in pcall.args[1:]] + [(efi, escope, x) for x in extra]
        return self._apply_all(funcs, args)

    def _apply_all(self, funcs: Sequence[Func], args: Sequence[Tuple[int, int, Any]]) -> Taint:
        """Implementations of a registry are alternatives by input type: a value stays tainted
        only if every implementation keeps it tainted (the tensor overload decides)."""
        results = [self._apply_summary(f, False, -1, -1, args) for f in funcs]
        if not results:
            return _CLEAN
        out = set(results[0])
        for r in results[1:]:
            out &= r
        return frozenset(out)

    def _apply_map(self, fi: int, cid: int) -> Optional[Taint]:
        call = self.p.files[fi].calls[cid]
        fn = call.args[0].value
        elems = [(fi, call.scope, a.value) for a in call.args[1:]]
        if fn[0] == "call" and self.p.apis.callable_kind(self.p.call_names(fi, fn[1])) == "partial":
            pcall = self.p.files[fi].calls[fn[1]]
            if not pcall.args:
                return None
            funcs = self._fn_targets(fi, pcall.scope, pcall.args[0].value)
            args = [(fi, pcall.scope, a.value) for a in pcall.args[1:]] + elems
        else:
            funcs = self._fn_targets(fi, call.scope, fn)
            args = elems
        if not funcs:
            return None
        return self._apply_all(funcs, args)

    # ------------------------------------------------------------------ sinks and reports
    def run(self, files: Sequence[int]) -> List[Finding]:
        fw = self.rule.framework
        allfiles = range(len(self.p.files))
        for eff in self.spec.sinks:
            if eff.kind != "call" or eff.pattern is None:
                continue
            for fi, cid in self.mc.candidates(eff.pattern, allfiles):
                self.mc.isolated(fi, lambda: self._sink(eff, fi, cid, fw), None)
        linted = set(files)
        return [self._finding(fi, cid, info) for (fi, cid), info in sorted(self.reports.items()) if fi in linted]

    def _sink(self, eff: Effect, fi: int, cid: int, fw: Optional[str]) -> None:
        assert eff.pattern is not None
        site = self.mc.match(eff.pattern, fi, cid, framework=fw)
        if site is None:
            return
        a = site.arg(eff.arg) if eff.arg else (site.call.args[0] if site.call.args else None)
        if a is not None:
            self._handle(fi, cid, self.taint(fi, site.call.scope, a.value), (fi, cid))

    def _handle(self, fi: int, cid: int, t: Taint, sink: CallKey) -> None:
        for o in ordered(t):
            if o[0] == "S":
                info = self.reports.setdefault((fi, cid), {"sources": [], "sink": sink})
                if o not in info["sources"]:
                    info["sources"].append(o)
            elif o[0] == "P":
                self._param_reaches_sink(Func(fi, o[1]), o[2], sink)

    def _param_reaches_sink(self, f: Func, param: str, sink: CallKey) -> None:
        key = ((f.file, f.index), param)
        if key in self._param_seen:
            return
        self._param_seen.add(key)
        fact = self.p.files[f.file].funcs[f.index]
        for cfi, cid, bound in self.p.callers(f):
            a = bound.get(param)
            if a is not None:
                self._handle(cfi, cid, self.taint(cfi, self.p.files[cfi].calls[cid].scope, a.value), sink)
        # used through partial()/hyper_map(): find partial calls naming f (or its registry)
        index = [p.name for p in fact.params].index(param) if param in [p.name for p in fact.params] else -1
        if index < 0:
            return
        for gfi, pcid in self._partials_of().get(f, ()):
            facts = self.p.files[gfi]
            pcall = facts.calls[pcid]
            bound_n = len(pcall.args) - 1
            parent = self._parent_call(gfi, pcid)
            if index < bound_n:
                src = (gfi, pcall.scope, pcall.args[1 + index].value)
                self._handle(gfi, parent if parent is not None else pcid, self.taint(*src), sink)
            elif parent is not None:
                pc = facts.calls[parent]
                elems = [a.value for a in pc.args[1:]]
                j = index - bound_n
                if j < len(elems):
                    self._handle(gfi, parent, self.taint(gfi, pc.scope, elems[j]), sink)

    def _partials_of(self) -> Dict[Func, List[CallKey]]:
        """Project function → the ``partial(f, ...)`` calls naming it (or its registry): one
        pass over the project, not one per parameter that reaches a sink."""
        if self._partials is None:
            self._partials = {}
            for gfi, facts in enumerate(self.p.files):
                for pcid in facts.callee_index.get("partial", ()):
                    if self.p.apis.callable_kind(self.p.call_names(gfi, pcid)) != "partial":
                        continue
                    pcall = facts.calls[pcid]
                    if pcall.args:
                        for target in sorted(set(self._fn_targets(gfi, pcall.scope, pcall.args[0].value)), key=repr):
                            self._partials.setdefault(target, []).append((gfi, pcid))
        return self._partials

    def _parent_call(self, fi: int, cid: int) -> Optional[int]:
        table = self._parents.get(fi)
        if table is None:
            table = {}
            for pid, c in enumerate(self.p.files[fi].calls):
                for a in c.args:
                    if a.value[0] == "call":
                        table[a.value[1]] = pid
            self._parents[fi] = table
        return table.get(cid)

    def _finding(self, fi: int, cid: int, info: Dict[str, Any]) -> Finding:
        call = self.p.files[fi].calls[cid]
        srcs = info["sources"]
        source = ", ".join(f"{o[3]}" for o in srcs[:2])
        data = {"source": source, "callee": call.dotted or "call"}
        sfi, scid = info["sink"]
        if (sfi, scid) != (fi, cid):
            data["sink"] = _label(self.mc, sfi, scid)

        data["cause"] = render(self.spec.cause("source", self.lang), data)
        return make_finding(self.rule, self.p.files[fi].path, (call.line, call.column, call.end_line, call.end_column),
                            data, self.lang)
