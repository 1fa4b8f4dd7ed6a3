"""The values of a matched call's arguments, and what the predicates record about them.

Constant values of an argument (or of its default), value tests (``eq``, bounds, ``in``, types),
the argument's name and kind, and the leaf tests' record in ``CallSite.data`` — source text,
values, position, provenance, the one definition the values come from (``cause.<arg>``), the
other call a predicate found (``related``) — so messages can say *which* value and *where it
came from*.
"""
from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

from linter.compiler.build import ValueTest
from linter.facts.model import ArgFact, Expr
from linter.index.apis import NO_DEFAULT, Expression
from linter.index.values import Valued
from linter.match.context import CallSite, MatchContext
from linter.match.narrow import narrowed


def _num(v: Any) -> Optional[float]:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def _equal(a: Any, b: Any, tol: float) -> bool:
    na, nb = _num(a), _num(b)
    if na is not None and nb is not None:
        return math.isclose(na, nb, rel_tol=tol, abs_tol=tol * 1e-3)
    return type(a) is type(b) and a == b


def value_passes(test: ValueTest, v: Any) -> bool:
    tol = test.tolerance
    if test.has_eq and not _equal(v, test.eq, tol):
        return False
    if test.has_ne and _equal(v, test.ne, tol):
        return False
    n = _num(v)
    for bound, op in ((test.lt, "lt"), (test.le, "le"), (test.gt, "gt"), (test.ge, "ge")):
        if bound is None:
            continue
        if n is None:
            return False
        if op == "lt" and not n < bound:
            return False
        if op == "le" and not (n < bound or math.isclose(n, bound, rel_tol=tol)):
            return False
        if op == "gt" and not n > bound:
            return False
        if op == "ge" and not (n > bound or math.isclose(n, bound, rel_tol=tol)):
            return False
    if test.in_ is not None and not any(_equal(v, x, tol) for x in test.in_):
        return False
    if test.not_in is not None and any(_equal(v, x, tol) for x in test.not_in):
        return False
    if test.type is not None:
        t = {"int": int, "float": float, "str": str, "bool": bool}.get(test.type)
        if test.type == "none" and v is not None:
            return False
        if test.type == "number" and _num(v) is None:
            return False
        if t is not None and type(v) is not t:
            return False
    if test.truthy is not None and bool(v) != test.truthy:
        return False
    return True


def arg_values(site: CallSite, mc: MatchContext, a: Optional[ArgFact], name: str,
               default_applies: bool) -> Tuple[List[Valued], bool]:
    """Constant values of an argument (or of its default when it is missing)."""
    p = mc.p
    if a is not None:
        # the matcher's assumption (``do_train=True`` for a training pipeline) holds for the
        # argument's value, not for the other questions asked while matching
        with p.under(p.hypothesis.with_assume(mc.assume)):
            vals, complete = p.constants(site.fi, site.call.scope, a.value)
            return narrowed(mc, site.fi, site.call.scope, site.call.stmt, a.value, vals, complete, site.cid)
    if not default_applies or site.bound.uncertain:
        return [], False
    d = site.default(name)
    if isinstance(d, tuple) and len(d) == 2 and d[0] == "const":
        d = d[1]   # a project callee's own default (`def __init__(self, ..., sens=1024.0)`), a literal
    elif d is NO_DEFAULT or isinstance(d, (Expression, tuple)):
        return [], False
    return [Valued(d, p.files[site.fi].path, site.call.line, "default")], True


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return repr(round(v, 10)) if abs(v - round(v, 10)) < 1e-12 else repr(v)
    return repr(v)


def _record_position(site: CallSite, name: str, a: Optional[ArgFact]) -> None:
    """Where a fix finds a positional argument: ``{name}.position`` (index among positionals)."""
    if a is not None and a.keyword is None and not a.star:
        positional = [x for x in site.call.args if x.keyword is None and not x.star]
        if a in positional:
            site.data.setdefault(f"{name}.position", str(positional.index(a)))


def _record(site: CallSite, name: str, a: Optional[ArgFact], vals: List[Valued]) -> None:
    if f"{name}.recorded" in site.data:   # the first test that saw values describes them
        return
    site.data[f"{name}.recorded"] = "1"
    site.data[name] = a.text if a is not None else "(default)"
    _record_position(site, name, a)
    if vals:
        uniq: List[str] = []
        for v in vals:
            s = _fmt(v.value)
            if s not in uniq:
                uniq.append(s)
        site.data[f"{name}.value"] = ", ".join(uniq[:4])
        first = vals[0].value
        if _num(first) is not None and 0 <= first <= 1:
            # the conversion between keep/drop probabilities and between momentum conventions
            site.data[f"{name}.complement"] = _fmt(round(1 - float(first), 10))
        via = next((v for v in vals if v.via and v.via != "default"), None)
        if via is not None:
            site.data[f"{name}.via"] = f"{_fmt(via.value)} at {via.path}:{via.line} ({via.via})"
        elif vals[0].line and a is not None and a.value[0] != "const":
            site.data[f"{name}.via"] = f"{_fmt(vals[0].value)} at {vals[0].path}:{vals[0].line}"
        _record_cause(site, name, a, vals)


CAUSE = "cause."
"""Finding data: ``cause.<arg>`` is ``path:line`` of the one definition every value of the
argument comes from (a module constant, a parameter's default, a configuration key), when
the argument names it rather than writing a literal; ``cause.<arg>.value`` is the value.
Findings of a rule with ``report.group_by_cause`` that share it are one finding
(:mod:`linter.match.group`)."""


def _record_cause(site: CallSite, name: str, a: Optional[ArgFact], vals: List[Valued]) -> None:
    if a is None or a.value[0] == "const" or arg_kind(a.value) == "literal":
        return   # a literal at the call: the call itself is the cause
    places = {(v.path, v.line) for v in vals}
    if len(places) != 1 or not vals[0].line or vals[0].via == "default":
        return   # several definitions, or where the value is written is not known
    site.data[f"{CAUSE}{name}"] = f"{vals[0].path}:{vals[0].line}"
    site.data[f"{CAUSE}{name}.value"] = _fmt(vals[0].value)


def arg_name(e: Expr) -> Optional[str]:
    if e[0] == "name":
        return e[1]
    if e[0] == "attr":
        return e[2]
    if e[0] == "subscript" and e[2][0] == "const" and isinstance(e[2][1], str):
        return e[2][1]  # cfg["dropout_rate"]
    return None


def arg_kind(e: Expr) -> str:
    tag = e[0]
    if tag == "const":
        return "literal"
    if tag == "name":
        return "name"
    if tag == "attr":
        return "attribute"
    if tag == "call":
        return "call"
    if tag == "star":
        return "starred"
    if tag == "unary" and e[2][0] == "const":
        return "literal"
    return "expression"


def _record_related(site: CallSite, mc: MatchContext, hit: Tuple[int, int]) -> None:
    """``{related}`` for messages: the other call a predicate found, with its place."""
    p = mc.p
    call = p.files[hit[0]].calls[hit[1]]
    site.data.setdefault("related", f"`{call.dotted or p.call_names(*hit)[0]}(...)` ({p.files[hit[0]].path}:{call.line})")
