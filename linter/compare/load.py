"""Compare, stage 1: a side (script or project folder) → its entry script, the import closure
and a :class:`~linter.index.project.Project` over them.

Nothing new is parsed here: the files go through the engine's own stages (facts from the
cache or libcst, imported project files read for context, the index built by ``pipeline.link``), so a
compared script is understood exactly as ``trainlint check`` understands it.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import List, Optional

from linter.core.model import Diagnostic, Finding
from linter.engine.packs import RulePacks
from linter.engine.run import link
from linter.engine.units import Options
from linter.facts.parse_file import Unit
from linter.index.modules import project_root
from linter.index.project import Project
from linter.program.model import ProgramModel
from linter.program.roles import Roles
from linter.source.discover import discover, display_path

# Entry scripts of a project folder, best first: what people name the script they run.
_ENTRY_NAMES = (
    re.compile(r"^train\.py$"),
    re.compile(r"^train[_\-.\w]*\.py$"),
    re.compile(r"^main\.py$"),
    re.compile(r"^(run|finetune|pretrain|fit)[_\-.\w]*\.py$"),
)


class SideError(Exception):
    """A side that cannot be compared (missing path, no entry script, unparsable entry)."""


@dataclass
class Side:
    """One side of a comparison, loaded."""

    path: str
    """As given by the user."""
    entry: int
    """File index of the entry script in :attr:`project`."""
    project: Project
    program: ProgramModel
    files: List[int]
    """Indices of the entry script and its import closure, in reading order."""
    root: str
    cwd: str
    """Locations are shown relative to it."""
    errors: List[Diagnostic] = field(default_factory=list)
    """Files of the closure that could not be read (reported as warnings)."""
    findings: Optional[List[Finding]] = None
    """The rules' findings over these files when already computed (``audit``): the profile reads
    the mp.03 verdicts from them instead of running those rules again."""

    @property
    def roles(self) -> Roles:
        return self.program.roles

    def display(self, fi: int) -> str:
        """A file's path as the user should see it (relative to ``cwd`` when below it)."""
        return display_path(self.project.abspaths[fi], self.cwd)


def find_entry(folder: str, cwd: str) -> str:
    """The entry script of a project folder: ``train.py``, ``train*.py``, ``main.py``, ``run*.py``
    — at the shallowest depth where one exists; a folder holding one Python file uses it."""
    refs, _errors = discover([folder], cwd)
    paths = [r.abspath for r in refs if r.abspath.endswith(".py")]
    if not paths:
        raise SideError(f"{folder}: no Python files to compare")
    base = os.path.abspath(os.path.join(cwd, folder))

    def depth(p: str) -> int:
        return os.path.relpath(p, base).count(os.sep)

    for pattern in _ENTRY_NAMES:
        hits = sorted((p for p in paths if pattern.match(os.path.basename(p))), key=lambda p: (depth(p), p))
        if hits:
            return hits[0]
    if len(paths) == 1:
        return paths[0]
    raise SideError(f"{folder}: no entry script found (looked for train.py, train*.py, main.py, run*.py); "
                    "name the script to compare instead of the folder")


def load_side(path: str, packs: RulePacks, options: Optional[Options] = None, cwd: Optional[str] = None) -> Side:
    """Parse a side's entry script and everything it imports from its project."""
    cwd = cwd or os.getcwd()
    options = options or Options()
    abspath = os.path.abspath(os.path.join(cwd, path))
    if os.path.isdir(abspath):
        entry = find_entry(path, cwd)
        root = abspath   # the folder is the project: imports resolve inside it
    elif os.path.isfile(abspath):
        if not abspath.endswith(".py"):
            raise SideError(f"{path}: not a Python script")
        entry = abspath
        root = project_root(abspath) or os.path.dirname(abspath)
    else:
        raise SideError(f"{path}: path does not exist")
    unit = Unit(display_path(entry, cwd), entry, root, linted=True)
    present, project, errors = link([unit], packs, options)
    if unit.facts is None:   # nothing imported was read: the errors are the entry's own
        why = "; ".join(e.message for e in errors) or "cannot be parsed"
        raise SideError(f"{unit.path}: {why}")
    return Side(path, 0, project, ProgramModel(project, packs.roles), list(range(len(present))), root, cwd, errors)
