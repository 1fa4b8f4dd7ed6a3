"""`trainlint compare` through the real CLI: exit codes, formats (JSON contract, Markdown, plain
rich), `--lang zh`, `--hide-matches`, and the errors a user can make."""
from __future__ import annotations

import io
import json
import os
import re

import pytest

from linter import __version__
from linter.cli import main

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
VERDICTS = {"match", "mismatch", "unknown", "only-reference", "only-new"}


def run(*argv: str, cwd: str = FIXTURES):
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(["compare", *argv, "--no-cache"], out, err)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def test_exit_codes() -> None:
    assert run("torch_ref", "ms_port")[0] == 0
    assert run("torch_ref", "ms_port_buggy")[0] == 1
    assert run("torch_ref/train.py", "keras_port/train_keras.py")[0] == 1


def test_nonexistent_path_is_a_usage_error() -> None:
    code, out, err = run("torch_ref", "no/such/dir")
    assert code == 2 and out == ""
    assert err == "trainlint compare: no/such/dir: path does not exist\n"


def test_folder_without_an_entry_script(tmp_path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    code, out, err = run(str(tmp_path), "ms_port")
    assert code == 2 and out == ""
    assert "no entry script found" in err and "train.py" in err


def test_nothing_to_compare(tmp_path) -> None:
    (tmp_path / "train.py").write_text("print('hello')\n")
    code, out, err = run("torch_ref", str(tmp_path))
    assert code == 2 and out == ""
    assert "nothing to compare" in err and str(tmp_path) in err


def test_a_file_that_does_not_parse_is_reported(tmp_path) -> None:
    (tmp_path / "train.py").write_text("def broken(:\n")
    code, _, err = run("torch_ref", str(tmp_path / "train.py"))
    assert code == 2 and "train.py" in err


def test_bad_option_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exc:
        run("torch_ref", "ms_port", "--format", "xml")
    assert exc.value.code == 2


def test_json_contract() -> None:
    code, out, _ = run("torch_ref", "ms_port_buggy", "--format", "json")
    doc = json.loads(out)
    assert code == 1
    assert doc["version"] == __version__
    assert doc["reference"] == "torch_ref" and doc["new"] == "ms_port_buggy"
    assert doc["rows"]
    location = re.compile(r"^.+\.py:\d+$")
    for row in doc["rows"]:
        assert set(row) == {"key", "reference", "new", "verdict", "reference_location", "new_location", "advice",
                            "reference_as_written", "new_as_written"}
        assert row["verdict"] in VERDICTS
        if row["verdict"] == "only-new":
            assert row["reference"] is None and row["reference_location"] is None
        if row["verdict"] == "only-reference":
            assert row["new"] is None and row["new_location"] is None
        for side in ("reference", "new"):
            if row[side] is not None and row[f"{side}_location"] is not None and row["key"] != "amp.enabled":
                assert location.match(row[f"{side}_location"]), row
        assert bool(row["advice"]) == (row["verdict"] != "match")
    by_key = {r["key"]: r for r in doc["rows"]}
    assert by_key["layers.Conv2d[3].bias"] == {
        "key": "layers.Conv2d[3].bias", "reference": True, "new": False, "verdict": "mismatch",
        "reference_as_written": None, "new_as_written": None,
        "reference_location": "torch_ref/model.py:31", "new_location": "ms_port_buggy/src/resnet.py:32",
        "advice": "write `has_bias=True` in `mindspore.nn.Conv2d` (ms_port_buggy/src/resnet.py:32) to match the "
                  "reference (torch_ref/model.py:31)"}
    assert by_key["dropout[0].drop_probability"]["new"] == 0.8
    # a value in its own convention differs from the canonical one: both are given (the port's
    # first MindSpore BatchNorm copies PyTorch's 0.1, which is 0.9 in PyTorch's convention); a
    # default that nobody wrote has no spelling to show (the second keeps MindSpore's 0.9)
    momentum = by_key["layers.BatchNorm[0].momentum"]
    assert (momentum["new"], momentum["new_as_written"]) == (pytest.approx(0.9), pytest.approx(0.1)), momentum
    assert momentum["reference_as_written"] is None
    assert by_key["layers.BatchNorm[1].momentum"]["new_as_written"] is None
    mean = by_key["data.train.normalize.mean"]
    assert mean["new_as_written"] == [0.4914, 0.4822, 0.4465] and mean["reference_as_written"] is None
    assert by_key["lr_schedule.period"]["reference"] == {"value": 30, "unit": "epochs"}
    assert by_key["layers.Conv2d[0].padding"]["new"] == {"one_of": ["same", [1, 1]]}
    assert by_key["data.train.normalize.mean"]["reference"] == [0.4914, 0.4822, 0.4465]
    assert doc["summary"]["mismatch"] == sum(1 for r in doc["rows"] if r["verdict"] == "mismatch")


def test_json_unresolved_values(tmp_path) -> None:
    (tmp_path / "train.py").write_text(
        "import os\nimport torch\nmodel = torch.nn.Linear(4, 2)\n"
        "opt = torch.optim.SGD(model.parameters(), lr=float(os.environ['LR']))\n")
    code, out, _ = run("torch_ref", str(tmp_path / "train.py"), "--format", "json")
    row = next(r for r in json.loads(out)["rows"] if r["key"] == "optimizer.lr")
    assert row["verdict"] == "unknown"
    assert row["new"] == {"unresolved": "float(os.environ['LR'])"}
    assert "float(os.environ['LR'])" in row["advice"]


def test_markdown() -> None:
    code, out, _ = run("torch_ref", "ms_port_buggy", "--format", "markdown")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "### Training profile: torch_ref (reference) vs ms_port_buggy (new)"
    assert lines[2] == "| setting | reference | new | verdict | what to write to match |"
    assert lines[3] == "|---|---|---|---|---|"
    row = next(ln for ln in lines if ln.startswith("| `dropout[0].drop_probability`"))
    assert row.count(" | ") == 4   # five cells, no stray pipe
    assert "`0.2` (torch_ref/model.py:40)" in row and "`0.8` (ms_port_buggy/src/resnet.py:41)" in row
    assert "**mismatch**" in row and "`p=0.2`" in row
    assert re.search(r"settings compared: \d+ mismatches", lines[-1])


def test_rich_is_plain_text_when_not_a_terminal() -> None:
    code, out, _ = run("torch_ref", "ms_port_buggy")
    assert code == 1
    assert "\x1b[" not in out
    assert "optimizer.lr" in out and "mismatch" in out and "learning_rate=0.1" in out
    assert out.index("optimizer.lr") < out.index("optimizer.kind")   # mismatches before matches


def test_hide_matches() -> None:
    _, full, _ = run("torch_ref", "ms_port_buggy", "--format", "markdown")
    _, short, _ = run("torch_ref", "ms_port_buggy", "--format", "markdown", "--hide-matches")
    assert "`optimizer.kind`" in full and "`optimizer.kind`" not in short
    assert "`optimizer.lr`" in short
    code, out, _ = run("torch_ref", "ms_port", "--hide-matches")
    assert code == 0 and "No mismatches." in out and "┏" not in out


def test_chinese() -> None:
    code, out, _ = run("torch_ref", "ms_port_buggy", "--format", "markdown", "--lang", "zh")
    assert code == 1
    assert out.startswith("### 训练配置对比：torch_ref（参考）与 ms_port_buggy（新）")
    assert "| 配置项 | 参考脚本 | 新脚本 | 结论 | 如何对齐 |" in out
    row = next(ln for ln in out.splitlines() if ln.startswith("| `layers.BatchNorm[0].momentum`"))
    assert "**不一致**" in row and "中写 `momentum=0.9`" in row
    row = next(ln for ln in out.splitlines() if ln.startswith("| `seed.python`"))
    assert "**仅参考脚本有**" in row
    _, js, _ = run("torch_ref", "ms_port_buggy", "--format", "json", "--lang", "zh")
    rows = json.loads(js)["rows"]
    assert {r["verdict"] for r in rows} <= VERDICTS          # verdicts stay machine tokens
    assert any("与参考脚本" in r["advice"] for r in rows)   # advice is translated


def test_help_is_complete() -> None:
    out = io.StringIO()
    with pytest.raises(SystemExit):
        main(["compare", "--help"], out, io.StringIO())
    import contextlib

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = buf.getvalue()
    for word in ("REFERENCE", "NEW", "--format", "--lang", "--hide-matches", "exit codes"):
        assert word.lower() in text.lower()


def test_docs_example_is_real_output() -> None:
    """docs/compare.md's example rows are copied from this output: keep them in sync."""
    page = os.path.join(FIXTURES, "..", "..", "..", "docs", "compare.md")
    text = open(page, encoding="utf-8").read()
    section = text.split("# Compare a migrated script with its reference", 1)[1].split("\n## Reference", 1)[0]
    example = [ln for ln in section.splitlines() if ln.startswith("| `")]
    _, out, _ = run("torch_ref", "ms_port_buggy", "--format", "markdown", "--hide-matches")
    assert len(example) >= 10
    assert [ln for ln in example if ln not in out.splitlines()] == []
    summary = next(ln for ln in section.splitlines() if "settings compared:" in ln)
    assert summary == out.splitlines()[-1]
