"""Library entry points shared by the CLI, the tests and editor integrations."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from linter.core.model import Diagnostic
from linter.core.observer import Observer, Stage
from linter.engine.packs import RulePacks, load_packs
from linter.engine.probes import Probes, listing
from linter.engine.run import run
from linter.engine.units import Options, RunResult
from linter.facts.parse_file import Unit, parse_unit, read_source
from linter.index.configs import MAX_CONFIG_BYTES
from linter.index.modules import project_root
from linter.source.discover import Walk, discover, display_path

if TYPE_CHECKING:
    from linter.core.cache import Cache

VIRTUAL_ROOT = os.path.join(os.sep, "__trainlint_virtual__")
"""Where in-memory sources live; never touches the disk."""


def check_paths(paths: Sequence[str], packs: Optional[RulePacks] = None, options: Optional[Options] = None,
                cwd: Optional[str] = None, walk: Optional[Walk] = None, run_key: Optional[str] = None,
                overlay: Optional[Dict[str, bytes]] = None) -> RunResult:
    """Lint files and directories (walked); imported project files are read for context.

    With ``options.cache`` and a ``run_key`` (the digest of rules and settings), a run whose
    inputs are all unchanged is answered from the result cache. ``overlay`` (absolute path →
    bytes) replaces the contents of linted files without touching the disk (fix rounds)."""
    cwd = cwd or os.getcwd()
    packs = packs or load_packs()
    options = options or Options()
    obs = options.observer if options.observer is not None else Observer()
    with obs.stage("discover") as st:
        units, errors = discover_units(paths, cwd, walk)
        st.detail = f"{len(units):,} file{'s' if len(units) != 1 else ''}"
    if overlay:
        run_key = None   # the result cache keys on the files on disk
        norm = {os.path.abspath(k): v for k, v in overlay.items()}
        for u in units:
            data = norm.get(os.path.abspath(u.abspath))
            if data is not None:
                u.data = data
    results = ResultCache(options.cache, run_key, units, options.max_file_size) if options.cache is not None and run_key else None
    cached = results.lookup() if results is not None else None
    if cached is not None:
        result = cached
        obs.stages.append(Stage("result cache", 0.0, "every input unchanged: the stored result"))
    else:
        probes = Probes()
        result = run(units, packs, options, probes=probes)
        if results is not None:
            results.store(result, units, probes)
    result.errors = sorted(errors + result.errors, key=lambda d: d.sort_key())
    return result


class ResultCache:
    """Whole-run results, valid while every input is: the linted files (their paths, project
    roots and contents), the imported files read for context, and the answer to every
    file-system probe made while linking imports (a module file that appears changes them)."""

    def __init__(self, cache: "Cache", run_key: str, units: Sequence[Unit], limit: int) -> None:
        # imported when this runs, not at start-up (a cached one-file check does not need it)
        from linter.core.cache import Cache

        self.cache = cache
        parts = [run_key, cache.facts_ns]
        for u in units:
            u.data = read_source(u.path, u.abspath, limit)[0]   # problems are reported by the run
            parts.append(f"{u.path}\0{u.root}\0{Cache.file_key(u.path, u.data) if u.data is not None else '-'}")
        self.key = Cache.digest(parts)

    def lookup(self) -> Optional[RunResult]:
        # imported when this runs, not at start-up (a cached one-file check does not need it)
        from linter.core.cache import Cache

        entry = self.cache.get("results", "v1", self.key)
        if not isinstance(entry, dict):
            return None
        for path, answer in entry["probes"].items():
            if os.path.isfile(path) != answer:
                return None
        for path, names in entry.get("listings", {}).items():
            if listing(path) != names:
                return None
        for path, key in entry.get("reads", {}).items():
            data = read_source(path, path, MAX_CONFIG_BYTES)[0]
            if (Cache.file_key(path, data) if data is not None else None) != key:
                return None
        for abspath, key in entry["context"]:
            try:
                with open(abspath, "rb") as fh:
                    if Cache.file_key(abspath, fh.read()) != key:
                        return None
            except OSError:
                return None
        return entry["result"]

    def store(self, result: RunResult, units: Sequence[Unit], probes: Probes) -> None:
        # imported when this runs, not at start-up (a cached one-file check does not need it)
        from linter.core.cache import Cache

        context = []
        for u in units:
            if not u.linted:
                try:
                    with open(u.abspath, "rb") as fh:
                        context.append((u.abspath, Cache.file_key(u.abspath, fh.read())))
                except OSError:
                    return  # an input vanished during the run: do not cache
        if any(d.kind.value in ("io", "internal", "limit") for d in result.errors):
            return
        self.cache.put("results", "v1", self.key, {"probes": probes.answers, "listings": probes.listings,
                                                   "reads": probes.reads, "context": context, "result": result})


def discover_units(paths: Sequence[str], cwd: str, walk: Optional[Walk] = None) -> Tuple[List[Unit], List[Diagnostic]]:
    """Stage 1: the files under ``paths`` as units to lint, each with the project root its
    imports resolve against; plus the paths that could not be walked."""
    refs, errors = discover(paths, cwd, walk)
    stop = [os.path.abspath(os.path.join(cwd, p)) for p in paths if os.path.isdir(os.path.join(cwd, p))]
    return [Unit(r.path, r.abspath, _root(r.abspath, stop), linted=True) for r in refs], errors


def _root(abspath: str, named_dirs: Sequence[str]) -> str:
    """The project a file belongs to: the nearest VCS/packaging root, else the outermost
    directory the user named that contains it, else the file's own directory."""
    marker = project_root(abspath)
    if marker is not None:
        return marker
    for d in sorted(named_dirs, key=len):
        if abspath.startswith(d + os.sep):
            return d
    return os.path.dirname(abspath)


def check_stdin(name: str, data: bytes, packs: Optional[RulePacks] = None, options: Optional[Options] = None,
                cwd: Optional[str] = None) -> RunResult:
    """Lint ``data`` (an editor's unsaved buffer) as if it were the file ``name``; the project
    around ``name`` on disk is read for context (its imports), but ``name`` itself is not."""
    cwd = cwd or os.getcwd()
    packs = packs or load_packs()
    options = options or Options()
    abspath = os.path.abspath(os.path.join(cwd, name))
    unit = Unit(display_path(abspath, cwd) if not os.path.isabs(name) else name, abspath,
                _root(abspath, [cwd]), linted=True)
    unit.data = data
    result = run([unit], packs, options)
    return result


def check_sources(sources: Dict[str, str], packs: Optional[RulePacks] = None,
                  options: Optional[Options] = None) -> RunResult:
    """Lint in-memory files (``{relative path: source}``) as one project; nothing is read from
    disk. YAML/JSON files among them are the project's configuration files, shell scripts and
    Markdown files its launch files (what they pass to command-line options)."""
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.index.configs import CONFIG_SUFFIXES

    packs = packs or load_packs()
    options = options or Options()
    units: List[Unit] = []
    errors = []
    configs: Dict[str, bytes] = {}
    for path, text in sorted(sources.items()):
        abspath = os.path.join(VIRTUAL_ROOT, path)
        if path.lower().endswith(CONFIG_SUFFIXES + (".sh", ".md")):
            configs[os.path.normpath(abspath)] = text.encode("utf-8")
            continue
        u = Unit(path, abspath, VIRTUAL_ROOT, linted=True)
        errors += parse_unit(u, text.encode("utf-8"))
        units.append(u)
    result = run(units, packs, options, read_context=False, probes=Probes(configs))
    result.errors = sorted(errors + result.errors, key=lambda d: d.sort_key())
    return result
