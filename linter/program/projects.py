"""Project folders: a many-project tree split into the projects it holds.

A model zoo is hundreds of projects side by side (``official/cv/ResNet``, ``research/nlp/Bert``,
...), each a folder with its own entry scripts. The tree is split at its **project folders**: the
shallowest folders below the root that hold a script named like an entry (``train*.py``,
``eval*.py``, ... — the ``file_names`` of ``rules/roles.yaml``), directly or in a ``scripts/``,
``script/`` or ``tools/`` folder of theirs. Files under no project folder (a shared ``utils/``
package) form one more group per root. A tree with an entry script at its root, or with fewer
than two project folders (a library and its ``examples/``), is one project; files under
different project roots (VCS or packaging markers) never share a group. How the groups are
checked is :mod:`linter.engine.projects`'s business.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Set, Tuple

from linter.facts.parse_file import Unit
from linter.index.modules import folders_up

if TYPE_CHECKING:
    from linter.program.roles import RoleSpec


SCRIPT_FOLDERS = ("scripts", "script", "tools")
"""Folders whose entry scripts belong to the folder above (launchers and helpers of a project)."""


@dataclass
class Group:
    """The files of one project (``folder``), or of no project (``rest``) under ``root``."""

    root: str
    folder: str
    units: List["Unit"]
    rest: bool = False


def project_folders(units: Sequence["Unit"], spec: Optional["RoleSpec"]) -> Set[str]:
    """Folders holding an entry-named script (a script folder's entries count for its parent)."""
    if spec is None or not spec.file_names:
        return set()
    names = list(spec.file_names.values())
    out: Set[str] = set()
    for u in units:
        stem, ext = os.path.splitext(os.path.basename(u.abspath))
        if ext != ".py" or not any(rx.search(stem) for rx in names):
            continue
        folder = os.path.dirname(os.path.normpath(u.abspath))
        if os.path.basename(folder) in SCRIPT_FOLDERS:
            folder = os.path.dirname(folder)
        out.add(folder)
    return out


def partition(units: Sequence["Unit"], spec: Optional["RoleSpec"]) -> List[Group]:
    """The units grouped by project (see the module docstring): per root, one group per project
    folder in path order, then the files under none; a single group when the tree is not a
    collection of projects."""
    folders = project_folders(units, spec)
    roots = {os.path.normpath(u.root) for u in units}
    per_root: Dict[str, int] = {}
    for f in folders:
        for root in roots:
            if f == root or f.startswith(root + os.sep):
                per_root[root] = per_root.get(root, 0) + 1
    groups: Dict[Tuple[str, int, str], Group] = {}
    for u in units:
        root = os.path.normpath(u.root)
        if root in folders or per_root.get(root, 0) < 2:
            key = (root, 0, root)
        else:
            folder = _shallowest(os.path.normpath(u.abspath), root, folders)
            key = (root, 0, folder) if folder is not None else (root, 1, "")
        if key not in groups:
            groups[key] = Group(root, key[2], [], rest=bool(key[1]))
        groups[key].units.append(u)
    groups = _libraries_whole(groups)
    if len(groups) < 2 or all(k[2] == k[0] for k in groups):
        # no root is a collection of projects (libraries, single projects side by side): one project
        return [Group("", "", list(units))]
    return [groups[k] for k in sorted(groups)]


def _libraries_whole(groups: Dict[Tuple[str, int, str], Group]) -> Dict[Tuple[str, int, str], Group]:
    """A root whose files mostly belong to no project folder is a library with a few example or
    tool projects (timm, mindnlp): checked as one project. Split, every project would read the
    library again for context and the library's own files would wait for all of them, checked
    in one worker (the benchmark corpus: 628 of its 767 files; -j 2 was 1.6× -j 1)."""
    per_root: Dict[str, List[Tuple[str, int, str]]] = {}
    for key in groups:
        per_root.setdefault(key[0], []).append(key)
    out: Dict[Tuple[str, int, str], Group] = {}
    for root, keys in per_root.items():
        rest = sum(len(groups[k].units) for k in keys if groups[k].rest)
        if len(keys) > 1 and rest * 2 > sum(len(groups[k].units) for k in keys):
            out[(root, 0, root)] = Group(root, root, [u for k in sorted(keys) for u in groups[k].units])
        else:
            out.update((k, groups[k]) for k in keys)
    return out


def _shallowest(abspath: str, root: str, folders: Set[str]) -> Optional[str]:
    """The outermost project folder containing ``abspath`` (below or at ``root``), if any."""
    for d in reversed(folders_up(os.path.dirname(abspath), root)):
        if d in folders:
            return d
    return None
