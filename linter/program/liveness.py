"""Live, dead or unknown: whether some program runs a call, and which files make up the
program(s) a call belongs to.

*Dead* is concluded only from evidence: a branch the shipped values never take (decided by
:mod:`linter.program.paths`), a layer stored as ``self.<name>`` that nothing in its project
reads, or a file no entry script of its project reaches while entry scripts live in its
folder or above. Where no entry script is in sight (a library, a snippet, a file checked
alone) the answer is *unknown*, and rules keep their severity.
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Optional, Set

from linter.program.paths import PathConditions
from linter.program.roles import Roles


class Liveness:
    """Answers about one project's programs (the questions below, as methods)."""

    def __init__(self, roles: Roles, paths: PathConditions) -> None:
        self.roles = roles
        self.paths = paths
        self.p = roles.p
        self.store = roles.p.store

    def entries_reaching(self, fi: int, cid: int) -> List[int]:
        return sorted(self.roles.call_entries(fi, cid))

    def live(self, fi: int, cid: int) -> Optional[bool]:
        return live(self, fi, cid)

    def stored_unused(self, fi: int, cid: int) -> bool:
        return stored_unused(self, fi, cid)

    def project_of(self, fi: int, cid: int) -> Optional[Set[int]]:
        return project_of(self, fi, cid)


def live(pm: Liveness, fi: int, cid: int) -> Optional[bool]:
    """True: a program runs call ``cid``; False: none does (a branch never taken, or no
    entry script of its project reaches it); None: its programs are unknown (no entry
    script in its folder or above — a library, a snippet, a file checked alone)."""
    if stored_unused(pm, fi, cid):
        return False
    if pm.entries_reaching(fi, cid):
        return True
    call = pm.p.files[fi].calls[cid]
    if pm.paths.dead(fi, call.scope, call.stmt) or pm.roles.in_program_tree(fi):
        return False
    return None


def stored_unused(pm: Liveness, fi: int, cid: int) -> bool:
    """Call ``cid`` builds a layer that a method stores as ``self.<name> = ...`` and nothing
    in its project ever reads ``.<name>`` (stgcn's ``self.linear``, never called in
    ``construct``): the layer exists but computes nothing. Files that reach their cells
    by iteration (``self.cells()``, ``getattr``) keep every layer."""
    facts = pm.p.files[fi]
    call = facts.calls[cid]
    if facts.funcs[call.scope].kind != "method":
        return False
    name = None
    for a in facts.assigns:
        if a.stmt == call.stmt and a.value == ("call", cid):
            t = a.target
            if t[0] == "attr" and t[1][0] == "name" and t[1][1] == "self":
                name = t[2]
            break
    if name is None:
        return False
    files = project_of(pm, fi, cid)
    for f in sorted(files) if files is not None else range(len(pm.p.files)):
        loads = attribute_loads(pm, f)
        if loads is None or name in loads:
            return False
    return True


def project_of(pm: Liveness, fi: int, cid: int) -> Optional[Set[int]]:
    """The files of the program(s) a call belongs to: the import closures of the entry scripts
    that reach it, else of those that import its file; None (every file of the run) when no
    entry script does. A model zoo checked at once is many programs: one model's Normalize
    says nothing about another model's pipeline."""
    roles = pm.roles
    entries = pm.entries_reaching(fi, cid) or [e for e in roles.entries() if fi in roles.import_closure(e)]
    if not entries:
        return None
    out: Set[int] = set()
    for e in entries:
        out |= roles.import_closure(e)
    return out


_DYNAMIC = frozenset({"cells", "name_cells", "cells_and_names", "getattr", "_cells", "children", "named_children",
                      "modules", "named_modules", "vars", "insert_child_to_cell"})
"""Callees that reach a cell's layers without naming them."""


_DYNAMIC_ATTRS = frozenset({"_cells", "_modules", "__dict__"})
"""Attributes that do the same (`for c in self._cells.values()`)."""


def attribute_loads(pm: Liveness, fi: int) -> Optional[FrozenSet[str]]:
    """Every attribute name file ``fi`` reads (``x.name`` anywhere but as an assignment's own
    target); None when the file reaches attributes dynamically (memoised per run)."""
    table: Dict[int, Optional[FrozenSet[str]]] = pm.store.table("liveness.attribute_loads")
    if fi in table:
        return table[fi]
    facts = pm.p.files[fi]
    if any(k in _DYNAMIC for k in facts.callee_index):
        table[fi] = None
        return None
    # every expression and statement tuple of the file, once (an explicit stack: a long `a + b + ...`
    # chain nests deeper than Python's recursion limit)
    todo: List[Any] = []
    for c in facts.calls:
        todo.append(c.func)
        todo += [arg.value for arg in c.args]
    for a in facts.assigns:
        todo.append(a.value)
        if a.target[0] != "name":
            todo.append(a.target[1:])     # `self.a.b = x` reads `self.a`; the stored name itself is no read
    for f in facts.funcs:
        todo.append(f.body)
        todo += list(f.decorators)
    todo += [cls.bases for cls in facts.classes]
    names: Set[str] = set()
    seen: Set[int] = set()
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if x and x[0] == "attr" and isinstance(x[2], str):
            names.add(x[2])
        todo += [part for part in x if isinstance(part, tuple)]
    if names & _DYNAMIC_ATTRS:
        table[fi] = None
        return None
    table[fi] = frozenset(names)
    return table[fi]
