"""``path:line:col: ID [checklist] severity: message`` — one line per finding, for editors and
grep (notebooks: ``path:cell N:line:col: ...`` with the position inside the cell)."""
from __future__ import annotations

from typing import List, Optional, TextIO

from linter.core.model import CellSpan, Diagnostic, Finding
from linter.report.common import hidden_info_line


def _where(path: str, line: Optional[int], column: Optional[int], cell: Optional[CellSpan]) -> str:
    if cell is not None:
        return f"{path}:cell {cell.cell}:{cell.span.line}:{cell.span.column}"
    where = path
    if line is not None:
        where += f":{line}"
        if column is not None:
            where += f":{column}"
    return where


def finding_line(f: Finding) -> str:
    """One line; a finding with related places (the uses of one cause) names them at the end."""
    where = _where(f.path, f.span.line, f.span.column, f.cell)
    line = f"{where}: {f.rule} [{f.checklist}] {f.severity.value}: {f.message}"
    if f.related:
        line += " [related: " + ", ".join(f"{p}:{ln}" for p, ln, _ in f.related) + "]"
    return line


def error_line(e: Diagnostic) -> str:
    level = "error" if e.fatal else "warning"
    return f"{_where(e.path, e.line, e.column, e.cell)}: {e.kind.value} {level}: {e.message}"


def write(out: TextIO, findings: List[Finding], errors: List[Diagnostic], hidden: int = 0, lang: str = "en") -> None:
    """``hidden``: ``info`` findings left out, said in one last line (not in the
    ``path:line:col:`` shape, so editors' problem matchers pass over it)."""
    for f in findings:
        out.write(finding_line(f) + "\n")
    for e in errors:
        out.write(error_line(e) + "\n")
    if hidden:
        out.write(hidden_info_line(hidden, lang) + "\n")
