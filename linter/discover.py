"""Stage 1: paths → the Python files to lint (directories walked, noise skipped, nothing lost).

Every path the user names is either linted or reported: a missing path is a diagnostic,
never an empty, "clean" result.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, List, Set, Tuple

from linter.model import Diagnostic, ErrorKind

# Directories that hold no first-party training code; skipped when walking (not when named).
SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "env", ".env", "__pycache__",
    "node_modules", "build", "dist", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    ".trainlint_cache", "site-packages", ".eggs", ".ipynb_checkpoints",
})


@dataclass(frozen=True)
class SourceRef:
    """A file to lint: ``path`` as shown to the user, ``abspath`` to read it."""

    path: str
    abspath: str


def _display(path: str, cwd: str) -> str:
    rel = os.path.relpath(path, cwd)
    return path if rel.startswith("..") else rel


def discover(paths: Iterable[str], cwd: str) -> Tuple[List[SourceRef], List[Diagnostic]]:
    """Expand files and directories into sorted, de-duplicated :class:`SourceRef` s."""
    found: List[SourceRef] = []
    errors: List[Diagnostic] = []
    seen: Set[str] = set()

    def add(abspath: str) -> None:
        real = os.path.realpath(abspath)
        if real in seen:
            return
        seen.add(real)
        found.append(SourceRef(_display(abspath, cwd), abspath))

    for raw in paths:
        abspath = os.path.abspath(os.path.join(cwd, raw))
        if os.path.isdir(abspath):
            for sub in _walk(abspath, errors, cwd):
                add(sub)
        elif os.path.isfile(abspath):
            add(abspath)
        elif os.path.lexists(abspath):
            errors.append(Diagnostic(ErrorKind.IO, raw, "not a regular file or directory"))
        else:
            errors.append(Diagnostic(ErrorKind.IO, raw, "path does not exist"))
    found.sort(key=lambda s: s.path)
    return found, errors


def _walk(root: str, errors: List[Diagnostic], cwd: str) -> List[str]:
    out: List[str] = []
    visited: Set[str] = set()

    def onerror(exc: OSError) -> None:
        errors.append(Diagnostic(ErrorKind.IO, _display(exc.filename or root, cwd), f"cannot read directory: {exc.strerror}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in visited:
            # A symlink loop or a second link to a walked directory: walk it once.
            dirnames[:] = []
            continue
        visited.add(real)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py") or name.endswith(".pyi"):
                out.append(os.path.join(dirpath, name))
    return out
