"""Files read for context: the project modules linted files import, and the entry-named
scripts beside and above them (so a file checked alone is judged by the same programs)."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Set

from linter.core.model import Diagnostic
from linter.engine.load import load_units
from linter.engine.probes import Probes
from linter.engine.units import Options
from linter.facts.parse_file import Unit
from linter.index.modules import ModuleMap

MAX_CONTEXT_FILES = 5000
"""Imported project files read for context (not reported on); a bound for huge trees."""


def context_unit(path: str, root: str, shared: Optional[Dict[str, Unit]]) -> Unit:
    """The unit of a context file: the one already read by an earlier project, else a new one."""
    if shared is not None and path in shared:
        return shared[path]
    rel = os.path.relpath(path)
    return Unit(rel if not rel.startswith("..") else path, path, root, linted=False)


def nearby_scripts(units: List[Unit], known: Set[str], probes: Probes, roles: Any,
                    shared: Optional[Dict[str, Unit]] = None) -> List[Unit]:
    """Entry-named scripts in the folders of the linted files and above, up to their roots."""
    if roles is None or not roles.file_names:
        return []
    folders: Dict[str, str] = {}
    for u in units:
        if not u.linted:
            continue
        d = os.path.dirname(os.path.normpath(u.abspath))
        root = os.path.normpath(u.root)
        while d not in folders:
            folders[d] = u.root
            parent = os.path.dirname(d)
            if d == root or parent == d or not d.startswith(root):
                break
            d = parent
    out: List[Unit] = []
    for d in sorted(folders):
        for name in probes.listdir(d):
            stem, ext = os.path.splitext(name)
            path = os.path.join(d, name)
            if ext != ".py" or path in known or not any(rx.search(stem) for rx in roles.file_names.values()):
                continue
            known.add(path)
            out.append(context_unit(path, folders[d], shared))
    return out


def add_context(units: List[Unit], options: Options, probes: Probes, roles: Any = None,
                 shared: Optional[Dict[str, Unit]] = None) -> List[Diagnostic]:
    """Read project files that linted files import, so cross-file facts are complete even when
    only some files are linted (pre-commit passes just the changed ones). Breadth first, one
    import level at a time, each level loaded like the linted files (cache, workers). The entry
    scripts beside and above the linted files are read too (by their names: train*.py,
    eval*.py, ...), so the programs that run a file are known when it is checked alone."""
    errors: List[Diagnostic] = []
    known: Set[str] = {os.path.normpath(u.abspath) for u in units}
    modmap = ModuleMap(known, {os.path.normpath(u.abspath): u.root for u in units})
    scripts = nearby_scripts(units, known, probes, roles, shared)
    errors += [Diagnostic(e.kind, e.path, f"entry script not analysed: {e.message}", e.line, e.column, fatal=False)
               for e in load_units(scripts, options, "context")]
    units.extend(scripts)
    level = [u for u in units if u.facts is not None]
    added = len(scripts)
    while level and added < MAX_CONTEXT_FILES:
        new: List[Unit] = []
        for u in level:
            assert u.facts is not None
            for imp in u.facts.imports:
                candidates = [(imp.module, imp.level)]
                if imp.name and imp.name != "*":
                    candidates.append(((imp.module + "." if imp.module else "") + imp.name, imp.level))
                for module, lvl in candidates:
                    target = modmap.resolve(os.path.normpath(u.abspath), module, lvl, probes.isfile)
                    if target is None or target in known or added + len(new) >= MAX_CONTEXT_FILES:
                        continue
                    known.add(target)
                    modmap.add(target, u.root)
                    new.append(context_unit(target, u.root, shared))
        for e in load_units(new, options, "context"):
            # Not a file the user asked about, but its facts are now missing from cross-file
            # rules: say so, as a warning.
            errors.append(Diagnostic(e.kind, e.path, f"imported module not analysed: {e.message}",
                                     e.line, e.column, fatal=False))
        units.extend(new)
        added += len(new)
        level = [u for u in new if u.facts is not None]
    return errors
