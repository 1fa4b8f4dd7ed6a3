"""The framework facts belong to the project: docs/framework-facts.md is rendered from
docs/framework-facts.yaml (``python -m linter.docsgen``), every fact a rule cites exists there, and no
rule, README or docs page points outside the repository."""
from __future__ import annotations

import fnmatch
import glob
import os
import re

from linter.docsgen import load_facts
from tests.conftest import ROOT

_CITE = re.compile(r"docs/framework-facts\.md(?:#([a-z0-9-]+))?(?: \(([^)]*)\))?")


def test_facts_have_unique_ids_and_a_verification_per_framework() -> None:
    entries = load_facts()["entries"]
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids))
    unverified = [(e["id"], fw) for e in entries for fw in e["frameworks"] if fw not in (e.get("verified_with") or {})]
    assert unverified == []


def _cited(packs) -> list:
    out = []
    for r in packs.rules:
        for ref in r.docs.get("references", ()):
            for m in _CITE.finditer(ref):
                out.append((r.id, m.group(1), m.group(2)))
    return out


def test_every_fact_a_rule_cites_exists(packs) -> None:
    entries = load_facts()["entries"]
    ids = {e["id"] for e in entries}
    concepts = {e["concept"] for e in entries}
    cited = _cited(packs)
    assert len(cited) >= 40
    missing = []
    for rule, anchor, inside in cited:
        if anchor and anchor not in ids | concepts:
            missing.append((rule, anchor))
        for item in (inside or "").split(","):
            fact = item.split(":")[0].strip()
            if fact and not any(fnmatch.fnmatch(i, fact) for i in ids):
                missing.append((rule, fact))
    assert missing == []


def test_nothing_points_outside_the_repository() -> None:
    texts = [os.path.join(ROOT, "README.md")] + glob.glob(os.path.join(ROOT, "docs", "*.md")) \
        + glob.glob(os.path.join(ROOT, "rules", "**", "*.yaml"), recursive=True)
    outside = []
    for path in texts:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                links = [os.path.normpath(os.path.join(os.path.dirname(path), t.split("#")[0]))
                         for t in re.findall(r"\]\(([^)\s]+)\)", line) if "://" not in t and not t.startswith("#")]
                if "../shared" in line or any(not p.startswith(ROOT + os.sep) for p in links):
                    outside.append(f"{os.path.relpath(path, ROOT)}:{n}")
    assert outside == []
