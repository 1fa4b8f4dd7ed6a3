"""``path:line:col: ID [checklist] severity: message`` — one line per finding, for editors and
grep (notebooks: ``path:cell N:line:col: ...`` with the position inside the cell)."""
from __future__ import annotations

from typing import List, Optional, TextIO

from linter.model import CellSpan, Diagnostic, Finding


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
    where = _where(f.path, f.span.line, f.span.column, f.cell)
    return f"{where}: {f.rule} [{f.checklist}] {f.severity.value}: {f.message}"


def error_line(e: Diagnostic) -> str:
    level = "error" if e.fatal else "warning"
    return f"{_where(e.path, e.line, e.column, e.cell)}: {e.kind.value} {level}: {e.message}"


def write(out: TextIO, findings: List[Finding], errors: List[Diagnostic]) -> None:
    for f in findings:
        out.write(finding_line(f) + "\n")
    for e in errors:
        out.write(error_line(e) + "\n")
