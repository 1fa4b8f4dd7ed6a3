"""Stage 6: ``# trainlint: ignore[...]`` comments.

``# trainlint: ignore[API101]`` on the flagged line, or alone on the line before it,
silences those rules there (ids or rule names). ``# trainlint: ignore-file[API101]``
anywhere silences them in the whole file. A bare ``ignore`` (no ids) silences every rule.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from linter.facts.model import FileFacts
from linter.model import Finding

_PRAGMA = re.compile(
    r"""\#\s*trainlint\s*:\s*
        (?P<kind>ignore-file|ignore)          # what to silence
        \s*(?:\[(?P<ids>[^\]]*)\])?           # optional [ID, name, ...]
    """,
    re.VERBOSE,
)


@dataclass
class Suppression:
    line: int
    ids: Optional[Tuple[str, ...]]
    """None = bare (every rule)."""
    whole_file: bool
    own_line: bool
    """The comment is alone on its line (then it also covers the next line)."""
    used: bool = False


def parse_suppressions(facts: FileFacts, source: Optional[str]) -> List[Suppression]:
    lines = source.splitlines() if source is not None else []
    out: List[Suppression] = []
    for line, text in facts.pragmas:
        m = _PRAGMA.search(text)
        if not m:
            continue
        ids = None
        if m.group("ids") is not None:
            ids = tuple(x.strip() for x in m.group("ids").split(",") if x.strip())
        own = 0 < line <= len(lines) and lines[line - 1].lstrip().startswith("#")
        out.append(Suppression(line, ids, m.group("kind") == "ignore-file", own))
    return out


def _covers(s: Suppression, f: Finding) -> bool:
    if s.ids is not None and f.rule not in s.ids and f.name not in s.ids:
        return False
    if s.whole_file:
        return True
    if s.line == f.span.line:
        return True
    return s.own_line and s.line + 1 == f.span.line


def apply_suppressions(findings: Sequence[Finding], facts: Dict[str, Optional[FileFacts]],
                       sources: Dict[str, Optional[str]]) -> Tuple[List[Finding], int]:
    """Drop suppressed findings; return the rest and how many were suppressed."""
    table: Dict[str, List[Suppression]] = {}
    kept: List[Finding] = []
    dropped = 0
    for f in findings:
        if f.path not in table:
            ff = facts.get(f.path)
            table[f.path] = parse_suppressions(ff, sources.get(f.path)) if ff is not None else []
        hit = next((s for s in table[f.path] if _covers(s, f)), None)
        if hit is None:
            kept.append(f)
        else:
            hit.used = True
            dropped += 1
    return kept, dropped
