"""Program roles from evidence: the roles of an entry script's program from the calls it reaches
(a parameter update makes it a training program; file names only break ties), the call that
decided each role (for messages and ``audit``), the frameworks of its steps, and the first
statement on its main path that leads to a step.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Optional, Sequence, Set, Tuple

from linter.facts.model import Stmt
from linter.index.values import Bound, Func
from linter.program.role_spec import EVALUATION, EXPORT, INFERENCE, TRAINING, Site
from linter.program.role_state import RolesState

_NAMED_ONLY = ("evaluation", "inference", "export")
"""Roles a file name may give a program that reaches no step of any role (never training)."""


class Evidence(RolesState):
    """The roles of each entry script's program, with the calls that show them."""

    def entry_roles(self, fi: int) -> Set[str]:
        """The roles of the program of entry script ``fi``, from the calls it reaches."""
        return set(self.program_evidence(fi))

    def program_evidence(self, fi: int) -> Dict[str, Tuple[int, int]]:
        """Role → the call that shows it ``(file, call)``, ``(-1, -1)`` for a role taken from
        the file name. A program trains when it reaches a parameter update, or a gradient
        together with an update whose type is unknown; a training file name lets either
        alone count. Names give no role to a program that shows one by its calls."""
        return self.p.memo(self._programs, fi, lambda: self._program_evidence(fi))

    def _program_evidence(self, fi: int) -> Dict[str, Tuple[int, int]]:
        names = self.name_roles(fi)
        reached = self._step_evidence().get(fi, {})
        out = {role: site for role, site in reached.items() if role in self.spec.steps and role != TRAINING}
        if "update" in reached:
            out[TRAINING] = reached["update"]
        elif "gradient" in reached and ("untyped" in reached or TRAINING in names):
            out[TRAINING] = reached["untyped"] if "untyped" in reached else reached["gradient"]
        elif "untyped" in reached and TRAINING in names:
            out[TRAINING] = reached["untyped"]
        if not out:
            for role in _NAMED_ONLY:
                if role in names:
                    out[role] = (-1, -1)
        return out

    def _step_evidence(self) -> Dict[int, Dict[str, Tuple[int, int]]]:
        """Entry → kind of step (a role other than training; ``update``, ``gradient`` or
        ``untyped`` for training) → the first such call it reaches. Built once, walking from
        each step call up to the entries (not from each entry to every step: a tree of many
        projects has many of both)."""
        if self._built.get("evidence") is None:
            spec = self.spec
            out: Dict[int, Dict[str, Tuple[int, int]]] = {}
            for role in sorted(spec.steps):
                for sfi, cid in self.step_sites(role):
                    entries = self.entries_running(sfi, cid, strict=True)
                    if not entries:
                        continue
                    if role == TRAINING:
                        cnames = self.p.call_names(sfi, cid)
                        kinds = [kind for kind, globs in (("update", spec.updates), ("gradient", spec.gradients),
                                                         ("untyped", spec.untyped_updates)) if globs.any(cnames)]
                    else:
                        kinds = [role]
                    for e in entries:
                        mine = out.setdefault(e, {})
                        for kind in kinds:
                            mine.setdefault(kind, (sfi, cid))
            self._built["evidence"] = out
        return self._built["evidence"]

    def describe_program(self, fi: int, role: str) -> str:
        """``train.py (trains: `model.train(...)` at train.py:88)`` — why a program has a role."""
        ev = self.program_evidence(fi).get(role)
        path = self.p.files[fi].path
        if ev is None:
            return path
        if ev == (-1, -1):
            return f"{path} (named like a {role} script)"
        sfi, cid = ev
        call = self.p.files[sfi].calls[cid]
        return f"{path} ({_VERBS.get(role, role)}: `{call.dotted or self.p.call_names(sfi, cid)[0]}(...)` at " \
               f"{self.p.files[sfi].path}:{call.line})"

    def entry_step_frameworks(self, fi: int, role: str) -> Set[str]:
        """Frameworks of the ``role`` steps the entry reaches."""
        return set(self.p.memo(self._step_fws, role, lambda: self._step_frameworks(role)).get(fi, ()))

    def _step_frameworks(self, role: str) -> Dict[int, Set[str]]:
        """Entry → frameworks of the ``role`` steps it reaches, in one pass over the steps
        (per entry, that pass would cost entries × steps on a tree of many projects)."""
        out: Dict[int, Set[str]] = {}
        for sfi, cid in self.step_sites(role):
            fws: Set[str] = set()
            for n in self.p.call_names(sfi, cid):
                if n.startswith("?."):
                    # `loss.backward()` on an untyped value: the framework of its file
                    fws = self._file_frameworks(sfi)
                    break
                fw = self.p.apis.framework_of(n)
                if fw:
                    fws = {fw}
                    break
            if fws:
                for e in self.entries_running(sfi, cid):
                    out.setdefault(e, set()).update(fws)
        return out

    def _file_frameworks(self, fi: int) -> Set[str]:
        """Frameworks a file imports directly."""
        out: Set[str] = set()
        for imp in self.p.files[fi].imports:
            if imp.module and self.p.file_of(fi, imp.module, imp.level) is None:
                fw = self.p.apis.framework_of(self.p.apis.canonical(imp.module))
                if fw:
                    out.add(fw)
        return out

    def leading_sites(self, role: str) -> Set[Site]:
        """Functions from which a ``role`` step is reachable (those on the backward paths)."""
        return self.p.memo(self._leads, role, lambda: self.p.calling_scopes(
            ((sfi, self.p.files[sfi].calls[cid].scope) for sfi, cid in self.step_sites(role)), lexical=True))

    def main_path_line(self, fi: int, role: str) -> Tuple[int, int]:
        """First statement on the entry's main path that leads to a ``role`` step."""
        leads = self.leading_sites(role)
        steps = {(sfi, cid) for sfi, cid in self.step_sites(role) if sfi == fi}
        facts = self.p.files[fi]
        scope = 0
        visited: Set[int] = set()
        last: Optional[Tuple[int, int]] = None
        while scope not in visited:
            visited.add(scope)
            found = self._first_leading(fi, scope, facts.funcs[scope].body, leads, steps)
            if found is None:
                break
            sid, target = found
            last = facts.stmts[sid]
            if target is None:
                break
            scope = target  # the statement calls a function of this file (e.g. main()): look inside
        if last is not None:
            return last
        for st in facts.funcs[0].body:
            if st[0] in ("import", "def", "class") or (st[0] == "expr" and st[2][0] == "const"):
                continue  # definitions and docstrings are not where training starts
            return facts.stmts[st[1]]
        return (1, 1)

    def _first_leading(self, fi: int, scope: int, block: Sequence[Stmt], leads: Set[Site],
                       steps: Set[Tuple[int, int]]) -> Optional[Tuple[int, Optional[int]]]:
        """(statement id, same-file function to descend into or None) of the first leading
        statement. Statements that run something (calls, loops) are preferred over
        assignments that only prepare training (``grad_fn = value_and_grad(...)``)."""
        found = self._first_leading_of(fi, scope, [st for st in block if st[0] != "assign"], leads, steps)
        return found or self._first_leading_of(fi, scope, block, leads, steps)

    def _first_leading_of(self, fi: int, scope: int, block: Sequence[Stmt], leads: Set[Site],
                          steps: Set[Tuple[int, int]]) -> Optional[Tuple[int, Optional[int]]]:
        for st in block:
            if st[0] in ("def", "class", "import"):
                continue
            for cid in self.p.calls_in_stmt(fi, st, scope):
                if (fi, cid) in steps:
                    return st[1], None
                for v in self.p.callee_values(fi, cid):
                    target = v.func if isinstance(v, Bound) and isinstance(v.func, Func) else v
                    if isinstance(target, Func) and (target.file, target.index) in leads:
                        if target.file == fi and st[0] in ("expr", "assign", "if"):
                            return st[1], target.index
                        return st[1], None
        return None


_VERBS = {TRAINING: "trains", EVALUATION: "evaluates", INFERENCE: "predicts", EXPORT: "exports",
          "data": "writes a dataset", "conversion": "writes a checkpoint"}
