"""The state every part of :class:`~linter.program.roles.Roles` shares: the project, the role
spec and the memo tables (every answer lives in the project's store), the path conditions
attached by the program model, and the cycle guard of the question being answered.

:class:`RolesState` is the base of each part — entries, reaching, registries, evidence,
pipelines, one module each — so that each part reads (and type-checks) on its own. It also
declares, for the type checker, the questions the parts ask one another.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Optional, Set, Tuple

from linter.facts.model import Expr
from linter.index.values import Cls
from linter.program.role_spec import RoleSpec, Site

if TYPE_CHECKING:   # annotations only
    from linter.index.project import Project


class RolesState:
    """The project, the role spec and the memo tables of the program roles."""

    _TRANSIENT = ("_passing",)
    """Cycle guards, empty between questions; every answer lives in the project's store."""

    def __init__(self, project: Project, spec: RoleSpec) -> None:
        self.p = project
        self.spec = spec
        self._reach: Dict[Tuple[int, int, bool], FrozenSet[int]] = self.p.store.table("roles.reach")
        self._step_sites: Dict[str, List[Tuple[int, int]]] = self.p.store.table("roles.step_sites")
        self._leads: Dict[str, Set[Site]] = self.p.store.table("roles.leads")
        self._step_fws: Dict[str, Dict[int, Set[str]]] = self.p.store.table("roles.step_fws")
        self._guards: Dict[Site, Dict[int, Tuple[Tuple[Expr, bool], ...]]] = self.p.store.table("roles.guards")
        self._targets: Dict[int, Dict[int, Tuple[str, ...]]] = self.p.store.table("roles.targets")
        self._ctx: Dict[Tuple[str, int, int], Dict[str, str]] = self.p.store.table("roles.ctx")
        self._programs: Dict[int, Dict[str, Tuple[int, int]]] = self.p.store.table("roles.programs")
        self._closures: Dict[int, FrozenSet[int]] = self.p.store.table("roles.closures")
        self._constructed: Dict[Tuple[int, int], FrozenSet[Tuple[int, int]]] = self.p.store.table("roles.constructed")
        self._caller_stmts: Dict[Site, List[Tuple[int, int, int]]] = self.p.store.table("roles.caller_stmts")
        self._read_index: Dict[Site, Dict[int, List[int]]] = self.p.store.table("roles.read_index")
        self._scope_names: Dict[int, Dict[int, Set[str]]] = self.p.store.table("roles.scope_names")
        self._selects: Dict[Tuple[int, int, int], Optional[FrozenSet[Any]]] = self.p.store.table("roles.selects")
        self._passers: Dict[Tuple[int, int, str, Any], bool] = self.p.store.table("roles.passers")
        self._passing: Set[Tuple[int, int, str, Any]] = set()
        """Questions being answered (a cycle guard, empty between questions)."""
        self._built: Dict[str, Any] = self.p.store.table("roles.built")
        """Indexes built once, on the first question that needs them."""
        self.paths: Any = None
        """The path conditions of this project's programs (:class:`linter.program.paths.PathConditions`),
        which this reachability asks which branches are dead; attached by the program model
        (:class:`linter.program.model.ProgramModel`), which builds both."""

    if TYPE_CHECKING:
        # The questions the parts ask one another, each answered in its own module.
        # linter/program/entries.py
        def importing_entries(self, fi: int) -> FrozenSet[int]: ...
        def call_entries(self, fi: int, cid: int) -> FrozenSet[int]: ...
        def main_guarded(self, fi: int, stmt: int) -> bool: ...
        def entries_running(self, fi: int, cid: int, strict: bool = False) -> FrozenSet[int]: ...
        def _entry_set(self) -> FrozenSet[int]: ...
        def in_program_tree(self, fi: int) -> bool: ...
        def name_roles(self, fi: int) -> Set[str]: ...
        def step_sites(self, role: str) -> List[Tuple[int, int]]: ...
        # linter/program/reaching.py
        def reaching_entries(self, fi: int, scope: int, strict: bool = False) -> FrozenSet[int]: ...
        # linter/program/registries.py
        def references(self, v: Any) -> List[Tuple[int, int, int]]: ...
        def constructions(self, c: Cls) -> FrozenSet[Tuple[int, int]]: ...
        # linter/program/evidence.py
        def entry_roles(self, fi: int) -> Set[str]: ...
        # linter/program/pipelines.py
        def guards(self, fi: int, scope: int) -> Dict[int, Tuple[Tuple[Expr, bool], ...]]: ...
