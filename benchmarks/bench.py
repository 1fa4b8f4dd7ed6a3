"""Measure trainlint's performance targets against baselines measured in the same run.

    python benchmarks/corpus.py                 # once: build the corpus (~246 k lines)
    python benchmarks/bench.py [--runs 3] [--json results.json]
    python benchmarks/bench.py --smoke          # seconds: the bundled examples, one run (CI)

Every number is the median wall time of ``--runs`` runs of a whole process, and every target
is a ratio to a baseline timed in the same run, so a noisy or slow machine moves both sides:

1. cold:      ``trainlint check --no-cache -j 1`` / floor, where the floor is a script that
              ``libcst.parse_module``-s every file and walks every node once (single process);
2. parallel:  ``-j 1`` / ``-j 2`` (both cold);
3. warm:      a re-run with nothing changed / the cold run (cache filled by a previous run);
              also reported: the same after editing one file;
4. one file:  ``trainlint check FILE`` on a ~300-line script / ``python -c "import libcst"``;
5. memory:    peak RSS of a cold ``-j 1`` run on ~1 M lines (the corpus four times).
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
from typing import Any, Callable, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from corpus import count, default_dir, python_files  # noqa: E402

FLOOR = r"""
import sys, libcst
from libcst import CSTNode
paths = sys.argv[1:]
nodes = 0
fields_of = {}
for path in paths:
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        module = libcst.parse_module(data)
    except Exception:
        continue
    stack = [module]
    while stack:                       # one walk over every node
        node = stack.pop()
        nodes += 1
        cls = type(node)
        names = fields_of.get(cls)
        if names is None:
            names = fields_of[cls] = [f for f in cls.__dataclass_fields__]
        for name in names:
            value = getattr(node, name)
            if isinstance(value, CSTNode):
                stack.append(value)
            elif type(value) in (tuple, list):
                stack.extend(v for v in value if isinstance(v, CSTNode))
print(nodes)
"""

TARGETS = {"cold": 1.3, "parallel": 1.7, "warm": 0.05, "one_file": 1.3, "memory_mb": 1024}


def timed(cmd: List[str], env: Optional[Dict[str, str]] = None) -> float:
    """Wall seconds of one whole process (exit 0 or 1 = ran; anything else aborts)."""
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - t
    if proc.returncode not in (0, 1):
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd[:8])} ...\n"
                         f"{proc.stderr.decode(errors='replace')[-2000:]}")
    return elapsed


def peak_rss_kb(cmd: List[str], env: Dict[str, str]) -> int:
    """Peak RSS of one child, measured in a fresh helper process (RUSAGE_CHILDREN is a maximum
    over every child so far, so it cannot be reset in this process)."""
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
             "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, *cmd], env=env, capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def median(runs: int, fn: Callable[[], float]) -> float:
    return statistics.median(fn() for _ in range(runs))


def trainlint(*args: str) -> List[str]:
    return [sys.executable, "-m", "linter", "check", "--isolated", "--format", "json", *args]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", help="directory to lint (default: the built corpus)")
    ap.add_argument("--runs", type=int, default=3, help="runs per measurement; the median is reported")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--smoke", action="store_true", help="bundled examples, one run, no memory test (CI)")
    ap.add_argument("--no-memory", action="store_true", help="skip the 1 M-line memory measurement")
    args = ap.parse_args()

    if args.smoke:
        corpus, runs = os.path.join(ROOT, "examples"), 1
    else:
        corpus = args.corpus or os.path.join(default_dir(), "src")
        runs = args.runs
        if not os.path.isdir(corpus):
            raise SystemExit(f"no corpus at {corpus}: run `python benchmarks/corpus.py` first")
    files = python_files(corpus)
    n_files, n_lines = count(corpus)
    work = tempfile.mkdtemp(prefix="trainlint-bench-")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TRAINLINT_CACHE_DIR=os.path.join(work, "cache"), XDG_CACHE_HOME=os.path.join(work, "xdg"))
    # As installed by pip: with bytecode (an environment that forbids writing it would time the
    # compiler, not trainlint).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "linter")], env=env, check=False)
    results: Dict[str, Any] = {"corpus": corpus, "files": n_files, "lines": n_lines, "runs": runs,
                               "python": sys.version.split()[0], "cpus": os.cpu_count()}
    try:
        floor_script = os.path.join(work, "floor.py")
        with open(floor_script, "w") as fh:
            fh.write(FLOOR)
        results["floor_s"] = median(runs, lambda: timed([sys.executable, floor_script, *files], env))
        results["cold_j1_s"] = median(runs, lambda: timed(trainlint("--no-cache", "-j", "1", corpus), env))
        results["cold_j2_s"] = median(runs, lambda: timed(trainlint("--no-cache", "-j", "2", corpus), env))
        timed(trainlint(corpus), env)                                   # fill the cache
        results["warm_s"] = median(runs, lambda: timed(trainlint(corpus), env))
        results["one_changed_s"] = median(runs, lambda: _one_changed(corpus, files, work, env))
        one = _script(files)
        results["one_file_lines"] = one[1]
        results["import_libcst_s"] = median(runs, lambda: timed([sys.executable, "-c", "import libcst"], env))
        results["one_file_s"] = median(runs, lambda: _one_file(one[0], work, env))
        if not args.smoke and not args.no_memory:
            big = _replicate(corpus, work, 4)
            results["memory_lines"] = count(big)[1]
            results["memory_mb"] = peak_rss_kb(trainlint("--no-cache", "-j", "1", big), env) / 1024
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _report(results, smoke=args.smoke)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)


def _one_changed(corpus: str, files: List[str], work: str, env: Dict[str, str]) -> float:
    """Edit one file (a comment at the end), re-run, restore."""
    target = max(files, key=os.path.getsize)
    with open(target, "rb") as fh:
        original = fh.read()
    try:
        with open(target, "ab") as fh:
            fh.write(f"\n# bench {time.time_ns()}\n".encode())
        return timed(trainlint(corpus), env)
    finally:
        with open(target, "wb") as fh:
            fh.write(original)


def _script(files: List[str]) -> Tuple[str, int]:
    """The corpus file closest to 300 lines that looks like a training script."""
    def lines(p: str) -> int:
        with open(p, "rb") as fh:
            return fh.read().count(b"\n")
    scored = sorted(files, key=lambda p: (("train" not in os.path.basename(p)), abs(lines(p) - 300)))
    return scored[0], lines(scored[0])


def _one_file(path: str, work: str, env: Dict[str, str]) -> float:
    """The pre-commit/editor case: a changed file (so its own facts and the result are not
    cached), the rules and the unchanged project around it cached."""
    copy = os.path.join(os.path.dirname(path), f"_bench_{os.getpid()}.py")
    with open(path, "rb") as src, open(copy, "wb") as dst:
        dst.write(src.read() + f"\n# {time.time_ns()}\n".encode())
    try:
        return timed([sys.executable, "-m", "linter", "check", "--isolated", "--format", "concise", copy], env)
    finally:
        os.unlink(copy)


def _replicate(corpus: str, work: str, times: int) -> str:
    big = os.path.join(work, "big")
    for i in range(times):
        shutil.copytree(corpus, os.path.join(big, f"copy{i}"))
    return big


def _report(r: Dict[str, Any], smoke: bool) -> None:
    checks = [
        ("cold run / floor (parse + walk)", r["cold_j1_s"] / r["floor_s"], "<=", TARGETS["cold"],
         f"{r['cold_j1_s']:.2f} s / {r['floor_s']:.2f} s"),
        ("parallel speed-up, 2 workers", r["cold_j1_s"] / r["cold_j2_s"], ">=", TARGETS["parallel"],
         f"{r['cold_j1_s']:.2f} s / {r['cold_j2_s']:.2f} s"),
        ("warm re-run / cold run", r["warm_s"] / r["cold_j1_s"], "<=", TARGETS["warm"],
         f"{r['warm_s']:.2f} s / {r['cold_j1_s']:.2f} s"),
        ("one file / import libcst", r["one_file_s"] / r["import_libcst_s"], "<=", TARGETS["one_file"],
         f"{r['one_file_s']:.3f} s / {r['import_libcst_s']:.3f} s ({r['one_file_lines']} lines)"),
    ]
    if "memory_mb" in r:
        checks.append(("peak RSS on ~1 M lines (MB)", r["memory_mb"], "<=", TARGETS["memory_mb"],
                       f"{r['memory_lines']} lines"))
    r["checks"] = []
    print(f"corpus: {r['corpus']} ({r['files']} files, {r['lines']} lines); median of {r['runs']} run(s); "
          f"Python {r['python']}, {r['cpus']} CPUs")
    print(f"{'measure':34} {'value':>8}  {'target':>9}  {'met':4} detail")
    for name, value, op, target, detail in checks:
        met = value <= target if op == "<=" else value >= target
        r["checks"].append({"measure": name, "value": round(value, 3), "target": f"{op} {target}", "met": met})
        print(f"{name:34} {value:8.3f}  {op} {target:<6}  {'yes' if met else 'NO':4} {detail}")
    print(f"{'after editing one file / cold':34} {r['one_changed_s'] / r['cold_j1_s']:8.3f}  {'(info)':>9}       "
          f"{r['one_changed_s']:.2f} s")
    if smoke:
        print("(smoke run on the bundled examples: the ratios are not meaningful, only that it runs)")


if __name__ == "__main__":
    main()
