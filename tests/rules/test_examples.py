"""Every inline example of every shipped rule: invalid ones fire exactly on their
`# expect:` lines, valid ones stay silent, todo ones (known misses) stay silent today."""
from __future__ import annotations

import pytest

from linter.testing import run_example
from tests.conftest import builtin_packs

_CASES = [(rule, ex) for rule in builtin_packs().rules for ex in rule.examples]


@pytest.mark.parametrize("rule,example", _CASES, ids=[f"{r.id}[{e.kind}-{e.index}]" for r, e in _CASES])
def test_example(rule, example, packs) -> None:
    result = run_example(rule, example, packs)
    assert result.ok, result.explain()


@pytest.mark.parametrize("rule,example", [c for c in _CASES if c[1].kind == "invalid"],
                         ids=[f"{r.id}[zh-{e.index}]" for r, e in _CASES if e.kind == "invalid"])
def test_chinese_messages_render(rule, example, packs) -> None:
    """The zh message renders (no leftover placeholders or brackets) wherever en fires."""
    result = run_example(rule, example, packs, lang="zh")
    assert result.ok, result.explain()
    for msg in result.messages.values():
        assert "{" not in msg and "[[" not in msg and "]]" not in msg, msg
        assert any("\u4e00" <= ch <= "\u9fff" for ch in msg), msg


def test_english_messages_have_no_template_leftovers(packs) -> None:
    for rule, example in _CASES:
        if example.kind != "invalid":
            continue
        result = run_example(rule, example, packs)
        for msg in result.messages.values():
            assert "{" not in msg and "[[" not in msg and "]]" not in msg, (rule.id, msg)
