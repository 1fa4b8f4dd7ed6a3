#!/usr/bin/env python3
"""Measure file discovery with .gitignore files (stage 1), as a ratio to a bare ``os.walk``.

    python benchmarks/discover.py [--dirs 400] [--files 25] [--patterns 60] [--runs 5]

Builds a tree of ``dirs`` folders with ``files`` Python files each, a root ``.gitignore`` of
``patterns`` typical lines (globs, anchored paths, ``**``, negations, directory-only patterns) and a
nested ``.gitignore`` in every tenth folder, then times trainlint's discovery (``discover_units``,
which reads and applies every ``.gitignore`` on the way) against ``os.walk`` over the same tree; the
median of ``runs`` each. The ratio is what to compare between implementations, measured in one run.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

_LINES = ["*.pyc", "__pycache__/", "/build", "dist/", "*.egg-info/", "**/logs/**", "!keep.log", "data/*.bin",
          "/output*", "ckpt_*/", "*.ckpt", "[Tt]emp*/", "docs/_build/", "**/.ipynb_checkpoints", "wandb/",
          "runs/**/events.*", "*.mindrecord", "!important.mindrecord", "/scripts/*.log", "src/gen_*.py"]


def build(where: str, dirs: int, files: int, patterns: int) -> None:
    lines = [(_LINES[i % len(_LINES)] if i < len(_LINES) else f"pattern_{i}_*.tmp") for i in range(patterns)]
    with open(os.path.join(where, ".gitignore"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    os.mkdir(os.path.join(where, ".git"))
    for d in range(dirs):
        folder = os.path.join(where, f"model_{d // 20}", f"part_{d}")
        os.makedirs(folder)
        if d % 10 == 0:
            with open(os.path.join(folder, ".gitignore"), "w", encoding="utf-8") as fh:
                fh.write("*.tmp\n!keep_*.py\nlocal/\n")
        for f in range(files):
            with open(os.path.join(folder, f"mod_{f}.py"), "w", encoding="utf-8") as fh:
                fh.write("x = 1\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dirs", type=int, default=400)
    ap.add_argument("--files", type=int, default=25)
    ap.add_argument("--patterns", type=int, default=60)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    from linter.api import discover_units

    with tempfile.TemporaryDirectory(prefix="trainlint-discover-") as where:
        build(where, args.dirs, args.files, args.patterns)

        def walk() -> int:
            return sum(1 for _d, _s, fs in os.walk(where) for f in fs if f.endswith(".py"))

        def discover() -> int:
            units, _errors = discover_units([where], where, None)
            return len(units)

        def timed(fn) -> float:
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                fn()
                times.append(time.perf_counter() - start)
            return statistics.median(times)

        n = discover()
        t_walk, t_disc = timed(walk), timed(discover)
    print(f"{n} files found in {args.dirs} folders, {args.patterns} root patterns")
    print(f"os.walk {t_walk * 1000:.1f} ms, discover {t_disc * 1000:.1f} ms, ratio {t_disc / t_walk:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
