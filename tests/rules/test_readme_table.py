"""The README's "What it finds" table lists every shipped rule, as `trainlint rules` does."""
from __future__ import annotations

import os

from tests.conftest import ROOT


def test_readme_lists_every_rule(packs) -> None:
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    for r in packs.rules:
        opt = " (opt-in)" if r.raw.get("default") is False else ""
        row = f"| {r.id} | `{r.name}` | {r.checklist} | {r.framework} | {r.severity} | {r.title['en']}{opt} |"
        assert row in text, row
