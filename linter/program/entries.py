"""Entry scripts and what runs them: the scripts of a project (a ``__main__`` guard, or module
code that does something in a file no project file imports), import closures, the entries whose
module code runs a file's, statements under ``if __name__ == "__main__":``, the roles file names
give, and every call that performs a step of a role.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, List, Sequence, Set, Tuple

from linter.facts.ir import child_blocks
from linter.facts.model import Stmt
from linter.program.role_state import RolesState

if TYPE_CHECKING:   # annotations only
    from linter.index.project import Project


class Entries(RolesState):
    """Entry scripts, import closures, ``__main__`` guards, name roles and step calls."""

    def imported_files(self) -> Set[int]:
        if self._built.get("imported") is None:
            out: Set[int] = set()
            p = self.p
            for fi, facts in enumerate(p.files):
                for imp in facts.imports:
                    t = p.file_of(fi, imp.module, imp.level)
                    if t is not None and t >= 0:
                        out.add(t)
                        if imp.name and imp.name != "*":
                            sub = p.modmap.submodule(p.abspaths[t], imp.name, p._exists)
                            if sub is not None and sub in p.by_abspath:
                                out.add(p.by_abspath[sub])
            self._built["imported"] = out
        return self._built["imported"]

    def entries(self) -> List[int]:
        """Scripts: a ``__main__`` guard, or — when no project file imports it — module code
        that does something (a call statement, a loop, a ``with`` block). Library modules
        that only assign at module level (``_grad_scale = MultitypeFuncGraph(...)``) are not
        scripts, whatever their name."""
        if self._built.get("entries") is None:
            imported = self.imported_files()
            out = []
            for fi, facts in enumerate(self.p.files):
                base = os.path.basename(facts.path)
                if base == "__init__.py" or base.startswith("test_") or base == "conftest.py":
                    continue
                if facts.has_main_guard:
                    out.append(fi)
                elif fi not in imported and _acts_at_module_level(self.p, fi):
                    out.append(fi)
            self._built["entries"] = out
        return self._built["entries"]

    def import_closure(self, fi: int) -> FrozenSet[int]:
        """``fi`` and the project files it imports, transitively (memoised)."""
        hit = self._closures.get(fi)
        if hit is not None:
            return hit
        p = self.p
        out = {fi}
        todo = [fi]
        while todo:
            cur = todo.pop()
            for imp in p.files[cur].imports:
                for module, level in ((imp.module, imp.level),
                                      ((imp.module + "." if imp.module else "") + (imp.name or ""), imp.level)):
                    if not module:
                        continue
                    t = p.file_of(cur, module, level)
                    if t is not None and t >= 0 and t not in out:
                        out.add(t)
                        todo.append(t)
        result = frozenset(out)
        self._closures[fi] = result
        return result

    def importing_entries(self, fi: int) -> FrozenSet[int]:
        """Entry scripts whose import closure holds ``fi`` (whose module code runs ``fi``'s)."""
        if self._built.get("importers") is None:
            acc: Dict[int, Set[int]] = {}
            for e in self.entries():
                for f in self.import_closure(e):
                    acc.setdefault(f, set()).add(e)
            self._built["importers"] = {f: frozenset(es) for f, es in acc.items()}
        return self._built["importers"].get(fi, frozenset())

    def call_entries(self, fi: int, cid: int) -> FrozenSet[int]:
        """Entry scripts that run call ``cid`` of file ``fi``: none when it sits in a branch no
        path takes; only the file itself under its ``if __name__ == "__main__":``."""
        if self.paths.dead_call(fi, cid):
            return frozenset()
        return self.entries_running(fi, cid)

    def entries_running(self, fi: int, cid: int, strict: bool = False) -> FrozenSet[int]:
        """The entries whose code reaches call ``cid``, branches aside: a call under its module's
        own ``if __name__ == "__main__":`` runs only when that file is the script (a layer file's
        self-test does not make the scripts importing it train)."""
        call = self.p.files[fi].calls[cid]
        if self.paths is not None and call.stmt in self.paths.after_exit(fi, call.scope):
            return frozenset()   # after an `exit()`/`return` in its block: no program runs it
        if call.scope == 0 and self.main_guarded(fi, call.stmt):
            return frozenset((fi,)) if fi in self._entry_set() else frozenset()
        return frozenset(self.reaching_entries(fi, call.scope, strict=strict))

    def main_guarded(self, fi: int, stmt: int) -> bool:
        """Module statement ``stmt`` of file ``fi`` sits under ``if __name__ == "__main__":``
        (it runs when the file is the script, not when another script imports it)."""
        if stmt < 0:
            return False
        for test, positive in self.guards(fi, 0).get(stmt, ()):
            if positive and test[0] == "compare" and len(test[1]) == 1 and test[1][0] == "==" and \
                    any(x[0] == "name" and x[1] == "__name__" for x in test[2]):
                return True
        return False

    def _entry_set(self) -> FrozenSet[int]:
        if self._built.get("entries_set") is None:
            self._built["entries_set"] = frozenset(self.entries())
        return self._built["entries_set"]

    def in_program_tree(self, fi: int) -> bool:
        """Whether an entry script of the run lives in ``fi``'s folder or above it: then the
        programs that could run ``fi``'s code are known, and code none of them reaches is dead."""
        if self._built.get("entry_dirs") is None:
            self._built["entry_dirs"] = frozenset(os.path.dirname(self.p.abspaths[e]) for e in self.entries())
        d = os.path.dirname(self.p.abspaths[fi])
        while True:
            if d in self._built["entry_dirs"]:
                return True
            parent = os.path.dirname(d)
            if parent == d:
                return False
            d = parent

    def name_roles(self, fi: int) -> Set[str]:
        base = os.path.splitext(os.path.basename(self.p.files[fi].path))[0]
        return {role for role, rx in self.spec.file_names.items() if rx.search(base)}

    def step_sites(self, role: str) -> List[Tuple[int, int]]:
        """Every call in the project that performs a step of ``role``."""
        return self.p.memo(self._step_sites, role, lambda: self._step_sites_uncached(role))

    def _step_sites_uncached(self, role: str) -> List[Tuple[int, int]]:
        globs = self.spec.steps.get(role)
        out: List[Tuple[int, int]] = []
        if globs:
            for fi, facts in enumerate(self.p.files):
                if globs.scan_all:
                    ids: Iterable[int] = range(len(facts.calls))  # instance calls: any callee name
                else:
                    ids = sorted({cid for key in globs.keys_in(facts.callee_index) for cid in facts.callee_index[key]})
                for cid in ids:
                    if globs.any(self.p.call_names(fi, cid)):
                        out.append((fi, cid))
        return out


def _acts_at_module_level(p: Project, fi: int) -> bool:
    """Module code that does something: a call statement, or a loop / ``with`` block that
    calls something, possibly under an ``if``/``try``. Assignments, imports and definitions
    (``x = Factory()``, version-conditional imports) are set-up, not work."""

    def acts(block: Sequence[Stmt]) -> bool:
        for st in block:
            if st[0] in ("expr", "for", "while", "with") and p.calls_in_stmt(fi, st, 0):
                return True
            if st[0] in ("if", "try", "branches") and any(acts(b) for b in child_blocks(st)):
                return True
        return False

    return acts(p.files[fi].funcs[0].body)
