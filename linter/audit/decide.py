"""Audit, stage 3: one project's findings, evidence and facts → a status for every checklist item.

    found           a rule fired in the project's files (every finding is listed)
    not-applicable  the item's `applies` condition does not hold (no mixed precision → mp.* N/A)
    no-issue        the rules can decide the item, none fired, and the code shows the good practice
                    (the evidence: file:line of the `shuffle=True`, the `set_seed` call, ...)
    manual          static analysis cannot settle it: what to check by hand, with the facts and
                    places found — also for a rules item where nothing fired but no evidence shows
                    the good practice either (silence is not proof)
"""
from __future__ import annotations

import fnmatch
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from linter.audit.model import FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE, Evidence, FactValue, ItemResult
from linter.audit.spec import ItemSpec, Probe
from linter.compiler.build import CallPattern
from linter.core.model import Finding

MAX_EVIDENCE = 20
"""Per item; a zoo's api.01 evidence would otherwise list every layer."""

_TEXT = {
    "silent_no_evidence": {
        "en": "No rule fired, but nothing in the code shows the good practice either; check by hand.",
        "zh": "没有规则报告问题，但代码中也没有体现正确做法的证据；请人工检查。",
    },
    "more": {"en": "{n} more places not listed", "zh": "另有 {n} 处未列出"},
}


def text(key: str, lang: str, **kw: object) -> str:
    t = _TEXT[key]
    return (t.get(lang) or t["en"]).format(**kw)


def localized(d: Dict[str, str], lang: str) -> str:
    return d.get(lang) or d.get("en") or ""


Sites = Callable[[CallPattern], List[Tuple[str, int]]]
"""A pattern → the (path, line) of every matching call in the project's files."""


def decide_item(spec: ItemSpec, findings: Sequence[Finding], sites: Sites, trains: bool,
                facts: Sequence[FactValue], line_text: Callable[[str, int], str], lang: str) -> ItemResult:
    title = localized(spec.title, lang)
    how = localized(spec.how_to_check, lang)
    mine = [f for f in findings if f.checklist == spec.id]
    picked = [f for f in facts if any(fnmatch.fnmatchcase(f.name, g) for g in spec.facts)]
    evidence, more = _evidence(spec.evidence, sites, line_text, lang)
    if mine:
        return ItemResult(spec.id, FOUND, title, findings=list(mine), evidence=evidence, facts=picked, how_to_check=how)
    reason = _not_applicable(spec, sites, trains, lang)
    if reason is not None:
        return ItemResult(spec.id, NOT_APPLICABLE, title, facts=picked, how_to_check=how, reason=reason)
    more_note = text("more", lang, n=more) if more else ""
    if spec.decide == "rules" and evidence:
        return ItemResult(spec.id, NO_ISSUE, title, evidence=evidence, facts=picked, how_to_check=how, reason=more_note)
    reason = " ".join(x for x in (text("silent_no_evidence", lang) if spec.decide == "rules" else "", more_note) if x)
    return ItemResult(spec.id, MANUAL, title, evidence=evidence, facts=picked, how_to_check=how, reason=reason)


def _not_applicable(spec: ItemSpec, sites: Sites, trains: bool, lang: str) -> Optional[str]:
    if not spec.conditional:
        return None
    holds = True
    if spec.applies_trains and not trains:
        holds = False
    if holds and spec.applies_any and not any(sites(p) for p in spec.applies_any):
        holds = False
    if holds and spec.applies_all and not all(any(sites(p) for p in group) for group in spec.applies_all):
        holds = False
    return None if holds else localized(spec.not_applicable, lang)


def _evidence(probes: Sequence[Probe], sites: Sites, line_text: Callable[[str, int], str],
              lang: str) -> Tuple[List[Evidence], int]:
    seen = set()
    out: List[Evidence] = []
    more = 0
    for probe in probes:
        for path, line in sites(probe.pattern):
            if (path, line) in seen:
                continue
            seen.add((path, line))
            if len(out) >= MAX_EVIDENCE:
                more += 1
                continue
            out.append(Evidence(path, line, line_text(path, line), localized(probe.note, lang)))
    return out, more
