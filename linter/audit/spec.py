"""Audit, stage 0: ``rules/audit.yaml`` → compiled per-item specs.

The table is data like the rules: applicability conditions and evidence are call patterns of
the rule language, compiled by the rule compiler (so a pattern means exactly what it means in
a rule), validated first against ``linter/schema/audit.json``. Every checklist item must have
an entry: an audit never leaves an item without a status.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from linter.compiler.build import CallPattern, _Builder
from linter.compiler.load import RuleFileError, YamlDoc, builtin_pack, read_yaml
from linter.compiler.spec import rule_schema

_SCHEMA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schema", "audit.json")


class AuditSpecError(Exception):
    """The audit table cannot be used (file, line and what is wrong)."""


@dataclass(frozen=True)
class Probe:
    pattern: CallPattern
    note: Dict[str, str]


@dataclass
class ItemSpec:
    id: str
    title: Dict[str, str]
    decide: str
    """``rules`` (rules can decide it) or ``manual`` (from checklist.yaml)."""
    how_to_check: Dict[str, str]
    applies_any: Tuple[CallPattern, ...] = ()
    applies_all: Tuple[Tuple[CallPattern, ...], ...] = ()
    applies_trains: bool = False
    not_applicable: Dict[str, str] = field(default_factory=dict)
    evidence: Tuple[Probe, ...] = ()
    facts: Tuple[str, ...] = ()

    @property
    def conditional(self) -> bool:
        return bool(self.applies_any or self.applies_all or self.applies_trains)


@dataclass
class AuditSpec:
    items: List[ItemSpec]
    entries: "re.Pattern[str]"
    not_entries: Optional["re.Pattern[str]"]
    tool_dirs: Tuple[str, ...]


def _validate(doc: YamlDoc) -> None:
    # imported where it is used: jsonschema is slow to import (start-up time)
    import jsonschema

    with open(_SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc.data),
                    key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if not errors:
        # Patterns must be valid call patterns of the rule language, checked by the rule schema.

        pattern_schema = {"$defs": rule_schema()["$defs"], "$ref": "#/$defs/call_pattern"}
        v = jsonschema.Draft202012Validator(pattern_schema)
        for where, pat in _patterns(doc.data):
            for e in v.iter_errors(pat):
                errors = [e]
                e.absolute_path.extendleft(reversed(where))
                break
            if errors:
                break
    if errors:
        e = errors[0]
        path = list(e.absolute_path)
        raise AuditSpecError(str(RuleFileError(doc.path, f"invalid audit table: {e.message}", doc.line_of(path),
                                               "/" + "/".join(map(str, path)))))


def _patterns(data: Dict[str, Any]) -> List[Tuple[List[Any], Any]]:
    out: List[Tuple[List[Any], Any]] = []
    for iid, item in (data.get("items") or {}).items():
        ap = item.get("applies") or {}
        out += [(["items", iid, "applies", "calls", i], p) for i, p in enumerate(ap.get("calls") or ())]
        for g, group in enumerate(ap.get("all") or ()):
            out += [(["items", iid, "applies", "all", g, i], p) for i, p in enumerate(group)]
        for k, e in enumerate(item.get("evidence") or ()):
            if "call" in e:
                out.append((["items", iid, "evidence", k, "call"], e["call"]))
            out += [(["items", iid, "evidence", k, "calls", i], p) for i, p in enumerate(e.get("calls") or ())]
    return out


def load_audit_spec(checklist: Dict[str, Dict[str, Any]], path: Optional[str] = None) -> AuditSpec:
    """Read, validate and compile the audit table against the checklist (raise :class:`AuditSpecError`)."""
    path = path or os.path.join(builtin_pack(), "audit.yaml")
    try:
        doc = read_yaml(path)
    except RuleFileError as exc:
        raise AuditSpecError(str(exc)) from None
    _validate(doc)
    data = doc.data
    b = _Builder(doc)

    def patterns(items: Sequence[Any], where: List[Any]) -> Tuple[CallPattern, ...]:
        try:
            return tuple(b.call_pattern(x, where + [i]) for i, x in enumerate(items))
        except RuleFileError as exc:
            raise AuditSpecError(str(exc)) from None

    def regex(text: str, key: str) -> "re.Pattern[str]":
        try:
            return re.compile(text)
        except re.error as exc:
            raise AuditSpecError(f"{path}:{doc.line_of([key])}: invalid regular expression: {exc}") from None

    missing = [i for i in checklist if i not in data["items"]]
    unknown = [i for i in data["items"] if i not in checklist]
    if missing or unknown:
        raise AuditSpecError(f"{path}: the audit table must describe exactly the checklist items"
                             + (f"; missing: {', '.join(missing)}" if missing else "")
                             + (f"; not in the checklist: {', '.join(unknown)}" if unknown else ""))
    items: List[ItemSpec] = []
    for iid, item in checklist.items():   # checklist order
        raw = data["items"][iid]
        at = ["items", iid]
        spec = ItemSpec(iid, dict(item.get("title") or {"en": iid, "zh": iid}), item.get("decide", "manual"),
                        dict(raw["how_to_check"]), facts=tuple(raw.get("facts") or ()))
        ap = raw.get("applies")
        if ap:
            spec.applies_any = patterns(ap.get("calls") or (), at + ["applies", "calls"])
            spec.applies_all = tuple(patterns(g, at + ["applies", "all", i]) for i, g in enumerate(ap.get("all") or ()))
            spec.applies_trains = bool(ap.get("trains"))
            spec.not_applicable = dict(ap["reason"])
        probes: List[Probe] = []
        for i, e in enumerate(raw.get("evidence") or ()):
            if "call" in e:
                probes.append(Probe(patterns([e["call"]], at + ["evidence", i, "call"])[0], dict(e["note"])))
            else:
                probes += [Probe(pat, dict(e["note"])) for pat in patterns(e["calls"], at + ["evidence", i, "calls"])]
        spec.evidence = tuple(probes)
        items.append(spec)
    not_entries = data.get("not_entries")
    return AuditSpec(items, regex(data["entries"], "entries"), regex(not_entries, "not_entries") if not_entries else None,
                     tuple(data.get("tool_dirs") or ()))
