"""``.gitignore``-style patterns, for ``.gitignore`` files and the config's ``exclude``.

The pattern language (gitignore(5): comments, ``!`` negation, a trailing ``/`` for directories,
anchoring by a leading or inner ``/``, ``*``/``?``/``[...]`` not crossing ``/``, ``**``) is
pathspec's, the library black, mypy and yamllint use. What is ours is how the sources combine while
walking a tree: nested ``.gitignore`` files below the git root (the last match wins, deeper files
after outer ones), ``.git/info/exclude``, and the config's ``exclude`` whose unanchored patterns
also hold for a tree named outside the project. As in git, a file inside an excluded directory
cannot be re-included (the directory is never walked).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Sequence, Tuple


def _git_pattern() -> Any:
    """pathspec's gitignore pattern class, imported on the first pattern (11 ms: a one-file check
    with no exclude patterns never needs it)."""
    global _GitPattern
    if _GitPattern is None:
        try:
            # pathspec loads only when a walk needs ignore patterns (start-up time); its module moved in 1.0
            from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern as cls
        except ImportError:   # pathspec < 1.0
            from pathspec.patterns.gitwildmatch import GitWildMatchPattern as cls
        _GitPattern = cls
    return _GitPattern


_GitPattern: Any = None


@dataclass(frozen=True)
class Pattern:
    regex: "re.Pattern[str]"
    """pathspec's regex, matched against a POSIX path relative to the base (a directory with a
    trailing ``/``)."""
    negated: bool
    source: str
    anchored: bool = False
    """Has a ``/`` before its end: relative to the base, not matched at any depth."""


def compile_pattern(line: str) -> Optional[Pattern]:
    """One line of a gitignore file (None for blanks and comments)."""
    raw = line.rstrip("\n").rstrip("\r")
    compiled = _git_pattern()(raw)
    if compiled.include is None or compiled.regex is None:
        return None
    text = raw.strip()
    if text.startswith("!"):
        text = text[1:]
    return Pattern(compiled.regex, not compiled.include, raw, "/" in text.rstrip("/"))


@dataclass
class IgnoreFile:
    """The patterns of one source (a ``.gitignore`` or the config) and the directory they are
    relative to."""

    base: str
    patterns: List[Pattern]
    origin: str

    outside: bool = False
    """Whether unanchored patterns also apply outside ``base`` (the config's excludes, whose
    defaults such as ``site-packages/`` must hold wherever the linted tree is; a
    ``.gitignore`` speaks only for its own directory)."""

    @classmethod
    def from_lines(cls, base: str, lines: Iterable[str], origin: str, outside: bool = False) -> "IgnoreFile":
        pats = [p for p in (compile_pattern(ln) for ln in lines) if p is not None]
        return cls(os.path.normpath(base), pats, origin, outside)

    def decide(self, abspath: str, is_dir: bool) -> Optional[bool]:
        """True = ignored, False = re-included by a ``!`` pattern, None = no pattern matched."""
        rel = os.path.relpath(abspath, self.base)
        outside = rel.startswith("..")
        if rel == "." or outside and (not self.outside or abspath == os.path.dirname(abspath)):
            return None
        # Outside the base (a tree named on the command line outside the project), patterns
        # that match at any depth (`site-packages/`, `*.pyc`) still apply, to the last
        # component: the walk asks about every directory on its way down.
        rel = os.path.basename(abspath) if outside else rel.replace(os.sep, "/")
        if is_dir:
            rel += "/"   # how pathspec tells a directory (`build/` matches only those)
        verdict: Optional[bool] = None
        for p in self.patterns:
            if outside and p.anchored:
                continue
            if p.regex.match(rel):
                verdict = not p.negated
        return verdict


class IgnoreStack:
    """Every ignore source that applies below a directory, outermost first (later ones win,
    like nested ``.gitignore`` files)."""

    def __init__(self, files: Sequence[IgnoreFile] = ()) -> None:
        self.files: Tuple[IgnoreFile, ...] = tuple(files)

    def push(self, f: Optional[IgnoreFile]) -> "IgnoreStack":
        return IgnoreStack(self.files + (f,)) if f is not None and f.patterns else self

    def ignored(self, abspath: str, is_dir: bool) -> bool:
        verdict: Optional[bool] = None
        for f in self.files:
            v = f.decide(abspath, is_dir)
            if v is not None:
                verdict = v
        return bool(verdict)


def read_gitignore(directory: str) -> Optional[IgnoreFile]:
    path = os.path.join(directory, ".gitignore")
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return IgnoreFile.from_lines(directory, fh.read().splitlines(), path)
    except OSError:
        return None


def git_root(start: str) -> Optional[str]:
    """The enclosing git work tree (a directory holding ``.git``), if any."""
    d = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def outer_gitignores(directory: str) -> List[IgnoreFile]:
    """``.gitignore`` files (and ``.git/info/exclude``) from the git root down to
    ``directory``'s parent, which also apply inside ``directory``."""
    root = git_root(directory)
    if root is None:
        return []
    out: List[IgnoreFile] = []
    try:
        with open(os.path.join(root, ".git", "info", "exclude"), encoding="utf-8", errors="replace") as fh:
            out.append(IgnoreFile.from_lines(root, fh.read().splitlines(), ".git/info/exclude"))
    except OSError:
        pass
    chain: List[str] = []
    d = os.path.dirname(os.path.abspath(directory))
    while len(d) >= len(root):
        chain.append(d)
        if d == root:
            break
        d = os.path.dirname(d)
    for d in reversed(chain):
        f = read_gitignore(d)
        if f is not None:
            out.append(f)
    return out
