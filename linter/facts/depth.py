"""A guard in front of libcst: refuse expressions nested too deeply to parse safely.

libcst's native parser is superlinear in expression depth (a 5,000-term ``1 + 1 + ...``
chain takes 20 s, 1,000 nested lists 6 s) and crashes the whole process with a stack
overflow on a 20,000-term chain — one generated file would take every other result with it.
Such files are measured first and reported with kind ``limit`` instead of parsed.

Measuring every file with :mod:`ast` would add about 7 % to a cold run, so a cheap textual
screen (line lengths and bracket depth, a few C-level string operations per line) picks the
few files that could be deep; only those are parsed with :mod:`ast` and measured exactly.
An expression cannot be deeper than it has tokens, so a file whose every line is short and
whose bracketed continuations are short cannot hold a deep one.
"""
from __future__ import annotations

import ast
import warnings
from typing import List, Optional, Tuple

MAX_DEPTH = 1000
"""Deepest expression analysed (AST levels). Real code stays below 50."""

_SCREEN_LINE = 1000
"""A line this long may hold a deep expression."""
_SCREEN_RUN = 250
"""Operator-chain lines within one continued statement (inside brackets or after ``\\``)
that may hold one."""
_SCREEN_BRACKETS = 50
_SCREEN_ELIF = 400
"""libcst nests each ``elif`` inside the previous one (and crashes at about 10,000)."""


def nesting_problem(text: str) -> Optional[Tuple[int, int, str]]:
    """(line, column, message) when ``text`` holds an expression too deep to analyse."""
    where = _may_be_deep(text)
    if not where:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # invalid escapes etc. are not ours to report
            tree = ast.parse(text)
    except (RecursionError, MemoryError):
        return where, 1, _message("deeper than Python's own parser accepts")
    except SyntaxError as exc:
        if "too many nested" in (exc.msg or ""):
            return exc.lineno or 1, max(exc.offset or 1, 1), _message(f"Python itself rejects it: {exc.msg}")
        return None  # an ordinary syntax error: libcst reports it with its position
    except ValueError:
        return None
    depth, line, column = _max_depth(tree)
    if depth > MAX_DEPTH:
        return line, column, _message(f"{depth} levels; the limit is {MAX_DEPTH}")
    return None


def _message(what: str) -> str:
    return f"code nested too deeply to analyse ({what}); file not checked"


def _may_be_deep(text: str) -> int:
    """The line where a deep expression may be (0: there is none)."""
    lines = text.splitlines()
    longest = max(map(len, lines), default=0)
    if longest > _SCREEN_LINE:
        return next(i for i, line in enumerate(lines, 1) if len(line) == longest)
    if text.count("elif") > _SCREEN_ELIF:
        return text[:text.index("elif")].count("\n") + 1
    depth = chain = start = 0
    continued = False
    for lineno, line in enumerate(lines, 1):
        if depth > 0 or continued:
            # A continuation line deepens an expression only when it continues an operator
            # chain (``+ x``, ``.attr``); a long list or dict literal is flat.
            body = line.strip()
            if body[:1] in _CHAIN or body[-1:] in _CHAIN:
                chain += 1
                if chain > _SCREEN_RUN:
                    return start
        else:
            chain, start = 0, lineno
        opened = line.count("(") + line.count("[") + line.count("{")
        if opened:
            depth += opened
            if depth > _SCREEN_BRACKETS:
                return lineno
        depth = max(0, depth - line.count(")") - line.count("]") - line.count("}"))
        continued = line.endswith("\\")
    return 0


_CHAIN = frozenset("+-*/%@&|^<>=.")


def _max_depth(tree: ast.AST) -> Tuple[int, int, int]:
    """Deepest node (iteratively: the tree may be deeper than Python's recursion limit)."""
    best = (0, 1, 1)
    stack: List[Tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, d = stack.pop()
        if d > best[0]:
            best = (d, getattr(node, "lineno", best[1]), getattr(node, "col_offset", best[2] - 1) + 1)
        stack.extend((child, d + 1) for child in ast.iter_child_nodes(node))
    return best
