"""Audit cost on a model-zoo-shaped tree, as a ratio to `check` on the same tree (same run).

Builds a zoo of N copies of the bundled example projects (a MindSpore port of 5 files and a
PyTorch script: 6 files, 2 projects per copy), then times `trainlint check` and `trainlint audit`
(no cache, median of --repeat runs, interleaved so machine noise hits both).

    python benchmarks/bench_audit.py [--copies 170] [--repeat 3] [--jobs 2]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(dest: str, copies: int) -> int:
    n = 0
    for i in range(copies):
        for name in ("mindspore_port", "pytorch_amp"):
            src = os.path.join(ROOT, "examples", name)
            dst = os.path.join(dest, f"model_{i:03d}_{name}")
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.md"))
            n += sum(1 for _d, _s, files in os.walk(dst) for f in files if f.endswith(".py"))
    return n


def timed(args: list) -> float:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "linter"] + args, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{args[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=170)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", metavar="FILE")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="trainlint-zoo-")
    try:
        files = build(tmp, a.copies)
        out = os.path.join(tmp, "audit.json")
        common = ["--no-cache", "--isolated", "-j", str(a.jobs)]
        checks, audits = [], []
        for _ in range(a.repeat):
            checks.append(timed(["check", tmp, "-q", "--exit-zero"] + common))
            audits.append(timed(["audit", tmp, "--format", "json", "-o", out, "--exit-zero"] + common))
        with open(out, encoding="utf-8") as fh:
            projects = len(json.load(fh)["projects"])
        c, au = statistics.median(checks), statistics.median(audits)
        result = {"files": files, "projects": projects, "check_s": round(c, 2), "audit_s": round(au, 2),
                  "audit_over_check": round(au / c, 2)}
        print(json.dumps(result))
        if a.json:
            with open(a.json, "w", encoding="utf-8") as fh:
                json.dump(result, fh)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
