"""The benchmark script must keep working (it is how docs/performance.md's table is made):
a smoke run on the bundled examples. Not a timed test — the ratios are not asserted."""
from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_benchmark_smoke_run(tmp_path) -> None:
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "bench.py"), "--smoke", "--json", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    for key in ("floor_s", "cold_j1_s", "cold_j2_s", "warm_s", "one_changed_s", "one_file_s", "import_libcst_s"):
        assert doc[key] > 0, key
    assert [c["measure"] for c in doc["checks"]] == [
        "cold run / floor (parse + walk)", "parallel speed-up, 2 workers", "warm re-run / cold run",
        "one file / import libcst"]
    assert "cold run / floor" in proc.stdout and "smoke run" in proc.stdout


def test_many_projects_benchmark_smoke_run(tmp_path) -> None:
    """The many-project benchmark on trees of one and two projects: it builds them, reads the
    run's own profile and judges every rule. The ratios are not asserted (too small to time, and a
    loaded machine would fail the test): ``--no-verdict`` makes the script exit 0 whatever they are."""
    out = tmp_path / "many.json"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "many_projects.py"), "--sizes", "1", "2",
                           "--floor", "1000", "--no-verdict", "--json", str(out)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    one, two = doc["runs"]
    assert (one["projects"], two["projects"]) == (1, 2) and two["files"] == 2 * one["files"] > 50
    assert two["findings"] == 2 * one["findings"] > 0
    assert {"parse", "rules", "program model"} <= {s["name"] for s in one["profile"]["stages"]}
    assert doc["verdict"]["rules"] and all(r["ok"] is None for r in doc["verdict"]["rules"].values())
    assert "time(2) / time(1)" in proc.stdout


def test_many_projects_benchmark_judges_ratios() -> None:
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    try:
        from many_projects import judge
    finally:
        sys.path.pop(0)

    def run(n, wall, rules):
        return {"projects": n, "wall": wall, "profile": {"rules": rules}}

    ok = judge([run(10, 1.0, {"A": 0.1, "B": 0.01}), run(80, 8.5, {"A": 0.85, "B": 0.04})], 0.05)
    assert ok["ok"] and ok["rules"]["A"]["ok"] and ok["rules"]["B"]["ok"] is None   # B: under the floor
    slow = judge([run(10, 1.0, {"A": 0.1}), run(80, 8.5, {"A": 1.2})], 0.05)
    assert not slow["ok"] and slow["rules"]["A"]["ok"] is False and slow["run_ok"]
