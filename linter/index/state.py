"""The state every part of the project index shares: the facts of every file and their module
names, the memo tables, and the state of the question being answered (cycle guards, depth,
partial answers, the hypothesis in force).

:class:`ProjectState` is the base of each part of :class:`~linter.index.project.Project` —
evaluation, classes, calls, records, callers and constants, one module each — so that each part
reads (and type-checks) on its own. It also declares, for the type checker, the questions the
parts ask one another. The bounds on value sets that every part applies are here too.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from linter.core.memo import NO_HYPOTHESIS, Hypothesis, MemoStore
from linter.facts.ir import calls_in_range, last_sid
from linter.facts.model import CallFact, Expr, FileFacts, ImportFact
from linter.index.apis import ApiTables
from linter.index.configs import ConfigMap, ConfigStore
from linter.index.modules import ModuleMap, module_name
from linter.index.values import UNKNOWN, Cls, Func, Mod, Obj, Param, Record, Super, Value, ordered

if TYPE_CHECKING:
    from linter.index.callers import BoundArgs


_MAX_VALUES = 24
_MAX_DEPTH = 6
_EMPTY: FrozenSet[Value] = frozenset()
_MISSING = object()
_UNK: FrozenSet[Value] = frozenset((UNKNOWN,))
_ARITH = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a ** b if abs(b) <= 64 else None,
}


def _cap(vals: Set[Value]) -> FrozenSet[Value]:
    if len(vals) <= _MAX_VALUES:
        return frozenset(vals)
    return frozenset(ordered(vals)[:_MAX_VALUES]) | _UNK


class ProjectState:
    """Every file's facts, the memo tables and the state of the question being answered."""

    _TRANSIENT = ("_active", "_depth", "_building_instance", "_resolving", "_partial", "_param_cuts",
                  "_const_active", "_const_cuts")
    """The state of the question being answered (cycle guards, depth, partial answers): back to
    its starting value between questions. Every answer lives in :attr:`store`."""

    def __init__(self, files: Sequence[FileFacts], abspaths: Sequence[str], roots: Sequence[str],
                 apis: ApiTables, exists: Optional[Any] = None, read: Optional[Any] = None,
                 listdir: Optional[Any] = None, store: Optional[MemoStore] = None) -> None:
        self.store = store if store is not None else MemoStore()
        """Every memo table of this project's model (:mod:`linter.core.memo`)."""
        self.files = list(files)
        self.abspaths = [os.path.normpath(p) for p in abspaths]
        self.roots = list(roots)
        self.apis = apis
        self.by_abspath = {p: i for i, p in enumerate(self.abspaths)}
        self.modmap = ModuleMap(self.abspaths, dict(zip(self.abspaths, self.roots)))
        self._exists = exists or (lambda p: False)
        self._built: Dict[str, Any] = self.store.table("index.built")
        """Indexes built once on the first question that needs them (``writes``, ``instance``,
        ``subclasses``, ``import_aliases``, ``name_sites``)."""
        self._written: Dict[Any, List[Tuple[int, int, Optional[Expr], int, str]]] = self.store.table("index.written")
        self.configs = ConfigStore(read or (lambda p: None), listdir or (lambda d: ()), self.store.table("index.configs"))
        """Configuration files (YAML/JSON) read through the run's probes."""
        self._loaders: Dict[Tuple[int, int], Optional[str]] = self.store.table("index.loaders")
        self.modnames = [module_name(p, r) for p, r in zip(self.abspaths, self.roots)]
        self._values: Dict[Tuple[int, int, int], FrozenSet[Value]] = self.store.table("index.values")
        self._bindings: Dict[Tuple[int, int], FrozenSet[Value]] = self.store.table("index.bindings")
        self._globals: Dict[Tuple[int, str], FrozenSet[Value]] = self.store.table("index.globals")
        self._calls: Dict[Tuple[int, int], FrozenSet[Value]] = self.store.table("index.calls")
        self._callees: Dict[Tuple[int, int], FrozenSet[Value]] = self.store.table("index.callees")
        self._names: Dict[Tuple[int, int], Tuple[str, ...]] = self.store.table("index.names")
        self._returns: Dict[Tuple[int, int], FrozenSet[Value]] = self.store.table("index.returns")
        self._callers: Dict[Tuple[int, int], List[Tuple[int, int, BoundArgs]]] = self.store.table("index.callers")
        self._class_bases: Dict[Cls, Tuple[Value, ...]] = self.store.table("index.class_bases")
        self._fw_bases: Dict[Cls, Tuple[str, ...]] = self.store.table("index.fw_bases")
        self._active: Set[Any] = set()
        self._depth = 0
        self._star: Dict[int, List[ImportFact]] = self.store.table("index.star")
        self._call_stmts: Dict[int, List[int]] = self.store.table("index.call_stmts")
        self._building_instance = False
        self._by_name: Dict[str, Dict[Func, List[Tuple[int, int, bool]]]] = self.store.table("index.by_name")
        self._resolving: Set[str] = set()
        self._partial = 0
        """Times ``callers`` answered partially (asked again while its call sites were being
        resolved). An answer derived from a partial one is used but not memoised, so it cannot
        outlive the resolution it was cut from (``memo`` and the value tables check this)."""
        self._sets: Dict[FrozenSet[Value], FrozenSet[Value]] = self.store.table("index.sets")
        self._params: Dict[Param, FrozenSet[Value]] = self.store.table("index.params")
        self._consts = self.store.scoped("index.constants")
        """(file, scope, id(expr)) → (constant values, complete), under the hypothesis in force."""
        self._const_active: Set[Tuple[int, int, int]] = set()
        self._const_cuts = 0
        self._param_cuts = 0
        """Times :meth:`param_values` was cut short (a cycle, the depth bound): answers computed
        meanwhile are not memoised."""

    # ------------------------------------------------------------------ memo tables
    def memo(self, table: Dict[Any, Any], key: Any, compute: Callable[[], Any]) -> Any:
        """``table[key]``, computed by ``compute()`` on the first question (with no hypothesis in
        force: the tables behind it hold answers about the program, the same for every asker).

        A question that meets itself is cut short (``guard``), so an answer may depend on which
        question came first; the rules therefore each start from the same state (see
        ``linter/match/__init__.py``), which makes the findings independent of that order."""
        hit = table.get(key, _MISSING)
        if hit is not _MISSING:
            return hit
        partial = self._partial
        if self.store.hypothesis:
            # a program question (what runs, which branch is dead, what a pipeline is for) is
            # answered without the asker's assumptions, so its memoised answer holds for everyone
            with self.under(NO_HYPOTHESIS):
                out = compute()
        else:
            out = compute()
        if self._partial == partial:
            table[key] = out
        return out

    def guard(self, key: Any, compute: Callable[[], Any], on_cycle: Any) -> Any:
        """``compute()``, or ``on_cycle`` when the same question is already being answered
        further up (a recursive definition)."""
        if key in self._active:
            return on_cycle
        self._active.add(key)
        try:
            return compute()
        finally:
            self._active.discard(key)

    # ------------------------------------------------------------------ question-scoped assumptions
    @property
    def hypothesis(self) -> Hypothesis:
        return self.store.hypothesis

    @contextmanager
    def under(self, h: Hypothesis) -> Iterator[None]:
        """Answer the questions of this block under ``h`` (and only them). The tables that may
        depend on it key on it: :meth:`memo` and the scoped tables of the store."""
        saved = self.store.hypothesis
        self.store.hypothesis = h
        try:
            yield
        finally:
            self.store.hypothesis = saved

    @property
    def assume(self) -> Dict[str, Any]:
        """Parameter name → value assumed by constant propagation (e.g. ``do_train=True`` while
        a training pipeline is checked), for the question being answered."""
        return self.store.hypothesis.assumed

    # ------------------------------------------------------------------ files and names
    def path(self, fi: int) -> str:
        return self.files[fi].path

    def file_of(self, importer: int, module: str, level: int) -> Optional[int]:
        target = self.modmap.resolve(self.abspaths[importer], module, level, self._exists)
        if target is None:
            return None
        return self.by_abspath.get(target, -1)

    def project_qual(self, v: Value) -> str:
        if isinstance(v, Func):
            return f"{self.modnames[v.file]}.{self.files[v.file].funcs[v.index].qualname}"
        if isinstance(v, Cls):
            return f"{self.modnames[v.file]}.{self.files[v.file].classes[v.index].qualname}"
        if isinstance(v, Mod):
            return self.modnames[v.file]
        return ""

    def calls_in_stmt(self, fi: int, st: Any, scope: int, header_only: bool = False) -> List[int]:
        """Calls of statement ``st`` (and of its nested blocks unless ``header_only``)."""
        idx = self._call_stmts.get(fi)
        if idx is None:
            idx = [c.stmt for c in self.files[fi].calls]
            self._call_stmts[fi] = idx
        return calls_in_range(self.files[fi], idx, st[1], st[1] if header_only else last_sid(st), scope)

    def _share(self, vals: FrozenSet[Value]) -> FrozenSet[Value]:
        """One object per distinct value set: most cached answers are the same few sets
        (``{UNKNOWN}``, ``{mindspore.nn}``), and a one-element frozenset costs 216 bytes."""
        hit = self._sets.get(vals)
        if hit is None:
            self._sets[vals] = hit = vals
        return hit

    def top_level(self, compute: Callable[[], Any]) -> Any:
        """``compute()`` as if asked first: with no question in progress above it. A shared
        index built in the middle of another question would see that question's cycle cuts
        (a name being evaluated evaluates to unknown) and keep them for every later one."""
        saved_active, saved_depth = self._active, self._depth
        self._active, self._depth = set(), 0
        try:
            return compute()
        finally:
            self._active, self._depth = saved_active, saved_depth

    if TYPE_CHECKING:
        # The questions the parts ask one another, each answered in its own module.
        # linter/index/evaluation.py
        def values(self, fi: int, scope: int, e: Expr) -> FrozenSet[Value]: ...
        def _union_bindings(self, fi: int, ids: Iterable[int]) -> FrozenSet[Value]: ...
        def _star_imports(self, fi: int) -> List[ImportFact]: ...
        # linter/index/classes.py
        def framework_bases(self, c: Cls) -> Tuple[str, ...]: ...
        def project_mro(self, c: Cls) -> List[Cls]: ...
        def class_attr(self, c: Cls, name: str, recv: Optional[Value]) -> FrozenSet[Value]: ...
        def instance_attr(self, obj: Obj, name: str) -> FrozenSet[Value]: ...
        def super_attr(self, s: Super, name: str) -> FrozenSet[Value]: ...
        # linter/index/calls.py
        def callee_values(self, fi: int, cid: int) -> FrozenSet[Value]: ...
        def call_values(self, fi: int, cid: int) -> FrozenSet[Value]: ...
        def callee_closure(self, seeds: Iterable[Tuple[int, int]], depth: int,
                           cap: Optional[int] = None) -> List[Tuple[int, int]]: ...
        def call_names(self, fi: int, cid: int) -> Tuple[str, ...]: ...
        def call_targets(self, fi: int, cid: int) -> List[Tuple[Func, bool]]: ...
        # linter/index/records.py
        def config_loader(self, f: Func) -> Optional[str]: ...
        def _loaded_config(self, default: str, fi: int, cid: int) -> FrozenSet[Value]: ...
        def _config_record(self, cmap: ConfigMap, fi: int, cid: int) -> Record: ...
        def _record(self, fi: int, call: CallFact, cid: int, spec: Dict[str, Any]) -> Record: ...
        def _argparse_record(self, parser: Obj, fi: int, cid: int) -> Record: ...
        # linter/index/callers.py
        def callers(self, f: Func) -> List[Tuple[int, int, BoundArgs]]: ...
        def expand_params(self, vals: FrozenSet[Value]) -> FrozenSet[Value]: ...
