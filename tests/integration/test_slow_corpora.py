"""Slow: lint the Python standard library and the installed site-packages of the test
environment — tens of thousands of real files, including deliberately broken ones (the
standard library's own syntax-error and bad-encoding test files) — and require zero internal
errors. Run with ``python -m pytest -m slow tests/integration/test_slow_corpora.py``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig

import pytest

pytestmark = pytest.mark.slow


def lint_tree(path: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "linter", "check", "--isolated", "--no-cache", "--exit-zero", "--format", "json", path],
        capture_output=True, text=True)
    # --exit-zero silences findings; files that could not be checked still exit 2.
    assert proc.returncode in (0, 2) and proc.stdout, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def assert_no_internal_errors(doc: dict) -> None:
    internal = [e for e in doc["errors"] if e["kind"] == "internal"]
    assert internal == [], json.dumps(internal[:10], indent=1)
    assert doc["summary"]["files"] > 100


def test_standard_library() -> None:
    doc = lint_tree(sysconfig.get_paths()["stdlib"])      # site-packages below it is excluded by default
    assert_no_internal_errors(doc)
    # The standard library's tests hold files that are broken on purpose: they are reported.
    kinds = {e["kind"] for e in doc["errors"]}
    assert {"syntax", "encoding"} <= kinds


def test_site_packages() -> None:
    purelib = sysconfig.get_paths()["purelib"]
    if not os.path.isdir(purelib):
        pytest.skip("no site-packages")
    # Named explicitly, so the default exclusion of `site-packages/` does not apply to its root.
    assert_no_internal_errors(lint_tree(purelib))
