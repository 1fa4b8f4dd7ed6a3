"""Conventions of the shipped rule packs (what `trainlint validate-rules` cannot check alone)."""
from __future__ import annotations

import json
import os
import re

import pytest

from linter.compiler.build import build_rule
from linter.compiler.load import builtin_pack, read_yaml, rule_files
from linter.compiler.spec import CHECKLIST_IDS, rule_schema
from tests.conftest import builtin_packs

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "linter", "schema", "rule.json")
_PREFIX = {"dp": "DP", "api": "API", "mp": "MP", "wi": "WI", "cg": "CG", "hp": "HP", "ds": "DS"}


def test_packs_load_without_errors(packs) -> None:
    assert packs.errors == []
    assert len(packs.rules) >= 20


@pytest.mark.parametrize("rule", builtin_packs().rules, ids=lambda r: r.id)
def test_rule_conventions(rule) -> None:
    # file name == name, in the folder of its framework
    assert os.path.splitext(os.path.basename(rule.path))[0] == rule.name
    assert os.path.basename(os.path.dirname(rule.path)) == rule.framework
    # id encodes the checklist item: API1xx = api.01, DP3xx = dp.03
    group, item = rule.checklist.split(".")
    assert rule.id.startswith(_PREFIX[group] + str(int(item))), (rule.id, rule.checklist)
    assert rule.checklist in CHECKLIST_IDS
    # bilingual prose
    for block in (rule.title, rule.message, rule.docs["what"], rule.docs["why"], rule.docs["fix"]):
        assert block["en"].strip() and block["zh"].strip()
        assert re.search(r"[\u4e00-\u9fff]", block["zh"]), block["zh"]
    # examples both ways, and every invalid example marks at least one line
    kinds = [e.kind for e in rule.examples]
    assert "invalid" in kinds and "valid" in kinds


def test_ids_and_names_unique(packs) -> None:
    ids = [r.id for r in packs.rules]
    names = [r.name for r in packs.rules]
    assert len(ids) == len(set(ids))
    assert len(names) == len(set(names))


def test_every_named_concept_covered_for_each_framework(packs) -> None:
    """The seven checklist concepts of the engine issue, per framework where they apply."""
    have = {(r.checklist, r.framework) for r in packs.rules}
    for fw in ("mindspore", "pytorch", "tensorflow"):
        for item in ("dp.03", "api.01", "api.02", "mp.03", "wi.03"):
            assert (item, fw) in have, (item, fw)


def test_committed_schema_is_fresh() -> None:
    """linter/schema/rule.json is generated from linter/compiler/spec.py;
    rewrite it with TRAINLINT_UPDATE_SCHEMA=1 after changing the language."""
    text = json.dumps(rule_schema(), indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("TRAINLINT_UPDATE_SCHEMA"):
        os.makedirs(os.path.dirname(SCHEMA_PATH), exist_ok=True)
        with open(SCHEMA_PATH, "w", encoding="utf-8") as fh:
            fh.write(text)
    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        assert fh.read() == text, "schema is stale: run TRAINLINT_UPDATE_SCHEMA=1 pytest tests/rules/test_packs.py"


def test_every_rule_file_validates_standalone() -> None:
    for path in rule_files(builtin_pack()):
        build_rule(read_yaml(path))


def test_folded_chinese_text_has_no_spaces_between_chinese_characters(tmp_path) -> None:
    """YAML folding (`>-`) joins wrapped lines with a space; Chinese has none between words."""
    p = tmp_path / "t.yaml"
    p.write_text("message:\n  en: >-\n    two\n    words\n  zh: >-\n    训练，\n    精度 `p=0.1` 不变。\n"
                 "other:\n  zh: >-\n    默认值是 1e-5，\n    Keras 是 1e-3\n"
                 "note: {zh: \"保留 ASCII 空格 a b\"}\n", encoding="utf-8")
    data = read_yaml(str(p)).data
    assert data["message"]["en"] == "two words"                       # English keeps its space
    assert data["message"]["zh"] == "训练，精度 `p=0.1` 不变。"         # a space next to code stays
    assert data["note"]["zh"] == "保留 ASCII 空格 a b"
    assert data["other"]["zh"] == "默认值是 1e-5，Keras 是 1e-3"           # no space after a full-width comma
    gap = re.compile(r"[\u4e00-\u9fff\uff0c\u3002\uff1a\uff1b\uff09] +[\u4e00-\u9fff\uff08]")
    for r in builtin_packs().rules:
        for block in (r.title, r.message, *r.docs.values()):
            if isinstance(block, dict) and isinstance(block.get("zh"), str):
                assert not gap.search(block["zh"]), (r.id, block["zh"])
