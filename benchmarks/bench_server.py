"""Measure the language server against baselines taken in the same run.

    python benchmarks/corpus.py                 # once: the benchmark corpus (767 files)
    pip install ".[test]"                       # the server extra and the LSP client (pytest-lsp)
    python benchmarks/bench_server.py [--edits 100] [--json results.json]

1. edit latency: a warm server on a 200-file project (mindcv and mindyolo from the corpus, and
   14 mindocr files, in one project); ``didChange`` of the ~300-line file → its
   ``publishDiagnostics``, sequentially, ``--edits`` times: p50 and p95 (targets 50 ms / 150 ms).
   Each edit inserts a comment line at another place, so every edit shifts the findings below it.
   Baseline: the same edit through the CLI (``check --stdin-filename``, a new process each time).
2. first diagnostics: ``initialize`` answered → ``didOpen`` → the first ``publishDiagnostics``,
   with the whole 767-file corpus as the workspace and no cache, against a cold CLI run of the
   same file (``check --no-cache``, a whole process); target: not slower. Also reported: from
   the server process's start.
3. memory: the server's peak RSS on a 10,000-file workspace (the corpus 13 times) after opening
   a file in each of five copies, against the peak of a server that opened nothing.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from corpus import default_dir, python_files  # noqa: E402

TARGETS = {"edit_p50_ms": 50.0, "edit_p95_ms": 150.0, "first_ratio": 1.0}


def build_project(corpus: str, dest: str, size: int = 199) -> str:
    """mindcv + mindyolo + enough mindocr files for ``size`` modules, and a ``setup.py`` marking
    them as one project (200 files)."""
    wheels = sorted(os.listdir(corpus))
    picked: List[Tuple[str, str]] = []
    for prefix in ("mindcv", "mindyolo", "mindocr"):
        src = next(os.path.join(corpus, w) for w in wheels if w.startswith(prefix))
        for path in sorted(python_files(src)):
            if len(picked) == size:
                break
            picked.append((src, path))
    for src, path in picked:
        target = os.path.join(dest, os.path.relpath(path, src))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(path, target)
    with open(os.path.join(dest, "setup.py"), "w") as fh:   # one packaging root: one project
        fh.write("from setuptools import setup\nsetup(name='bench')\n")
    return dest


def script_of(files: List[str]) -> Tuple[str, int]:
    def lines(p: str) -> int:
        with open(p, "rb") as fh:
            return fh.read().count(b"\n")
    best = min(files, key=lambda p: abs(lines(p) - 300))
    return best, lines(best)


class Server:
    """A server process and a client that timestamps each publish."""

    def __init__(self, root: str, env: Dict[str, str]) -> None:
        self.root, self.env = root, env
        self.client: Any = None
        self.published: Dict[str, List[Tuple[float, Optional[int]]]] = {}

    async def start(self) -> float:
        from lsprotocol import types as lsp
        from pygls.protocol import default_converter
        from pygls.uris import from_fs_path
        from pytest_lsp import LanguageClient, client_capabilities
        from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

        client = LanguageClient(converter_factory=default_converter)
        published = self.published

        def on_publish(*args: Any) -> None:   # (params), or (client, params): pygls decides by annotation
            params = args[-1]
            published.setdefault(params.uri, []).append((time.perf_counter(), params.version))

        def on_register(*args: Any) -> None:
            return None

        register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: on_publish,
                                       lsp.CLIENT_REGISTER_CAPABILITY: on_register})
        t0 = time.perf_counter()
        await client.start_io(sys.executable, "-m", "linter", "server", env=self.env, cwd=self.root)
        await client.initialize_session(lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=from_fs_path(self.root),
            workspace_folders=[lsp.WorkspaceFolder(from_fs_path(self.root), "bench")]))
        self.client = client
        self.initialized_at = time.perf_counter()
        return t0

    async def wait(self, uri: str, count: int) -> float:
        while len(self.published.get(uri, [])) < count:
            await asyncio.sleep(0.0005)
        return self.published[uri][count - 1][0]

    def open(self, path: str, text: str) -> str:
        from lsprotocol import types as lsp
        from pygls.uris import from_fs_path

        uri = from_fs_path(path)
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, text)))
        return uri

    def change(self, uri: str, version: int, text: str) -> None:
        from lsprotocol import types as lsp

        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version, uri), [lsp.TextDocumentContentChangeWholeDocument(text=text)]))

    def rss_peak_mb(self) -> float:
        pid = self.client._server.pid
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    async def stop(self) -> None:
        await self.client.shutdown_session()


def edited(text: str, i: int) -> str:
    lines = text.split("\n")
    at = (i * 37) % max(1, len(lines))
    # a comment at the indentation of the line it precedes keeps the file valid
    indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())] if at < len(lines) else ""
    return "\n".join(lines[:at] + [f"{indent}# edit {i}"] + lines[at:])


async def edit_latency(project: str, target: str, edits: int, env: Dict[str, str]) -> Dict[str, Any]:
    with open(target, encoding="utf-8") as fh:
        text = fh.read()
    s = Server(project, env)
    await s.start()
    uri = s.open(target, text)
    await s.wait(uri, 1)
    for i in range(3):                                    # warm-up edits, not counted
        s.change(uri, 2 + i, edited(text, 1000 + i))
        await s.wait(uri, 2 + i)
    times = []
    n = len(s.published[uri])
    for i in range(edits):
        t = time.perf_counter()
        s.change(uri, 100 + i, edited(text, i))
        n += 1
        got = await s.wait(uri, n)
        times.append((got - t) * 1000)
    rss = s.rss_peak_mb()
    await s.stop()
    qs = statistics.quantiles(times, n=20)
    return {"edits": edits, "edit_p50_ms": statistics.median(times), "edit_p95_ms": qs[18],
            "edit_max_ms": max(times), "server_peak_mb_200": rss}


def cli_edit_s(project: str, target: str, env: Dict[str, str], runs: int) -> float:
    with open(target, encoding="utf-8") as fh:
        text = fh.read()
    out = []
    for i in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "linter", "check", "--format", "concise", "--stdin-filename",
                        os.path.relpath(target, project)], input=edited(text, i).encode(), cwd=project, env=env,
                       capture_output=True, check=False)
        out.append(time.perf_counter() - t)
    return statistics.median(out)


async def first_diagnostics(corpus: str, target: str, env: Dict[str, str]) -> Tuple[float, float]:
    """(initialize answered → first publish, process start → first publish)."""
    with open(target, encoding="utf-8") as fh:
        text = fh.read()
    s = Server(corpus, env)
    t0 = await s.start()
    uri = s.open(target, text)
    got = await s.wait(uri, 1)
    await s.stop()
    return got - s.initialized_at, got - t0


def cli_cold_s(corpus: str, target: str, env: Dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "linter", "check", "--no-cache", "--format", "concise",
                    os.path.relpath(target, corpus)], cwd=corpus, env=env, capture_output=True, check=False)
    return time.perf_counter() - t


async def memory(corpus: str, work: str, env: Dict[str, str]) -> Dict[str, Any]:
    big = os.path.join(work, "ws10k")
    copies = 13
    for i in range(copies):
        shutil.copytree(corpus, os.path.join(big, f"copy{i:02d}"))
    files = python_files(big)
    idle = Server(big, env)
    await idle.start()
    await asyncio.sleep(0.5)
    idle_mb = idle.rss_peak_mb()
    await idle.stop()
    s = Server(big, env)
    await s.start()
    for i in range(5):
        copy = os.path.join(big, f"copy{i * 2:02d}")
        target, _ = script_of([f for f in files if f.startswith(copy + os.sep)])
        with open(target, encoding="utf-8") as fh:
            uri = s.open(target, fh.read())
        await s.wait(uri, 1)
    mb = s.rss_peak_mb()
    await s.stop()
    return {"workspace_files": len(files), "idle_peak_mb": idle_mb, "five_open_peak_mb": mb}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edits", type=int, default=100)
    ap.add_argument("--cli-runs", type=int, default=5)
    ap.add_argument("--no-memory", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    corpus = os.path.join(default_dir(), "src")
    if not os.path.isdir(corpus):
        raise SystemExit(f"no corpus at {corpus}: run `python benchmarks/corpus.py` first")
    work = tempfile.mkdtemp(prefix="trainlint-bench-server-")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TRAINLINT_CACHE_DIR=os.path.join(work, "cache"))
    r: Dict[str, Any] = {"python": sys.version.split()[0], "cpus": os.cpu_count()}
    try:
        project = build_project(corpus, os.path.join(work, "project200"))
        files = python_files(project)
        target, lines = script_of(files)
        r.update(project_files=len(files), target=os.path.relpath(target, project), target_lines=lines)
        r.update(asyncio.run(edit_latency(project, target, args.edits, env)))
        r["cli_edit_ms"] = cli_edit_s(project, target, env, args.cli_runs) * 1000
        ctarget = os.path.join(corpus, next(w for w in sorted(os.listdir(corpus)) if w.startswith("mindcv")),
                               os.path.relpath(target, project))
        if not os.path.isfile(ctarget):
            ctarget = script_of(python_files(corpus))[0]
        cold_env = dict(env, TRAINLINT_CACHE_DIR=os.path.join(work, "cold-cache"))
        r["first_diagnostics_s"], r["first_from_start_s"] = asyncio.run(first_diagnostics(
            corpus, ctarget, dict(cold_env, TRAINLINT_CACHE_DIR=os.path.join(work, "cold1"))))
        r["cli_cold_s"] = cli_cold_s(corpus, ctarget, dict(cold_env, TRAINLINT_CACHE_DIR=os.path.join(work, "cold2")))
        if not args.no_memory:
            r.update(asyncio.run(memory(corpus, work, env)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report(r)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(r, fh, indent=2)


def report(r: Dict[str, Any]) -> None:
    print(f"project: {r['project_files']} files; edited: {r['target']} ({r['target_lines']} lines); "
          f"{r['edits']} edits; Python {r['python']}, {r['cpus']} CPUs")
    rows = [
        ("didChange → publish, p50", r["edit_p50_ms"], TARGETS["edit_p50_ms"], "ms"),
        ("didChange → publish, p95", r["edit_p95_ms"], TARGETS["edit_p95_ms"], "ms"),
    ]
    for name, value, target, unit in rows:
        print(f"{name:40} {value:8.1f} {unit}   target <= {target:.0f} {unit}   {'ok' if value <= target else 'MISSED'}")
    print(f"{'same edit through the CLI (median)':40} {r['cli_edit_ms']:8.1f} ms   "
          f"(server p50 / CLI = {r['edit_p50_ms'] / r['cli_edit_ms']:.3f})")
    ratio = r["first_diagnostics_s"] / r["cli_cold_s"]
    print(f"{'first diagnostics / cold CLI run':40} {ratio:8.3f}      target <= {TARGETS['first_ratio']:.1f}   "
          f"{'ok' if ratio <= TARGETS['first_ratio'] else 'MISSED'}   "
          f"({r['first_diagnostics_s']:.2f} s / {r['cli_cold_s']:.2f} s, 767-file corpus)")
    print(f"{'  process start → first diagnostics':40} {r['first_from_start_s']:8.2f} s    (info: includes starting "
          "Python and importing pygls/lsprotocol)")
    if "five_open_peak_mb" in r:
        print(f"{'peak RSS, 10,000-file workspace':40} {r['five_open_peak_mb']:8.1f} MB   "
              f"(idle server {r['idle_peak_mb']:.1f} MB; {r['workspace_files']} files, five open)")


if __name__ == "__main__":
    main()
