"""The command line: exit codes, output formats, selection, rule-file errors, subcommands."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from linter import __version__
from linter.cli import main

BAD = "from mindspore import nn\nlayer = nn.Dropout(0.1)\n"
GOOD = "from mindspore import nn\nlayer = nn.Dropout(p=0.1)\n"


def run(*argv: str, cwd: str = ""):
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    if cwd:
        os.chdir(cwd)
    try:
        code = main(list(argv), out, err)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def proj(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "good.py").write_text(GOOD)
    return tmp_path


def test_exit_codes(proj) -> None:
    assert run("check", str(proj / "good.py"))[0] == 0
    assert run("check", str(proj / "bad.py"))[0] == 1
    assert run("check", "--exit-zero", str(proj / "bad.py"))[0] == 0
    assert run("check", str(proj / "missing.py"))[0] == 2
    assert run("check", "--select", "NOPE1", str(proj))[0] == 2
    assert run()[0] == 2


def test_concise_format_is_editor_parsable(proj) -> None:
    code, out, _ = run("check", "--format", "concise", str(proj))
    assert code == 1
    line = out.strip().splitlines()[0]
    assert line.startswith(str(proj / "bad.py") + ":2:9: API101 [api.01] error: ") or \
        line.split(":")[1:3] == ["2", "9"]


def test_json_contract(proj) -> None:
    code, out, _ = run("check", "--format", "json", str(proj))
    doc = json.loads(out)
    assert code == 1 and doc["version"] == __version__
    (f,) = doc["findings"]
    assert set(f) >= {"path", "line", "column", "end_line", "end_column", "rule", "name", "checklist",
                      "framework", "severity", "message"}
    assert (f["line"], f["column"], f["rule"], f["checklist"], f["framework"], f["severity"]) == \
        (2, 9, "API101", "api.01", "mindspore", "error")
    assert doc["errors"] == [] and doc["summary"]["files"] == 2 and doc["summary"]["findings"] == 1


def test_errors_are_reported_in_json_with_kind(proj) -> None:
    (proj / "py2.py").write_text("print 'hello'\n")
    code, out, _ = run("check", "--format", "json", str(proj))
    doc = json.loads(out)
    assert code == 2
    (e,) = doc["errors"]
    assert e["kind"] == "syntax" and e["path"].endswith("py2.py") and e["line"] == 1


def test_selection_by_checklist_framework_prefix_and_ignore(proj) -> None:
    assert run("check", "--select", "api.01", str(proj))[0] == 1
    assert run("check", "--select", "dp.03", str(proj))[0] == 0
    assert run("check", "--select", "pytorch", str(proj))[0] == 0
    assert run("check", "--select", "API1", str(proj))[0] == 1
    assert run("check", "--ignore", "mindspore-dropout-keep-prob", str(proj))[0] == 0


def test_chinese_messages(proj) -> None:
    _, out, _ = run("check", "--format", "concise", "--lang", "zh", str(proj))
    assert "保留" in out


def test_rich_text_shows_source_and_summary(proj) -> None:
    _, out, _ = run("check", str(proj))
    assert "layer = nn.Dropout(0.1)" in out and "By checklist item" in out and "api.01" in out
    assert "\x1b[" not in out  # not a terminal: no colour codes


def test_broken_user_rule_pack_exits_2_with_location(proj, tmp_path_factory) -> None:
    pack = tmp_path_factory.mktemp("pack")
    (pack / "x.yaml").write_text("id: X1\nname: x\n")
    code, _, err = run("check", "--rules", str(pack), str(proj))
    assert code == 2 and "x.yaml" in err


def test_rules_explain_schema_validate(proj) -> None:
    code, out, _ = run("rules", "--format", "json")
    assert code == 0 and any(r["id"] == "MP301" for r in json.loads(out))
    code, out, _ = run("explain", "API101", "--lang", "zh")
    assert code == 0 and "keep_prob" in out and "为什么" in out
    assert run("explain", "NOPE")[0] == 2
    code, out, _ = run("schema")
    assert code == 0 and json.loads(out)["title"] == "trainlint rule"
    here = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    code, out, _ = run("validate-rules", os.path.join(here, "rules", "mindspore"))
    assert code == 0 and out.count(": ok") >= 5


def test_target_version_changes_the_assumed_semantics(tmp_path) -> None:
    (tmp_path / "m.py").write_text("from mindspore import nn\nd = nn.Dropout(0.1)\n")
    code, out, _ = run("check", "--format", "concise", "--target-version", "mindspore=1.10", str(tmp_path))
    assert code == 1 and "MindSpore 1.10 (--target-version)" in out
    assert run("check", "--target-version", "mindspore", str(tmp_path))[0] == 2


def test_module_entry_point_runs() -> None:
    proc = subprocess.run([sys.executable, "-m", "linter", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0 and __version__ in proc.stdout


def test_every_option_of_every_command_is_documented() -> None:
    import argparse

    from linter.cli import _parser

    parser = _parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(sub.choices) == {"check", "rules", "explain", "schema", "validate-rules", "test-rules", "compare", "audit",
                                 "server"}
    undocumented = [f"{name} {a.option_strings or a.dest}" for name, p in sub.choices.items()
                    for a in p._actions if not isinstance(a, argparse._HelpAction) and not a.help]
    assert undocumented == []
    for name, p in sub.choices.items():
        assert p.description, name
