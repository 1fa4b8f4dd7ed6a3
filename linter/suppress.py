"""Stage 6: ``# trainlint: ignore[...]`` comments, and the report on the comments themselves.

``# trainlint: ignore[API101]`` on the flagged line, or alone on the line before it,
silences those rules there (ids or rule names). ``# trainlint: ignore-file[API101]``
anywhere silences them in the whole file. A bare ``ignore`` (no ids) silences every rule.

Like Ruff's RUF100, comments that silence nothing are reported (so they do not outlive the
code they were written for), as are unknown rule ids; ``--strict-suppressions`` also reports
bare ``ignore`` comments and makes all of these fail the run. A comment is only called
unused for rules that actually ran, so ``--select`` never produces false reports.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import AbstractSet, Dict, List, Optional, Sequence, Set, Tuple

from linter.core.model import Diagnostic, ErrorKind, Finding
from linter.facts.model import FileFacts
from linter.source.decode import source_lines

_PRAGMA = re.compile(
    r"""\#\s*trainlint\s*:\s*
        (?P<kind>ignore-file|ignore)          # what to silence
        (?![\w-])\s*(?:\[(?P<ids>[^\]]*)\])?  # optional [ID, name, ...]
    """,
    re.VERBOSE,
)

_MESSAGES = {
    "en": {
        "unused": "unused suppression: no {rule} finding {where}",
        "unused_bare": "unused suppression: no finding {where}",
        "unknown": "unknown rule {rule!r} in suppression (see `trainlint rules`)",
        "bare": "bare `# trainlint: {kind}` silences every rule; name the rules, e.g. `# trainlint: {kind}[{example}]`",
        "malformed": "not a suppression: expected `# trainlint: ignore[ID, ...]` or `# trainlint: ignore-file[ID, ...]`",
        "here": "on this line or the next",
        "line": "on this line",
        "file": "in this file",
    },
    "zh": {
        "unused": "无效的抑制注释：{where}没有 {rule} 的问题",
        "unused_bare": "无效的抑制注释：{where}没有任何问题",
        "unknown": "抑制注释中的规则 {rule!r} 不存在（见 `trainlint rules`）",
        "bare": "不带规则的 `# trainlint: {kind}` 会屏蔽所有规则；请写明规则，例如 `# trainlint: {kind}[{example}]`",
        "malformed": "无法识别的抑制注释：应为 `# trainlint: ignore[ID, ...]` 或 `# trainlint: ignore-file[ID, ...]`",
        "here": "本行及下一行",
        "line": "本行",
        "file": "本文件中",
    },
}


@dataclass
class Suppression:
    line: int
    column: int
    ids: Optional[Tuple[str, ...]]
    """None = bare (every rule)."""
    whole_file: bool
    own_line: bool
    """The comment is alone on its line (then it also covers the next line)."""
    kind: str = "ignore"
    malformed: bool = False
    used: Set[str] = field(default_factory=set)
    """Rule ids this comment silenced in this run."""


def parse_suppressions(facts: FileFacts, source: Optional[str]) -> List[Suppression]:
    lines = source_lines(source) if source is not None else []
    out: List[Suppression] = []
    for line, text in facts.pragmas:
        code = lines[line - 1] if 0 < line <= len(lines) else ""
        col = code.find(text) + 1 if text in code else 1
        own = code.lstrip().startswith("#")
        m = _PRAGMA.search(text)
        if not m:
            out.append(Suppression(line, col, (), False, own, malformed=True))
            continue
        ids = None
        if m.group("ids") is not None:
            ids = tuple(x.strip() for x in m.group("ids").split(",") if x.strip())
        out.append(Suppression(line, col, ids, m.group("kind") == "ignore-file", own, m.group("kind")))
    return out


def _covers(s: Suppression, f: Finding) -> bool:
    if s.malformed:
        return False
    if s.ids is not None and f.rule not in s.ids and f.name not in s.ids:
        return False
    if s.whole_file:
        return True
    if s.line == f.span.line:
        return True
    return s.own_line and s.line + 1 == f.span.line


def apply_suppressions(findings: Sequence[Finding], facts: Dict[str, Optional[FileFacts]],
                       sources: Dict[str, Optional[str]]) -> Tuple[List[Finding], int, Dict[str, List[Suppression]]]:
    """Drop suppressed findings; return the rest, how many were suppressed and every file's
    comments (with what each silenced), for :func:`suppression_problems`."""
    table: Dict[str, List[Suppression]] = {}
    for path, ff in facts.items():
        if ff is not None and ff.pragmas:
            table[path] = parse_suppressions(ff, sources.get(path))
    kept, dropped = suppress_with(findings, table)
    return kept, dropped, table


def suppress_with(findings: Sequence[Finding], table: Dict[str, List[Suppression]]) -> Tuple[List[Finding], int]:
    """Drop the findings a comment of ``table`` covers (marking what each comment silenced);
    run again on findings that moved (one finding for several uses, reported at their shared
    definition: a comment there silences every use)."""
    kept: List[Finding] = []
    dropped = 0
    for f in findings:
        hit = next((s for s in table.get(f.path, ()) if _covers(s, f)), None)
        if hit is None:
            kept.append(f)
        else:
            hit.used.add(f.rule)
            dropped += 1
    return kept, dropped


def suppression_problems(table: Dict[str, List[Suppression]], names: Dict[str, str], ran: AbstractSet[str],
                         all_ran: bool, strict: bool, lang: str = "en") -> List[Diagnostic]:
    """Unused, unknown, malformed and (``strict``) bare suppressions.

    ``names`` maps every loaded rule id and slug to its id; ``ran`` are the ids that ran on
    these files; ``all_ran`` says whether every loaded rule did (only then can a bare
    comment be called unused)."""
    msg = _MESSAGES.get(lang, _MESSAGES["en"])
    out: List[Diagnostic] = []

    def report(path: str, s: Suppression, text: str) -> None:
        out.append(Diagnostic(ErrorKind.SUPPRESSION, path, text, line=s.line, column=s.column, fatal=False))

    for path, sups in sorted(table.items()):
        for s in sups:
            where = msg["file"] if s.whole_file else msg["here"] if s.own_line else msg["line"]
            if s.malformed:
                report(path, s, msg["malformed"])
                continue
            if s.ids is None:
                if strict:
                    example = ", ".join(sorted(s.used)) or "API101"
                    report(path, s, msg["bare"].format(kind=s.kind, example=example))
                if all_ran and not s.used:
                    report(path, s, msg["unused_bare"].format(where=where))
                continue
            for key in s.ids:
                rid = names.get(key) or names.get(key.upper())
                if rid is None:
                    report(path, s, msg["unknown"].format(rule=key))
                elif rid in ran and rid not in s.used:
                    report(path, s, msg["unused"].format(rule=key, where=where))
    return out
