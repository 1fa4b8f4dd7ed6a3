"""Stage 3e (program model): path conditions — under which branch conditions a program runs a
call, so that a rule combines facts only when one path of one program can hold them all.

A call's conditions are the ``if`` tests around it, in its function and, up the call chain,
around every call that leads to it from the entry script (an implicit ``else`` after
``if x: return`` included). A test becomes atoms: ``args.distribute`` true/false,
``device_target == "GPU"`` and its negation; ``not``, ``and`` (when true) and ``or`` (when
false) are taken apart, anything else is one opaque atom. Two atoms are exclusive when they
are about the same thing and cannot hold together: opposite truth values, or equality with
two different constants. Two calls are on one path when some chain to each has no exclusive
pair of atoms.

An operand is named where it is defined: a local or a parameter with a single definition stands
for it (``df`` bound only to ``self.df``, itself only set from ``par.distribution_flag``), so
tests on one flag in different functions agree. Atoms about local variables left after that
are compared within one function only; atoms about module-level names across functions. Anything
unknown (a call reached by no chain, too many chains) counts as compatible: the question is
asked to silence findings, never to make them.

A branch is dead when the shipped values decide its test the other way: constants, configuration,
what launchers pass to options, and ``param is None`` when every call site in the project passes
that parameter an object (a library's default loss that every caller replaces).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

from linter.core.memo import Hypothesis
from linter.facts.ir import child_blocks, sub_exprs, walk
from linter.facts.model import Expr, Stmt
from linter.index.project import ARGPARSE_DEFAULT, CONFIG_VALUE, NO_COMMAND_LINE
from linter.index.values import Cls, Ext, Func, Obj
from linter.program.launchers import Launchers

if TYPE_CHECKING:
    from linter.program.roles import Roles

Atom = Tuple[Any, str, Any, bool]
"""(key, kind, constant, holds): key names what is tested (``(file, scope, text)`` for
locals, ``text`` for module-level names); kind ``truth`` or ``eq``."""
Alternatives = Optional[List[FrozenSet[Atom]]]
"""The atom sets of the chains that reach a call; None: unknown (no constraint)."""

_MAX_CHAINS = 32
_MAX_DEPTH = 12


_EXITS = frozenset(("exit", "quit", "builtins.exit", "builtins.quit", "sys.exit", "os._exit"))
"""Calls that end the program: nothing after them in their block runs."""


class PathConditions:
    _TRANSIENT = ("_deciding",)
    """Cycle guards, empty between questions; every answer lives in the project's store."""

    def __init__(self, roles: "Roles") -> None:
        self.roles = roles
        self.p = roles.p
        store = self.p.store
        self._memo: Dict[Tuple[int, int, int], Alternatives] = store.table("paths.conditions")
        self._atoms: Dict[Tuple[int, int, int], FrozenSet[Atom]] = store.table("paths.atoms")
        self._dead: Dict[Tuple[int, int, int], bool] = store.table("paths.dead")
        self._if_stmts: Dict[Tuple[int, int], Dict[int, int]] = store.table("paths.if_stmts")
        self._deciding: set = set()
        """Branch decisions being made (a cycle guard, empty between questions)."""
        self._built: Dict[str, Any] = store.table("paths.built")
        self._exits: Dict[Tuple[int, int], FrozenSet[int]] = store.table("paths.after_exit")
        self.launchers = Launchers(self.p.configs.read, self.p.configs.listdir, store, self._parsed_mentions)
        self._ifexps: Dict[Tuple[int, int], Dict[int, List[Tuple[Expr, bool]]]] = store.table("paths.ifexps")

    def _parsed_mentions(self, folder: str) -> Dict[str, bool]:
        by_folder = self._built.get("mentions")
        if by_folder is None:
            by_folder = self._built["mentions"] = {}
            for path, facts in zip(self.p.abspaths, self.p.files):
                by_folder.setdefault(os.path.dirname(path), {})[os.path.basename(path)] = facts.mentions_pytorch
        return by_folder.get(os.path.normpath(folder), {})

    # ------------------------------------------------------------------ questions
    def compatible(self, entry: int, a: Tuple[int, int], b: Tuple[int, int]) -> bool:
        """Calls ``a`` and ``b`` (file, call) can both run on one path of ``entry``'s program."""
        alt_a = self.call_conditions(entry, *a)
        alt_b = self.call_conditions(entry, *b)
        if alt_a is None or alt_b is None:
            return True
        return any(not _exclusive(x, y) for x in alt_a for y in alt_b)

    def call_conditions(self, entry: int, fi: int, cid: int) -> Alternatives:
        call = self.p.files[fi].calls[cid]
        return self._conditions(entry, fi, call.scope, call.stmt, 0)

    # ------------------------------------------------------------------ chains
    def _conditions(self, entry: int, fi: int, scope: int, stmt: int, depth: int) -> Alternatives:
        local = self.stmt_atoms(fi, scope, stmt)
        outer = self._scope_conditions(entry, fi, scope, depth)
        if outer is None:
            return None
        return [local | o for o in outer]

    def _scope_conditions(self, entry: int, fi: int, scope: int, depth: int) -> Alternatives:
        """Conditions under which ``entry``'s program runs function ``scope`` of file ``fi``."""
        key = (entry, fi, scope)
        return self.p.memo(self._memo, key, lambda: self.p.guard(("paths", key), lambda: self._scope_bounded(entry, fi, scope, depth), None))

    def _scope_bounded(self, entry: int, fi: int, scope: int, depth: int) -> Alternatives:
        out = self._scope_uncached(entry, fi, scope, depth)
        return None if out is not None and len(out) > _MAX_CHAINS else out

    def _scope_uncached(self, entry: int, fi: int, scope: int, depth: int) -> Alternatives:
        if depth > _MAX_DEPTH:
            return None
        roles = self.roles
        if scope == 0:
            return [frozenset()] if entry in roles.importing_entries(fi) else []
        f = self.p.files[fi].funcs[scope]
        if f.kind == "class":
            return self._scope_conditions(entry, fi, f.parent, depth + 1)
        out: List[FrozenSet[Atom]] = []
        seen = set()
        for cfi, cscope, cstmt in roles.caller_statements(fi, scope):
            if entry not in roles.reaching_entries(cfi, cscope):
                continue
            sub = self._conditions(entry, cfi, cscope, cstmt, depth + 1) if cstmt >= 0 \
                else self._scope_conditions(entry, cfi, cscope, depth + 1)
            if sub is None:
                return None
            for s in sub:
                if s not in seen:
                    seen.add(s)
                    out.append(s)
            if len(out) > _MAX_CHAINS:
                return None
        return out or None

    # ------------------------------------------------------------------ decided branches
    def dead(self, fi: int, scope: int, stmt: int) -> bool:
        """Statement ``stmt`` lies in a branch that is never taken: an enclosing test that
        constant propagation decides the other way on every path (every call site passes
        ``norm=None`` to ``if norm == "batch":``; a shipped config sets ``drop_rate: 0.0``)."""
        def compute() -> bool:
            if stmt in self.after_exit(fi, scope):
                return True
            guards = self.roles.guards(fi, scope).get(stmt, ())
            return any(self.decided(fi, scope, test, self._test_stmt(fi, scope, test)) is (not positive)
                       for test, positive in guards) or self._jointly_false(fi, scope, guards)
        return self.p.memo(self._dead, (fi, scope, stmt), compute)

    def after_exit(self, fi: int, scope: int) -> FrozenSet[int]:
        """Statements of a function (or module code) that follow, in their block, one that always
        ends it: `return`, `raise`, or a call of `exit()`/`quit()`/`sys.exit()`/`os._exit()` (a
        debugging `exit()` left before the training code). Nested statements of those are dead
        too; a terminator inside a branch ends that branch only."""
        hit = self._exits.get((fi, scope))
        if hit is not None:
            return hit
        facts = self.p.files[fi]
        out: Set[int] = set()

        def ends(st: Stmt) -> bool:
            if st[0] in ("return", "raise"):
                return True
            if st[0] == "expr" and isinstance(st[2], tuple) and st[2] and st[2][0] == "call":
                return any(n in _EXITS for n in self.p.call_names(fi, st[2][1]))
            return False

        def visit(block: Sequence[Stmt]) -> None:
            ended = False
            for st in block:
                if ended:
                    out.update(s[1] for s in walk((st,)))
                    continue
                for b in child_blocks(st):
                    visit(b)
                ended = ends(st)

        visit(facts.funcs[scope].body)
        frozen = frozenset(out)
        self._exits[(fi, scope)] = frozen
        return frozen

    def _jointly_false(self, fi: int, scope: int, guards: Any) -> bool:
        """Tests on one operand that no single value passes together: the ``else`` of ``if
        device == "Ascend": ... elif device == "GPU": ...`` when the device is Ascend or GPU on
        every path, although neither test alone is decided."""
        groups: Dict[str, List[Tuple[str, Expr, bool]]] = {}
        for test, positive in guards:
            if test[0] == "compare" and len(test[1]) == 1 and test[1][0] in ("==", "!=", "in", "not in") \
                    and test[2][1][0] in ("const", "seq"):
                groups.setdefault(repr(test[2][0]), []).append((test[1][0], test, positive))
        for tests in groups.values():
            if len(tests) < 2:
                continue
            with self._deciding_values():
                operand = tests[0][1][2][0]
                values = self._values(fi, scope, operand, self._test_stmt(fi, scope, tests[0][1]))
                rights = [self._values(fi, scope, t[2][1], -1) if t[2][1][0] == "const"
                          else self._members(fi, scope, t[2][1], -1) for _, t, _ in tests]
            firsts = [r[0] for r in rights if r is not None and len(r) == 1]
            if not values or len(firsts) != len(rights):
                continue
            if all(any(_compare(op, v, r) is (not positive) for (op, _, positive), r in zip(tests, firsts))
                   for v in values):
                return True
        return False

    def dead_call(self, fi: int, cid: int) -> bool:
        """Call ``cid`` never runs: its statement is dead, or it is the branch of a conditional
        expression that constants decide the other way (``nn.BatchNorm2d(c) if bn else None``
        where every caller leaves ``bn=False``)."""
        call = self.p.files[fi].calls[cid]
        if self.dead(fi, call.scope, call.stmt):
            return True
        for test, positive in self._ifexp_guards(fi, call.scope, call.stmt).get(cid, ()):
            if self.decided(fi, call.scope, test, call.stmt) is (not positive):
                return True
        return False

    def ifexp_guards(self, fi: int, cid: int) -> List[Tuple[Expr, bool]]:
        """The tests of the conditional expressions around call ``cid`` in its statement:
        (test, True) in a ``then`` part, (test, False) in an ``else`` part."""
        call = self.p.files[fi].calls[cid]
        return list(self._ifexp_guards(fi, call.scope, call.stmt).get(cid, ()))

    def _ifexp_guards(self, fi: int, scope: int, stmt: int) -> Dict[int, List[Tuple[Expr, bool]]]:
        """Call id → the conditional-expression tests around it within statement ``stmt``."""
        key = (fi, stmt)
        hit = self._ifexps.get(key)
        if hit is not None:
            return hit
        facts = self.p.files[fi]
        out: Dict[int, List[Tuple[Expr, bool]]] = {}

        def visit(e: Any, guards: Tuple[Tuple[Expr, bool], ...], depth: int = 0) -> None:
            if not isinstance(e, tuple) or not e or depth > 30:
                return
            tag = e[0]
            if tag == "ifexp":
                visit(e[1], guards, depth + 1)
                visit(e[2], guards + ((e[1], True),), depth + 1)
                visit(e[3], guards + ((e[1], False),), depth + 1)
                return
            if tag == "call":
                if guards:
                    out.setdefault(e[1], []).extend(guards)
                c = facts.calls[e[1]]
                for a in c.args:
                    visit(a.value, guards, depth + 1)
                return
            if tag in ("const", "name", "lambda", "other"):
                return
            for x in sub_exprs(e):
                visit(x, guards, depth + 1)

        for a in facts.assigns:
            if a.stmt == stmt and a.value[0] not in ("param", "import", "def", "class"):
                visit(a.value, ())
        self._ifexps[key] = out
        return out

    def _test_stmt(self, fi: int, scope: int, test: Expr) -> int:
        """The statement id of the ``if`` whose test is ``test`` (-1 if not found)."""
        key = (fi, scope)
        table = self._if_stmts.get(key)
        if table is None:
            table = self._if_stmts[key] = {id(st[2]): st[1] for st in walk(self.p.files[fi].funcs[scope].body)
                                           if st[0] == "if"}
        return table.get(id(test), -1)

    def decided(self, fi: int, scope: int, e: Expr, before: int = -1) -> Optional[bool]:
        """The truth value of test ``e`` when every path gives the same one, else None.
        ``before``: the statement the test belongs to, so that ``self.x`` reads the value the
        method itself assigned last before it (``self.attn_drop = attn_drop`` then
        ``if self.attn_drop > 0.: self.attn_drop = nn.Dropout(...)``)."""
        with self._deciding_values():
            return self._decide(fi, scope, e, 0, before)

    @contextmanager
    def _deciding_values(self) -> Iterator[None]:
        """Values as a branch decision sees them: no parameter assumed by the question being
        asked (the answer must not depend on it), call sites only from code some program runs."""
        p = self.p
        with p.under(Hypothesis((), p.hypothesis.pinned, self._live_site)):
            yield

    def _live_site(self, fi: int, cid: int) -> bool:
        """A call site some program runs — or one whose programs are unknown, or asked about
        while it is being decided (a cycle: keep it, never drop a value on a guess)."""
        key = ("live-site", fi, cid)
        if key in self._deciding or not self.roles.in_program_tree(fi):
            return True
        self._deciding.add(key)
        try:
            return bool(self.roles.call_entries(fi, cid))
        finally:
            self._deciding.discard(key)

    def _decide(self, fi: int, scope: int, e: Expr, depth: int, before: int = -1) -> Optional[bool]:
        if depth > 8:
            return None
        tag = e[0]
        if tag == "unary" and e[1] == "not":
            r = self._decide(fi, scope, e[2], depth + 1, before)
            return None if r is None else not r
        if tag == "boolop":
            rs = [self._decide(fi, scope, x, depth + 1, before) for x in e[2]]
            if e[1] == "and":
                return False if False in rs else (True if all(r is True for r in rs) else None)
            return True if True in rs else (False if all(r is False for r in rs) else None)
        if tag == "compare" and len(e[1]) == 1 and e[1][0] in ("is", "is not") and e[2][1] == ("const", None):
            passed = self._passed_not_none(fi, scope, e[2][0])
            if passed:
                return e[1][0] == "is not"
        if tag == "compare" and len(e[1]) == 1:
            left = self._values(fi, scope, e[2][0], before)
            right = self._values(fi, scope, e[2][1], before)
            if right is None and e[1][0] in ("in", "not in") and e[2][1][0] == "seq":
                right = self._members(fi, scope, e[2][1], before)
            if left is None or right is None:
                return None
            out = set()
            for a in left:
                for b in right:
                    r = _compare(e[1][0], a, b)
                    if r is None:
                        return None
                    out.add(r)
            return out.pop() if len(out) == 1 else None
        vals = self._values(fi, scope, e, before)
        if not vals:
            return None
        truths = {bool(v) for v in vals}
        return truths.pop() if len(truths) == 1 else None

    def _passed_not_none(self, fi: int, scope: int, e: Expr) -> bool:
        """``e`` is a parameter of a function or a constructor (bound nowhere else) that every call
        site in the project passes explicitly, each with an object, a class or a function that is
        not None (`if loss_fn is None: loss_fn = default` where every caller passes its own loss):
        the shipped callers never take the `is None` branch. Undecided for other methods (the
        framework calls `construct`/`forward` itself), for a function or class also used as a value
        (a registry, a callback), with no call site, or one passing a constant, an unknown value or
        nothing."""
        if e[0] != "name" or len(e[2]) != 1:
            return False
        facts = self.p.files[fi]
        a = facts.assigns[e[2][0]]
        if a.value[0] != "param" or a.value[1] != scope:
            return False
        fact = facts.funcs[scope]
        func = Func(fi, scope)
        if fact.kind == "method" and fact.name != "__init__":
            return False   # the framework may run it (`construct`, `forward`, a hook) with the default
        target = Cls(fi, fact.cls) if fact.kind == "method" else func
        if fact.kind == "method" and fact.cls < 0 or self.roles.references(target):
            return False   # stored in a registry or passed on: built or called where no call site shows it
        sites = self.p.callers(func)
        if not sites:
            return False
        for cfi, cid, bound in sites:
            arg = bound.get(a.value[2])
            if arg is None:
                return False
            vals = self.p.values(cfi, self.p.files[cfi].calls[cid].scope, arg.value)
            if not vals or not all(isinstance(v, (Obj, Cls, Func, Ext)) for v in vals):
                return False
        return True

    def _members(self, fi: int, scope: int, seq: Expr, before: int) -> Optional[List[Any]]:
        """``("resnet18", "resnet34")`` on the right of ``in``: one tuple of every value its
        items may have; None when an item is unknown."""
        items: List[Any] = []
        for x in seq[2]:
            got = self._values(fi, scope, x, before)
            if got is None:
                return None
            items += got
        return [tuple(items)]

    def _values(self, fi: int, scope: int, e: Expr, before: int = -1) -> Optional[List[Any]]:
        if e[0] == "call":
            return self._conversion(fi, scope, e, before)
        if e[0] not in ("const", "name", "attr", "subscript", "binop", "unary"):
            return None
        vals: List[Any] = []
        known = True
        for x in self._own_attribute(fi, scope, e, before) or [e]:
            got, k = self.p.constants(fi, scope, x)
            vals += got
            known = known and k
        if not known or not vals:
            return None
        out = [v.value for v in vals]
        for v in vals:
            if v.via.startswith(ARGPARSE_DEFAULT):
                passed = [] if v.via.endswith(NO_COMMAND_LINE) else self._passed_values(v)
                if passed is None:
                    return None   # a command-line option's default: another run may pass anything
                out += passed
            elif v.via.startswith(CONFIG_VALUE) and self.launchers.starts_python(self.p.abspaths[fi]):
                # the zoo's config helpers make every top-level key a command-line option too
                passed = self.launchers.passed_values(self.p.abspaths[fi], v.via[len(CONFIG_VALUE):], v.value,
                                                      readmes=False)
                if passed is None:
                    return None
                out += passed
        return out

    def _conversion(self, fi: int, scope: int, e: Expr, before: int) -> Optional[List[Any]]:
        """``str(x).lower()``, ``int(x)``, ``x.strip()`` over known values — the zoo's way of
        reading a flag from YAML (``if str(num_samples).lower() != "none":``); None otherwise."""
        call = self.p.files[fi].calls[e[1]]
        f = call.func
        if f[0] == "name" and f[1] in _CONVERSIONS and len(call.args) == 1 and not call.args[0].keyword:
            if self.p.call_names(fi, e[1])[:1] != ("builtins." + f[1],):
                return None   # a project function of that name
            inner = self._values(fi, scope, call.args[0].value, before)
            convert = _CONVERSIONS[f[1]]
        elif f[0] == "attr" and f[2] in _STR_METHODS and not call.args:
            inner = self._values(fi, scope, f[1], before)
            if inner is not None and not all(isinstance(x, str) for x in inner):
                return None
            convert = _STR_METHODS[f[2]]
        else:
            return None
        if inner is None:
            return None
        try:
            return [convert(x) for x in inner]
        except (TypeError, ValueError):
            return None

    def _passed_values(self, v: Any) -> Optional[List[Any]]:
        """What the project's launch commands pass to the argparse option whose default is
        ``v`` (:mod:`linter.program.launchers`): [] when none does, the literals they pass, None
        when the option stays open."""
        option = v.via.rsplit("--", 1)[-1] if " of --" in v.via else ""
        fi = self._file_index().get(v.path)
        if not option or fi is None:
            return None
        return self.launchers.passed_values(self.p.abspaths[fi], option, v.value)

    def _file_index(self) -> Dict[str, int]:
        if self._built.get("paths_index") is None:
            self._built["paths_index"] = {f.path: i for i, f in enumerate(self.p.files)}
        return self._built["paths_index"]

    def _own_attribute(self, fi: int, scope: int, e: Expr, before: int) -> Optional[List[Expr]]:
        """For ``self.x`` read by a method's test: the values the method may have assigned to
        it last before that statement — the last assignment in the test's own block, and the
        later ones in branches (unless the branch is dead); None when it assigns none."""
        if before < 0 or e[0] != "attr" or e[1][0] != "name":
            return None
        f = self.p.files[fi].funcs[scope]
        if f.kind != "method" or not f.params or e[1][1] != f.params[0].name:
            return None
        me = f.params[0].name
        writes = sorted((a for a in self.p.files[fi].assigns
                         if a.scope == scope and a.stmt < before and a.target[0] == "attr" and a.target[2] == e[2]
                         and a.target[1][0] == "name" and a.target[1][1] == me), key=lambda a: a.stmt, reverse=True)
        if not writes:
            return None
        guards = self.roles.guards(fi, scope)
        mine = guards.get(before, ())
        out: List[Expr] = []
        for a in writes:
            if a.value[0] in ("param", "iter", "enter", "unpack", "except"):
                return None
            theirs = guards.get(a.stmt, ())
            if self.dead(fi, scope, a.stmt):
                continue
            out.append(a.value)
            if len(theirs) <= len(mine) and all(x is y for x, y in zip(theirs, mine[:len(theirs)])):
                break   # unconditional with respect to the test: nothing earlier reaches it
        return out or None

    # ------------------------------------------------------------------ atoms
    def stmt_atoms(self, fi: int, scope: int, stmt: int) -> FrozenSet[Atom]:
        def compute() -> FrozenSet[Atom]:
            atoms = set()
            for test, positive in self.roles.guards(fi, scope).get(stmt, ()):
                atoms.update(self._test_atoms(fi, scope, test, positive))
            return frozenset(atoms)
        return self.p.memo(self._atoms, (fi, scope, stmt), compute)

    def _test_atoms(self, fi: int, scope: int, e: Expr, holds: bool) -> List[Atom]:
        tag = e[0]
        if tag == "unary" and e[1] == "not":
            return self._test_atoms(fi, scope, e[2], not holds)
        if tag == "boolop" and ((e[1] == "and" and holds) or (e[1] == "or" and not holds)):
            return [a for sub in e[2] for a in self._test_atoms(fi, scope, sub, holds)]
        if tag == "boolop":
            return []
        if tag == "compare" and len(e[1]) == 1 and e[1][0] in ("==", "!=", "is", "is not"):
            left, right = e[2]
            if left[0] == "const" and right[0] != "const":
                left, right = right, left
            if right[0] == "const":
                key = self._key(fi, scope, left)
                if key is None:
                    return []
                eq = e[1][0] in ("==", "is")
                return [(key, "eq", _hashable(right[1]), holds if eq else not holds)]
        key = self._key(fi, scope, e)
        return [(key, "truth", None, holds)] if key is not None else []

    def _key(self, fi: int, scope: int, e: Expr) -> Any:
        """What a test operand is about, named where it is defined: a local or parameter with
        one definition stands for that definition (``df`` bound only to ``self.df``, itself
        only ``par.distribution_flag``), so tests in different functions on one flag agree."""
        for _ in range(6):
            if e[0] not in ("name", "attr"):
                break
            defs = self.p.defining_exprs(fi, scope, e)
            if len(defs) != 1 or defs[0][2] is None or defs[0][2][0] not in ("name", "attr"):
                break
            fi, scope, e = defs[0][0], defs[0][1], defs[0][2]
        text, local = _text(e, self.p.files[fi].funcs[scope].defs, 0)
        if text is None:
            return None
        return (fi, scope, text) if local and scope else (fi, text)   # module code's names are globals


def _text(e: Expr, local_defs: Dict[str, Any], depth: int) -> Tuple[Optional[str], bool]:
    """Canonical text of a test operand and whether it reads a local variable."""
    if depth > 12:
        return None, False
    tag = e[0]
    if tag == "name":
        return e[1], bool(e[2]) or e[1] in local_defs
    if tag == "attr":
        base, local = _text(e[1], local_defs, depth + 1)
        return (None, False) if base is None else (f"{base}.{e[2]}", local)
    if tag == "subscript" and e[2][0] == "const":
        base, local = _text(e[1], local_defs, depth + 1)
        return (None, False) if base is None else (f"{base}[{e[2][1]!r}]", local)
    if tag == "const":
        return repr(e[1]), False
    return None, False


def _compare(op: str, a: Any, b: Any) -> Optional[bool]:
    try:
        if op == "==":
            return bool(a == b)
        if op == "!=":
            return bool(a != b)
        if op == "is":
            return a is b if a is None or b is None or isinstance(a, bool) else None
        if op == "is not":
            return a is not b if a is None or b is None or isinstance(a, bool) else None
        if op in ("<", "<=", ">", ">=") and isinstance(a, (int, float)) and isinstance(b, (int, float)) \
                and not isinstance(a, bool) and not isinstance(b, bool):
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        if op in ("in", "not in") and isinstance(b, (tuple, str)):
            return (a in b) if op == "in" else (a not in b)
    except TypeError:
        return None
    return None


def _hashable(v: Any) -> Any:
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def _exclusive(a: FrozenSet[Atom], b: FrozenSet[Atom]) -> bool:
    by_key: Dict[Any, List[Atom]] = {}
    for x in a:
        by_key.setdefault(x[0], []).append(x)
    for y in b:
        for x in by_key.get(y[0], ()):
            if x[1] == "truth" and y[1] == "truth" and x[3] != y[3]:
                return True
            if x[1] == "eq" and y[1] == "eq":
                if x[2] == y[2] and x[3] != y[3]:
                    return True
                if x[2] != y[2] and x[3] and y[3]:
                    return True
    return False


_CONVERSIONS: Dict[str, Callable[[Any], Any]] = {"str": str, "int": int, "float": float, "bool": bool}
_STR_METHODS: Dict[str, Callable[[Any], Any]] = {"lower": str.lower, "upper": str.upper, "strip": str.strip}
