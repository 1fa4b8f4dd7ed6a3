"""Audit: the data that crosses its stages, and the JSON contract (documented in docs/audit.md).

``{"version", "projects": [{path, entries, frameworks, items: [{id, status, title, findings,
evidence: [{path, line, text}], facts, how_to_check}], ...}], "errors": [...]}``
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from linter.core.model import Diagnostic, Finding

FOUND, NO_ISSUE, NOT_APPLICABLE, MANUAL = "found", "no-issue", "not-applicable", "manual"
STATUSES = (FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE)
"""Every item gets exactly one; in the order a reader should act on them."""


@dataclass(frozen=True)
class Evidence:
    path: str
    line: int
    text: str
    """The source line (stripped)."""
    note: str = ""
    """What it shows, e.g. "DataLoader with shuffle=True"."""

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"path": self.path, "line": self.line, "text": self.text}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class FactValue:
    """One extracted setting (a learning rate, a batch size), with where it was found."""

    name: str
    value: str
    path: str
    line: int
    defaulted: bool = False
    """Not written: the API's default."""

    def to_json(self) -> Dict[str, Any]:
        return {"name": self.name, "value": self.value, "path": self.path, "line": self.line, "defaulted": self.defaulted}


@dataclass
class ItemResult:
    id: str
    status: str
    title: str
    findings: List[Finding] = field(default_factory=list)
    evidence: List[Evidence] = field(default_factory=list)
    facts: List[FactValue] = field(default_factory=list)
    how_to_check: str = ""
    reason: str = ""
    """Why the status: what made it not applicable, or why a rules item is still manual."""

    def to_json(self) -> Dict[str, Any]:
        return {"id": self.id, "status": self.status, "title": self.title,
                "findings": [f.to_json() for f in self.findings],
                "evidence": [e.to_json() for e in self.evidence],
                "facts": [f.to_json() for f in self.facts],
                "how_to_check": self.how_to_check, "reason": self.reason}


@dataclass
class Risk:
    """One API use whose counterpart in the target framework has a different default or meaning."""

    path: str
    line: int
    api: str
    parameter: str
    value: str
    """The value the source gets (written or default), canonical."""
    target_api: str
    target_default: str
    """What the target API would use if the argument is not written (canonical)."""
    write: str
    """What to write on the target side."""
    kind: str
    """``default`` (not written; the target's default differs) or ``meaning`` (written; the
    target reads the same number in another convention)."""
    note: str = ""
    """Advice when no argument can express it (weight decay scope, bias correction)."""

    def to_json(self) -> Dict[str, Any]:
        return {"path": self.path, "line": self.line, "api": self.api, "parameter": self.parameter, "value": self.value,
                "target_api": self.target_api, "target_default": self.target_default, "write": self.write, "kind": self.kind,
                "note": self.note}


@dataclass
class ProjectResult:
    path: str
    entries: List[str]
    frameworks: List[str]
    files: List[str]
    items: List[ItemResult]
    trains: bool = False
    migration_target: Optional[str] = None
    risks: List[Risk] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for i in self.items if i.status == status)

    def to_json(self) -> Dict[str, Any]:
        return {"path": self.path, "entries": self.entries, "frameworks": self.frameworks, "files": self.files,
                "counts": {s: self.count(s) for s in STATUSES},
                "items": [i.to_json() for i in self.items],
                "migration": {"target": self.migration_target, "risks": [r.to_json() for r in self.risks]},
                "notes": self.notes}


@dataclass
class AuditResult:
    root: str
    projects: List[ProjectResult]
    errors: List[Diagnostic]
    files: int
    """Python files analysed."""

    def count(self, status: str) -> int:
        return sum(p.count(status) for p in self.projects)

    def to_json(self, version: str) -> Dict[str, Any]:
        return {"version": version, "root": self.root, "files": self.files,
                "projects": [p.to_json() for p in self.projects],
                "errors": [e.to_json() for e in self.errors]}
