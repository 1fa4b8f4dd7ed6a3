"""Stage 4: rule files are validated before linting; every problem names file, line, JSON path."""
from __future__ import annotations

import os
import textwrap

import pytest

from linter.compiler.build import build_rule
from linter.compiler.load import RuleFileError, read_yaml
from linter.engine.packs import load_packs

GOOD = """\
id: API199
name: my-rule
checklist: api.01
framework: mindspore
severity: warning
title: {en: "t", zh: "标题"}
message: {en: "`{callee}` uses {keep_prob}", zh: "`{callee}` 使用 {keep_prob}"}
docs:
  what: {en: w, zh: 内容}
  why: {en: w, zh: 原因}
  fix: {en: f, zh: 修复}
match:
  call:
    name: mindspore.nn.Dropout
    where: {arg: keep_prob, value: {lt: 0.5}}
examples:
  invalid: ["from mindspore import nn\\nnn.Dropout(0.1)  # expect: API199\\n"]
  valid: ["from mindspore import nn\\nnn.Dropout(0.9)\\n"]
"""


def write(tmp_path, text: str, name: str = "my-rule.yaml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def compile_text(tmp_path, text: str, name: str = "my-rule.yaml"):
    return build_rule(read_yaml(write(tmp_path, text, name)))


def test_good_rule_compiles(tmp_path) -> None:
    rule = compile_text(tmp_path, GOOD)
    assert rule.id == "API199" and rule.kind == "call"


def test_invalid_yaml_reports_line(tmp_path) -> None:
    with pytest.raises(RuleFileError) as err:
        compile_text(tmp_path, "id: A\nname: [unclosed\n")
    assert err.value.line == 3 or err.value.line == 2
    assert "invalid YAML" in str(err.value)


def test_unknown_key_reports_line_and_json_path(tmp_path) -> None:
    bad = GOOD.replace("    where: {arg: keep_prob, value: {lt: 0.5}}", "    wher: {arg: keep_prob}")
    with pytest.raises(RuleFileError) as err:
        compile_text(tmp_path, bad)
    assert "unknown key 'wher'" in str(err.value)
    assert err.value.pointer == "/match/call"
    assert err.value.line == 15


def test_yaml_boolean_key_is_explained(tmp_path) -> None:
    bad = GOOD.replace("    where: {arg: keep_prob, value: {lt: 0.5}}", "    where: {arg: keep_prob, on: 1}")
    with pytest.raises(RuleFileError) as err:
        compile_text(tmp_path, bad)
    assert "YAML reads unquoted on/off/yes/no as booleans" in str(err.value)


def test_bad_regex_reports_path(tmp_path) -> None:
    bad = GOOD.replace("    where: {arg: keep_prob, value: {lt: 0.5}}", "    where: {arg: keep_prob, name: {regex: '(unclosed'}}")
    with pytest.raises(RuleFileError) as err:
        compile_text(tmp_path, bad)
    assert "invalid regular expression" in str(err.value)
    assert err.value.pointer == "/match/call/where/name/regex"


def test_unknown_checklist_id_and_bad_id(tmp_path) -> None:
    with pytest.raises(RuleFileError) as err:
        compile_text(tmp_path, GOOD.replace("checklist: api.01", "checklist: api.99"))
    assert err.value.pointer == "/checklist"
    with pytest.raises(RuleFileError):
        compile_text(tmp_path, GOOD.replace("id: API199", "id: api-199"))


def test_unknown_placeholder_rejected(tmp_path) -> None:
    with pytest.raises(RuleFileError) as err:
        compile_text(tmp_path, GOOD.replace("uses {keep_prob}\"", "uses {nonsense}\""))
    assert "unknown placeholder {nonsense}" in str(err.value)


def test_group_by_cause_names_a_tested_argument(tmp_path) -> None:
    grouped = GOOD.replace("examples:", "report: {at: call, group_by_cause: {arg: keep_prob, at: first-use}}\nexamples:")
    assert compile_text(tmp_path, grouped).group_by_cause == ("keep_prob", "first-use")
    with pytest.raises(RuleFileError) as err:
        compile_text(tmp_path, grouped.replace("{arg: keep_prob, at: first-use}", "{arg: p, at: first-use}"))
    assert "`p` is not an argument whose value the rule tests (keep_prob)" in str(err.value)
    assert err.value.pointer == "/report/group_by_cause/arg"
    with pytest.raises(RuleFileError) as err:
        compile_text(tmp_path, grouped.replace("at: first-use}", "at: last-use}"))
    assert err.value.pointer == "/report/group_by_cause/at"


def test_name_must_match_file_name(tmp_path) -> None:
    with pytest.raises(RuleFileError) as err:
        compile_text(tmp_path, GOOD, name="other-name.yaml")
    assert "must equal the file name" in str(err.value)


def test_duplicate_ids_across_packs_rejected(tmp_path) -> None:
    d = tmp_path / "pack"
    d.mkdir()
    (d / "my-rule.yaml").write_text(GOOD.replace("id: API199", "id: API101"), encoding="utf-8")
    packs = load_packs([str(d)])
    assert any("duplicate rule id 'API101'" in str(e) for e in packs.errors)


def test_user_pack_errors_are_collected_not_fatal_to_loading(tmp_path) -> None:
    d = tmp_path / "pack"
    d.mkdir()
    (d / "a-rule.yaml").write_text("id: [\n", encoding="utf-8")
    (d / "my-rule.yaml").write_text(GOOD, encoding="utf-8")
    packs = load_packs([str(d)])
    assert len(packs.errors) == 1 and "a-rule.yaml" in str(packs.errors[0])
    assert any(r.id == "API199" for r in packs.rules)


def test_missing_rule_directory_is_an_error(tmp_path) -> None:
    packs = load_packs([os.path.join(str(tmp_path), "nope")])
    assert any("does not exist" in str(e) for e in packs.errors)


def test_entry_reaches_needs_an_entry_absence_rule(tmp_path) -> None:
    bad = GOOD.replace("match:\n", "severity_if:\n  - when: {entry_reaches: [{name: [numpy.random.seed]}]}\n"
                                   "    severity: info\n    note: {en: n, zh: 注}\nmatch:\n")
    with pytest.raises(RuleFileError) as err:
        compile_text(tmp_path, bad)
    assert "`entry_reaches` needs an absence rule of scope `entry`" in str(err.value)
    assert err.value.pointer == "/severity_if/0/when"
