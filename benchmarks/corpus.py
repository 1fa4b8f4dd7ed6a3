"""Build the benchmark corpus: the ``.py`` files inside four wheels of real MindSpore and
PyTorch model code (mindcv 0.3.0, mindyolo 0.5.0, mindocr 0.5.0, timm 1.0.31).

    python benchmarks/corpus.py [--dir DIR]

Downloads the wheels with pip (no dependencies), unpacks their Python files into
``DIR/src/<wheel>/`` and prints the file and line counts. DIR defaults to
``$TRAINLINT_BENCH_DIR``, else ``~/.cache/trainlint-bench``. Re-running reuses what is there.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import zipfile
from typing import List, Tuple

WHEELS = ["mindcv==0.3.0", "mindyolo==0.5.0", "mindocr==0.5.0", "timm==1.0.31"]


def default_dir() -> str:
    return os.environ.get("TRAINLINT_BENCH_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "trainlint-bench")


def build(root: str) -> Tuple[str, int, int]:
    wheels = os.path.join(root, "wheels")
    src = os.path.join(root, "src")
    os.makedirs(wheels, exist_ok=True)
    have = [f for f in os.listdir(wheels) if f.endswith(".whl")]
    if len(have) < len(WHEELS):
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                        "--dest", wheels, *WHEELS], check=True)
    for name in sorted(os.listdir(wheels)):
        if not name.endswith(".whl"):
            continue
        dest = os.path.join(src, name[:-4])
        if os.path.isdir(dest):
            continue
        with zipfile.ZipFile(os.path.join(wheels, name)) as zf:
            for member in zf.namelist():
                if member.endswith(".py"):
                    zf.extract(member, dest)
    files, lines = count(src)
    return src, files, lines


def count(src: str) -> Tuple[int, int]:
    files = lines = 0
    for path in python_files(src):
        files += 1
        with open(path, "rb") as fh:
            lines += fh.read().count(b"\n")
    return files, lines


def python_files(src: str) -> List[str]:
    out = []
    for d, dirs, names in os.walk(src):
        dirs.sort()
        out += [os.path.join(d, n) for n in sorted(names) if n.endswith(".py")]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=default_dir(), help="where to put the corpus (default: %(default)s)")
    args = ap.parse_args()
    src, files, lines = build(os.path.abspath(args.dir))
    print(f"{src}: {files} files, {lines} lines")


if __name__ == "__main__":
    main()
