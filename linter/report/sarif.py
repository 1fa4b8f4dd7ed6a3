"""SARIF 2.1.0 (``--format sarif``): the interchange format code-scanning services read.

One run per invocation. Every rule that ran is listed as rule metadata, so viewers can show
a rule's documentation even for a clean run; results point into it by ``ruleIndex``.
Diagnostics become tool-execution notifications: a file that could not be checked is not a
finding, but it must not look like a clean run either (``executionSuccessful``).
"""
from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path, PurePath
from typing import Any, Dict, List, Optional, Sequence, TextIO
from urllib.parse import quote

from linter import __version__
from linter.compiler.build import CompiledRule
from linter.core.model import CellSpan, Diagnostic, Finding, Severity, Span
from linter.report.explain import HEADINGS, localized

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/trainlint/trainlint"
"""Where the tool's documentation lives (placeholder until the project has a public home)."""
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "trainlint/v1"

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_HELP_SECTIONS = ("what", "why", "fix", "known_problems")


def level(severity: str) -> str:
    """SARIF has no ``info``; ``note`` is its lowest level that still shows up as a result."""
    return _LEVEL[Severity(severity)]


def artifact_location(path: str) -> Dict[str, str]:
    """A path as a SARIF artifactLocation: relative paths become percent-encoded POSIX URIs
    against ``%SRCROOT%`` (so uploads resolve against the checkout), absolute ones ``file://`` URIs."""
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    posix = posixpath.normpath(PurePath(path).as_posix())
    return {"uri": quote(posix, safe="/"), "uriBaseId": SRCROOT}


def region(span: Span) -> Dict[str, int]:
    """Our spans are 1-based with an exclusive end, exactly SARIF's convention."""
    return {"startLine": max(span.line, 1), "startColumn": max(span.column, 1),
            "endLine": max(span.end_line, span.line, 1), "endColumn": max(span.end_column, 1)}


def rule_descriptor(rule: CompiledRule, lang: str = "en") -> Dict[str, Any]:
    heads = HEADINGS.get(lang, HEADINGS["en"])
    sections = [(heads[k], localized(rule.docs[k], lang).strip()) for k in _HELP_SECTIONS if k in rule.docs]
    sections = [(h, body) for h, body in sections if body]
    desc: Dict[str, Any] = {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": localized(rule.title, lang)},
    }
    what = localized(rule.docs.get("what"), lang).strip()
    if what:
        desc["fullDescription"] = {"text": what}
    if sections:
        desc["help"] = {"text": "\n\n".join(f"{h}\n{body}" for h, body in sections),
                        "markdown": "\n\n".join(f"## {h}\n\n{body}" for h, body in sections)}
    desc["defaultConfiguration"] = {"level": level(rule.severity)}
    desc["properties"] = {"tags": list(rule.tags), "checklist": rule.checklist, "framework": rule.framework}
    return desc


def _cell_properties(cell: Optional[CellSpan]) -> Dict[str, int]:
    if cell is None:
        return {}
    return {"cell": cell.cell, "cell_line": cell.span.line, "cell_column": cell.span.column,
            "cell_end_line": cell.span.end_line, "cell_end_column": cell.span.end_column}


def result(f: Finding, rule_index: Dict[str, int]) -> Dict[str, Any]:
    out: Dict[str, Any] = {"ruleId": f.rule}
    if f.rule in rule_index:
        out["ruleIndex"] = rule_index[f.rule]
    out["level"] = _LEVEL[f.severity]
    out["message"] = {"text": f.message}
    out["locations"] = [{"physicalLocation": {"artifactLocation": artifact_location(f.path),
                                              "region": region(f.span)}}]
    if f.related:
        out["relatedLocations"] = [
            {"id": i, "physicalLocation": {"artifactLocation": artifact_location(path),
                                           "region": {"startLine": max(line, 1)}},
             "message": {"text": note}}
            for i, (path, line, note) in enumerate(f.related, start=1)]
    fingerprint = f.data.get("fingerprint")
    if fingerprint:
        out["partialFingerprints"] = {FINGERPRINT_KEY: str(fingerprint)}
    fix = f.data.get("fix")
    if isinstance(fix, dict):
        out["fixes"] = [sarif_fix(fix)]
    out["properties"] = {"checklist": f.checklist, "framework": f.framework, **_cell_properties(f.cell)}
    return out


def sarif_fix(fix: Dict[str, Any]) -> Dict[str, Any]:
    """A fix as SARIF ``fix``: one ``artifactChange`` per file, its text replacements (regions use
    the same 1-based, end-exclusive columns as the results)."""
    changes: Dict[str, List[Dict[str, Any]]] = {}
    for e in fix["edits"]:
        changes.setdefault(e["path"], []).append({
            "deletedRegion": {"startLine": e["line"], "startColumn": e["column"],
                              "endLine": e["end_line"], "endColumn": e["end_column"]},
            "insertedContent": {"text": e["content"]}})
    return {"description": {"text": f"{fix['title']} ({fix['applicability']}: {fix['reason']})"},
            "artifactChanges": [{"artifactLocation": artifact_location(path), "replacements": reps}
                                for path, reps in changes.items()],
            "properties": {"applicability": fix["applicability"]}}


def notification(e: Diagnostic) -> Dict[str, Any]:
    out: Dict[str, Any] = {"level": "error" if e.fatal else "warning", "message": {"text": e.message},
                           "descriptor": {"id": e.kind.value}}
    if e.path:
        physical: Dict[str, Any] = {"artifactLocation": artifact_location(e.path)}
        if e.line is not None and e.line >= 1:
            physical["region"] = {"startLine": e.line}
            if e.column is not None and e.column >= 1:
                physical["region"]["startColumn"] = e.column
        out["locations"] = [{"physicalLocation": physical}]
    if e.rule:
        out["associatedRule"] = {"id": e.rule}
    props = _cell_properties(e.cell)
    if props:
        out["properties"] = props
    return out


def document(findings: List[Finding], errors: List[Diagnostic], rules: Sequence[CompiledRule],
             lang: str = "en") -> Dict[str, Any]:
    rule_index = {r.id: i for i, r in enumerate(rules)}
    driver = {"name": "trainlint", "version": __version__, "semanticVersion": __version__,
              "informationUri": INFORMATION_URI, "rules": [rule_descriptor(r, lang) for r in rules]}
    run = {
        "tool": {"driver": driver},
        "invocations": [{"executionSuccessful": not any(e.fatal for e in errors),
                         "toolExecutionNotifications": [notification(e) for e in errors]}],
        "language": lang,
        "columnKind": "unicodeCodePoints",
        "results": [result(f, rule_index) for f in findings],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def write(out: TextIO, findings: List[Finding], errors: List[Diagnostic], rules: Sequence[CompiledRule],
          lang: str = "en") -> None:
    json.dump(document(findings, errors, rules, lang), out, indent=2, ensure_ascii=False)
    out.write("\n")
