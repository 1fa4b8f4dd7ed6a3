"""``path:line:col: ID [checklist] message`` — one line per finding, for editors and grep."""
from __future__ import annotations

from typing import List, TextIO

from linter.model import Diagnostic, Finding


def finding_line(f: Finding) -> str:
    return f"{f.path}:{f.span.line}:{f.span.column}: {f.rule} [{f.checklist}] {f.severity.value}: {f.message}"


def error_line(e: Diagnostic) -> str:
    where = e.path
    if e.line is not None:
        where += f":{e.line}"
        if e.column is not None:
            where += f":{e.column}"
    level = "error" if e.fatal else "warning"
    return f"{where}: {e.kind.value} {level}: {e.message}"


def write(out: TextIO, findings: List[Finding], errors: List[Diagnostic]) -> None:
    for f in findings:
        out.write(finding_line(f) + "\n")
    for e in errors:
        out.write(error_line(e) + "\n")
