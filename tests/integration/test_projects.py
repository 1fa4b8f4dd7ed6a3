"""Whole fixture projects (tests/projects/*, written independently of the engine): every
`# expect: ID` line must be reported, nothing else may be; `# todo-expect:` marks known
misses, which must stay silent until they are fixed (then the marker is promoted)."""
from __future__ import annotations

import os
import re

import pytest

from linter.api import check_paths
from linter.engine.units import Options
from linter.testing import actual_marks, expected_marks, rule_of
from tests.conftest import builtin_packs

ROOT = os.path.join(os.path.dirname(os.path.dirname(__file__)), "projects")
PROJECTS = sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d)))
_TODO = re.compile(r"#\s*todo-expect:\s*([A-Z]+[0-9]+)")


def sources(project: str):
    out = []
    for dirpath, _dirs, names in os.walk(project):
        for n in sorted(names):
            if n.endswith(".py"):
                p = os.path.join(dirpath, n)
                with open(p, encoding="utf-8") as fh:
                    out.append((os.path.relpath(p, project), fh.read()))
    return out


@pytest.mark.parametrize("name", PROJECTS)
def test_project_matches_markers(name: str) -> None:
    project = os.path.join(ROOT, name)
    files = sources(project)
    expected = expected_marks(files)
    # default rules, and the opt-in rules a marker names (their users turn them on by selecting them)
    marked = {rule_of(m) for m in expected}
    packs = builtin_packs()
    result = check_paths([project], packs, Options(select=lambda rid: rid in marked or any(
        r.id == rid and r.default_on for r in packs.rules)), cwd=project)
    got = actual_marks(result.findings, expected)
    assert not [e for e in result.errors if e.fatal], result.errors
    missing = sorted(expected - got)
    unexpected = sorted(got - expected)
    assert not missing and not unexpected, f"missing {missing}\nunexpected {unexpected}"
    todo = {(p, i, m.group(1)) for p, text in files for i, line in enumerate(text.splitlines(), 1)
            for m in [_TODO.search(line)] if m}
    assert not (todo & got), f"known misses now fire; promote them: {sorted(todo & got)}"


def test_fixture_set_covers_every_rule() -> None:
    # opt-in rules (`default: false`) do not run on the fixtures; their examples cover them
    rules = {r.id for r in builtin_packs().rules if r.default_on}
    marked = {rule_of(m) for name in PROJECTS for m in expected_marks(sources(os.path.join(ROOT, name)))}
    assert rules <= marked, f"rules without a fixture finding: {sorted(rules - marked)}"
