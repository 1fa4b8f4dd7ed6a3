"""Words the text formats share: one line per finding or problem (``path:line:col: ...``), the
line standing for the ``info`` findings left out, and the related places of a finding."""
from __future__ import annotations

from typing import List, Optional

from linter.core.model import CellSpan, Diagnostic, Finding


def hidden_info_line(n: int, lang: str) -> str:
    """The one line that stands for the ``info`` findings the text formats leave out."""
    if lang == "zh":
        return f"另有 {n} 个 info 级问题未显示（影响较小；--show-info 可显示）。"
    return f"{n} info finding{'s' if n != 1 else ''} not shown (true but minor; --show-info shows them)."


def related_lines(f: Finding, lang: str) -> List[str]:
    """``path:line: note`` for every place a finding names as related (the uses of one cause)."""
    return [f"{path}:{line}: {note}" if note else f"{path}:{line}" for path, line, note in f.related]


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
