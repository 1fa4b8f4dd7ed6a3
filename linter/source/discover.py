"""Stage 1: paths → the files to lint (directories walked, excludes honoured, nothing lost).

Every path the user names is either linted or reported: a missing path is a diagnostic,
never an empty, "clean" result. Directories are walked for the ``include`` globs, skipping
``exclude`` patterns (gitignore syntax, relative to the config file) and, by default, what
``.gitignore`` files exclude. A file named explicitly is linted even if excluded, unless
``force_exclude`` is set (pre-commit passes every changed file explicitly).
"""
from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from typing import Iterable, List, Optional, Sequence, Set, Tuple

from linter.core.model import Diagnostic, ErrorKind
from linter.source.gitignore import IgnoreFile, IgnoreStack, outer_gitignores, read_gitignore

DEFAULT_INCLUDE: Tuple[str, ...] = ("*.py", "*.ipynb")
# Directories that hold no first-party training code; skipped when walking (not when named).
# Virtual environments are recognised by their ``pyvenv.cfg``/``conda-meta``, not by name (an
# ``env/`` directory in a reinforcement-learning project is first-party code).
DEFAULT_EXCLUDE: Tuple[str, ...] = (
    ".*/", "__pycache__/", "__pypackages__/", "node_modules/", "build/", "dist/", "site-packages/",
    "*.egg-info/", "buck-out/", "_build/",
)
_ENV_MARKERS = ("pyvenv.cfg", "conda-meta")


@dataclass
class Walk:
    """What to pick up and what to skip (from the config, else the defaults)."""

    include: Sequence[str] = DEFAULT_INCLUDE
    exclude: Sequence[str] = DEFAULT_EXCLUDE
    exclude_base: Optional[str] = None
    """Directory the ``exclude`` patterns are relative to (the config's); None = cwd."""
    respect_gitignore: bool = True
    force_exclude: bool = False
    excluded: List[str] = field(default_factory=list)
    """Explicitly named files skipped because of ``force_exclude`` (for ``--verbose`` style reports)."""


@dataclass(frozen=True)
class SourceRef:
    """A file to lint: ``path`` as shown to the user, ``abspath`` to read it."""

    path: str
    abspath: str


def display_path(path: str, cwd: str) -> str:
    rel = os.path.relpath(path, cwd)
    return path if rel.startswith("..") else rel


def _included(name: str, include: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, g) for g in include)


def discover(paths: Iterable[str], cwd: str, walk: Optional[Walk] = None) -> Tuple[List[SourceRef], List[Diagnostic]]:
    """Expand files and directories into sorted, de-duplicated :class:`SourceRef` s."""
    walk = walk or Walk()
    found: List[SourceRef] = []
    errors: List[Diagnostic] = []
    seen: Set[str] = set()
    compiled: List[IgnoreFile] = []

    def config_ignores() -> IgnoreFile:
        """The config's excludes, compiled when first needed (a file named on the command line
        is only checked against them with ``force_exclude``)."""
        if not compiled:
            compiled.append(IgnoreFile.from_lines(walk.exclude_base or cwd, walk.exclude, "exclude", outside=True))
        return compiled[0]

    def add(abspath: str) -> None:
        real = os.path.realpath(abspath)
        if real in seen:
            return
        seen.add(real)
        found.append(SourceRef(display_path(abspath, cwd), abspath))

    for raw in paths:
        abspath = os.path.abspath(os.path.join(cwd, raw))
        if os.path.isdir(abspath):
            if walk.force_exclude and _excluded_path(abspath, True, config_ignores(), walk):
                walk.excluded.append(raw)
                continue
            for sub in _walk(abspath, errors, cwd, config_ignores(), walk):
                add(sub)
        elif os.path.isfile(abspath):
            if walk.force_exclude and _excluded_path(abspath, False, config_ignores(), walk):
                walk.excluded.append(raw)
                continue
            add(abspath)
        elif os.path.lexists(abspath):
            errors.append(Diagnostic(ErrorKind.IO, raw, "not a regular file or directory"))
        else:
            errors.append(Diagnostic(ErrorKind.IO, raw, "path does not exist"))
    found.sort(key=lambda s: s.path)
    return found, errors


def is_excluded(path: str, cwd: str, walk: Walk) -> bool:
    """Whether ``path`` (which need not exist: an editor's new buffer) is excluded."""
    abspath = os.path.abspath(os.path.join(cwd, path))
    config_ignores = IgnoreFile.from_lines(walk.exclude_base or cwd, walk.exclude, "exclude", outside=True)
    return _excluded_path(abspath, os.path.isdir(abspath), config_ignores, walk)


def _excluded_path(abspath: str, is_dir: bool, config_ignores: IgnoreFile, walk: Walk) -> bool:
    """Whether a named path (or any directory above it) is excluded — for ``force_exclude``."""
    stack = IgnoreStack([config_ignores])
    if walk.respect_gitignore:
        for f in outer_gitignores(abspath):
            stack = stack.push(f)
    d = os.path.dirname(abspath)
    parents: List[str] = []
    while True:
        parent = os.path.dirname(d)
        if parent == d:
            break
        parents.append(d)
        d = parent
    if any(stack.ignored(p, True) for p in parents):
        return True
    return stack.ignored(abspath, is_dir)


def _is_environment(directory: str) -> bool:
    return any(os.path.exists(os.path.join(directory, m)) for m in _ENV_MARKERS)


def _walk(root: str, errors: List[Diagnostic], cwd: str, config_ignores: IgnoreFile, walk: Walk) -> List[str]:
    out: List[str] = []
    visited: Set[str] = set()
    base = IgnoreStack([config_ignores])
    if walk.respect_gitignore:
        for f in outer_gitignores(root):
            base = base.push(f)
    stacks = {root: base}

    def onerror(exc: OSError) -> None:
        errors.append(Diagnostic(ErrorKind.IO, display_path(exc.filename or root, cwd),
                                 f"cannot read directory: {exc.strerror}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in visited:
            # A symlink loop or a second link to a walked directory: walk it once.
            dirnames[:] = []
            continue
        visited.add(real)
        stack = stacks.pop(dirpath, base)
        if walk.respect_gitignore:
            stack = stack.push(read_gitignore(dirpath))
        keep = []
        for d in sorted(dirnames):
            sub = os.path.join(dirpath, d)
            if not stack.ignored(sub, True) and not _is_environment(sub):
                keep.append(d)
                stacks[sub] = stack
        dirnames[:] = keep
        for name in sorted(filenames):
            if _included(name, walk.include):
                path = os.path.join(dirpath, name)
                if not stack.ignored(path, False):
                    out.append(path)
    return out
