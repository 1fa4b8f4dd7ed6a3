"""The benchmark script must keep working (it is how the README's performance table is made):
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
