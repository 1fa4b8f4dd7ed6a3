"""The program model: where trainlint decides what a program runs.

A *program* is an entry script with everything it reaches. The pieces, each a module of this
package, from the bottom up:

* :mod:`~linter.program.projects` — project folders of a many-project tree (entry-named scripts).
* :mod:`~linter.program.launchers` — what the shell launchers and READMEs pass to argparse options.
* :mod:`~linter.program.roles` — entry scripts, import closures, reachability (callers up to the
  entries, instance calls, registries, constructions), program roles from evidence (training,
  evaluation, ...), the training or evaluation role of data pipelines; :class:`~linter.program.roles.Roles`
  is assembled from parts (``entries``, ``reaching``, ``registries``, ``evidence``, ``pipelines``)
  over their shared state (``role_state``) and the compiled role spec (``role_spec``).
* :mod:`~linter.program.paths` — path conditions: the ``if`` tests around a call up to the entry,
  and the branches the shipped values decide.
* :mod:`~linter.program.reach` — the entries that really run a call.
* :mod:`~linter.program.liveness` — live, dead or unknown; the files of a call's program.
* :mod:`~linter.program.training` — what a program trains, what it freezes, what objects are made of.

:class:`ProgramModel` builds them in that order over one project index and one memo store;
rules reach it as ``MatchContext.program``. It speaks in calls and values, never in rule
patterns (import contracts keep ``linter.match`` and ``linter.compiler`` out of this package).
"""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from linter.core.globs import GlobSet
from linter.index.project import Project
from linter.index.values import Cls, Ext
from linter.program import liveness, reach
from linter.program.paths import PathConditions
from linter.program.roles import Roles, RoleSpec

Call = Tuple[int, int]


class ProgramModel:
    """The programs of one project: roles, reachability, path conditions, liveness, training."""

    def __init__(self, project: Project, spec: RoleSpec) -> None:
        self.p = project
        self.spec = spec
        self.store = project.store
        self.roles = Roles(project, spec)
        self.paths = PathConditions(self.roles)
        self.roles.paths = self.paths   # reachability asks which branches are dead, and the reverse
        self.liveness = liveness.Liveness(self.roles, self.paths)
        self._created: Dict[Tuple[str, ...], List[Call]] = self.store.table("program.creating")
        self._subclass_names: Dict[Tuple[str, ...], FrozenSet[str]] = self.store.table("program.subclass_names")

    # ------------------------------------------------------------------ reach
    def entries_reaching(self, fi: int, cid: int) -> List[int]:
        """Entry scripts whose code reaches call ``cid`` of file ``fi``: module code runs in the
        entries that import its file (transitively), a function's in the entries that call it,
        a ``construct``/``forward`` in those that call or build its instances."""
        return self.liveness.entries_reaching(fi, cid)

    def running_entries(self, fi: int, cid: int) -> List[int]:
        return reach.running_entries(self.roles, fi, cid)

    def import_closure(self, fi: int) -> FrozenSet[int]:
        return self.roles.import_closure(fi)

    # ------------------------------------------------------------------ liveness
    def live(self, fi: int, cid: int) -> Optional[bool]:
        return self.liveness.live(fi, cid)

    def stored_unused(self, fi: int, cid: int) -> bool:
        return self.liveness.stored_unused(fi, cid)

    def multi_device_launch(self, fi: int, cid: int) -> Optional[bool]:
        """Whether something in the project launches a program running call ``cid`` on several
        devices (:meth:`~linter.program.launchers.Launchers.launches_multi_device` near an entry
        script reaching it); None when no entry script reaches the call (nothing to ask)."""
        entries = self.entries_reaching(fi, cid)
        if not entries:
            return None
        return any(self.paths.launchers.launches_multi_device(self.p.abspaths[e]) for e in entries)

    def port_evidence(self, fi: int) -> bool:
        """Whether a file in the folder of file ``fi`` or above it, up to its project root, shows
        that the code was ported (:meth:`~linter.program.launchers.Launchers.shows_port`)."""
        return self.paths.launchers.shows_port(self.p.abspaths[fi], self.p.roots[fi])

    def project_of(self, fi: int, cid: int) -> Optional[Set[int]]:
        return self.liveness.project_of(fi, cid)

    # ------------------------------------------------------------------ types
    def created_types(self, fi: int, cid: int) -> List[str]:
        """Qualified names of the class instantiated by a call and all its bases."""
        out: List[str] = []
        for v in self.p.callee_values(fi, cid):
            if isinstance(v, Cls):
                out += self.p.type_quals(v)
            elif isinstance(v, Ext) and self.p.apis.is_class(v.qual):
                out += list(self.p.apis.mro(v.qual))
        return out

    def subclass_names(self, globs: GlobSet) -> FrozenSet[str]:
        """Names of project classes deriving from ``globs``, in any file (memoised)."""
        hit = self._subclass_names.get(globs.globs)
        if hit is None:
            names = set()
            for fi, facts in enumerate(self.p.files):
                for ci, c in enumerate(facts.classes):
                    if globs.any(self.p.framework_bases(Cls(fi, ci))):
                        names.add(c.name)
            hit = self._subclass_names[globs.globs] = frozenset(names)
        return hit

    def creating_keys(self, globs: GlobSet, index_keys: Dict[str, Tuple[int, ...]]) -> Set[str]:
        """The callee-index keys (last name segments) of one file under which a call may create
        an instance of ``globs``: the class names, framework subclasses, project subclasses."""
        keys = set(globs.keys_in(index_keys))
        keys.update(k for k in self.p.apis.subclass_segments(globs) if k in index_keys)
        every = self.subclass_names(globs)
        keys.update(k for k in index_keys if k in every)
        return keys

    def calls_creating(self, globs: GlobSet) -> List[Call]:
        """Every call of the project that creates an instance of ``globs`` (or of a subclass),
        in file/call order (memoised): the optimizers a program builds, its losses."""
        hit = self._created.get(globs.globs)
        if hit is None:
            hit = []
            for fi, facts in enumerate(self.p.files):
                ids: Set[int] = set()
                for k in self.creating_keys(globs, facts.callee_index):
                    ids.update(facts.callee_index[k])
                hit += [(fi, cid) for cid in sorted(ids) if globs.any(self.created_types(fi, cid))]
            self._created[globs.globs] = hit
        return hit
