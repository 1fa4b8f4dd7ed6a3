"""Argument values on the branch a call is in.

``if config.dropout != 0.0: Dropout(p=1 - config.dropout)`` never builds the layer with
``config.dropout == 0.0``, so ``p=1.0`` is not a value of that argument even when a shipped
configuration sets 0.0 (hypertext). An ``if`` test around the call (in its function) that
compares an expression occurring in the argument with a constant — directly, or through a
flag defined once from such a comparison (``self.use_dropout = dropout > 0``) — keeps only
the values of that expression that pass the test, and the argument is evaluated again with
each of them (the expression is *pinned*: :class:`linter.core.memo.Hypothesis`). Tests that cannot be
decided for a value keep it: narrowing only ever removes values a branch excludes.
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, List, Optional, Tuple

from linter.facts.model import Expr
from linter.index.values import Valued
from linter.program.paths import _compare

if TYPE_CHECKING:
    from linter.match.context import MatchContext

_MAX_COMBINATIONS = 16
_INSIDE = ("binop", "unary", "ifexp", "compare", "boolop", "seq")


def narrowed(mc: "MatchContext", fi: int, scope: int, stmt: int, e: Expr,
             vals: List[Valued], complete: bool, cid: int = -1) -> Tuple[List[Valued], bool]:
    """``vals`` (the values of ``e``, an argument of call ``cid`` at statement ``stmt``) restricted
    to the branch the statement is in, and to the branch of a conditional expression the call
    is in (``nn.Dropout(rate) if rate > 0 else None``); unchanged when no test is about ``e``."""
    if e[0] == "const" or not vals:
        return vals, complete
    p = mc.p
    pins: List[Tuple[List[Expr], List[Valued]]] = []
    tests = list(mc.roles.guards(fi, scope).get(stmt, ())) + (mc.program.paths.ifexp_guards(fi, cid) if cid >= 0 else [])
    for test, positive in tests:
        atom = _atom(mc, fi, scope, test)
        if atom is None:
            continue
        x, op, c = atom
        occurrences = _occurrences(e, x)
        if not occurrences:
            continue
        xs, known = p.constants(fi, scope, x)
        if not xs:
            continue
        keep = [v for v in xs if _passes(op, v.value, c) is not (not positive)]
        if len(keep) < len(xs):
            pins.append((occurrences, keep))
            # values of `x` that are not known were not in `vals` either
            complete = complete and known
    if not pins:
        return vals, complete
    if any(not keep for _occ, keep in pins):
        return [], complete      # no known value reaches the branch
    out: List[Valued] = []
    known = True
    for combo in itertools.islice(itertools.product(*(keep for _occ, keep in pins)), _MAX_COMBINATIONS):
        h = p.hypothesis
        for (occurrences, _keep), v in zip(pins, combo):
            for o in occurrences:
                h = h.with_pin(id(o), (v,))
        with p.under(h):
            got, k = p.constants(fi, scope, e)
        out += got
        known = known and k
    return out, known and complete


def _atom(mc: "MatchContext", fi: int, scope: int, test: Expr, depth: int = 0) -> Optional[Tuple[Expr, str, object]]:
    """(expression, operator, constant) of a test ``x OP const`` / ``const OP x`` / plain
    ``x`` (operator ``truth``); a name or attribute defined once, in this function, from such
    a comparison stands for it."""
    if test[0] == "compare" and len(test[1]) == 1:
        left, right = test[2]
        if right[0] == "const" and left[0] != "const":
            return left, test[1][0], right[1]
        if left[0] == "const" and right[0] != "const" and test[1][0] in ("==", "!="):
            return right, test[1][0], left[1]
        return None
    if test[0] in ("name", "attr"):
        if depth == 0:
            defs = mc.p.defining_exprs(fi, scope, test)
            if len(defs) == 1 and defs[0][0] == fi and defs[0][1] == scope and defs[0][2] is not None \
                    and defs[0][2][0] == "compare":
                return _atom(mc, fi, scope, defs[0][2], depth + 1)
        return test, "truth", None
    return None


def _passes(op: str, value: object, c: object) -> Optional[bool]:
    if op == "truth":
        try:
            return bool(value)
        except Exception:  # noqa: BLE001 - a value whose truth cannot be told keeps its place
            return None
    return _compare(op, value, c)


def _occurrences(e: Expr, x: Expr) -> List[Expr]:
    """The sub-expressions of ``e`` equal to ``x``, through arithmetic and literals only (an
    argument inside a call is another evaluation)."""
    if e == x:
        return [e]
    if e[0] not in _INSIDE:
        return []
    out: List[Expr] = []
    for part in e[1:]:
        if isinstance(part, tuple) and part and isinstance(part[0], str):
            out += _occurrences(part, x)
        elif isinstance(part, tuple):
            for q in part:
                if isinstance(q, tuple) and q and isinstance(q[0], str):
                    out += _occurrences(q, x)
    return out
