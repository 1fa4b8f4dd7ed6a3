"""The JSON contract of ``trainlint check --format json`` (documented in docs/output-contracts.md)."""
from __future__ import annotations

import json
from collections import Counter
from typing import Any, Dict, List, TextIO

from linter import __version__
from linter.core.model import Diagnostic, Finding


def document(findings: List[Finding], errors: List[Diagnostic], files: int, extra: Dict[str, Any]) -> Dict[str, Any]:
    by_rule = Counter(f.rule for f in findings)
    by_checklist = Counter(f.checklist for f in findings)
    by_severity = Counter(f.severity.value for f in findings)
    summary: Dict[str, Any] = {
        "files": files,
        "findings": len(findings),
        # `errors`/`warnings` count entries of the top-level `errors` list (files not checked, or
        # checked with a caveat), not findings; two readers took them for finding counts, so the
        # same numbers are also given under names that say so
        "errors": sum(1 for e in errors if e.fatal),
        "warnings": sum(1 for e in errors if not e.fatal),
        "check_errors": sum(1 for e in errors if e.fatal),
        "check_warnings": sum(1 for e in errors if not e.fatal),
        "by_rule": dict(sorted(by_rule.items())),
        "by_checklist": dict(sorted(by_checklist.items())),
        "by_severity": dict(sorted(by_severity.items())),
    }
    summary.update(extra)
    return {
        "version": __version__,
        "findings": [_finding(f) for f in findings],
        "errors": [e.to_json() for e in errors],
        "summary": summary,
    }


def _finding(f: Finding) -> Dict[str, Any]:
    out = f.to_json()
    if "fingerprint" in f.data:
        out["fingerprint"] = f.data["fingerprint"]
    fix = f.data.get("fix")
    if isinstance(fix, dict):
        out["fix"] = fix
    return out


def write(out: TextIO, findings: List[Finding], errors: List[Diagnostic], files: int, extra: Dict[str, Any]) -> None:
    json.dump(document(findings, errors, files, extra), out, indent=2, ensure_ascii=False, sort_keys=False)
    out.write("\n")
