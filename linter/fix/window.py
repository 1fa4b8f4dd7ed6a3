"""The part of a file that fixes need, for a cheaper parse.

Planning a fix re-parses the file with libcst and computes positions for every node — the
main cost of reports that offer fixes (on the MindSpore zoo: 4.8 s for the 191 files with a
fixable finding; 1.7 s through windows, which keep 32 % of their text). Fix operations look at the finding's own top-level statement (its call, its
statement, its function), the top-level imports and the first statement (where an import or
a ``set_seed`` goes), and — for ``scope: file`` binders and ``unless`` — the calls of one
name anywhere in the file. Every other top-level statement is replaced by empty lines: lines
and columns of what is kept stay those of the original text, so the edits computed on the
window are offsets into the original, unchanged.

A window is only a speed-up: where it could change an answer (``move-after`` looks for a
later statement of the same block; a file-scope glob whose name is a template; a finding that
is not at a call) the caller parses the whole file instead.
"""
from __future__ import annotations

import ast
import re
import warnings
from typing import Iterable, List, Optional, Sequence, Set

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_MIN_SAVING = 0.25
"""Below this share of blanked lines a window is not worth its ``ast`` pass."""


def file_words(globs: Iterable[str]) -> Optional[List[str]]:
    """One identifier each call matching a glob must contain (its longest literal name part),
    or None when a glob has none to offer (``*``, or a ``{template}``)."""
    out: List[str] = []
    for g in globs:
        if "{" in g:
            return None
        words = [w for part in g.split("*") for w in _WORD.findall(part)]
        if not words:
            return None
        out.append(max(words, key=len))
    return out


def window(text: str, lines: Sequence[int], words: Sequence[str] = ()) -> Optional[str]:
    """``text`` with the top-level statements that hold none of ``lines`` (1-based) and none of
    ``words`` replaced by empty lines, keeping imports and the first statement; None when the
    whole text is needed (it does not parse as Python here, or little would be removed)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body = tree.body
    if len(body) < 2:
        return None
    # lines as Python counts them: `str.splitlines` would also split at a form feed or U+2028
    src_lines = _LINE.findall(text)
    # statements that share a line stand or fall together (`a = 1; b = f(\n  x)`)
    groups: List[List[ast.stmt]] = []
    for s in body:
        if groups and _first(s) <= groups[-1][-1].end_lineno:   # type: ignore[operator]
            groups[-1].append(s)
        else:
            groups.append([s])
    wanted = set(lines)
    keep: Set[int] = set()
    for gi, group in enumerate(groups):
        start, end = _first(group[0]), max(s.end_lineno or s.lineno for s in group)
        if gi == 0 or any(isinstance(s, (ast.Import, ast.ImportFrom)) for s in group) \
                or any(start <= ln <= end for ln in wanted) \
                or (words and any(w in "".join(src_lines[start - 1:end]) for w in words)):
            keep.update(range(start, end + 1))
    if len(keep) > (1 - _MIN_SAVING) * len(src_lines):
        return None
    out = []
    for i, ln in enumerate(src_lines, 1):
        if i in keep:
            out.append(ln)
        else:
            body_text = ln.rstrip("\r\n")
            out.append(ln[len(body_text):])
    return "".join(out)


def _first(s: ast.stmt) -> int:
    """The first line of a statement, its decorators included."""
    decorators = getattr(s, "decorator_list", None)
    return min([s.lineno] + [d.lineno for d in decorators]) if decorators else s.lineno
