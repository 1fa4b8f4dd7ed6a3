"""Cost on a tree of many independent projects (course repositories, paper collections,
monorepos with one folder per model) must be linear: N projects in one run cost about N
times one, plus linking.

    python benchmarks/many_projects.py                    # N = 10, 20, 40, 80; -j 1
    python benchmarks/many_projects.py --sizes 10 80 --jobs 2 --json out.json
    python benchmarks/many_projects.py --runs 2             # the fastest of two runs per size

Project ``i`` is a folder ``p<i>/`` holding a copy of every fixture project of
``tests/projects`` (86 files, ~5,000 lines: MindSpore, PyTorch and Keras scripts, their
helpers and configs), so the tree repeats what many-project trees repeat: the same module
names (``src/model.py``, ``train.py``), class names and config keys in every folder, and
each size is the same mix (a big enough unit that a rule's time is measurable).
Each size runs in a fresh process, without the cache, all default rules; the numbers are
wall time (whole run and per rule, from the run's own observer, as ``--profile`` prints
them) and peak RSS. The target is ``time(largest) / time(smallest) <= 9 * (largest /
smallest) / 8`` for the run and for every rule — 9 for 80 against 10. A rule that takes less
than ``--floor`` seconds (default 0.05) at the largest size is below what this machine can
time and is shown but not judged.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURES = os.path.join(ROOT, "tests", "projects")

PROBE = r"""
import json, sys, time
from linter.api import check_paths
from linter.engine.packs import load_packs
from linter.engine.units import Options
from linter.report.progress import peak_memory_mb
from linter.core.observer import Observer
tree, jobs = sys.argv[1], int(sys.argv[2])
packs = load_packs()
obs = Observer()
start = time.perf_counter()
result = check_paths([tree], packs, Options(jobs=jobs, observer=obs), cwd=tree)
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "files": result.files, "findings": len(result.findings),
                  "errors": len(result.errors), "peak_mb": peak_memory_mb(),
                  "profile": obs.to_json()}))
"""


def build_tree(dest: str, n: int) -> int:
    """``n`` projects under ``dest``; returns the number of Python files."""
    files = 0
    for i in range(n):
        target = os.path.join(dest, f"p{i:03d}")
        shutil.copytree(FIXTURES, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        files += sum(1 for _, _, fs in os.walk(target) for f in fs if f.endswith(".py"))
    return files


def measure(n: int, jobs: int, runs: int = 1) -> Dict[str, Any]:
    """The fastest of ``runs`` fresh-process runs, for the whole run and for each rule (the
    minimum is the least disturbed by a noisy machine, as ``timeit`` takes it)."""
    with tempfile.TemporaryDirectory(prefix=f"trainlint-many-{n}-") as tmp:
        tree = os.path.join(tmp, "tree")
        os.mkdir(tree)
        build_tree(tree, n)
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        best: Dict[str, Any] = {}
        for _ in range(runs):
            proc = subprocess.run([sys.executable, "-c", PROBE, tree, str(jobs)], capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                raise SystemExit(f"run on {n} projects failed:\n{proc.stderr}")
            out = json.loads(proc.stdout.strip().splitlines()[-1])
            if not best:
                best = out
                continue
            best["wall"] = min(best["wall"], out["wall"])
            best["peak_mb"] = max(best["peak_mb"] or 0, out["peak_mb"] or 0)
            rules = best["profile"]["rules"]
            for rid, t in out["profile"]["rules"].items():
                rules[rid] = min(rules.get(rid, t), t)
        best["projects"] = n
        best["runs"] = runs
        return best


def judge(runs: List[Dict[str, Any]], floor: float) -> Dict[str, Any]:
    small, large = runs[0], runs[-1]
    limit = 9 * (large["projects"] / small["projects"]) / 8
    rules = {}
    for rid, t_large in sorted(large["profile"]["rules"].items()):
        t_small = small["profile"]["rules"].get(rid, 0.0)
        ratio = t_large / t_small if t_small > 0 else float("inf")
        judged = t_large >= floor
        rules[rid] = {"small": t_small, "large": t_large, "ratio": ratio, "judged": judged,
                      "ok": (ratio <= limit) if judged else None}
    run_ratio = large["wall"] / small["wall"]
    return {"limit": limit, "run_ratio": run_ratio, "run_ok": run_ratio <= limit, "rules": rules,
            "ok": run_ratio <= limit and all(r["ok"] is not False for r in rules.values())}


def main(argv: List[str] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 40, 80])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--runs", type=int, default=1, help="runs per size; the fastest counts (default 1)")
    ap.add_argument("--floor", type=float, default=0.05, help="seconds below which a rule is not judged")
    ap.add_argument("--json", metavar="FILE", help="also write the measurements here")
    ap.add_argument("--no-verdict", action="store_true",
                    help="exit 0 whatever the ratios (a smoke run: that the benchmark works, not how fast this "
                         "machine is at the moment)")
    args = ap.parse_args(argv)
    runs = []
    print(f"{'projects':>8} {'files':>6} {'seconds':>8} {'peak MB':>8} {'findings':>8}")
    for n in sorted(args.sizes):
        r = measure(n, args.jobs, max(1, args.runs))
        runs.append(r)
        print(f"{n:>8} {r['files']:>6} {r['wall']:>8.2f} {r['peak_mb'] or 0:>8.0f} {r['findings']:>8}", flush=True)
    verdict = judge(runs, args.floor)
    small, large = runs[0]["projects"], runs[-1]["projects"]
    print(f"\ntime({large}) / time({small}) = {verdict['run_ratio']:.2f} (limit {verdict['limit']:.2f}): "
          f"{'ok' if verdict['run_ok'] else 'TOO SLOW'}")
    print(f"per rule (judged where time({large}) >= {args.floor} s), slowest first:")
    for rid, r in sorted(verdict["rules"].items(), key=lambda kv: -kv[1]["large"]):
        mark = "ok" if r["ok"] else ("-" if r["ok"] is None else "TOO SLOW")
        print(f"  {rid:<8} {r['small']:7.3f} s -> {r['large']:7.3f} s  x{r['ratio']:6.2f}  {mark}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"runs": runs, "verdict": verdict}, fh, indent=2)
    return 0 if verdict["ok"] or args.no_verdict else 1


if __name__ == "__main__":
    sys.exit(main())
