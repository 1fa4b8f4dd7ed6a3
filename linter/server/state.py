"""What the server remembers between messages, shared by the modules that handle them."""
from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from lsprotocol import types as lsp
from pygls.uris import to_fs_path

from linter.core.model import Finding
from linter.server.engine import Folder, Overrides

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass
class Shown:
    """What was last published for one URI (a file, or a notebook cell)."""

    path: str
    version: Optional[int]
    text: str
    """The text the positions refer to."""
    findings: List[Finding]
    diagnostics: List[lsp.Diagnostic]
    cell: Optional[int] = None
    """For a notebook cell: its 1-based index among the notebook's synced cells."""
    config_problem: str = ""
    """For a config or rule file: the root of the folder whose settings it holds."""


@dataclass
class State:
    folders: Dict[str, Folder] = field(default_factory=dict)
    overrides: Overrides = field(default_factory=Overrides)
    shown: Dict[str, Shown] = field(default_factory=dict)
    dirty: Set[str] = field(default_factory=set)
    """Folder roots with a change not linted yet."""
    touched: Set[str] = field(default_factory=set)
    """URIs edited since their last publish: published even when nothing changed."""
    running: Optional[asyncio.Task] = None
    debounce: float = 0.0
    reported: Set[Tuple[str, str]] = field(default_factory=set)
    """Problems already shown with window/showMessage (shown once, not on every keystroke)."""


def fs_path(uri: str) -> Optional[str]:
    """The absolute file-system path of a ``file:`` URI (None for other schemes)."""
    if not uri.startswith("file:"):
        return None
    p = to_fs_path(uri)
    return os.path.abspath(p) if p else None


Feature = Tuple[str, Any, Callable[..., Any]]


def collector(features: List[Feature]) -> Callable[..., Callable[[Callable[..., Any]], Callable[..., Any]]]:
    """A decorator recording ``(method, options, handler)`` in ``features``; the server built
    by :func:`linter.server.app.build_server` registers them (``register``)."""
    def feature(name: str, options: Any = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            features.append((name, options, fn))
            return fn
        return deco
    return feature


def register(server: Any, features: List[Feature]) -> None:
    for name, options, fn in features:
        server.feature(name, options)(fn)
