"""Idempotence over every example of every rule: applying all available fixes (safe and
unsafe, of all rules at once) to each example gives code that compiles, and a second
application changes nothing."""
from __future__ import annotations

import pytest

from linter.engine.packs import load_packs
from linter.fix.apply import compiles
from linter.testing import fix_sources

_PACKS = load_packs()
_CASES = [(r, e) for r in _PACKS.rules for e in r.examples]


@pytest.mark.parametrize("rule,example", _CASES, ids=[f"{r.id}[{e.kind}-{e.index}]" for r, e in _CASES])
def test_all_fixes_twice_change_nothing_the_second_time(rule, example) -> None:
    files = dict(example.files)
    first = fix_sources(files, _PACKS, _PACKS.rules, unsafe=True)
    assert first.converged and not first.refusals
    fixed = {**files, **first.fixed}
    for path, text in fixed.items():
        if path.endswith(".py"):   # launchers and READMEs beside the code are not Python
            assert compiles(text, path) is None
    second = fix_sources(fixed, _PACKS, _PACKS.rules, unsafe=True)
    assert second.fixed == {}, f"a second --fix changed {sorted(second.fixed)}"


def test_every_fixable_rule_shows_its_fix_in_an_example() -> None:
    """Before/after tests exist for every shipped fix (run by test-rules)."""
    for rule in _PACKS.rules:
        if rule.fixes:
            assert any(e.fixed or e.unsafe_fixed for e in rule.examples if e.kind == "invalid"), rule.id
