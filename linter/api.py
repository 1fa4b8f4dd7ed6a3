"""Library entry points shared by the CLI, the tests and editor integrations."""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Sequence

from linter.compiler.packs import RulePacks, load_packs
from linter.discover import Walk, discover, display_path
from linter.index.modules import project_root
from linter.pipeline import Options, RunResult, Unit, parse_unit, run

VIRTUAL_ROOT = os.path.join(os.sep, "__trainlint_virtual__")
"""Where in-memory sources live; never touches the disk."""


def check_paths(paths: Sequence[str], packs: Optional[RulePacks] = None, options: Optional[Options] = None,
                cwd: Optional[str] = None, walk: Optional[Walk] = None) -> RunResult:
    """Lint files and directories (walked); imported project files are read for context."""
    cwd = cwd or os.getcwd()
    packs = packs or load_packs()
    options = options or Options()
    refs, errors = discover(paths, cwd, walk)
    stop = [os.path.abspath(os.path.join(cwd, p)) for p in paths if os.path.isdir(os.path.join(cwd, p))]
    units = [Unit(r.path, r.abspath, _root(r.abspath, stop), linted=True) for r in refs]
    result = run(units, packs, options)
    result.errors = sorted(errors + result.errors, key=lambda d: d.sort_key())
    return result


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
    errors = parse_unit(unit, data)
    result = run([unit], packs, options)
    result.errors = sorted(errors + result.errors, key=lambda d: d.sort_key())
    return result


def check_sources(sources: Dict[str, str], packs: Optional[RulePacks] = None,
                  options: Optional[Options] = None) -> RunResult:
    """Lint in-memory files (``{relative path: source}``) as one project; nothing is read from disk."""
    packs = packs or load_packs()
    options = options or Options()
    units: List[Unit] = []
    errors = []
    for path, text in sorted(sources.items()):
        abspath = os.path.join(VIRTUAL_ROOT, path)
        u = Unit(path, abspath, VIRTUAL_ROOT, linted=True)
        errors += parse_unit(u, text.encode("utf-8"))
        units.append(u)
    result = run(units, packs, options, read_context=False)
    result.errors = sorted(errors + result.errors, key=lambda d: d.sort_key())
    return result
