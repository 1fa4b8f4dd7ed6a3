"""Name patterns shared by the rule compiler and the program model: sets of qualified-name
globs and lazily compiled regular expressions (both pickle small and compile on first use)."""
from __future__ import annotations

import fnmatch
import re
from typing import Any, Iterable, List, Optional, Sequence

_WILD = re.compile(r"[*?\[]")


class Regex:
    """A regular expression compiled on first use, and pickled as its text: loading the
    compiled-rules cache then compiles no pattern the run does not use (start-up time)."""

    __slots__ = ("pattern", "flags", "_re")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags
        self._re: Optional["re.Pattern[str]"] = None

    def __reduce__(self) -> Any:
        return (Regex, (self.pattern, self.flags))

    @property
    def compiled(self) -> "re.Pattern[str]":
        r = self._re
        if r is None:
            r = self._re = re.compile(self.pattern, self.flags)
        return r

    def search(self, text: str) -> Optional["re.Match[str]"]:
        return self.compiled.search(text)

    def match(self, text: str) -> Optional["re.Match[str]"]:
        return self.compiled.match(text)

    def fullmatch(self, text: str) -> Optional["re.Match[str]"]:
        return self.compiled.fullmatch(text)


def _is_wild(glob: str) -> bool:
    # "?." starts the name of a call on an untyped receiver: a literal, not a wildcard.
    return bool(_WILD.search(glob[2:] if glob.startswith("?.") else glob))


class GlobSet:
    """A set of qualified-name globs. Names without wildcards (most of them) are looked up in
    a set, ``prefix*`` and ``*suffix`` globs tested with ``startswith``/``endswith``; only the
    rest are compiled into one regex, on first use."""

    __slots__ = ("globs", "exact", "prefixes", "suffixes", "_re", "last_segments", "exact_segments",
                 "wild_segments", "scan_all")

    def __init__(self, globs: Sequence[str]) -> None:
        self.globs = tuple(globs)
        self.exact = frozenset(g for g in self.globs if not _is_wild(g))
        wild = [g for g in self.globs if g not in self.exact]
        self.prefixes = tuple(g[:-1] for g in wild if g.endswith("*") and not _is_wild(g[:-1]))
        self.suffixes = tuple(g[1:] for g in wild if g.startswith("*") and not _is_wild(g[1:]))
        rest = [g for g in wild if not (g.endswith("*") and not _is_wild(g[:-1]))
                and not (g.startswith("*") and not _is_wild(g[1:]))]
        self._re = Regex("|".join(f"(?:{fnmatch.translate(g)})" for g in rest)) if rest else None
        segs = []
        scan_all = False
        for g in self.globs:
            last = g.rsplit(".", 1)[-1]
            if last in ("__call__", "*", "") or last.startswith("*") and last.strip("*") == "":
                scan_all = True
            segs.append(last)
        self.last_segments = tuple(segs)
        self.exact_segments = frozenset(x for x in segs if not _WILD.search(x))
        self.wild_segments = tuple(sorted({x for x in segs if _WILD.search(x)}))
        self.scan_all = scan_all

    def match(self, name: str) -> bool:
        return (name in self.exact or (bool(self.prefixes) and name.startswith(self.prefixes))
                or (bool(self.suffixes) and name.endswith(self.suffixes))
                or (self._re is not None and self._re.match(name) is not None))

    def any(self, names: Iterable[str]) -> bool:
        return any(self.match(n) for n in names)

    def keys_in(self, index_keys: Iterable[str]) -> List[str]:
        """Callee-index keys (last segments) that can match one of the globs."""
        exact, wild = self.exact_segments, self.wild_segments
        if not wild:
            return [k for k in index_keys if k in exact]
        return [k for k in index_keys if k in exact or any(fnmatch.fnmatchcase(k, seg) for seg in wild)]

    def __bool__(self) -> bool:
        return bool(self.globs)

    def __repr__(self) -> str:
        return f"GlobSet({list(self.globs)!r})"
