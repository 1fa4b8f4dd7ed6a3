"""Stage 3b: the project index — linked facts of every file, queried lazily by the rules.

Nothing here walks the whole project up front: rules ask for the qualified names of the
calls they care about (found through :attr:`FileFacts.callee_index`), and the index resolves
names, receivers, constants and call sites on demand, memoising every answer. That keeps a
warm re-link cheap and makes the cost proportional to what the rules look at.
"""
from __future__ import annotations

import builtins
import os
from contextlib import contextmanager
from typing import Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from linter.core.memo import NO_HYPOTHESIS, Hypothesis, MemoStore
from linter.facts.ir import calls_in_range, iter_returns, last_sid
from linter.facts.model import ArgFact, CallFact, Expr, FileFacts, ImportFact
from linter.index.apis import NO_DEFAULT, ApiTables
from linter.index.apis import Param as ApiParam
from linter.index.configs import CONFIG_SUFFIXES, ConfigMap, ConfigStore
from linter.index.modules import ModuleMap, module_name
from linter.index.values import (
    UNKNOWN,
    Bound,
    Cls,
    Const,
    Ext,
    Func,
    Mod,
    Obj,
    Param,
    Record,
    Super,
    Value,
    Valued,
    const,
    ordered,
)

_BUILTINS = frozenset(dir(builtins))
_CONFIG_READERS = frozenset({"load", "safe_load", "load_all", "safe_load_all", "full_load", "full_load_all"})


def _display(path: str) -> str:
    """A configuration file's path as reports show it: relative to the working directory."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel
ARGPARSE_DEFAULT = "argparse default"
"""Provenance of a value read from an argparse default: a command-line option may override it."""
CONFIG_VALUE = "config: "
"""How a value read from a configuration file says so (followed by its key)."""
_HELPER_FOLDERS = ("src", "model_utils", "utils", "config", "configs", "tools", "common")
"""Folders of a model's helper modules: its program is the folder above them."""
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


def _eval_with(e: Expr, name: str, x: float, leaf: Callable[[Expr], Optional[float]]) -> Optional[float]:
    """Arithmetic over one variable ``name`` = ``x`` (a comprehension's element) and other
    leaves, which ``leaf`` resolves to one number (or None)."""
    tag = e[0]
    if tag == "name" and e[1] == name:
        return x
    if tag == "unary" and e[1] == "-":
        v = _eval_with(e[2], name, x, leaf)
        return None if v is None else -v
    if tag == "binop" and e[1] in _ARITH:
        a, b = _eval_with(e[2], name, x, leaf), _eval_with(e[3], name, x, leaf)
        if a is None or b is None:
            return None
        try:
            r = _ARITH[e[1]](a, b)
        except (ArithmeticError, ValueError):
            return None
        return None if r is None or isinstance(r, complex) else float(r)
    return leaf(e)


def _cap(vals: Set[Value]) -> FrozenSet[Value]:
    if len(vals) <= _MAX_VALUES:
        return frozenset(vals)
    return frozenset(ordered(vals)[:_MAX_VALUES]) | _UNK


_INSTANCE_METHODS = frozenset({"construct", "forward", "call", "__call__"})


class BoundArgs:
    """Arguments of one call bound to parameter names."""

    __slots__ = ("args", "uncertain", "extra")

    def __init__(self) -> None:
        self.args: Dict[str, ArgFact] = {}
        self.uncertain = False
        """True when ``*args``/``**kwargs`` at the call site hide which parameters are set."""
        self.extra: List[ArgFact] = []

    def get(self, name: str) -> Optional[ArgFact]:
        return self.args.get(name)


def bind_args(args: Sequence[ArgFact], params: Sequence[ApiParam], skip_first: bool = False) -> BoundArgs:
    """Bind call arguments to a signature the way Python would (without raising)."""
    out = BoundArgs()
    plist = list(params)
    if skip_first and plist and plist[0].kind in ("pos", "posonly"):
        plist = plist[1:]
    positional = [p for p in plist if p.kind in ("pos", "posonly")]
    varargs = next((p for p in plist if p.kind == "varargs"), None)
    by_name = {p.name: p for p in plist if p.kind in ("pos", "kwonly")}
    varkw = next((p for p in plist if p.kind == "varkw"), None)
    i = 0
    for a in args:
        if a.star == "*":
            out.uncertain = True
            i = len(positional) + 1  # later positionals can no longer be placed
            continue
        if a.star == "**":
            out.uncertain = True
            continue
        if a.keyword is None:
            if i < len(positional):
                out.args[positional[i].name] = a
            elif varargs is not None:
                out.extra.append(a)
            i += 1
        else:
            if a.keyword in by_name:
                out.args[a.keyword] = a
            elif varkw is not None:
                out.extra.append(a)
    return out


class Project:
    """Every file's facts plus the lazy resolution machinery."""

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

    # ------------------------------------------------------------------ evaluation
    def values(self, fi: int, scope: int, e: Expr) -> FrozenSet[Value]:
        """Every value ``e`` (an expression in scope ``scope`` of file ``fi``) may have."""
        tag = e[0]
        if tag == "const":
            return frozenset((const(e[1]),))
        key = (fi, scope, id(e))   # expressions are shared within a file (facts/extract.py)
        hit = self._values.get(key)
        if hit is not None:
            return hit
        if key in self._active or self._depth > 40:
            return _UNK
        self._active.add(key)
        self._depth += 1
        partial = self._partial
        try:
            out = self._values_uncached(fi, scope, e)
        finally:
            self._depth -= 1
            self._active.discard(key)
        out = self._share(out)
        if self._partial == partial:
            self._values[key] = out
        return out

    def _values_uncached(self, fi: int, scope: int, e: Expr) -> FrozenSet[Value]:
        tag = e[0]
        if tag == "name":
            if e[2]:
                acc: Set[Value] = set()
                for d in e[2]:
                    acc |= self.binding_values(fi, d)
                return _cap(acc)
            return self.free_name(fi, scope, e[1]) or _UNK
        if tag == "attr":
            return self.attr_values(fi, self.values(fi, scope, e[1]), e[2])
        if tag == "call":
            return self.call_values(fi, e[1])
        if tag in ("binop", "unary"):
            return self._arith(fi, scope, e)
        if tag == "ifexp":
            return _cap(set(self.values(fi, scope, e[2])) | set(self.values(fi, scope, e[3])))
        if tag == "boolop":
            acc = set()
            for sub in e[2]:
                acc |= self.values(fi, scope, sub)
            return _cap(acc)
        if tag == "lambda":
            return frozenset((Func(fi, e[1]),))
        if tag == "config":
            value = e[1].items[e[2]][0]
            if isinstance(value, ConfigMap):
                return frozenset((self._config_record(value, fi, -1),))
            try:
                return frozenset((const(value),))
            except TypeError:
                return _UNK
        if tag == "seq" and e[1] == "tuple":
            items = [self.values(fi, scope, x) for x in e[2]]
            consts = [next(iter(s)) for s in items if len(s) == 1]
            if len(consts) == len(items) and all(isinstance(c, Const) for c in consts):
                return frozenset((const(tuple(c.value for c in consts if isinstance(c, Const))),))
        return _UNK

    def _arith(self, fi: int, scope: int, e: Expr) -> FrozenSet[Value]:
        if e[0] == "unary":
            out: Set[Value] = set()
            for v in self.values(fi, scope, e[2]):
                if isinstance(v, Const) and e[1] == "-" and type(v.value) in (int, float):
                    out.add(const(-v.value))
                elif isinstance(v, Const) and e[1] == "not":
                    out.add(const(not v.value))
                else:
                    out.add(UNKNOWN)
            return _cap(out)
        fn = _ARITH.get(e[1])
        left = self.values(fi, scope, e[2])
        right = self.values(fi, scope, e[3])
        out = set()
        for a in left:
            for b in right:
                if fn is not None and isinstance(a, Const) and isinstance(b, Const) \
                        and type(a.value) in (int, float) and type(b.value) in (int, float):
                    try:
                        r = fn(a.value, b.value)
                    except (ArithmeticError, ValueError):
                        r = None
                    out.add(UNKNOWN if r is None else const(r))
                else:
                    out.add(UNKNOWN)
        return _cap(out)

    def binding_values(self, fi: int, aid: int) -> FrozenSet[Value]:
        key = (fi, aid)
        hit = self._bindings.get(key)
        if hit is not None:
            return hit
        if ("b", key) in self._active:
            return _UNK
        self._active.add(("b", key))
        partial = self._partial
        try:
            out = self._binding_uncached(fi, aid)
        finally:
            self._active.discard(("b", key))
        out = self._share(out)
        if self._partial == partial:
            self._bindings[key] = out
        return out

    def _binding_uncached(self, fi: int, aid: int) -> FrozenSet[Value]:
        a = self.files[fi].assigns[aid]
        v = a.value
        tag = v[0]
        if tag == "param":
            f = self.files[fi].funcs[v[1]]
            if f.kind == "method" and f.params and f.params[0].name == v[2] and f.cls >= 0 \
                    and not any(d[0] == "name" and d[1] in ("staticmethod", "classmethod") for d in f.decorators):
                # `self`: an instance of the method's own class.
                return frozenset((Obj(Cls(fi, f.cls), -1, -1, (-1, -1)),))
            return frozenset((Param(fi, v[1], v[2]),))
        if tag == "import":
            return self.import_values(fi, v[1])
        if tag == "def":
            return frozenset((Func(fi, v[1]),))
        if tag == "class":
            return frozenset((Cls(fi, v[1]),))
        if tag == "enter":
            return self.values(fi, a.scope, v[1])
        if tag == "unpack":
            src = v[1]
            if src[0] == "seq" and isinstance(v[2], int) and v[2] < len(src[2]):
                return self.values(fi, a.scope, src[2][v[2]])
            if src[0] == "call" and isinstance(v[2], int):
                return self._unpacked_return(fi, src[1], v[2])
            return _UNK
        if tag in ("iter", "except"):
            return _UNK
        return self.values(fi, a.scope, v)

    def _unpacked_return(self, fi: int, cid: int, index: int) -> FrozenSet[Value]:
        """Element ``index`` of what a project function returns, when every ``return`` of it
        is a tuple/list literal (``net, loss = build()``)."""
        acc: Set[Value] = set()
        for f, _bound in self.call_targets(fi, cid):
            fact = self.files[f.file].funcs[f.index]
            if fact.is_generator or fact.name == "__init__":
                return _UNK
            for r in iter_returns(fact.body):
                if r is None or r[0] != "seq" or index >= len(r[2]) or r[2][index][0] == "star":
                    return _UNK
                acc |= self.values(f.file, f.index, r[2][index])
        return _cap(acc) if acc else _UNK

    def free_name(self, fi: int, scope: int, name: str) -> FrozenSet[Value]:
        """A name with no reaching local binding: later locals, enclosing scopes, globals."""
        funcs = self.files[fi].funcs
        f = funcs[scope]
        if scope != 0:
            ids = f.defs.get(name)
            if ids:
                return self._union_bindings(fi, ids)
        p = f.parent
        while p > 0:
            pf = funcs[p]
            if pf.kind != "class":
                ids = pf.defs.get(name)
                if ids:
                    return self._union_bindings(fi, ids)
            p = pf.parent
        return self.global_values(fi, name)

    def _union_bindings(self, fi: int, ids: Iterable[int]) -> FrozenSet[Value]:
        acc: Set[Value] = set()
        for d in ids:
            acc |= self.binding_values(fi, d)
        return _cap(acc)

    def _star_imports(self, fi: int) -> List[ImportFact]:
        hit = self._star.get(fi)
        if hit is None:
            hit = [imp for imp in self.files[fi].imports if imp.name == "*" and imp.scope == 0]
            self._star[fi] = hit
        return hit

    def global_values(self, fi: int, name: str, _seen: FrozenSet[int] = frozenset()) -> FrozenSet[Value]:
        """Module-level binding of ``name`` in file ``fi`` (following ``from x import *``)."""
        key = (fi, name)
        hit = self._globals.get(key)
        if hit is not None:
            return hit
        out = self._global_uncached(fi, name, _seen | {fi})
        self._globals[key] = out = self._share(out)
        return out

    def _global_uncached(self, fi: int, name: str, seen: FrozenSet[int]) -> FrozenSet[Value]:
        ids = self.files[fi].funcs[0].defs.get(name)
        if ids:
            return self._union_bindings(fi, ids)
        for imp in reversed(self._star_imports(fi)):
            target = self.file_of(fi, imp.module, imp.level)
            if target is None:
                if imp.level == 0:
                    return frozenset((Ext(self.apis.canonical(f"{imp.module}.{name}")),))
                continue
            if target >= 0 and target not in seen:
                vals = self.global_values(target, name, seen)
                if vals:
                    return vals
        if name in _BUILTINS:
            return frozenset((Ext("builtins." + name),))
        return _EMPTY

    def import_values(self, fi: int, iid: int) -> FrozenSet[Value]:
        imp = self.files[fi].imports[iid]
        if imp.name is None:
            module = imp.module if imp.asname else imp.module.split(".", 1)[0]
            target = self.file_of(fi, module, imp.level)
            if target is None:
                return frozenset((Ext(self.apis.canonical(module)),))
            return frozenset((Mod(target),)) if target >= 0 else _UNK
        target = self.file_of(fi, imp.module, imp.level)
        if target is None:
            # `from src import config` where src/ has no __init__.py (a namespace package)
            sub = self.file_of(fi, f"{imp.module}.{imp.name}" if imp.module else imp.name, imp.level)
            if sub is not None:
                return frozenset((Mod(sub),)) if sub >= 0 else _UNK
            if imp.level:
                return _UNK
            return frozenset((Ext(self.apis.canonical(f"{imp.module}.{imp.name}")),))
        if target < 0:
            return _UNK
        vals = self.global_values(target, imp.name)
        if vals:
            return vals
        subpath = self.modmap.submodule(self.abspaths[target], imp.name, self._exists)
        if subpath is not None:
            sfi = self.by_abspath.get(subpath, -1)
            return frozenset((Mod(sfi),)) if sfi >= 0 else _UNK
        return _UNK

    # ------------------------------------------------------------------ attributes
    def attr_values(self, fi: int, bases: FrozenSet[Value], name: str) -> FrozenSet[Value]:
        out: Set[Value] = set()
        for v in bases:
            if isinstance(v, Ext):
                out.add(Ext(self.apis.canonical(f"{v.qual}.{name}")))
            elif isinstance(v, Mod):
                vals = self.global_values(v.file, name)
                if not vals:
                    sub = self.modmap.submodule(self.abspaths[v.file], name, self._exists)
                    sfi = self.by_abspath.get(sub, -1) if sub else -1
                    vals = frozenset((Mod(sfi),)) if sfi >= 0 else _UNK
                out |= vals
            elif isinstance(v, Cls):
                out |= self.class_attr(v, name, None)
            elif isinstance(v, Obj):
                out |= self.instance_attr(v, name)
            elif isinstance(v, Super):
                out |= self.super_attr(v, name)
            elif isinstance(v, Param):
                expanded = self.expand_params(frozenset((v,)))
                out |= self.attr_values(fi, expanded, name) if expanded else _UNK
            elif isinstance(v, Record):
                out |= self.record_field(v, name)
            else:
                out.add(UNKNOWN)
        return _cap(out) if out else _UNK

    def record_field(self, rec: Record, name: str) -> FrozenSet[Value]:
        """A field's values — every variant's, for a configuration read from several files."""
        acc: Set[Value] = set()
        for fname, (rfi, rscope, expr) in rec.fields:
            if fname == name:
                acc |= self.values(rfi, rscope, expr)
                if rec.kind != "config":
                    break
        return _cap(acc) if acc else _UNK

    def class_bases(self, c: Cls) -> Tuple[Value, ...]:
        hit = self._class_bases.get(c)
        if hit is not None:
            return hit
        self._class_bases[c] = ()
        cf = self.files[c.file].classes[c.index]
        out: List[Value] = []
        for b in cf.bases:
            for v in ordered(self.values(c.file, cf.scope, b)):
                if isinstance(v, (Cls, Ext)):
                    out.append(v)
        result = tuple(out)
        self._class_bases[c] = result
        return result

    def framework_bases(self, c: Cls) -> Tuple[str, ...]:
        """Framework classes ``c`` derives from (through project bases), nearest first."""
        hit = self._fw_bases.get(c)
        if hit is not None:
            return hit
        self._fw_bases[c] = ()
        out: List[str] = []
        for b in self.class_bases(c):
            quals: Sequence[str] = self.apis.mro(b.qual) if isinstance(b, Ext) else self.framework_bases(b)  # type: ignore[arg-type]
            for q in quals:
                if q not in out:
                    out.append(q)
        result = tuple(out)
        self._fw_bases[c] = result
        return result

    def subclasses(self, c: Cls) -> List[Cls]:
        """Project classes deriving from ``c`` (transitively), in file/class order. The
        reverse index of every class's project bases is built on the first question."""
        index = self._built.get("subclasses")
        if index is None:
            index = {}
            for fi, facts in enumerate(self.files):
                for ci, cf in enumerate(facts.classes):
                    if not cf.bases:
                        continue
                    k = Cls(fi, ci)
                    for b in self.class_bases(k):
                        if isinstance(b, Cls) and b != k:
                            index.setdefault(b, []).append(k)
            self._built["subclasses"] = index
        out: List[Cls] = []
        todo = [c]
        while todo:
            for k in index.get(todo.pop(), ()):
                if k not in out and k != c:
                    out.append(k)
                    todo.append(k)
        return sorted(out)

    def project_mro(self, c: Cls) -> List[Cls]:
        out = [c]
        i = 0
        while i < len(out):
            for b in self.class_bases(out[i]):
                if isinstance(b, Cls) and b not in out:
                    out.append(b)
            i += 1
        return out

    def class_attr(self, c: Cls, name: str, recv: Optional[Value]) -> FrozenSet[Value]:
        for k in self.project_mro(c):
            cf = self.files[k.file].classes[k.index]
            m = cf.methods.get(name)
            if m is not None:
                fv = Func(k.file, m)
                return frozenset((Bound(fv, recv),)) if recv is not None else frozenset((fv,))
            ids = self.files[k.file].funcs[cf.body].defs.get(name)
            if ids:
                return self._union_bindings(k.file, ids)
        for q in self.framework_bases(c):
            qual, _api = self.apis.method(q, name)
            ext = Ext(qual)
            return frozenset((Bound(ext, recv),)) if recv is not None else frozenset((ext,))
        return _UNK

    def instance_attr(self, obj: Obj, name: str) -> FrozenSet[Value]:
        t = obj.type
        if isinstance(t, Ext):
            qual, _api = self.apis.method(t.qual, name)
            return frozenset((Bound(Ext(qual), obj),))
        for k in self.project_mro(t):
            cf = self.files[k.file].classes[k.index]
            ids = cf.attrs.get(name)
            if ids:
                return self._union_bindings(k.file, ids)
        return self.class_attr(t, name, obj)

    def super_attr(self, s: Super, name: str) -> FrozenSet[Value]:
        c = Cls(s.file, s.cls)
        out: Set[Value] = set()
        for b in self.class_bases(c):
            if isinstance(b, Cls):
                out |= self.class_attr(b, name, s.recv)
            elif isinstance(b, Ext):
                qual, _api = self.apis.method(b.qual, name)
                out.add(Bound(Ext(qual), s.recv))
            if out:
                break
        return frozenset(out) if out else _UNK

    # ------------------------------------------------------------------ calls
    def callee_values(self, fi: int, cid: int) -> FrozenSet[Value]:
        key = (fi, cid)
        hit = self._callees.get(key)
        if hit is None:
            partial = self._partial
            c = self.files[fi].calls[cid]
            vals = self.values(fi, c.scope, c.func)
            if any(isinstance(v, Param) for v in vals):
                # `model(x)` where `model` is a parameter: what the call sites pass.
                vals = self.expand_params(vals) or _UNK
            hit = self._share(vals)
            if self._partial == partial:
                self._callees[key] = hit
        return hit

    def call_values(self, fi: int, cid: int) -> FrozenSet[Value]:
        """What calling ``calls[cid]`` returns (instances, derived objects, returns of project functions)."""
        key = (fi, cid)
        hit = self._calls.get(key)
        if hit is not None:
            return hit
        if ("c", key) in self._active:
            return _UNK
        self._active.add(("c", key))
        partial = self._partial
        try:
            out = self._call_uncached(fi, cid)
        finally:
            self._active.discard(("c", key))
        out = self._share(out)
        if self._partial == partial:
            self._calls[key] = out
        return out

    def _call_uncached(self, fi: int, cid: int) -> FrozenSet[Value]:
        call = self.files[fi].calls[cid]
        out: Set[Value] = set()
        here = (fi, cid)
        for v in self.callee_values(fi, cid):
            if isinstance(v, Cls):
                out.add(Obj(v, fi, cid, here))
            elif isinstance(v, Ext):
                out |= self._ext_call(fi, call, cid, v.qual, None)
            elif isinstance(v, Func):
                default = self.config_loader(v)
                if default is not None:
                    out |= self._loaded_config(default, fi, cid)
                else:
                    out |= self.returns(v)
            elif isinstance(v, Bound):
                if isinstance(v.func, Func):
                    out |= self.returns(v.func)
                else:
                    out |= self._ext_call(fi, call, cid, v.func.qual, v.recv)
            else:
                out.add(UNKNOWN)
        return _cap(out) if out else _UNK

    def _ext_call(self, fi: int, call: CallFact, cid: int, qual: str, recv: Any) -> FrozenSet[Value]:
        here = (fi, cid)
        if qual == "builtins.super":
            f = self.files[fi].funcs[call.scope]
            if f.cls >= 0 and f.params:
                return frozenset((Super(fi, f.cls, Obj(Cls(fi, f.cls), -1, -1, (-1, -1))),))
            return _UNK
        spec = self.apis.callables.get(qual)
        if spec is not None and spec.get("kind") == "record":
            return frozenset((self._record(fi, call, cid, spec),))
        if spec is not None and spec.get("kind") == "argparse-parse" and isinstance(recv, Obj):
            return frozenset((self._argparse_record(recv, fi, cid),))
        api = self.apis.get(qual)
        returns = api.returns if api is not None else ("instance" if self.apis.is_class(qual) else "")
        if not returns:
            returns = self.apis.factory_type(qual)
        if returns == "arg:0":
            # returns its first argument (`auto_mixed_precision(net)`, `model.to(device)` style)
            return self.values(fi, call.scope, call.args[0].value) if call.args else _UNK
        if returns == "instance":
            return frozenset((Obj(Ext(qual), fi, cid, here),))
        if returns in ("derived", "derived-items") and isinstance(recv, Obj):
            return frozenset((Obj(recv.type, fi, cid, recv.origin),))
        if returns == "derived-all":
            # `a.zip(b)`, `ds.zip((a, b))`, `a.concat([b, c])`: one object per lineage joined, so
            # a `.shuffle()` after the join is seen from every source
            objs = [recv] if isinstance(recv, Obj) else []
            for a in call.args:
                for x in (a.value[2] if a.value[0] == "seq" else (a.value,)):
                    objs += [v for v in self.values(fi, call.scope, x) if isinstance(v, Obj)]
            return _cap({Obj(o.type, fi, cid, o.origin) for o in objs}) if objs else _UNK
        if returns == "self" and recv is not None:
            return frozenset((recv,))
        if returns and returns not in ("derived", "derived-items", "derived-all", "self", "instance"):
            return frozenset((Obj(Ext(returns), fi, cid, here),))
        return _UNK

    # ------------------------------------------------------------------ configuration files
    def config_loader(self, f: Func) -> Optional[str]:
        """The configuration file a project function loads by default, when it (or a project
        function it calls, three levels down) reads YAML/JSON (``yaml.load``, ``json.load``)
        and its module names a ``.yaml``/``.yml``/``.json`` file that exists (relative to the
        module, as ``os.path.join(current_dir, "../default_config.yaml")`` does)."""
        key = (f.file, f.index)
        if key in self._loaders:
            return self._loaders[key]
        self._loaders[key] = None
        out = None
        if self._reads_config(f):
            out = self._default_config(f.file)
        self._loaders[key] = out
        return out

    def _reads_config(self, f: Func) -> bool:
        for sfi, sscope in self.callee_closure([(f.file, f.index)], 3):
            for cid, c in enumerate(self.files[sfi].calls):
                if c.scope != sscope:
                    continue
                last = (c.dotted or "").rsplit(".", 1)[-1]
                if last in _CONFIG_READERS and any(n.split(".", 1)[0] in ("yaml", "json") or n.startswith("?.")
                                                   for n in self.call_names(sfi, cid)):
                    return True
        return False

    def callee_closure(self, seeds: Iterable[Tuple[int, int]], depth: int,
                       cap: Optional[int] = None) -> List[Tuple[int, int]]:
        """``seeds`` (file, function) and the project functions they call, ``depth`` levels
        down, in breadth-first order (at most ``cap`` in all)."""
        out = list(seeds)
        seen = set(out)
        frontier = list(out)
        for _ in range(depth):
            nxt = []
            for sfi, sscope in frontier:
                for cid, c in enumerate(self.files[sfi].calls):
                    if c.scope != sscope:
                        continue
                    for t, _bound in self.call_targets(sfi, cid):
                        key = (t.file, t.index)
                        if key not in seen and (cap is None or len(out) < cap):
                            seen.add(key)
                            out.append(key)
                            nxt.append(key)
            frontier = nxt
        return out

    def _default_config(self, fi: int) -> Optional[str]:
        facts = self.files[fi]
        here = os.path.dirname(self.abspaths[fi])
        texts: List[str] = []
        for c in facts.calls:
            for a in c.args:
                if a.value[0] == "const" and isinstance(a.value[1], str):
                    texts.append(a.value[1])
        for asg in facts.assigns:
            if asg.value[0] == "const" and isinstance(asg.value[1], str):
                texts.append(asg.value[1])
        for t in texts:
            if not t.lower().endswith(CONFIG_SUFFIXES) or "\n" in t or len(t) > 300:
                continue
            for base in (here, os.path.dirname(here), os.path.dirname(os.path.dirname(here))):
                cand = os.path.normpath(os.path.join(base, t))
                if self._exists(cand) and self.configs.load(cand) is not None:
                    return cand
        # The default names a file of a `config/` folder that this copy does not ship (a
        # benchmark folder keeping only `resnet50_imagenet2012_Boost_config.yaml` while the
        # helper still defaults to `resnet50_cifar10_config.yaml`): the scripts pass one of the
        # files that are there, so those are the configurations.
        for t in texts:
            if not t.lower().endswith(CONFIG_SUFFIXES) or "\n" in t or len(t) > 300:
                continue
            for base in (here, os.path.dirname(here), os.path.dirname(os.path.dirname(here))):
                folder = os.path.dirname(os.path.normpath(os.path.join(base, t)))
                if os.path.basename(folder) not in ("config", "configs"):
                    continue
                for name in sorted(self.configs.listdir(folder)):
                    path = os.path.join(folder, name)
                    if name.lower().endswith(CONFIG_SUFFIXES) and self.configs.load(path) is not None:
                        return path
        return None

    def _loaded_config(self, default: str, fi: int, cid: int) -> FrozenSet[Value]:
        variants = self.configs.variants(default)
        if not variants:
            return _UNK
        fields: List[Tuple[str, Tuple[int, int, Any]]] = []
        for cmap in variants:
            fields += [(k, (fi, 0, ("config", cmap, k))) for k in sorted(cmap.items)]
        return frozenset((Record(tuple(fields), fi, cid, "config"),))

    def _config_record(self, cmap: ConfigMap, fi: int, cid: int) -> Record:
        return Record(tuple((k, (fi, 0, ("config", cmap, k))) for k in sorted(cmap.items)), fi, cid, "config")

    def _record(self, fi: int, call: CallFact, cid: int, spec: Dict[str, Any]) -> Record:
        fields: List[Tuple[str, Tuple[int, int, Any]]] = []
        for a in call.args:
            if a.keyword is not None:
                fields.append((a.keyword, (fi, call.scope, a.value)))
            elif a.star == "" and a.value[0] == "dict":
                for k, v in zip(a.value[1], a.value[2]):
                    if k is not None and k[0] == "const" and isinstance(k[1], str):
                        fields.append((k[1], (fi, call.scope, v)))
        return Record(tuple(fields), fi, cid)

    def _argparse_record(self, parser: Obj, fi: int, cid: int) -> Record:
        """``parser.parse_args()`` → the defaults of the ``add_argument`` calls on that parser."""
        fields: List[Tuple[str, Tuple[int, int, Any]]] = []
        pfi = parser.file
        if pfi < 0:
            return Record((), fi, cid, "argparse")
        facts = self.files[pfi]
        for acid in facts.callee_index.get("add_argument", ()):
            c = facts.calls[acid]
            recv = [v for v in self.values(pfi, c.scope, c.func[1]) if isinstance(v, Obj)] if c.func[0] == "attr" else []
            if not any(r.origin == parser.origin for r in recv):
                continue
            dest = None
            default: Any = ("const", None)
            kind = None
            for a in c.args:
                if a.keyword is None and a.value[0] == "const" and isinstance(a.value[1], str):
                    if dest is None or a.value[1].startswith("--"):
                        dest = a.value[1].lstrip("-").replace("-", "_")
                elif a.keyword == "dest" and a.value[0] == "const":
                    dest = str(a.value[1])
                elif a.keyword == "default":
                    default = a.value
                elif a.keyword == "type" and a.value[0] == "name" and a.value[1] in ("int", "float"):
                    kind = a.value[1]
                elif a.keyword == "action" and a.value[0] == "const" and a.value[1] in ("store_true", "store_false") \
                        and default == ("const", None):
                    default = ("const", a.value[1] == "store_false")
            if kind and default[0] == "const" and isinstance(default[1], str):
                # argparse applies `type` to a string default: `type=float, default="0.1"` is 0.1
                try:
                    default = ("const", int(default[1]) if kind == "int" else float(default[1]))
                except ValueError:
                    pass
            if dest:
                fields.append((dest, (pfi, c.scope, default)))
        return Record(tuple(fields), fi, cid, "argparse")

    def returns(self, f: Func) -> FrozenSet[Value]:
        key = (f.file, f.index)
        hit = self._returns.get(key)
        if hit is not None:
            return hit
        if ("r", key) in self._active:
            return _UNK
        self._active.add(("r", key))
        partial = self._partial
        try:
            fact = self.files[f.file].funcs[f.index]
            if fact.is_generator:
                out: FrozenSet[Value] = _UNK
            else:
                acc: Set[Value] = set()
                exprs = list(iter_returns(fact.body))
                for e in exprs:
                    acc |= self.values(f.file, f.index, e) if e is not None else {const(None)}
                if not exprs:
                    acc.add(const(None))
                out = _cap(acc)
        finally:
            self._active.discard(("r", key))
        out = self._share(out)
        if self._partial == partial:
            self._returns[key] = out
        return out

    def call_names(self, fi: int, cid: int) -> Tuple[str, ...]:
        """Qualified names a call answers to, most specific first.

        A method call on an instance answers to ``Type.method`` for the instance's type and
        each of its framework bases, so a pattern on a base class matches subclasses too.
        Calls whose receiver cannot be typed answer to ``?.method``.
        """
        key = (fi, cid)
        hit = self._names.get(key)
        if hit is not None:
            return hit
        call = self.files[fi].calls[cid]
        names: List[str] = []
        partial = self._partial

        def add(n: str) -> None:
            if n and n not in names:
                names.append(n)

        for v in ordered(self.callee_values(fi, cid)):
            if isinstance(v, Ext):
                add(v.qual)
            elif isinstance(v, (Func, Cls)):
                add(self.project_qual(v))
            elif isinstance(v, Bound):
                method = call.func[2] if call.func[0] == "attr" else ""
                if isinstance(v.func, Ext):
                    add(v.func.qual)
                else:
                    add(self.project_qual(v.func))
                t = v.recv.type if isinstance(v.recv, Obj) else None
                if _is_super_call(self, fi, call):
                    t = None  # super().m() is the base's m, not the subclass's
                if method:
                    for q in self.type_quals(t):
                        add(f"{q}.{method}")
                    if isinstance(t, Cls) and self._unknown_framework(t):
                        # derived from a library class the tables do not describe (mindspore_gl's
                        # GNNCell, itself a Cell): its framework methods are unknown, not absent
                        add(f"?.{method}")
            elif isinstance(v, Obj):
                for q in self.type_quals(v.type):
                    add(f"{q}.__call__")
        if not names and call.func[0] == "attr":
            add(f"?.{call.func[2]}")
        elif not names and call.func[0] == "name":
            add(f"?.{call.func[1]}")  # a local whose value is unknown, e.g. a function made by value_and_grad
        result = tuple(names)
        if self._partial == partial:
            self._names[key] = result
        return result

    def _unknown_framework(self, c: Cls) -> bool:
        """Project class ``c`` derives from library classes, none of which the API tables know."""
        bases = self.framework_bases(c)
        return bool(bases) and all(self.apis.get(q) is None for q in bases)

    def type_quals(self, t: Optional[Value]) -> List[str]:
        """The qualified names of a type and its bases (project names first)."""
        if isinstance(t, Ext):
            return list(self.apis.mro(t.qual))
        if isinstance(t, Cls):
            return [self.project_qual(k) for k in self.project_mro(t)] + list(self.framework_bases(t))
        return []

    def call_targets(self, fi: int, cid: int) -> List[Tuple[Func, bool]]:
        """Project functions a call runs, with whether ``self`` is bound implicitly:
        functions, bound methods, constructors (``__init__``) and instance calls
        (``__call__`` or the framework's ``construct``/``forward``/``call``)."""
        out: List[Tuple[Func, bool]] = []
        for v in ordered(self.callee_values(fi, cid)):
            if isinstance(v, Func):
                out.append((v, False))
            elif isinstance(v, Bound) and isinstance(v.func, Func):
                out.append((v.func, True))
            elif isinstance(v, Cls):
                for iv in self.class_attr(v, "__init__", None):
                    if isinstance(iv, Func):
                        out.append((iv, True))
            elif isinstance(v, Obj) and isinstance(v.type, Cls):
                names = ["__call__"]
                for q in self.framework_bases(v.type):
                    m = self.apis.call_method(q)
                    if m != "__call__":
                        names.append(m)
                        break
                for name in names:
                    hit = [iv for iv in self.class_attr(v.type, name, None) if isinstance(iv, Func)]
                    if hit:
                        out.extend((h, True) for h in hit)
                        break
        return out

    def instance_callers(self, f: Func) -> List[Tuple[int, int]]:
        """Instance calls that run method ``f`` (``net(x)`` runs ``construct``/``forward``/``call``)."""
        fact = self.files[f.file].funcs[f.index]
        if fact.kind != "method" or fact.name not in _INSTANCE_METHODS:
            return []
        return self.resolved_callers(f)

    def import_aliases(self, name: str) -> Tuple[str, ...]:
        """Names the project imports ``name`` under (``import ... as``), sorted."""
        aliases = self._built.get("import_aliases")
        if aliases is None:
            acc: Dict[str, Set[str]] = {}
            for facts in self.files:
                for imp in facts.imports:
                    if imp.name and imp.asname and imp.name != "*" and imp.asname != imp.name:
                        acc.setdefault(imp.name, set()).add(imp.asname)
            aliases = self._built["import_aliases"] = {k: tuple(sorted(v)) for k, v in acc.items()}
        return aliases.get(name, ())

    def resolved_callers(self, f: Func) -> List[Tuple[int, int]]:
        """Every call that runs project function ``f``, whatever name it is called by
        (``step_fn = train_step if a else b; step_fn(x)``, instance calls, constructors).

        The first question resolves every call of the project once and indexes the calls by
        the functions they run; later questions are dictionary lookups."""
        index = self._built.get("instance")
        if index is None:
            if self._building_instance:
                self._partial += 1   # asked while the index is being built: not known yet
                return []
            self._building_instance = True
            try:
                index = self._built["instance"] = self.top_level(self._build_instance_index)
            finally:
                self._building_instance = False
        return index.get(f, [])

    def _build_instance_index(self) -> Dict[Func, List[Tuple[int, int]]]:
        index: Dict[Func, List[Tuple[int, int]]] = {}
        for gfi, facts in enumerate(self.files):
            for cid in range(len(facts.calls)):
                for t, _ in self.call_targets(gfi, cid):
                    bucket = index.setdefault(t, [])
                    if not bucket or bucket[-1] != (gfi, cid):
                        bucket.append((gfi, cid))
        return index

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

    def name_sites(self, name: str) -> List[Tuple[int, int]]:
        """Every call ``(file, call)`` whose callee is written with this last name, project-wide."""
        index = self._built.get("name_sites")
        if index is None:
            index = {}
            for gfi, facts in enumerate(self.files):
                for k, ids in facts.callee_index.items():
                    index.setdefault(k, []).extend((gfi, cid) for cid in ids)
            self._built["name_sites"] = index
        return index.get(name, [])

    def calling_scopes(self, seeds: Iterable[Tuple[int, int]], *, instances: bool = False,
                       lexical: bool = False, resolved: bool = False) -> Set[Tuple[int, int]]:
        """Scopes ``(file, function)`` from which a seed scope can be reached: the seeds and,
        transitively, the scopes of their call sites (``instances``: also instance calls that
        run a ``construct``/``forward``; ``lexical``: also the function a nested function or
        lambda is defined in, which may call it through a name we cannot see; ``resolved``:
        also calls that run it under another name, such as a parameter it is passed as)."""
        out: Set[Tuple[int, int]] = set()
        todo = list(seeds)
        while todo:
            site = todo.pop()
            if site in out:
                continue
            out.add(site)
            fi, scope = site
            if scope == 0:
                continue
            f = self.files[fi].funcs[scope]
            if f.kind == "class":
                continue
            for cfi, cid, _ in self.callers(Func(fi, scope)):
                todo.append((cfi, self.files[cfi].calls[cid].scope))
            if instances:
                for cfi, cid in self.instance_callers(Func(fi, scope)):
                    todo.append((cfi, self.files[cfi].calls[cid].scope))
            if resolved:
                for cfi, cid in self.resolved_callers(Func(fi, scope)):
                    todo.append((cfi, self.files[cfi].calls[cid].scope))
            if lexical and (f.kind == "lambda" or f.parent > 0):
                todo.append((fi, f.parent))
        return out

    # ------------------------------------------------------------------ parameters and call sites
    def signature_of(self, v: Value, version: Optional[Tuple[int, ...]] = None) -> Tuple[Optional[Sequence[ApiParam]], bool]:
        """Parameters of a callee value and whether the first one is bound implicitly (self)."""
        if isinstance(v, Func):
            f = self.files[v.file].funcs[v.index]
            return [ApiParam(p.name, p.kind, p.default if p.default is not None else NO_DEFAULT) for p in f.params], False
        if isinstance(v, Bound) and isinstance(v.func, Func):
            f = self.files[v.func.file].funcs[v.func.index]
            params = [ApiParam(p.name, p.kind, p.default if p.default is not None else NO_DEFAULT) for p in f.params]
            return params, True
        if isinstance(v, Cls):
            init = self.class_attr(v, "__init__", None)
            for iv in init:
                if isinstance(iv, Func):
                    sig, _ = self.signature_of(iv)
                    return sig, True
                if isinstance(iv, Ext):
                    api = self.apis.get(iv.qual.rsplit(".", 1)[0])
                    return (api.signature(version) if api else None), False
            return None, False
        if isinstance(v, Ext):
            api = self.apis.get(v.qual)
            return (api.signature(version) if api else None), False
        if isinstance(v, Bound) and isinstance(v.func, Ext):
            api = self.apis.get(v.func.qual)
            return (api.signature(version) if api else None), False
        return None, False

    def callers(self, f: Func) -> List[Tuple[int, int, BoundArgs]]:
        """Call sites of project function ``f`` with their arguments bound to its parameters."""
        key = (f.file, f.index)
        hit = self._callers.get(key)
        if hit is not None:
            return hit
        if ("callers", key) in self._active:
            self._partial += 1
            return []
        self._active.add(("callers", key))
        try:
            return self._callers_uncached(f, key)
        finally:
            self._active.discard(("callers", key))

    def _callers_uncached(self, f: Func, key: Tuple[int, int]) -> List[Tuple[int, int, BoundArgs]]:
        fact = self.files[f.file].funcs[f.index]
        keys = [fact.name]
        if fact.kind == "method" and fact.name == "__init__":
            keys.append(self.files[f.file].classes[fact.cls].name)
        # `from src.dataset import create_dataset1 as create_dataset`: called by its alias
        keys += [a for k in list(keys) for a in self.import_aliases(k) if a not in keys]
        params = [ApiParam(p.name, p.kind, NO_DEFAULT) for p in fact.params]
        out: List[Tuple[int, int, BoundArgs]] = []
        seen: Set[Tuple[int, int]] = set()
        for k in keys:
            for gfi, cid, self_bound in self._resolved_sites(k).get(f, ()):
                if (gfi, cid) not in seen:
                    seen.add((gfi, cid))
                    out.append((gfi, cid, bind_args(self.files[gfi].calls[cid].args, params, self_bound)))
        out.sort(key=lambda t: (t[0], t[1]))
        if any(k in self._resolving for k in keys):   # partial: asked while its sites were being resolved
            self._partial += 1
        else:
            self._callers[key] = out
        return out

    def _resolved_sites(self, name: str) -> Dict[Func, List[Tuple[int, int, bool]]]:
        """The calls written with this last name, grouped by the project function they run
        (with whether ``self`` is bound): each site is resolved once per run, however many
        functions share the name (every ``__init__`` is reached by ``super().__init__()``)."""
        hit = self._by_name.get(name)
        if hit is not None:
            return hit
        index: Dict[Func, List[Tuple[int, int, bool]]] = {}
        # Resolving a site can ask for the callers of a function of the same name (a
        # parameter's values); that inner question sees the sites resolved so far, as the
        # per-function cycle cut did before.
        self._by_name[name] = index
        self._resolving.add(name)
        for gfi, cid in self.name_sites(name):
            for v in self.callee_values(gfi, cid):
                if isinstance(v, Func):
                    index.setdefault(v, []).append((gfi, cid, False))
                elif isinstance(v, Bound) and isinstance(v.func, Func):
                    index.setdefault(v.func, []).append((gfi, cid, True))
                elif isinstance(v, Cls):
                    for x in self.class_attr(v, "__init__", None):
                        if isinstance(x, Func):
                            index.setdefault(x, []).append((gfi, cid, True))
        self._resolving.discard(name)
        return index

    def expand_params(self, vals: FrozenSet[Value]) -> FrozenSet[Value]:
        """Replace parameters by what their call sites pass, transitively (cycles cut)."""
        out: Set[Value] = set()
        todo = list(vals)
        seen: Set[Param] = set()
        while todo:
            v = todo.pop()
            if isinstance(v, Param):
                if v in seen or len(seen) > 64:
                    continue
                seen.add(v)
                todo.extend(self.param_values(v))
            else:
                out.add(v)
        return _cap(out) if out else _EMPTY

    def param_values(self, p: Param) -> FrozenSet[Value]:
        """Values a parameter receives: from every known call site, else its default. Memoised
        unless a cycle or the depth bound cut the answer short: a transformer library's
        configuration objects pass through dozens of constructors, and without the memo every
        constant question walked the same parameter graph again (hours on such a tree)."""
        hit = self._params.get(p)
        if hit is not None:
            return hit
        key = ("p", p)
        if key in self._active or self._depth > _MAX_DEPTH * 4:
            self._param_cuts += 1
            return _EMPTY
        cuts, partial = self._param_cuts, self._partial
        out = self._param_values_uncached(p, key)
        if self._param_cuts == cuts and self._partial == partial:
            self._params[p] = out
        return out

    def _param_values_uncached(self, p: Param, key: Any) -> FrozenSet[Value]:
        self._active.add(key)
        try:
            fact = self.files[p.file].funcs[p.func]
            param = next((x for x in fact.params if x.name == p.name), None)
            if param is None:
                return _EMPTY
            acc: Set[Value] = set()
            sites = self.callers(Func(p.file, p.func))
            for cfi, cid, bound in sites:
                a = bound.get(p.name)
                if a is not None:
                    acc |= self.values(cfi, self.files[cfi].calls[cid].scope, a.value)
                elif param.default is not None:
                    acc |= self.values(p.file, fact.parent, param.default)
                else:
                    acc.add(UNKNOWN)
            if not sites and param.default is not None:
                acc |= self.values(p.file, fact.parent, param.default)
            return _cap(acc)
        finally:
            self._active.discard(key)

    # ------------------------------------------------------------------ constant propagation
    def constants(self, fi: int, scope: int, e: Expr, depth: int = 0) -> Tuple[List[Valued], bool]:
        """Constant values ``e`` may take, with provenance; the flag says all paths are known.

        Follows local and module bindings, attributes of project modules, classes, records
        (``EasyDict``, argparse defaults), parameters (through call sites, or the default
        when no call site is known) and arithmetic over all combinations.

        Memoised per expression (and hypothesis) unless the depth bound or a cycle cut the
        answer short: a value reached through many definitions and call sites (a library's
        configuration objects) was otherwise recomputed for every path to it, exponentially.
        """
        tag = e[0]
        if tag == "const":
            return [Valued(e[1], self.files[fi].path, 0, "")], True
        key = (fi, scope, id(e))
        hit = self._consts.get(key)
        if hit is not None:
            return list(hit[0]), hit[1]
        if depth > _MAX_DEPTH or key in self._const_active:
            self._const_cuts += 1
            return [], False
        cuts = self._const_cuts
        self._const_active.add(key)
        try:
            vals, known = self._constants_uncached(fi, scope, e, depth)
        finally:
            self._const_active.discard(key)
        if self._const_cuts == cuts:
            self._consts[key] = (tuple(vals), known)
        return vals, known

    def _constants_uncached(self, fi: int, scope: int, e: Expr, depth: int) -> Tuple[List[Valued], bool]:
        tag = e[0]
        h = self.store.hypothesis
        if h.pinned:
            pin = h.pin(id(e))
            if pin is not None:
                return list(pin), True
        if tag == "config":
            value, line = e[1].items[e[2]]
            if isinstance(value, ConfigMap):
                return [], False
            return [Valued(value, _display(e[1].path), line, f"{CONFIG_VALUE}{e[2]}")], True
        if tag in ("binop", "unary"):
            return self._const_arith(fi, scope, e, depth)
        if tag == "ifexp":
            a, ka = self.constants(fi, scope, e[2], depth + 1)
            b, kb = self.constants(fi, scope, e[3], depth + 1)
            return a + b, ka and kb
        if tag == "call":
            call = self.files[fi].calls[e[1]]
            names = self.call_names(fi, e[1])
            if names and names[0] in ("builtins.float", "builtins.int") and len(call.args) == 1:
                vals, known = self.constants(fi, call.scope, call.args[0].value, depth + 1)
                conv = float if names[0].endswith("float") else int
                out = []
                for v in vals:
                    try:
                        out.append(v._replace(value=conv(v.value)))
                    except (TypeError, ValueError):
                        known = False
                return out, known
            return [], False
        if tag in ("name", "attr"):
            return self._const_ref(fi, scope, e, depth)
        if tag == "subscript" and e[2][0] == "const" and isinstance(e[2][1], int):
            # `args.scale[0]` with `scale: [2]` in the configuration
            vals, known = self.constants(fi, scope, e[1], depth + 1)
            out = []
            for v in vals:
                if isinstance(v.value, tuple) and -len(v.value) <= e[2][1] < len(v.value):
                    out.append(v._replace(value=v.value[e[2][1]]))
                else:
                    known = False
            return out, known and bool(out)
        return [], False

    def vector(self, fi: int, scope: int, e: Expr, depth: int = 0) -> Optional[Tuple[float, ...]]:
        """The one numeric vector ``e`` stands for, or None: a list/tuple of constants, a name bound
        to one (on every path), or ``[x * k for x in V]`` — how pixel means and stds are written."""
        if depth > _MAX_DEPTH:
            return None
        tag = e[0]
        def number(x: Expr) -> Optional[float]:
            vals, known = self.constants(fi, scope, x, depth + 1)
            nums = {v.value for v in vals}
            if not known or len(nums) != 1:
                return None
            v = nums.pop()
            return float(v) if type(v) in (int, float) else None

        if tag == "seq":
            items = [number(el) for el in e[2]]
            nums = [v for v in items if v is not None]
            return tuple(nums) if len(nums) == len(items) else None
        if tag in ("name", "attr"):
            found = set()
            for sfi, sscope, sexpr, _, _ in self.defining_exprs(fi, scope, e):
                found.add(self.vector(sfi, sscope, sexpr, depth + 1) if sexpr is not None else None)
            return found.pop() if len(found) == 1 else None
        if tag == "comp" and e[1] in ("list", "tuple", "generator") and len(e[3]) == 1:
            target, it = e[3][0]
            base = self.vector(fi, scope, it, depth + 1)
            if base is None or target[0] != "name":
                return None
            out: List[float] = []
            for x in base:
                y = _eval_with(e[2], target[1], x, number)
                if y is None:
                    return None
                out.append(y)
            return tuple(out)
        return None

    def _const_arith(self, fi: int, scope: int, e: Expr, depth: int) -> Tuple[List[Valued], bool]:
        if e[0] == "unary":
            vals, known = self.constants(fi, scope, e[2], depth + 1)
            out = []
            for v in vals:
                if e[1] == "-" and type(v.value) in (int, float):
                    out.append(v._replace(value=-v.value))
                elif e[1] == "not":
                    out.append(v._replace(value=not v.value))
                else:
                    known = False
            return out, known
        fn = _ARITH.get(e[1])
        left, kl = self.constants(fi, scope, e[2], depth + 1)
        right, kr = self.constants(fi, scope, e[3], depth + 1)
        out = []
        known = kl and kr and fn is not None
        for a in left[:8]:
            for b in right[:8]:
                if fn is None or type(a.value) not in (int, float) or type(b.value) not in (int, float):
                    known = False
                    continue
                try:
                    r = fn(a.value, b.value)
                except (ArithmeticError, ValueError):
                    r = None
                if r is None:
                    known = False
                    continue
                src = a if a.via or a.line else b
                out.append(Valued(r, src.path, src.line, src.via))
        return out, known

    def _const_ref(self, fi: int, scope: int, e: Expr, depth: int) -> Tuple[List[Valued], bool]:
        """Constants behind a name or attribute: follow bindings to their defining expressions."""
        sources = self.defining_exprs(fi, scope, e)
        if not sources:
            return [], False
        out: List[Valued] = []
        known = True
        for sfi, sscope, sexpr, line, via in sources:
            if sexpr is None:
                known = False
                continue
            vals, k = self.constants(sfi, sscope, sexpr, depth + 1)
            known = known and k
            for v in vals:
                if not v.line:
                    v = Valued(v.value, self.files[sfi].path, line, via)
                elif via and not v.via:
                    # Keep where the literal is written, and say how it got here.
                    v = v._replace(via=via)
                out.append(v)
        return out, known

    def defining_exprs(self, fi: int, scope: int, e: Expr) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        """Expressions that may define the value of a name/attribute: (file, scope, expr, line, via)."""
        if e[0] == "name":
            ids = e[2]
            if not ids:
                return self._free_defs(fi, scope, e[1])
            return [d for aid in ids for d in self._assign_defs(fi, aid)]
        if e[0] == "attr":
            out: List[Tuple[int, int, Optional[Expr], int, str]] = []
            for base in ordered(self.expand_params(self.values(fi, scope, e[1]))):
                if isinstance(base, Mod):
                    out += self._global_defs(base.file, e[2])
                elif isinstance(base, Record):
                    via = f"{ARGPARSE_DEFAULT} of --{e[2]}" if base.kind == "argparse" else ""
                    for fname, (rfi, rscope, expr) in base.fields:
                        if fname == e[2]:
                            line = expr[1].items[expr[2]][1] if expr[0] == "config" else self._expr_line(rfi, expr, base)
                            out.append((rfi, rscope, expr, line, via))
                    if base.kind in ("argparse", "config"):
                        out += self._record_writes(base, e[2])
                elif isinstance(base, (Cls, Obj)):
                    c = base if isinstance(base, Cls) else base.type
                    if isinstance(c, Cls):
                        out += self._class_defs(c, e[2], instance=isinstance(base, Obj))
                else:
                    out.append((fi, scope, None, 0, ""))
            return out
        return []

    def _expr_line(self, fi: int, expr: Expr, rec: Record) -> int:
        if expr[0] == "call":
            return self.files[fi].calls[expr[1]].line
        return self.files[rec.file].calls[rec.call].line if rec.call >= 0 else 0

    def _record_writes(self, rec: Record, name: str) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        """Values the program writes into a parsed namespace or loaded configuration after the
        fact (``args.pad_mode = "CONSTANT"`` on Ascend, ``config.run_distribute = False``): the
        field may hold them as well as its default (flow-insensitive, so never fewer values)."""
        writes = self._built.get("writes")
        if writes is None:
            writes = {}
            for wfi, facts in enumerate(self.files):
                for aid, a in enumerate(facts.assigns):
                    if a.target[0] == "attr":
                        writes.setdefault(a.target[2], []).append((wfi, aid))
            self._built["writes"] = writes
        key = ("writes", rec, name)
        hit = self._written.get(key)
        if hit is not None:
            return hit
        if key in self._active:
            return []
        # only the program around the record writes into it: files under its model folder (the
        # folder of the module, above `src/`, `model_utils/`, ... helpers)
        d = os.path.dirname(self.abspaths[rec.file]) if rec.file >= 0 else ""
        while os.path.basename(d) in _HELPER_FOLDERS:
            d = os.path.dirname(d)
        self._active.add(key)
        try:
            out: List[Tuple[int, int, Optional[Expr], int, str]] = []
            for wfi, aid in writes.get(name, ()):
                if not self.abspaths[wfi].startswith(d + os.sep):
                    continue
                a = self.files[wfi].assigns[aid]
                if rec in self.expand_params(self.values(wfi, a.scope, a.target[1])):
                    out.append((wfi, a.scope, a.value, a.line, ""))
        finally:
            self._active.discard(key)
        self._written[key] = out
        return out

    def _assign_defs(self, fi: int, aid: int) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        a = self.files[fi].assigns[aid]
        v = a.value
        tag = v[0]
        if tag == "param":
            return self._param_defs(Param(fi, v[1], v[2]))
        if tag == "import":
            imp = self.files[fi].imports[v[1]]
            if imp.name is not None:
                target = self.file_of(fi, imp.module, imp.level)
                if target is not None and target >= 0:
                    return self._global_defs(target, imp.name)
            return [(fi, a.scope, None, a.line, "")]  # a module or an external name: no constant
        if tag in ("def", "class", "iter", "except", "enter"):
            return [(fi, a.scope, None, a.line, "")]
        if tag == "unpack":
            src = v[1]
            if src[0] == "seq" and isinstance(v[2], int) and v[2] < len(src[2]):
                return [(fi, a.scope, src[2][v[2]], a.line, "")]
            return [(fi, a.scope, None, a.line, "")]
        return [(fi, a.scope, v, a.line, "")]

    def _free_defs(self, fi: int, scope: int, name: str) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        funcs = self.files[fi].funcs
        f = funcs[scope]
        if scope != 0 and f.defs.get(name):
            return [d for aid in f.defs[name] for d in self._assign_defs(fi, aid)]
        p = f.parent
        while p > 0:
            pf = funcs[p]
            if pf.kind != "class" and pf.defs.get(name):
                return [d for aid in pf.defs[name] for d in self._assign_defs(fi, aid)]
            p = pf.parent
        return self._global_defs(fi, name)

    def _global_defs(self, fi: int, name: str, seen: FrozenSet[int] = frozenset()) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        ids = self.files[fi].funcs[0].defs.get(name)
        if ids:
            key = ("globaldefs", fi, name)
            if key in self._active:
                # an import cycle (`from b import x` in a, `from a import x` in b — common where
                # many projects' same-named modules meet): the name has no value along it
                self._partial += 1
                return [(fi, 0, None, 0, "")]
            self._active.add(key)
            try:
                return [d for aid in ids for d in self._assign_defs(fi, aid)]
            finally:
                self._active.discard(key)
        for imp in reversed(self._star_imports(fi)):
            target = self.file_of(fi, imp.module, imp.level)
            if target is not None and target >= 0 and target not in seen:
                found = self._global_defs(target, name, seen | {fi})
                if found:
                    return found
        return []

    def _class_defs(self, c: Cls, name: str, instance: bool) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        for k in self.project_mro(c):
            cf = self.files[k.file].classes[k.index]
            if instance and cf.attrs.get(name):
                return [d for aid in cf.attrs[name] for d in self._assign_defs(k.file, aid)]
            ids = self.files[k.file].funcs[cf.body].defs.get(name)
            if ids:
                return [d for aid in ids for d in self._assign_defs(k.file, aid)]
        return []

    def _param_defs(self, p: Param) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        fact = self.files[p.file].funcs[p.func]
        param = next((x for x in fact.params if x.name == p.name), None)
        if param is None:
            return []
        h = self.store.hypothesis
        assume = h.assumed
        if p.name in assume:
            return [(p.file, p.func, ("const", assume[p.name]), fact.line, f"assuming {p.name}={assume[p.name]!r}")]
        out: List[Tuple[int, int, Optional[Expr], int, str]] = []
        sites = self.callers(Func(p.file, p.func))
        if h.site_filter is not None and sites:
            # deciding a branch: call sites no program runs (`resnet18(res_base=True)` when only
            # resnet50 is built) do not make the branch live; all of them when none is run
            live = [x for x in sites if h.site_filter(x[0], x[1])]
            sites = live or sites
        where = fact.qualname
        for cfi, cid, bound in sites:
            call = self.files[cfi].calls[cid]
            a = bound.get(p.name)
            if a is not None:
                out.append((cfi, call.scope, a.value, a.line, f"passed to '{p.name}' at {self.files[cfi].path}:{call.line}"))
            elif bound.uncertain:
                out.append((cfi, call.scope, None, call.line, ""))
            elif param.default is not None:
                out.append((p.file, fact.parent, param.default, fact.line,
                            f"default of parameter '{p.name}' of {where} (call at {self.files[cfi].path}:{call.line})"))
            else:
                out.append((cfi, call.scope, None, call.line, ""))
        if not sites:
            # No call site is known (the function may be called through a dynamic dispatch):
            # its default is not evidence of the value actually used.
            out.append((p.file, fact.parent, None, fact.line, ""))
        return out


def _is_super_call(project: "Project", fi: int, call: CallFact) -> bool:
    base = call.func[1] if call.func[0] == "attr" else None
    return base is not None and base[0] == "call" and \
        project.call_names(fi, base[1])[:1] == ("builtins.super",)
