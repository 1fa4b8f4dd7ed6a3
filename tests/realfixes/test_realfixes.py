"""Real accuracy-bug fixes (``fixes.jsonl``, see ``harness.py``): a fix recorded as ``caught`` is
still reported as a warning or error before the fix and gone after it; a fix recorded as
``missed`` is an expected failure, strict — when trainlint starts catching it the test fails until
the record says ``caught`` (``python tests/realfixes/harness.py --mirrors DIR --update``), so the
suite only ratchets up.

Marked ``realfixes``: runs where ``TRAINLINT_MIRRORS`` names a folder of bare mirrors; a fix whose
repository is not there is skipped. No third-party code is committed."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402  (beside this file; tests/ is not a package)

MIRRORS = os.environ.get("TRAINLINT_MIRRORS", "")
FIXES = harness.load_fixes()


def test_the_records_are_complete() -> None:
    """Every fix names its commits, place, checklist item and evidence, and says what is expected."""
    ids = set()
    for fix in FIXES:
        assert fix["id"] not in ids, fix["id"]
        ids.add(fix["id"])
        for key in ("repo", "bug_commit", "fix_commit", "path", "line", "item", "summary", "evidence", "expect"):
            assert fix.get(key), (fix["id"], key)
        assert fix["expect"] in ("caught", "missed"), fix["id"]
        assert fix["expect"] == "caught" or fix.get("why"), f"{fix['id']}: a missed fix says why"
        assert len(fix["bug_commit"]) == 40 and len(fix["fix_commit"]) == 40, fix["id"]


@pytest.mark.realfixes
@pytest.mark.parametrize("fix", [
    pytest.param(f, id=f["id"], marks=[] if f["expect"] == "caught" else [pytest.mark.xfail(strict=True, reason=f.get("why", ""))])
    for f in FIXES])
def test_fix_is_reported_before_and_cleared_after(fix, tmp_path) -> None:
    if not MIRRORS:
        pytest.skip("set TRAINLINT_MIRRORS to a folder of bare mirrors (see tests/realfixes/harness.py)")
    if harness.gitdir(MIRRORS, fix["repo"]) is None:
        pytest.skip(f"no mirror of {fix['repo']}")
    r = harness.evaluate(fix, MIRRORS, str(tmp_path))
    assert r["reported"], f"not reported as a warning/error before the fix (best: {r['severity_before'] or 'nothing'})"
    assert r["cleared"], f"still reported after the fix ({r['severity_after']})"
