"""Fixes of one file: plan (one :class:`Fix` per fixable finding), apply the ones that do not
conflict, verify, write atomically, show as a unified diff.

Like Ruff: fixes whose edits overlap or touch are not applied together — the first (in source
order) wins and the others wait for the next round, after the file was linted again. Every
result is verified before it is kept: it must parse with libcst and compile (``compile`` only
builds a code object; linted code is never run) whenever the original compiled; a fix that
breaks it is refused with a message, never written.
"""
from __future__ import annotations

import bisect
import difflib
import os
import warnings
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from linter.compiler.build import CompiledRule
from linter.compiler.fixes import FixSpec
from linter.core.model import Finding
from linter.fix.edits import NoFix, SourceFile, TextEdit, apply_edits, file_globs, fix_edits, merge, window_serves
from linter.fix.window import window
from linter.source.decode import line_starts

VARIANTS_KEY = "fix.variants"


@dataclass(frozen=True)
class Refusal:
    """A fix that was not applied because its result would be broken."""

    path: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: fix not applied: {self.message}"


@dataclass(frozen=True)
class Fix:
    finding: Finding
    spec: FixSpec
    edits: Tuple[TextEdit, ...]

    @property
    def safe(self) -> bool:
        return self.spec.safe

    def start(self) -> int:
        return self.edits[0].start if self.edits else 0

    def to_json(self, text: str, lang: str) -> Dict[str, Any]:
        """Text replacements with 1-based lines and columns, end exclusive (the findings' convention)."""
        starts = line_starts(text)
        edits = []
        for e in self.edits:
            (l1, c1), (l2, c2) = position(starts, e.start), position(starts, e.end)
            edits.append({"path": self.finding.path, "line": l1, "column": c1, "end_line": l2, "end_column": c2,
                          "content": e.content})
        return {"applicability": self.spec.applicability, "title": self.spec.text("title", lang),
                "reason": self.spec.text("reason", lang), "edits": edits}


def position(starts: List[int], offset: int) -> Tuple[int, int]:
    i = bisect.bisect_right(starts, offset) - 1
    return i + 1, offset - starts[i] + 1


def _variants(rule: CompiledRule, f: Finding) -> List[FixSpec]:
    chosen = f.data.get(VARIANTS_KEY)
    if chosen is None:
        return list(rule.fixes)
    return [rule.fixes[int(i)] for i in chosen.split(",") if i]


def compiles(text: str, path: str, libcst_too: bool = True) -> Optional[str]:
    """None if ``text`` parses (libcst) and compiles; else the error. Without ``libcst_too``
    only CPython's compiler checks it (a few ms instead of a libcst parse: enough to say
    whether a report may offer the fix; applying it checks both)."""
    if libcst_too:
        try:
            cst.parse_module(text)
        except Exception as exc:
            return f"the result would not parse: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"the result would not compile: {exc.msg} (line {exc.lineno})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"the result would not compile: {exc}"
    return None


def plan(findings: Sequence[Finding], text: str, rules: Dict[str, CompiledRule],
         src: Optional[SourceFile] = None, quick: bool = False) -> Tuple[List[Fix], List[Refusal]]:
    """The fix of every finding of one file that has one (verified on its own; ``quick``:
    by CPython's compiler only, for reports that offer fixes without applying them)."""
    fixes: List[Fix] = []
    refusals: List[Refusal] = []
    todo = [f for f in findings if f.rule in rules and rules[f.rule].fixes and f.cell is None]
    if not todo:
        return fixes, refusals
    if src is None:
        try:
            src = SourceFile(text, _window(todo, text, rules))
        except Exception:
            try:
                src = SourceFile(text)
            except Exception:
                return fixes, refusals
    original_ok = compiles(text, todo[0].path, not quick) is None
    for f in todo:
        s = f.span
        for spec in _variants(rules[f.rule], f):
            try:
                edits = _edits(src, spec, f)
            except NoFix:
                continue
            if not edits:
                continue
            problem = compiles(apply_edits(text, edits), f.path, not quick) if original_ok else None
            if problem is not None:
                refusals.append(Refusal(f.path, s.line, f.rule, problem))
                break
            fixes.append(Fix(f, spec, tuple(edits)))
            break
    return fixes, refusals


def _edits(src: SourceFile, spec: FixSpec, f: Finding) -> List[TextEdit]:
    """The edits of one fix variant: at the finding — or, for a finding that stands for several
    uses of one value and is reported at the first use, at every use in this file (each with
    what its own match recorded; a use that cannot be fixed is left for the next round)."""
    def at(x: Finding) -> List[TextEdit]:
        s = x.span
        return fix_edits(src, spec, (s.line, s.column, s.end_line, s.end_column), x.data)

    if not f.members or f.data.get("group.at") != "first-use":
        return at(f)
    edits: List[TextEdit] = []
    for m in f.members:
        if m.path != f.path or m.cell is not None:
            continue
        try:
            edits += at(m)
        except NoFix:
            if m.span == f.span:
                raise
    return merge(sorted(edits, key=lambda t: (t.start, t.end)))


def _lines(f: Finding) -> List[int]:
    """The lines a finding's fix reads: its own, and those of the uses it stands for in its file."""
    return [f.span.line] + [m.span.line for m in f.members if m.path == f.path]


def _window(findings: Sequence[Finding], text: str, rules: Dict[str, CompiledRule]) -> Optional[str]:
    """What to parse for these findings' fixes: a window of ``text`` when every fix can be
    planned on one (:mod:`linter.fix.window`), else None (the whole text)."""
    specs = [spec for f in findings for spec in _variants(rules[f.rule], f)]
    if not all(window_serves(s) for s in specs):
        return None
    words = sorted({w for s in specs for w in (file_globs(s) or ())})
    return window(text, sorted({ln for f in findings for ln in _lines(f)}), words)


def _conflicts(a: Sequence[TextEdit], b: Sequence[TextEdit]) -> bool:
    """Overlapping or touching edits (an insertion where another edit starts or ends counts)."""
    return any(x.start <= y.end and y.start <= x.end for x in a for y in b)


def apply(text: str, fixes: Sequence[Fix], unsafe: bool) -> Tuple[str, List[Fix], List[Refusal]]:
    """Apply the non-conflicting fixes (safe ones, and unsafe ones when allowed), in source order."""
    chosen = sorted((f for f in fixes if f.safe or unsafe), key=lambda f: (f.start(), f.finding.rule))
    accepted: List[Fix] = []
    edits: List[TextEdit] = []
    refusals: List[Refusal] = []
    original_ok = None
    for fx in chosen:
        if _conflicts(edits, fx.edits):
            continue  # next round
        candidate = edits + list(fx.edits)
        new = apply_edits(text, candidate)
        if original_ok is None:
            original_ok = compiles(text, fx.finding.path) is None
        problem = compiles(new, fx.finding.path) if original_ok else None
        if problem is not None:
            refusals.append(Refusal(fx.finding.path, fx.finding.span.line, fx.finding.rule, problem))
            continue
        accepted.append(fx)
        edits = candidate
    return (apply_edits(text, edits) if accepted else text), accepted, refusals


def unified_diff(path: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=path if os.path.isabs(path) else f"a/{path}",
                                 tofile=path if os.path.isabs(path) else f"b/{path}")
    out = []
    for ln in lines:
        out.append(ln if ln.endswith(("\n", "\r")) else ln + "\n\\ No newline at end of file\n")
    return "".join(out)
