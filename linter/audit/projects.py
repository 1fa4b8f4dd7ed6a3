"""Audit, stage 1: the projects inside the audited tree.

A project is a folder holding entry scripts (``train.py``, ``eval.py``, ``infer.py``,
``predict.py``, ``main.py``, ... — the pattern is in ``rules/audit.yaml``; a module named so
that other files import and that has no ``__main__`` guard is a library, not a script); entry scripts in a
``tools/`` or ``scripts/`` folder belong to the folder above. Its files are the entry scripts and
everything they import from the tree, transitively (a model zoo's shared ``common/`` package is
then part of every model that uses it). A tree without entry scripts by name falls back to the
scripts the index recognises (a ``__main__`` guard, or module code that acts), and failing that
is one project of all its files.
"""
from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass
from typing import Dict, List, Set

from linter.audit.spec import AuditSpec
from linter.index.project import Project
from linter.program.roles import Roles


@dataclass
class FoundProject:
    folder: str
    """Absolute path of the project folder."""
    entries: List[int]
    files: List[int]
    """Entry scripts first, then the import closure in breadth-first order."""


def imports_of(p: Project, fi: int) -> List[int]:
    """Project files that file ``fi`` imports (a package's ``__init__`` and the submodule named)."""
    out: List[int] = []
    for imp in p.files[fi].imports:
        t = p.file_of(fi, imp.module, imp.level)
        if t is None or t < 0:
            continue
        out.append(t)
        if imp.name and imp.name != "*":
            sub = p.modmap.submodule(p.abspaths[t], imp.name, p._exists)
            if sub is not None and sub in p.by_abspath:
                out.append(p.by_abspath[sub])
    return out


def closure(p: Project, entries: List[int]) -> List[int]:
    seen: Set[int] = set(entries)
    order = list(entries)
    i = 0
    while i < len(order):
        for t in imports_of(p, order[i]):
            if t not in seen:
                seen.add(t)
                order.append(t)
        i += 1
    return order


def find_projects(p: Project, roles: Roles, spec: AuditSpec, linted: Set[int], root: str) -> List[FoundProject]:
    """Projects among the linted files (context files only join closures)."""
    by_folder: "OrderedDict[str, List[int]]" = OrderedDict()
    ordered = sorted(linted, key=lambda fi: p.abspaths[fi])
    imported = roles.imported_files()
    for fi in ordered:
        base = os.path.basename(p.abspaths[fi])
        if not spec.entries.match(base) or (spec.not_entries is not None and spec.not_entries.match(base)):
            continue
        if fi in imported and not p.files[fi].has_main_guard:
            continue   # a library module named like a script (mindcv/utils/train_step.py)
        by_folder.setdefault(_project_folder(p.abspaths[fi], spec, root), []).append(fi)
    if not by_folder:
        for fi in roles.entries():
            if fi in linted:
                by_folder.setdefault(_project_folder(p.abspaths[fi], spec, root), []).append(fi)
    if not by_folder:
        files = ordered
        return [FoundProject(root, [], files)] if files else []
    out = []
    for folder, entries in sorted(by_folder.items(), key=lambda kv: kv[0]):
        entries.sort(key=lambda fi: (_entry_rank(os.path.basename(p.abspaths[fi])), p.abspaths[fi]))
        out.append(FoundProject(folder, entries, closure(p, entries)))
    return out


def _project_folder(abspath: str, spec: AuditSpec, root: str) -> str:
    folder = os.path.dirname(abspath)
    if os.path.basename(folder) in spec.tool_dirs and os.path.normpath(folder) != os.path.normpath(root):
        folder = os.path.dirname(folder)
    return folder


_RANK: Dict[str, int] = {"train": 0, "main": 1, "finetune": 2, "pretrain": 2, "eval": 3, "evaluate": 3, "validate": 3,
                         "val": 3, "test": 4, "infer": 5, "inference": 5, "predict": 5, "export": 6}


def _entry_rank(base: str) -> int:
    """Training scripts first: the profile of a project is read from its first entry."""
    stem = os.path.splitext(base)[0].lower()
    for word, rank in _RANK.items():
        if stem == word or stem.startswith(word + "_") or stem.startswith(word + "-") or stem.startswith(word + "."):
            return rank
    return 9
