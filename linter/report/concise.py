"""``path:line:col: ID [checklist] severity: message`` — one line per finding, for editors and
grep (notebooks: ``path:cell N:line:col: ...`` with the position inside the cell)."""
from __future__ import annotations

from typing import List, TextIO

from linter.core.model import Diagnostic, Finding
from linter.report.common import error_line, finding_line, hidden_info_line


def write(out: TextIO, findings: List[Finding], errors: List[Diagnostic], hidden: int = 0, lang: str = "en") -> None:
    """``hidden``: ``info`` findings left out, said in one last line (not in the
    ``path:line:col:`` shape, so editors' problem matchers pass over it)."""
    for f in findings:
        out.write(finding_line(f) + "\n")
    for e in errors:
        out.write(error_line(e) + "\n")
    if hidden:
        out.write(hidden_info_line(hidden, lang) + "\n")
