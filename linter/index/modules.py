"""Stage 3a: which file an import names, and each project file's dotted module name.

Imports resolve the way ``python train.py`` would see them: a module is looked for next to
the importing file and then in each ancestor directory up to the project root (scripts run
from their own folder, and model zoos put ``src/`` beside ``train.py``); relative imports
resolve inside the importing package. Only files known to the run take part, so resolution
never touches anything outside the project.
"""
from __future__ import annotations

import os
from typing import Callable, Dict, Iterable, List, Optional, Tuple

ExistsFn = Callable[[str], bool]
"""``exists(path)``: whether a file outside the known set exists (a disk check, or never)."""

ROOT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg", ".hg")


def project_root(abspath: str) -> Optional[str]:
    """Nearest ancestor holding a VCS/packaging marker (None when there is none)."""
    d = os.path.dirname(abspath)
    while True:
        if any(os.path.exists(os.path.join(d, m)) for m in ROOT_MARKERS):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def folders_up(folder: str, root: str) -> List[str]:
    """``folder`` and its ancestors up to ``root`` (innermost first; just ``folder`` when it is
    not under ``root``)."""
    out = []
    d = folder
    while True:
        out.append(d)
        if d == root or not d.startswith(root):
            break
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return out


class ModuleMap:
    """Maps dotted imports to known files, per importing file."""

    def __init__(self, abspaths: Iterable[str], roots: Dict[str, str]) -> None:
        self.files = {os.path.normpath(p) for p in abspaths}
        self.roots = roots
        """abspath → project root of that file."""
        self._cache: Dict[Tuple[str, str], Optional[str]] = {}

    def add(self, abspath: str, root: str) -> None:
        self.files.add(os.path.normpath(abspath))
        self.roots[abspath] = root
        self._cache.clear()

    def search_dirs(self, abspath: str) -> List[str]:
        dirs = folders_up(os.path.dirname(abspath), self.roots.get(abspath) or os.path.dirname(abspath))
        # a root that is itself a package (`trainlint check pytorchyolo`, no marker above): its
        # absolute imports (`from pytorchyolo.models import ...`) resolve from the folder that
        # holds the top package, as `python -m pytorchyolo.train` run there would
        top = dirs[-1]
        while os.path.normpath(os.path.join(top, "__init__.py")) in self.files:
            parent = os.path.dirname(top)
            if parent == top:
                break
            dirs.append(parent)
            top = parent
        return dirs

    def _candidate(self, base: str, module: str, exists: ExistsFn) -> Optional[str]:
        rel = module.replace(".", os.sep)
        for cand in (os.path.join(base, rel + ".py"), os.path.join(base, rel, "__init__.py")):
            cand = os.path.normpath(cand)
            if cand in self.files or exists(cand):
                return cand
        return None

    def resolve(self, importer: str, module: str, level: int, exists: ExistsFn) -> Optional[str]:
        """File for ``module`` imported from ``importer`` (None = not part of the project)."""
        key = (importer if level else os.path.dirname(importer), f"{level}:{module}")
        if key in self._cache:
            return self._cache[key]
        result: Optional[str] = None
        if level:
            base = os.path.dirname(importer)
            for _ in range(level - 1):
                base = os.path.dirname(base)
            if module:
                result = self._candidate(base, module, exists)
            else:
                init = os.path.normpath(os.path.join(base, "__init__.py"))
                result = init if (init in self.files or exists(init)) else None
        elif module:
            for d in self.search_dirs(importer):
                result = self._candidate(d, module, exists)
                if result is not None:
                    break
        self._cache[key] = result
        return result

    def submodule(self, package_file: str, name: str, exists: ExistsFn) -> Optional[str]:
        """``from pkg import name`` where ``name`` is a module inside package ``pkg``."""
        if not package_file.endswith("__init__.py"):
            return None
        return self._candidate(os.path.dirname(package_file), name, exists)


def module_name(abspath: str, root: str) -> str:
    """Dotted module name of ``abspath`` relative to its project root."""
    rel = os.path.relpath(abspath, root)
    if rel.startswith(".."):
        rel = os.path.basename(abspath)
    rel = rel[:-3] if rel.endswith(".py") else rel
    parts = [p for p in rel.split(os.sep) if p]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or os.path.splitext(os.path.basename(abspath))[0]
