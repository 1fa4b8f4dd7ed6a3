"""The training or evaluation role of a data pipeline, with the reason: flags passed to the call
that builds it (or to the calls building its arguments), an enclosing ``if do_train:`` branch,
a use only in such a branch, the name it is stored in, the name of its function, what the callers
pass, and the entry scripts that reach it — a pipeline serves a role only where a program runs it.
Also the ``if`` tests around each statement, the names a statement assigns, and whether the value a
call builds is ever read.
"""
from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from linter.facts.ir import child_blocks, sub_exprs, walk
from linter.facts.model import Expr, Stmt
from linter.index.values import Func
from linter.program.role_spec import EVALUATION, INFERENCE, TRAINING
from linter.program.role_state import RolesState

if TYPE_CHECKING:   # annotations only
    from linter.index.project import Project


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
"""Where a camelCase name starts a word."""

_SPLIT_ONLY = frozenset({"usage", "split", "subset", "set_name", "data_split"})
"""Flags that name which part of the data a dataset reads, not what the pipeline is for."""


class Pipelines(RolesState):
    """The roles a data pipeline serves, the branches around statements, and unread values."""

    # ------------------------------------------------------------------ words

    def word_role(self, name: str) -> Optional[str]:
        """``train_loader`` → training, ``val_ds``/``testLoader`` → evaluation, ``loader`` → None."""
        n = _CAMEL.sub("_", name).lower()   # `testLoader`, `trainSet`: words split at the capital
        t = bool(self.spec.train_words.search(n))
        e = bool(self.spec.eval_words.search(n))
        if t and not e:
            return TRAINING
        if e and not t:
            return EVALUATION
        return None

    # ------------------------------------------------------------------ pipeline context
    def pipeline_context(self, fi: int, cid: int) -> Dict[str, str]:
        """Roles (training/evaluation) the pipeline built by call ``cid`` serves, with reasons.
        Flags and names say which role a pipeline is built for; a program decides whether it
        runs: a pipeline no entry script reaches serves nothing, and a training pipeline
        needs a training program (one that updates parameters) to run it — a converter or an
        export script that builds `create_dataset(do_train=True)` trains nothing."""
        ctx = self._call_context(fi, cid, 0)
        if not ctx:
            return ctx
        entries = self.call_entries(fi, cid)
        if not entries:
            # dead code where the project's entry scripts are known; judged by its names and
            # flags alone where they are not (a snippet, a library, a file checked on its own)
            return {} if self.in_program_tree(fi) else ctx
        if TRAINING in ctx and not any(TRAINING in self.entry_roles(e) for e in entries):
            ctx = {r: why for r, why in ctx.items() if r != TRAINING}
        return ctx

    def _call_context(self, fi: int, cid: int, depth: int) -> Dict[str, str]:
        # keyed by depth too: how far callers are followed depends on it
        key = ("c", fi, cid, depth)
        return self.p.memo(self._ctx, key, lambda: self.p.guard(key, lambda: self._call_context_uncached(fi, cid, depth), {}))

    def _call_context_uncached(self, fi: int, cid: int, depth: int) -> Dict[str, str]:
        p = self.p
        facts = p.files[fi]
        call = facts.calls[cid]
        here = f"{facts.path}:{call.line}"
        # 1. flags passed to this call, or to the calls that build its arguments
        flagged = self._flag_role_of_call(fi, cid)
        if flagged:
            if flagged[0] == TRAINING and flagged[2] in _SPLIT_ONLY:
                # `usage="train"` names the data, not the use: `dataset_show = Cifar10Dataset(usage="train")`
                # feeding a plot or `dataset_predict` feeding model.predict is no training pipeline
                for name in self.assigned_names(fi, call.stmt):
                    if self.word_role(name) == EVALUATION or self.spec.display_words.search(name.lower()):
                        return {EVALUATION: f"assigned to '{name}' at {facts.path}:{facts.stmts[call.stmt][0]} "
                                            f"(built from the training split: {flagged[1]})"}
            return {flagged[0]: f"{flagged[1]} at {here}"}
        for a in call.args:
            for inner in _arg_calls(p, fi, call.scope, a.value):
                flagged = self._flag_role_of_call(fi, inner)
                if flagged:
                    return {flagged[0]: f"{flagged[1]} at {facts.path}:{facts.calls[inner].line}"}
        # 2. an enclosing `if do_train:` / `if mode == "train":`
        for test, positive in self.guards(fi, call.scope).get(call.stmt, ()):
            role = self._guard_role(test, positive)
            if role:
                return {role: f"inside a branch taken when {'training' if role == TRAINING else 'evaluating'} ({here})"}
        # 2b. built unconditionally, but used only in such a branch (`flip = RandomFlip()`,
        # then `if training: ops.append(flip)`)
        used = self._use_role(fi, call.scope, cid)
        if used and used[0] == TRAINING:
            # ...but a validation loader is used while training, every epoch (`if args.phase == "test":
            # ...; return` before the training loop that calls `validate(val_loader)`): its name decides
            for name in self.assigned_names(fi, call.stmt):
                if self.word_role(name) == EVALUATION:
                    return {EVALUATION: f"assigned to '{name}' at {facts.path}:{facts.stmts[call.stmt][0]} "
                                        f"(used while training: validation)"}
        if used:
            return {used[0]: f"used only in a branch taken when {'training' if used[0] == TRAINING else 'evaluating'} "
                             f"({facts.path}:{facts.stmts[used[1]][0]})"}
        # 3. the variable the result is stored in
        for name in self.assigned_names(fi, call.stmt):
            role = self.word_role(name)
            if role:
                return {role: f"assigned to '{name}' at {facts.path}:{facts.stmts[call.stmt][0]}"}
        # 4. the data it reads is named for one role (`NumpySlicesDataset(test_data, ...)` stored as
        # `self.dataset2` next to the training split)
        source = next((a for a in call.args if a.keyword is None and not a.star), None)
        if source is not None:
            named = self._source_role(fi, call.scope, source.value)
            if named:
                return {named[0]: f"built from '{named[1]}' at {here}"}
        return self._scope_context(fi, call.scope, depth)

    def _source_role(self, fi: int, scope: int, e: Expr) -> Optional[Tuple[str, str]]:
        """(role, name) when the names a dataset's source is built from — the expression and what
        its local names and attributes are bound to, two steps deep, not what callers pass to a
        parameter — name one role only."""
        names: List[str] = []
        todo: List[Tuple[int, int, Expr, int]] = [(fi, scope, e, 0)]
        while todo and len(names) < 64:
            tfi, tscope, x, depth = todo.pop()
            stack = [x]
            while stack:
                node = stack.pop()
                if not isinstance(node, tuple) or not node or not isinstance(node[0], str):
                    continue
                stack.extend(sub_exprs(node))
                if node[0] == "name":
                    names.append(node[1])
                elif node[0] == "attr":
                    names.append(node[2])
                elif node[0] == "call":
                    # the data a call transforms is its first positional argument (`encode(test_data)`,
                    # `ImageDataset(data.query, train_batch)`: not the batch size)
                    c = self.p.files[tfi].calls[node[1]]
                    first = next((a for a in c.args if a.keyword is None and not a.star), None)
                    if first is not None:
                        todo.append((tfi, c.scope, first.value, depth))
                if node[0] == "name" and any(self.p.files[tfi].assigns[aid].value[0] == "param" for aid in node[2]):
                    continue   # a parameter: each caller passes its own data (`create_dataset(eval_path)` is one of them)
                if depth < 2 and node[0] in ("name", "attr"):
                    for dfi, dscope, dexpr, _line, _via in self.p.defining_exprs(tfi, tscope, node)[:8]:
                        if dexpr is not None:
                            todo.append((dfi, dscope, dexpr, depth + 1))
        roles = {(self.word_role(n), n) for n in names}
        found = {r for r, _ in roles if r is not None}
        if len(found) != 1:
            return None
        role = found.pop()
        return role, next(n for r, n in sorted(roles, key=str) if r == role)

    def _use_role(self, fi: int, scope: int, cid: int) -> Optional[Tuple[str, int]]:
        """(role, first use statement) when call ``cid``'s result is bound to local names and
        every statement reading them lies in a branch of that role."""
        facts = self.p.files[fi]
        aids = [aid for aid, a in enumerate(facts.assigns)
                if a.scope == scope and a.value[0] == "call" and a.value[1] == cid and a.target[0] == "name"]
        if not aids:
            return None
        reads = self._reads(fi, scope)
        stmts = sorted({sid for aid in aids for sid in reads.get(aid, ())})
        if not stmts:
            return None
        roles: Set[Optional[str]] = set()
        guards = self.guards(fi, scope)
        for sid in stmts:
            roles.add(next((r for r in (self._guard_role(t, pos) for t, pos in guards.get(sid, ())) if r), None))
        found = roles.pop() if len(roles) == 1 else None
        return (found, stmts[0]) if found is not None else None

    def _reads(self, fi: int, scope: int) -> Dict[int, List[int]]:
        """Binding id → statements of function ``scope`` that read a name it may define."""
        key = (fi, scope)
        hit = self._read_index.get(key)
        if hit is not None:
            return hit
        out: Dict[int, List[int]] = {}
        for _scope, sid, e in _names_read(self.p.files[fi], scope):
            for d in e[2]:
                out.setdefault(d, []).append(sid)
        for ids in out.values():
            ids[:] = sorted(set(ids))
        self._read_index[key] = out
        return out

    def _scope_context(self, fi: int, scope: int, depth: int) -> Dict[str, str]:
        key = ("s", fi, scope, depth)
        return self.p.memo(self._ctx, key, lambda: self.p.guard(key, lambda: self._scope_context_uncached(fi, scope, depth), {}))

    def _scope_context_uncached(self, fi: int, scope: int, depth: int) -> Dict[str, str]:
        p = self.p
        facts = p.files[fi]
        f = facts.funcs[scope]
        # 4. the function's (or class's) name
        if scope:
            for part in reversed(f.qualname.split(".")):
                role = self.word_role(part)
                if role:
                    return {role: f"built in '{f.qualname}'"}
        # 5. how the callers use it: flag values, their own context
        if scope and f.kind != "class" and depth < 6:
            out: Dict[str, str] = {}
            flags = [x.name for x in f.params if self._is_flag(x.name)]
            for cfi, cid, bound in p.callers(Func(fi, scope)):
                caller = p.files[cfi].calls[cid]
                where = f"{p.files[cfi].path}:{caller.line}"
                decided = False
                for flag in flags:
                    a = bound.get(flag)
                    param = next(x for x in f.params if x.name == flag)
                    expr = a.value if a is not None else param.default
                    if expr is None:
                        continue
                    escope = caller.scope if a is not None else f.parent
                    efi = cfi if a is not None else fi
                    vals, known = p.constants(efi, escope, expr)
                    roles = {r for r in (self._flag_value_role(flag, v.value) for v in vals) if r is not None}
                    if known and len(roles) == 1:
                        r = roles.pop()
                        text = f"{flag}={vals[0].value!r}" if a is not None else f"{flag} defaults to {vals[0].value!r}"
                        out.setdefault(r, f"{f.qualname}({text}) called at {where}")
                        decided = True
                        break
                if not decided:
                    for r, why in self._call_context(cfi, cid, depth + 1).items():
                        out.setdefault(r, why)
            if out:
                return out
        # 6. the entry scripts that reach it
        out = {}
        for e in sorted(self.reaching_entries(fi, scope)):
            for r in sorted(self.entry_roles(e) & {TRAINING, EVALUATION, INFERENCE}):
                r = EVALUATION if r == INFERENCE else r
                out.setdefault(r, f"reached from {'training' if r == TRAINING else 'evaluation'} script {p.files[e].path}")
        return out

    def _is_flag(self, name: str) -> bool:
        s = self.spec
        return name in s.train_flags or name in s.eval_flags or name in s.split_flags

    def _split_value_role(self, value: Any) -> Optional[str]:
        """``"train"`` → training, ``"val"``/``"test"`` → evaluation: a split named outright."""
        if not isinstance(value, str):
            return None
        v = value.lower()
        if v in self.spec.train_values:
            return TRAINING
        if v in self.spec.eval_values:
            return EVALUATION
        return None

    def _flag_value_role(self, flag: str, value: Any) -> Optional[str]:
        s = self.spec
        if flag in s.train_flags and isinstance(value, bool):
            return TRAINING if value else EVALUATION
        if flag in s.eval_flags and isinstance(value, bool):
            return EVALUATION if value else TRAINING
        if flag in s.split_flags and isinstance(value, str):
            v = value.lower()
            if v in s.train_values:
                return TRAINING
            if self.word_role(v) == EVALUATION or v in ("val", "test", "eval", "valid", "validation", "infer"):
                return EVALUATION
        return None

    def _flag_role_of_call(self, fi: int, cid: int) -> Optional[Tuple[str, str, str]]:
        """(role, ``keyword=text``, keyword) of the first flag passed to call ``cid`` that names one role."""
        call = self.p.files[fi].calls[cid]
        for a in call.args:
            if a.keyword is None:
                continue
            decide: Callable[[Any], Optional[str]]
            if self._is_flag(a.keyword):
                decide = partial(self._flag_value_role, a.keyword)
            elif self.spec.split_keywords.search(a.keyword):
                decide = self._split_value_role   # `data_mode="val"`
            else:
                continue
            vals, known = self.p.constants(fi, call.scope, a.value)
            roles = {r for r in (decide(v.value) for v in vals) if r is not None}
            if known and len(roles) == 1:
                return roles.pop(), f"{a.keyword}={a.text}", a.keyword
        return None

    def _guard_role(self, test: Expr, positive: bool) -> Optional[str]:
        role: Optional[str] = None
        if test[0] == "name" and self._is_flag(test[1]):
            role = self._flag_value_role(test[1], True)
        elif test[0] == "attr" and self._is_flag(test[2]):
            role = self._flag_value_role(test[2], True)
        elif test[0] == "unary" and test[1] == "not":
            role = self._guard_role(test[2], True)
            role = {TRAINING: EVALUATION, EVALUATION: TRAINING}.get(role) if role else None
        elif test[0] == "compare" and len(test[1]) == 1 and test[1][0] in ("==", "!="):
            left, right = test[2]
            name = left[1] if left[0] == "name" else left[2] if left[0] == "attr" else None
            if name and right[0] == "const":
                # `mode == "train"`; any name compared with "train"/"val" says the same (`data_mode`)
                role = self._flag_value_role(name, right[1]) if self._is_flag(name) else self._split_value_role(right[1])
                if test[1][0] == "!=" and role:
                    role = {TRAINING: EVALUATION, EVALUATION: TRAINING}[role]
        if role is None:
            return None
        if not positive:
            return {TRAINING: EVALUATION, EVALUATION: TRAINING}[role]
        return role

    def guards(self, fi: int, scope: int) -> Dict[int, Tuple[Tuple[Expr, bool], ...]]:
        """statement id → enclosing (if-test, branch) pairs within its function."""
        key = (fi, scope)
        hit = self._guards.get(key)
        if hit is None:
            hit = {}
            _collect_guards(self.p.files[fi].funcs[scope].body, (), hit)
            self._guards[key] = hit
        return hit

    def never_read(self, fi: int, cid: int) -> bool:
        """The value built by call ``cid`` — through the calls chained on it
        (``GeneratorDataset(...).batch(...)``) — is bound only to local names of a function that
        nothing in that function reads, and the function neither returns it nor looks names up
        dynamically (``locals()``, ``eval``): a pipeline built and never used."""
        p = self.p
        facts = p.files[fi]
        scope = facts.calls[cid].scope
        if scope <= 0 or facts.funcs[scope].kind not in ("function", "method"):
            return False
        outer = cid
        while True:   # climb the method chain: `x.batch(...)` has `x` = ("call", outer) as receiver
            nxt = next((j for j, c in enumerate(facts.calls)
                        if c.scope == scope and c.func[0] == "attr" and c.func[1] == ("call", outer)), None)
            if nxt is None:
                break
            outer = nxt
        aids = [aid for aid, a in enumerate(facts.assigns)
                if a.scope == scope and a.value == ("call", outer)]
        if not aids or any(facts.assigns[a].target[0] != "name" for a in aids):
            return False
        if any(c.scope == scope and c.dotted in ("locals", "eval", "exec", "vars") for c in facts.calls):
            return False
        reads = self._reads(fi, scope)
        if any(reads.get(aid) for aid in aids):
            return False
        # a nested function or a `global` declaration may read it by name from another scope
        names = {facts.assigns[a].target[1] for a in aids}
        return not any(names & read for other, read in self._names_by_scope(fi).items() if other != scope)

    def _names_by_scope(self, fi: int) -> Dict[int, Set[str]]:
        """Function → the names read in it (by any binding: closures, globals)."""
        hit = self._scope_names.get(fi)
        if hit is not None:
            return hit
        out: Dict[int, Set[str]] = {}
        for scope, _sid, e in _names_read(self.p.files[fi], None):
            out.setdefault(scope, set()).add(e[1])
        self._scope_names[fi] = out
        return out

    def assigned_names(self, fi: int, sid: int) -> Tuple[str, ...]:
        """Names a statement assigns (``train_ds = ...``, ``self.val_loader = ...``)."""
        table = self._targets.get(fi)
        if table is None:
            table = {}
            for a in self.p.files[fi].assigns:
                t = a.target
                name = t[1] if t[0] == "name" else t[2] if t[0] == "attr" else None
                if name and a.value[0] not in ("param", "import", "def", "class", "iter", "except"):
                    table[a.stmt] = table.get(a.stmt, ()) + (name,)
            self._targets[fi] = table
        return table.get(sid, ())


def _names_read(facts: Any, scope: Optional[int]) -> Iterator[Tuple[int, int, Any]]:
    """(function, statement, ``("name", id, binding ids)``) for every name read in function
    ``scope`` of a file (every function when None): in calls and their arguments, assigned values,
    and the tests, returns and loop iterables of its statements."""
    def visit(e: Any, where: int, sid: int, depth: int = 0) -> Iterator[Tuple[int, int, Any]]:
        if not isinstance(e, tuple) or not e or depth > 40:
            return
        tag = e[0]
        if tag == "name":
            yield where, sid, e
            return
        if tag == "call":
            c = facts.calls[e[1]]
            yield from visit(c.func, where, sid, depth + 1)
            for a in c.args:
                yield from visit(a.value, where, sid, depth + 1)
            return
        if tag in ("const", "lambda", "other"):
            return
        for x in sub_exprs(e):
            yield from visit(x, where, sid, depth + 1)
    for c in facts.calls:
        if scope is None or c.scope == scope:
            yield from visit(c.func, c.scope, c.stmt)
            for a in c.args:
                yield from visit(a.value, c.scope, c.stmt)
    for asg in facts.assigns:
        if (scope is None or asg.scope == scope) and asg.value[0] not in ("param", "import", "def", "class"):
            yield from visit(asg.value[1] if asg.value[0] in ("iter", "enter", "unpack", "except") else asg.value,
                             asg.scope, asg.stmt)
    for k in (range(len(facts.funcs)) if scope is None else (scope,)):
        for st in walk(facts.funcs[k].body):
            if st[0] in ("return", "expr", "if", "while", "raise", "branches") and isinstance(st[2], tuple):
                yield from visit(st[2], k, st[1])   # calls in them were visited above; this adds bare names
            elif st[0] == "for":
                yield from visit(st[3], k, st[1])


def _collect_guards(block: Sequence[Stmt], guards: Tuple[Tuple[Expr, bool], ...],
                    out: Dict[int, Tuple[Tuple[Expr, bool], ...]]) -> None:
    for st in block:
        out[st[1]] = guards
        if st[0] == "if":
            _collect_guards(st[3], guards + ((st[2], True),), out)
            _collect_guards(st[4], guards + ((st[2], False),), out)
            if st[3] and st[3][-1][0] in ("return", "raise") and not st[4]:
                # `if is_train: return ...` — what follows is the implicit else
                guards = guards + ((st[2], False),)
        else:
            for b in child_blocks(st):
                _collect_guards(b, guards, out)


def _arg_calls(p: Project, fi: int, scope: int, e: Expr) -> List[int]:
    """Calls that build an argument: the call itself, or the calls bound to a local name."""
    if e[0] == "call":
        return [e[1]]
    if e[0] == "name":
        out = []
        for aid in e[2]:
            v = p.files[fi].assigns[aid].value
            if v[0] == "call":
                out.append(v[1])
        return out
    return []
