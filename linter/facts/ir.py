"""Helpers over the statement IR of :mod:`linter.facts.model` (shared by later stages)."""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any, Iterator, List, Sequence, Tuple

from linter.facts.model import Block, FileFacts, Stmt


def child_blocks(st: Stmt) -> Tuple[Block, ...]:
    """The nested blocks of a compound statement, in source order."""
    tag = st[0]
    if tag == "if":
        return (st[3], st[4])
    if tag == "for":
        return (st[4], st[5])
    if tag == "while":
        return (st[3], st[4])
    if tag == "with":
        return (st[3],)
    if tag == "try":
        return (st[2],) + tuple(st[3]) + (st[4], st[5])
    if tag == "branches":
        return tuple(st[3])
    return ()


def last_sid(st: Stmt) -> int:
    """Largest statement id inside ``st`` (statement ids are allocated in source order)."""
    best = st[1]
    for block in child_blocks(st):
        if block:
            best = max(best, last_sid(block[-1]))
    return best


def walk(block: Sequence[Stmt]) -> Iterator[Stmt]:
    """Every statement of a block, nested blocks included (not nested functions)."""
    for st in block:
        yield st
        for b in child_blocks(st):
            yield from walk(b)


def calls_in_range(facts: FileFacts, call_stmts: Sequence[int], lo: int, hi: int, scope: int) -> List[int]:
    """Call ids whose statement id lies in [lo, hi] and that belong to ``scope``.

    ``call_stmts[i]`` is ``facts.calls[i].stmt``; it is non-decreasing because calls and
    statements are both numbered in source order.
    """
    a = bisect_left(call_stmts, lo)
    b = bisect_right(call_stmts, hi)
    calls = facts.calls
    return [cid for cid in range(a, b) if calls[cid].scope == scope]


def sub_exprs(e: Any) -> Iterator[Any]:
    """The expressions directly inside expression ``e``: its fields that are expressions, and
    the items of its fields that are tuples of expressions (a call's arguments are not here:
    they belong to the call fact)."""
    for part in e[1:]:
        if isinstance(part, tuple):
            if part and isinstance(part[0], str):
                yield part
            else:
                yield from part


def calls_in_expr(e: Any, out: List[int]) -> None:
    """Call ids referenced by an expression (not those nested inside the calls themselves)."""
    if not isinstance(e, tuple) or not e:
        return
    tag = e[0]
    if tag == "call":
        out.append(e[1])
        return
    if tag in ("const", "name", "lambda", "other"):
        return
    for x in sub_exprs(e):
        if isinstance(x, tuple):
            calls_in_expr(x, out)


def iter_returns(block: Sequence[Stmt]) -> Iterator[Any]:
    """Return expressions of a function body (not of nested functions)."""
    for st in walk(block):
        if st[0] == "return":
            yield st[2]
