"""Findings judged by reading the code of a real model zoo (tests/data/realworld/*.jsonl: the
official MindSpore models at a pinned commit) stay judged: a finding judged false is not reported
as a warning or error again, one judged true is still reported. Marked ``realworld``: it runs where
a checkout of that commit is named by ``TRAINLINT_ZOO`` (see docs/precision.md, "Precision on a real model
zoo"); no third-party code is committed."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Dict, List, Tuple

import pytest

from tests.conftest import builtin_packs

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "realworld", "mindspore-models.jsonl")
ZOO = os.environ.get("TRAINLINT_ZOO", "")

pytestmark = pytest.mark.realworld


def _judged() -> Tuple[Dict[str, str], List[Dict[str, object]]]:
    with open(DATA, encoding="utf-8") as fh:
        lines = [json.loads(x) for x in fh if x.strip()]
    return lines[0], lines[1:]   # type: ignore[return-value]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> Dict[Tuple[str, int, str], Tuple[str, str]]:
    if not ZOO or not os.path.isdir(ZOO):
        pytest.skip("set TRAINLINT_ZOO to a checkout of mindspore-ai/models (the commit in tests/data/realworld)")
    head, _rows = _judged()
    sha = subprocess.run(["git", "-C", ZOO, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if sha and sha != head["commit"]:
        pytest.skip(f"TRAINLINT_ZOO is at {sha}, the judged findings are for {head['commit']}")
    cache = str(tmp_path_factory.mktemp("cache"))
    # the judged rules are selected too when they are opt-in: their verdicts still hold for those
    # who turn them on
    rules = sorted({r["rule"] for r in _rows})
    out = subprocess.run([sys.executable, "-m", "linter", "check", ".", "--format", "json", "--exit-zero", "--isolated",
                          "--cache-dir", cache, "--extend-select", ",".join(rules)],
                         cwd=ZOO, capture_output=True, text=True, check=True).stdout
    found: Dict[Tuple[str, int, str], Tuple[str, str]] = {}
    for f in json.loads(out)["findings"]:
        # a finding standing for one cause names its other places as related: they are reported too
        places = " ".join(f"{r['path']}:{r['line']}" for r in f.get("related", ()))
        found[(f["path"], f["line"], f["rule"])] = (f["severity"], f["message"] + " " + places)
    return found


def _places(message: str) -> List[str]:
    return re.findall(r"[\w./-]+\.py:\d+", message)


def _folder(path: str) -> str:
    """The model folder of a zoo path (``research/cv/textfusenet``)."""
    return "/".join(path.split("/")[:3])


def test_findings_judged_false_are_not_warnings_again(findings) -> None:
    """Except the known false positives (``"known": true``), which must still be there: one that
    goes away is fixed, and its mark must go too (like the rules' ``todo_invalid`` examples)."""
    _head, rows = _judged()
    warned = {k for k, (sev, _msg) in findings.items() if sev in ("warning", "error")}
    # opt-in rules are opt-in because of such findings (README, "Opt-in rules"): what they get wrong is
    # the reason they are not default rules, not a regression
    opt_in = {r.id for r in builtin_packs().rules if not r.default_on}
    back = [(r["path"], r["line"], r["rule"], r["cause"]) for r in rows if r["verdict"] == "false"
            and not r.get("known") and r["rule"] not in opt_in and (r["path"], r["line"], r["rule"]) in warned]
    assert not back, "judged false, reported again:\n" + "\n".join(map(str, back))
    fixed = [(r["path"], r["line"], r["rule"]) for r in rows if r.get("known")
             and (r["path"], r["line"], r["rule"]) not in warned]
    assert not fixed, "known false positives no longer reported: drop their `known` mark:\n" + "\n".join(map(str, fixed))


def test_findings_judged_true_are_still_reported(findings) -> None:
    _head, rows = _judged()
    # a rule reporting once per program names its other places in the first finding's message
    # (the first three, then "and N more": those count for the model folder)
    named = {(rule, place) for (path, line, rule), (_sev, msg) in findings.items() for place in _places(msg)}
    grouped = {(rule, _folder(path)) for (path, line, rule), (_sev, msg) in findings.items() if re.search(r"and \d+ more", msg)}
    lost = [(r["path"], r["line"], r["rule"]) for r in rows if r["verdict"] == "true"
            and (r["path"], r["line"], r["rule"]) not in findings and (r["rule"], f"{r['path']}:{r['line']}") not in named
            and (r["rule"], _folder(r["path"])) not in grouped]
    assert not lost, "judged true, no longer reported:\n" + "\n".join(map(str, lost))
