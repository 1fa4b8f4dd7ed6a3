"""``.gitignore``-style patterns, for ``.gitignore`` files and the config's ``exclude``.

Implements the rules of gitignore(5) that matter when walking a tree: ``#`` comments,
``!`` negation (the last matching pattern wins), a trailing ``/`` for directories only, a
``/`` at the start or in the middle anchoring the pattern to its base directory, ``*``/``?``
/``[...]`` not crossing ``/``, and ``**`` for any number of directories. As in git, a file
inside an excluded directory cannot be re-included (the directory is never walked).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple


@dataclass(frozen=True)
class Pattern:
    regex: "re.Pattern[str]"
    negated: bool
    dir_only: bool
    source: str
    anchored: bool = False
    """Has a ``/`` before its end: relative to the base, not matched at any depth."""


def _translate(glob: str) -> str:
    """Regex for one gitignore glob matched against a POSIX path relative to the base."""
    out: List[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                before_ok = i == 0 or glob[i - 1] == "/"
                after = glob[i + 2:i + 3]
                if before_ok and after == "/":
                    out.append("(?:.*/)?")      # "**/": zero or more directories
                    i += 3
                    continue
                if before_ok and i + 2 == n:
                    out.append(".*")            # trailing "/**": everything inside
                    i += 2
                    continue
                out.append("[^/]*")             # "a**b" is an ordinary "*"
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = glob.find("]", i + 2 if glob[i + 1:i + 2] in ("!", "^") else i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = glob[i + 1:j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def compile_pattern(line: str) -> Optional[Pattern]:
    """One line of a gitignore file (None for blanks and comments)."""
    raw = line.rstrip("\n").rstrip("\r")
    # Trailing spaces are ignored unless escaped.
    stripped = raw.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(raw):
        stripped += " "
    text = stripped
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    if negated:
        text = text[1:]
    elif text.startswith("\\!") or text.startswith("\\#"):
        text = text[1:]
    dir_only = text.endswith("/")
    text = text.rstrip("/")
    if not text:
        return None
    anchored = "/" in text
    text = text.lstrip("/")
    body = _translate(text)
    regex = ("^" if anchored else "^(?:.*/)?") + body + "$"
    return Pattern(re.compile(regex, re.DOTALL), negated, dir_only, raw, anchored)


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
        verdict: Optional[bool] = None
        for p in self.patterns:
            if p.dir_only and not is_dir or outside and p.anchored:
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
