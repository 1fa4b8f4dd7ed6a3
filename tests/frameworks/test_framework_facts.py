"""Optional: every fact of docs/framework-facts.yaml that can be read from a signature (or a call)
holds in the installed framework. Marker `frameworks` (tests/conftest.py); each framework is skipped
when it is not installed."""
from __future__ import annotations

import pytest
import yaml

from tests.frameworks import verify_facts as verify

MODULE = {"mindspore": "mindspore", "pytorch": "torch", "tensorflow": "tensorflow"}


@pytest.mark.parametrize("framework", sorted(MODULE))
def test_framework_facts_hold_in_the_installed_library(framework: str) -> None:
    pytest.importorskip(MODULE[framework])
    with open(verify.DEFAULT_YAML, encoding="utf-8") as fh:
        entries = yaml.safe_load(fh)["entries"]
    mode, _version, index = verify.framework_state(framework, False)
    assert mode == "runtime"
    checked, bad = 0, []
    for entry in entries:
        block = entry["frameworks"].get(framework)
        if not block:
            continue
        for label, expected, actual, status, note in verify.check_block(framework, block, mode, index):
            checked += status in ("MATCH", "MISMATCH", "ERROR")
            if status in ("MISMATCH", "ERROR"):
                bad.append(f"{entry['id']}: {label} expected {expected}, got {actual} {note}".rstrip())
    assert bad == []
    assert checked > 10
