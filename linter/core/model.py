"""Data that crosses pipeline stages: severities, findings and diagnostics."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple


class Severity(str, enum.Enum):
    """How sure and how harmful: `error` changes results, `warning` likely does, `info` may."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]

    def at_least(self, threshold: "Severity") -> bool:
        """Whether this severity is ``threshold`` or more severe (``--fail-on``)."""
        return self.rank <= threshold.rank


@dataclass(frozen=True)
class Span:
    """A source range; lines and columns are 1-based, end is exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class CellSpan:
    """Where a notebook finding is, as the user sees it: ``cell`` is the 1-based index of the
    cell among all cells of the notebook, ``span`` is relative to that cell's source."""

    cell: int
    span: Span


@dataclass(frozen=True)
class Finding:
    """One rule violation at one place."""

    path: str
    span: Span
    rule: str
    """Stable rule id such as ``API101``."""
    name: str
    """Rule slug such as ``mindspore-dropout-keep-prob``."""
    checklist: str
    framework: str
    severity: Severity
    message: str
    """Message in the requested language, with bound values interpolated."""
    related: Tuple[Tuple[str, int, str], ...] = ()
    """Other places that explain the finding: (path, line, note)."""
    data: Dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """Values bound while matching (argument values, helper names), for reports and fixes."""
    cell: Optional[CellSpan] = None
    """For notebooks: the position in the cell; ``span`` is then the position in the
    ``.ipynb`` file itself."""
    members: Tuple["Finding", ...] = field(default=(), compare=False, hash=False, repr=False)
    """For a finding that stands for several matches sharing one cause (a constant used by
    five BatchNorms): those matches, each as it would have been reported alone (fixes reach
    every use through them). Empty for an ordinary finding."""

    def sort_key(self) -> Tuple[str, int, int, str]:
        return (self.path, self.span.line, self.span.column, self.rule)

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {
            "path": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "rule": self.rule,
            "name": self.name,
            "checklist": self.checklist,
            "framework": self.framework,
            "severity": self.severity.value,
            "message": self.message,
        }
        if self.cell is not None:
            out.update(_cell_json(self.cell))
        if self.related:
            out["related"] = [{"path": p, "line": ln, "note": n} for p, ln, n in self.related]
        if self.members:
            path, _, line = self.data.get("group.cause", "").rpartition(":")
            out["cause"] = {"path": path, "line": int(line) if line.isdigit() else None,
                            "value": self.data.get("group.value"), "reported_at": self.data.get("group.at"),
                            "uses": len(self.members)}
        return out


class ErrorKind(str, enum.Enum):
    """Why a file or rule could not be (fully) checked."""

    SYNTAX = "syntax"
    ENCODING = "encoding"
    IO = "io"
    RULE = "rule"
    CONFIG = "config"
    INTERNAL = "internal"
    LIMIT = "limit"
    SUPPRESSION = "suppression"
    NOTEBOOK = "notebook"


@dataclass(frozen=True)
class Diagnostic:
    """A problem that prevented (part of) checking; never silently dropped.

    ``fatal`` diagnostics mean something was not checked (exit code 2); non-fatal ones
    (e.g. a fallback decoding) are warnings about how it was checked.
    """

    kind: ErrorKind
    path: str
    message: str
    line: Optional[int] = None
    column: Optional[int] = None
    rule: Optional[str] = None
    fatal: bool = True
    cell: Optional[CellSpan] = None
    """For notebooks: the position in the cell (``line``/``column`` are then in the file)."""

    def sort_key(self) -> Tuple[str, int, int, str]:
        return (self.path, self.line or 0, self.column or 0, self.kind.value)

    @property
    def location(self) -> str:
        """``path:line``, or the path alone when there is no line."""
        return f"{self.path}:{self.line}" if self.line else self.path

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"path": self.path, "kind": self.kind.value, "message": self.message}
        if self.line is not None:
            out["line"] = self.line
        if self.column is not None:
            out["column"] = self.column
        if self.cell is not None:
            out.update(_cell_json(self.cell))
        if self.rule is not None:
            out["rule"] = self.rule
        out["severity"] = "error" if self.fatal else "warning"
        return out


def _cell_json(c: CellSpan) -> Dict[str, Any]:
    return {"cell": c.cell, "cell_line": c.span.line, "cell_column": c.span.column,
            "cell_end_line": c.span.end_line, "cell_end_column": c.span.end_column}
