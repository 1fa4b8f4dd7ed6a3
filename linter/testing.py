"""Run the inline examples of rule files (``trainlint test-rules``; the test suite uses it too).

An ``invalid`` example must produce exactly the findings its ``# expect: ID`` markers name
(on those lines, for this rule; ``# expect: ID(info)`` also names the severity); a ``valid``
example must produce none; a ``todo_invalid``
example documents a known miss and must produce none *today* — when it starts firing, the
run fails so the example gets promoted to ``invalid``.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from linter.api import check_sources
from linter.compiler.build import CompiledRule, Example
from linter.core.model import Finding
from linter.engine.packs import RulePacks
from linter.engine.units import Options
from linter.fix.apply import compiles
from linter.fix.run import fix_loop
from linter.source.decode import source_lines

_EXPECT = re.compile(r"#\s*expect:\s*([A-Za-z0-9_,()\s-]+?)\s*(?:#|$)")
Mark = Tuple[str, int, str]


def expected_marks(files: Iterable[Tuple[str, str]], pattern: "re.Pattern[str]" = _EXPECT) -> Set[Mark]:
    """(path, line, rule id) for every ``# expect: ID[, ID...]`` marker (or every match of another
    marker ``pattern`` whose group 1 is a comma-separated list, e.g. the audit's ``# evidence:``)."""
    out: Set[Mark] = set()
    for path, text in files:
        for i, line in enumerate(source_lines(text), 1):
            m = pattern.search(line)
            if m:
                for rid in m.group(1).split(","):
                    if rid.strip():
                        out.add((path, i, rid.strip()))
    return out


def rule_of(mark: Mark) -> str:
    """``WI201`` for the mark ids ``WI201`` and ``WI201(info)``."""
    return mark[2].split("(", 1)[0]


def actual_marks(findings: Iterable[Finding], expected: Set[Mark]) -> Set[Mark]:
    """(path, line, rule id) of each finding; ``rule(severity)`` where the expected marker on
    that line names a severity, so that a marker ``ID(info)`` checks the severity too."""
    wants = {(p, line, rule_of((p, line, r))) for p, line, r in expected if "(" in r}
    out: Set[Mark] = set()
    for f in findings:
        m = (f.path, f.span.line, f.rule)
        out.add((f.path, f.span.line, f"{f.rule}({f.severity.value})") if m in wants else m)
    return out


@dataclass
class ExampleResult:
    rule: CompiledRule
    example: Example
    expected: Set[Mark]
    actual: Set[Mark]
    messages: Dict[Mark, str] = field(default_factory=dict)
    errors: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        if self.errors:
            return False
        if self.example.kind == "invalid":
            return bool(self.expected) and self.actual == self.expected
        return not self.actual

    @property
    def label(self) -> str:
        return f"{self.rule.id}[{self.example.kind}-{self.example.index}]"

    def explain(self) -> str:
        lines = [f"{self.label} ({self.rule.path}:{self.example.line or '?'})"]
        if self.errors:
            lines += [f"  error: {e}" for e in self.errors]
        if self.example.kind == "invalid" and not self.expected:
            lines.append("  an invalid example needs at least one `# expect: ID` marker")
        for m in sorted(self.expected - self.actual):
            lines.append(f"  missing: {m[0]}:{m[1]} {m[2]}")
        for m in sorted(self.actual - self.expected):
            lines.append(f"  unexpected: {m[0]}:{m[1]} {m[2]}: {self.messages.get(m, '')}")
        if self.example.kind == "todo_invalid" and self.actual:
            lines.append("  this known miss now fires: move it to `invalid` with `# expect:` markers")
        return "\n".join(lines)


def run_example(rule: CompiledRule, example: Example, packs: RulePacks, lang: str = "en") -> ExampleResult:
    files = dict(example.files)
    expected = {m for m in expected_marks(example.files) if rule_of(m) == rule.id}
    res = check_sources(files, packs, Options(lang=lang, select=lambda rid: rid == rule.id))
    actual = actual_marks(res.findings, expected)
    messages: Dict[Mark, str] = {}
    for f in res.findings:
        for m in ((f.path, f.span.line, f.rule), (f.path, f.span.line, f"{f.rule}({f.severity.value})")):
            messages[m] = f.message
    errors = [f"{e.path}:{e.line or '?'}: {e.kind.value}: {e.message}" for e in res.errors if e.fatal]
    if rule.fixes and example.kind == "invalid" and not errors:
        errors += check_fixes(rule, example, packs)
    return ExampleResult(rule, example, expected, actual, messages, errors)


def fix_sources(files: Dict[str, str], packs: RulePacks, rules: Sequence[CompiledRule], unsafe: bool):
    """Apply the fixes of ``rules`` to in-memory files until stable; the :class:`FixOutcome`."""
    ids = {r.id for r in rules}
    options = Options(select=lambda rid: rid in ids)
    return fix_loop(lambda overlay: check_sources({**files, **overlay}, packs, options), rules, unsafe)


def check_fixes(rule: CompiledRule, example: Example, packs: RulePacks) -> List[str]:
    """The example's fixes give exactly ``fixed`` (safe) and ``unsafe_fixed`` (all), every
    result parses, and fixing the result again changes nothing (idempotence)."""
    files = dict(example.files)
    safe_expected = {**files, **dict(example.fixed or ())}
    unsafe_expected = {**safe_expected, **dict(example.unsafe_fixed or ())}
    problems: List[str] = []
    for unsafe, expected in ((False, safe_expected), (True, unsafe_expected)):
        label = "--fix --unsafe-fixes" if unsafe else "--fix"
        outcome = fix_sources(files, packs, [rule], unsafe)
        got = {**files, **outcome.fixed}
        problems += [f"{label}: {r}" for r in outcome.refusals]
        if not outcome.converged:
            problems.append(f"{label}: fixes did not converge")
        for path in sorted(files):
            if got[path] != expected[path]:
                problems.append(f"{label}: {path} after fixing differs from the expected "
                                f"{'unsafe_fixed' if unsafe else 'fixed'}:\n" + _diff(expected[path], got[path]))
            bad = compiles(got[path], path) if path.endswith(".py") else None   # not launchers, READMEs
            if bad:
                problems.append(f"{label}: {path}: {bad}")
        again = fix_sources(got, packs, [rule], unsafe)
        if again.fixed:
            problems.append(f"{label}: not idempotent: a second run changes " + ", ".join(sorted(again.fixed)))
    return problems


def _diff(expected: str, got: str) -> str:

    return "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), "expected", "got"))


def run_examples(packs: RulePacks, rules: Optional[Sequence[CompiledRule]] = None, lang: str = "en") -> List[ExampleResult]:
    out: List[ExampleResult] = []
    for rule in rules if rules is not None else packs.rules:
        for ex in rule.examples:
            out.append(run_example(rule, ex, packs, lang))
    return out
