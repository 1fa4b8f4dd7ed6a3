"""File-system answers recorded while linking files, so a cached result can be re-validated
exactly."""
from __future__ import annotations

import os
from typing import Dict, Optional, Tuple

from linter.core.cache import Cache
from linter.facts.parse_file import read_source
from linter.index.configs import MAX_CONFIG_BYTES


class Probes:
    """Every file-system question asked while linking files (does this module file exist?
    which configuration files sit in this folder? what does this one hold?), with its answer,
    so a cached result can be re-validated exactly."""

    def __init__(self, files: Optional[Dict[str, bytes]] = None) -> None:
        self.answers: Dict[str, bool] = {}
        self.listings: Dict[str, Tuple[str, ...]] = {}
        self.reads: Dict[str, Optional[str]] = {}
        """Configuration file → digest of what was read (None: not readable)."""
        self._memory = files
        """In-memory files (``check_sources``): nothing is read from disk."""

    def merge(self, other: "Probes") -> None:
        """Another run's answers added (the projects of a tree, checked apart)."""
        if other is self:
            return
        self.answers.update(other.answers)
        self.listings.update(other.listings)
        self.reads.update(other.reads)

    def isfile(self, path: str) -> bool:
        hit = self.answers.get(path)
        if hit is None:
            hit = self.answers[path] = (path in self._memory) if self._memory is not None else os.path.isfile(path)
        return hit

    def listdir(self, path: str) -> Tuple[str, ...]:
        hit = self.listings.get(path)
        if hit is None:
            hit = self.listings[path] = listing(path, self._memory)
        return hit

    def read(self, path: str) -> Optional[bytes]:
        if self._memory is not None:
            data = self._memory.get(path)
        else:
            data, _problem = read_source(path, path, MAX_CONFIG_BYTES)
        self.reads[path] = Cache.file_key(path, data) if data is not None else None
        return data


def listing(path: str, memory: Optional[Dict[str, bytes]] = None) -> Tuple[str, ...]:
    """Sorted names of the files directly in ``path`` (from ``memory`` when given)."""
    if memory is not None:
        return tuple(sorted(os.path.basename(p) for p in memory if os.path.dirname(p) == path))
    try:
        return tuple(sorted(e.name for e in os.scandir(path) if e.is_file()))
    except OSError:
        return ()
