"""Memo tables have one owner (linter/core/memo.py): the answers the project index, the program
model and the matcher memoise all live in one store, which the rule runner snapshots and
restores — so every rule starts from the same state and the findings do not depend on --jobs.
These tests fail when an engine object keeps an answer anywhere else, and when a table that is
not keyed on the question's assumptions (the hypothesis) starts to depend on them."""
from __future__ import annotations

import os
from typing import Any, Dict, Tuple

from linter.core.memo import Hypothesis, MemoStore
from linter.engine.packs import load_packs
from linter.engine.probes import Probes
from linter.engine.run import link
from linter.engine.units import Options
from linter.index.project import BoundArgs
from linter.facts.parse_file import Unit
from linter.match import run_rules
from linter.match.pattern import new_context
from linter.program.model import ProgramModel
from tests.conftest import ROOT

PROJECTS = ("ms_resnet", "ms_custom_loop", "torch_amp")


def _context(name: str):
    root = os.path.join(ROOT, "tests", "projects", name)
    units = []
    for dirpath, _dirs, files in os.walk(root):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                units.append(Unit(os.path.relpath(path, root), path, root, linted=True))
    packs = load_packs()
    _present, project, _errors = link(units, packs, Options(), Probes())
    return new_context(ProgramModel(project, packs.roles), {}), packs


def _engine_objects(mc: Any) -> Dict[str, Any]:
    pm = mc.program
    return {"match": mc, "program": pm, "roles": pm.roles, "paths": pm.paths, "liveness": pm.liveness,
            "project": mc.p, "configs": mc.p.configs, "launchers": pm.paths.launchers}


def _state(objs: Dict[str, Any]) -> Dict[Tuple[str, str], Tuple[int, Any]]:
    out = {}
    for name, o in objs.items():
        for k, v in vars(o).items():
            size = len(v) if isinstance(v, (dict, set, list)) else None
            out[(name, k)] = (id(v), size)
    return out


def test_every_answer_lives_in_the_store() -> None:
    """Build the model, run every rule, then look at every attribute of every engine object: a
    container the rules filled must be a table of the store; anything else must be as it was
    built (or question state back at its start)."""
    for name in PROJECTS:
        mc, packs = _context(name)
        objs = _engine_objects(mc)
        store: MemoStore = mc.program.store
        before = _state(objs)
        findings, _errors = run_rules(list(packs.rules), mc, list(range(len(mc.p.files))), "en", jobs=1, workers=False)
        assert findings, name   # the rules did ask questions
        after = _state(objs)
        for (oname, attr), (ident, size) in sorted(after.items()):
            o = objs[oname]
            value = getattr(o, attr)
            if store.owns(value):
                continue
            if attr in getattr(type(o), "_TRANSIENT", ()):
                if isinstance(value, (set, dict, list)):
                    assert not value, f"{name}: {oname}.{attr} is question state, but not empty between questions"
                continue
            assert (oname, attr) in before, f"{name}: {oname}.{attr} appeared after the rules ran (a cache outside the store)"
            assert before[(oname, attr)] == (ident, size), \
                f"{name}: {oname}.{attr} changed while the rules ran (a cache outside the store)"
        assert sum(len(store.snapshot()[t]) for t in store.names()) > 100


def test_restore_refills_the_tables_in_place() -> None:
    store = MemoStore()
    t = store.table("a")
    t[1] = "x"
    snap = store.snapshot()
    t[2] = "y"
    late = store.table("b")
    late["k"] = 1
    store.restore(snap)
    assert store.table("a") is t and t == {1: "x"} and late == {}
    store.release()
    assert t == {}


def test_scoped_tables_key_on_the_hypothesis() -> None:
    store = MemoStore()
    t = store.scoped("s")
    t["q"] = "plain"
    store.hypothesis = Hypothesis(assume=(("do_train", True),))
    assert t.get("q") is None and "q" not in t
    t["q"] = "assuming"
    assert t["q"] == "assuming"
    store.hypothesis = Hypothesis()
    assert t["q"] == "plain"


def test_plain_tables_do_not_depend_on_the_hypothesis() -> None:
    """The index's unscoped tables (values, call values, callees, returns, callers, ...) are
    computed from the facts alone: filled under an odd hypothesis (every parameter assumed 0, no
    call site counting) they hold what they hold without one."""
    def fill(mc: Any, h: Hypothesis) -> Dict[str, Any]:
        p = mc.p
        p.store.release()
        with p.under(h):
            for fi, facts in enumerate(p.files):
                for cid, c in enumerate(facts.calls):
                    p.call_values(fi, cid)
                    for a in c.args:
                        p.expand_params(p.values(fi, c.scope, a.value))
        snap = p.store.snapshot()
        return {k: _plain(v) for k, v in snap.items() if k.startswith("index.") and k != "index.configs"}

    for name in PROJECTS:
        mc = _context(name)[0]
        plain = fill(mc, Hypothesis())
        params = {prm.name: 0 for f in mc.p.files for fn in f.funcs for prm in fn.params}
        odd = Hypothesis(assume=tuple(sorted(params.items())), site_filter=lambda fi, cid: False)
        assert fill(mc, odd) == plain, name


def _plain(v: Any) -> Any:
    """Answers comparable by value (bound arguments are objects without an equality)."""
    if isinstance(v, BoundArgs):
        return ("bound", tuple(sorted(v.args.items())), v.uncertain, tuple(v.extra))
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return type(v)(_plain(x) for x in v)
    return v
