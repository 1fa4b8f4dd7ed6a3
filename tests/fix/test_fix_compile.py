"""Fix declarations are checked when rules load: unknown placeholders, templates that are not
Python and `when` outside call rules are rule-file errors with a JSON path."""
from __future__ import annotations

import pytest

from linter.compiler.build import build_rule
from linter.compiler.load import RuleFileError, read_yaml

from test_fix_apply import CONTRIVED


def _load(tmp_path, fix_yaml: str):
    text = CONTRIVED.split("fix:\n")[0] + fix_yaml + "examples:" + CONTRIVED.split("examples:", 1)[1]
    p = tmp_path / "tst-contrived-fix.yaml"
    p.write_text(text, encoding="utf-8")
    return build_rule(read_yaml(str(p)))


BASE = """fix:
  applicability: safe
  title: {en: t, zh: t}
  reason: {en: r, zh: r}
"""


@pytest.mark.parametrize("edits,error", [
    ('  edits: [{op: set-keyword, name: p, value: "{nope}"}]\n', "unknown placeholder {nope}"),
    ('  edits: [{op: set-keyword, name: p, value: "1 -"}]\n', "is not a Python expression"),
    ('  edits: [{op: insert-before, template: "if x:"}]\n', "is not a Python statement"),
    ('  edits: [{op: rename-keyword, from: a}]\n', "`rename-keyword` needs `to`"),
    ('  edits: [{op: explode}]\n', "explode"),
])
def test_bad_fix_declarations_are_rule_errors(tmp_path, edits, error) -> None:
    with pytest.raises(RuleFileError) as exc:
        _load(tmp_path, BASE + edits)
    assert error in str(exc.value) and "/fix" in str(exc.value)


def test_good_declaration_compiles_with_bindings_and_imports(tmp_path) -> None:
    rule = _load(tmp_path, BASE + """  bind: [{name: sc, call: "*.scale", take: receiver}]
  edits:
    - {op: add-import, module: mindspore, bind: ms}
    - {op: insert-before, template: "{ms}.set_seed({callee}, {sc})"}
""")
    (fx,) = rule.fixes
    assert fx.safe and [e.op for e in fx.edits] == ["add-import", "insert-before"]
    assert fx.binders[0].name == "sc"
