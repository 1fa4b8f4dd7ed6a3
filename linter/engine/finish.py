"""Stages 5e-6 of a project: each match's suppressions and configuration, one finding per cause,
notebook positions, sorting."""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Optional, Tuple

from linter.core.model import CellSpan, Diagnostic, ErrorKind, Finding, Span
from linter.engine.units import Options, RunResult
from linter.facts.parse_file import Unit, locate_diagnostic
from linter.suppress import apply_suppressions, suppress_with, suppression_problems

if TYPE_CHECKING:
    from linter.engine.packs import RulePacks
    from linter.match.context import MatchContext
    from linter.source.notebooks import Notebook


def in_notebook(f: Finding, nb: Notebook) -> Finding:
    """A finding at a position of a notebook's joined text, moved to the file and cell."""
    start = nb.locate(f.span.line, f.span.column)
    if start is None:
        return f
    end = nb.locate(f.span.end_line, f.span.end_column)
    if end is None or end.cell != start.cell:
        end = start
    related = []
    for path, line, note in f.related:
        loc = nb.locate(line, 1) if path == f.path else None
        related.append((path, loc.file_line, note) if loc is not None else (path, line, note))
    return dataclasses.replace(
        f, span=Span(start.file_line, start.file_column, end.file_line, end.file_column),
        cell=CellSpan(start.cell, Span(start.cell_line, start.cell_column, end.cell_line, end.cell_column)),
        related=tuple(related))


def finish(units: List[Unit], present: List[Unit], packs: RulePacks, options: Options, mc: MatchContext,
           rules: List[Any], findings: List[Finding], errors: List[Diagnostic], keep_context: bool) -> RunResult:
    """Stages 5e–7: suppressions and configuration applied to each match, the matches of one
    cause made one finding (a comment at that cause then silences it), findings sorted."""
    sources = {u.path: u.source for u in present if u.linted}
    findings, suppressed, comments = apply_suppressions(findings, {u.path: u.facts for u in present if u.linted}, sources)
    abspaths = {u.path: u.abspath for u in present if u.linted}
    findings = _configured(findings, abspaths, options)
    findings, moved = _one_per_cause(findings, rules, sources, abspaths, options, comments)
    suppressed += moved
    names = {r.id: r.id for r in packs.rules}
    names.update({r.name: r.id for r in packs.rules})
    ran = {r.id for r in rules}
    # a bare ignore is "unused" only when every rule that runs by default ran (opt-in rules aside)
    errors += suppression_problems(comments, names, ran, ran >= {r.id for r in packs.rules if r.default_on},
                                   options.strict_suppressions, options.lang)
    notebooks = {u.path: u.notebook for u in present if u.linted and u.notebook is not None}
    if notebooks:
        findings = [in_notebook(f, notebooks[f.path]) if f.path in notebooks else f for f in findings]
        errors = [locate_diagnostic(e, notebooks[e.path]) if e.path in notebooks and e.kind is ErrorKind.SUPPRESSION else e
                  for e in errors]
    findings.sort(key=Finding.sort_key)
    errors.sort(key=Diagnostic.sort_key)
    flagged = {f.path for f in findings}
    return RunResult(findings, errors, files=sum(1 for u in units if u.linted),
                     context_files=sum(1 for u in units if not u.linted and u.facts is not None),
                     suppressed=suppressed,
                     sources={p: s for p, s in sources.items() if p in flagged and s is not None},
                     notebooks={p: nb for p, nb in notebooks.items() if p in flagged},
                     context=mc if keep_context else None)


def _one_per_cause(findings: List[Finding], rules: List[Any], sources: Dict[str, Optional[str]],
                   abspaths: Dict[str, str], options: Options, comments: Dict[str, Any]) -> Tuple[List[Finding], int]:
    """Stage 5e (:mod:`linter.match.group`): the matches of one cause as one finding, after each
    use's own suppressions and per-file ignores; a comment at the shared definition then
    silences the whole group. Returns the findings and how many more were suppressed."""
    grouping = {r.id: r.group_by_cause for r in rules if r.group_by_cause}
    if not grouping or not any(f.rule in grouping for f in findings):
        return findings, 0
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.match.group import group_by_cause

    ignored = options.per_file_ignores

    def may_report(path: str, rule: str) -> bool:
        return ignored is None or path not in abspaths or rule not in ignored(abspaths[path])

    grouped = group_by_cause(findings, grouping, sources, may_report, options.lang)
    moved = [f for f in grouped if f.members]
    if not moved or not comments:
        return grouped, 0
    kept, dropped = suppress_with(moved, comments)
    gone = {id(f) for f in moved} - {id(f) for f in kept}
    return [f for f in grouped if id(f) not in gone], dropped


def _configured(findings: List[Finding], abspaths: Dict[str, str], options: Options) -> List[Finding]:
    """Per-file ignores and severity overrides from the configuration."""
    if options.per_file_ignores is None and not options.severity:
        return findings
    out: List[Finding] = []
    ignored: Dict[str, FrozenSet[str]] = {}
    for f in findings:
        if options.per_file_ignores is not None:
            if f.path not in ignored:
                ignored[f.path] = options.per_file_ignores(abspaths.get(f.path, f.path))
            if f.rule in ignored[f.path]:
                continue
        sev = options.severity.get(f.rule)
        out.append(f if sev is None or sev == f.severity else dataclasses.replace(f, severity=sev))
    return out
