"""GitHub Actions workflow commands (``--format github``): one ``::error``/``::warning``/
``::notice`` line per finding, which the runner turns into annotations on the pull request.

Values are escaped the way the Actions toolkit does it; an unescaped newline would end the
command early and an unescaped ``,`` or ``:`` in a property would cut the file name short.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, TextIO, Tuple

from linter.compiler.build import CompiledRule
from linter.core.model import CellSpan, Diagnostic, Finding, Severity

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """The message part (after ``::``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A ``key=value`` property: data escaping plus the separators ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def cell_note(cell: CellSpan, lang: str = "en") -> str:
    """Where a notebook finding is, as the user sees it (the annotation itself points into the
    raw .ipynb, which is all GitHub can show)."""
    if lang == "zh":
        return f"第 {cell.cell} 个单元格第 {cell.span.line} 行"
    return f"cell {cell.cell}, line {cell.span.line}"


def command(name: str, props: Sequence[Tuple[str, object]], message: str) -> str:
    rendered = ",".join(f"{k}={escape_property(str(v))}" for k, v in props)
    return f"::{name} {rendered}::{escape_data(message)}" if rendered else f"::{name}::{escape_data(message)}"


def _with_cell(message: str, cell: Optional[CellSpan], lang: str) -> str:
    return f"{cell_note(cell, lang)}: {message}" if cell is not None else message


def finding_line(f: Finding, lang: str = "en") -> str:
    s = f.span
    props = [("file", f.path), ("line", s.line), ("col", s.column), ("endLine", s.end_line),
             ("endColumn", s.end_column), ("title", f"{f.rule} [{f.checklist}] {f.name}")]
    return command(_COMMAND[f.severity], props, _with_cell(f.message, f.cell, lang))


def error_line(e: Diagnostic, lang: str = "en") -> str:
    props: List[Tuple[str, object]] = []
    if e.path:
        props.append(("file", e.path))
        if e.line is not None:
            props.append(("line", e.line))
            if e.column is not None:
                props.append(("col", e.column))
    return command("error" if e.fatal else "warning", props,
                   _with_cell(f"{e.kind.value}: {e.message}", e.cell, lang))


def write(out: TextIO, findings: List[Finding], errors: List[Diagnostic], rules: Sequence[CompiledRule] = (),
          lang: str = "en") -> None:
    """``rules`` is accepted for a uniform signature; annotations carry no rule metadata."""
    for f in findings:
        out.write(finding_line(f, lang) + "\n")
    for e in errors:
        out.write(error_line(e, lang) + "\n")
