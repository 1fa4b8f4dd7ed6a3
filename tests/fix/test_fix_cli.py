"""``trainlint check --fix / --unsafe-fixes / --diff`` end to end, and the fix objects of JSON and SARIF."""
from __future__ import annotations

import io
import json
import os
import shutil
import sys
from typing import Dict

import jsonschema
import pytest

from linter.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SARIF_SCHEMA = os.path.join(ROOT, "tests", "data", "sarif-schema-2.1.0.json")


def run(*argv: str, cwd: str = "", stdin: str = ""):
    out, err = io.StringIO(), io.StringIO()
    old, old_stdin = os.getcwd(), sys.stdin
    if cwd:
        os.chdir(cwd)
    if stdin:
        sys.stdin = io.StringIO(stdin)
    try:
        code = main(["check", "--no-cache", *argv], out, err)
    finally:
        os.chdir(old)
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


def snapshot(root: str) -> Dict[str, bytes]:
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


@pytest.fixture
def examples(tmp_path):
    dst = tmp_path / "examples"
    shutil.copytree(os.path.join(ROOT, "examples"), dst)
    return str(dst)


def test_diff_prints_changes_writes_nothing_and_exits_1(examples) -> None:
    before = snapshot(examples)
    code, out, err = run("--diff", ".", cwd=examples)
    assert code == 1
    assert snapshot(examples) == before
    assert "--- a/pytorch_amp/train.py\n+++ b/pytorch_amp/train.py\n" in out
    assert "+        scaler.unscale_(optimizer)\n" in out
    assert "mindspore_port" not in out            # its fixes are all unsafe
    assert "would fix 1 finding in 1 file" in err
    code, out, _ = run("--diff", "--unsafe-fixes", ".", cwd=examples)
    assert code == 1 and "+ms.set_seed(1)\n" in out and "nn.Dropout(p=config.DROPOUT_RATE)" in out
    assert snapshot(examples) == before


def test_diff_exits_0_when_nothing_to_fix(tmp_path) -> None:
    (tmp_path / "ok.py").write_text("from mindspore import nn\nd = nn.Dropout(p=0.1)\n")
    code, out, err = run("--diff", ".", cwd=str(tmp_path))
    assert (code, out) == (0, "")


def test_fix_end_to_end_on_the_examples(examples) -> None:
    before = snapshot(examples)
    code, out, err = run("--fix", "--format", "concise", ".", cwd=examples)
    after = snapshot(examples)
    changed = sorted(p for p in after if after[p] != before[p])
    assert changed == [os.path.join("pytorch_amp", "train.py")]
    assert code == 1                                       # unsafe-fixable findings remain
    assert "MP301" not in out                              # the fixed finding is not reported as remaining
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("1 fixed, ") and "fixable with --unsafe-fixes" in summary
    # idempotent: a second --fix changes nothing
    code2, out2, _ = run("--fix", "--format", "concise", ".", cwd=examples)
    assert snapshot(examples) == after and out2.strip().splitlines()[-1].startswith("0 fixed, ")
    # then the unsafe ones
    code3, out3, err3 = run("--fix", "--unsafe-fixes", ".", cwd=examples)
    final = snapshot(examples)
    assert "6 fixed" not in err3 and "5 fixed, " in out3
    model = final[os.path.join("mindspore_port", "src", "model.py")].decode()
    assert "nn.Dropout(p=config.DROPOUT_RATE)  # BUG" in model    # comments kept
    assert "momentum=1 - config.BN_MOMENTUM" in model
    train = final[os.path.join("mindspore_port", "train.py")].decode()
    assert train.index("grads = loss_scaler.unscale(grads)") < train.index("grads = ops.clip_by_global_norm(")
    for path, data in final.items():
        if path.endswith(".py"):
            compile(data, path, "exec", dont_inherit=True)
    assert not [f for f in os.listdir(os.path.join(examples, "pytorch_amp")) if f.startswith(".trainlint-")]


def test_stdin_fix_prints_the_fixed_source(tmp_path) -> None:
    src = "import mindspore.nn as nn\nd = nn.Dropout(keep_prob=0.9)\n"
    code, out, err = run("--fix", "--extend-select", "API105", "--stdin-filename", "m.py", cwd=str(tmp_path), stdin=src)
    assert out == "import mindspore.nn as nn\nd = nn.Dropout(p=0.1)\n"
    assert code == 0 and "1 fixed, 0 remaining" in err
    assert not os.path.exists(tmp_path / "m.py")


def test_notebooks_and_other_encodings_are_not_rewritten(tmp_path) -> None:
    gbk = "# -*- coding: gbk -*-\n# 中文\nimport mindspore.nn as nn\nd = nn.Dropout(keep_prob=0.9)\n"
    (tmp_path / "g.py").write_bytes(gbk.encode("gbk"))
    code, _, err = run("--fix", "--extend-select", "API105", "--fail-on", "info", ".", cwd=str(tmp_path))
    assert (tmp_path / "g.py").read_bytes() == gbk.encode("gbk")
    assert "g.py: fixes not applied: not plain UTF-8" in err and code == 1


def test_json_carries_fix_objects(tmp_path) -> None:
    (tmp_path / "m.py").write_text("import mindspore.nn as nn\nd = nn.Dropout(keep_prob=0.9)\nx = nn.Dropout(0.1)\n")
    code, out, _ = run("--format", "json", "--extend-select", "API105", ".", cwd=str(tmp_path))
    doc = json.loads(out)
    fixes = {f["rule"]: f.get("fix") for f in doc["findings"]}
    assert fixes["API105"] == {
        "applicability": "safe", "title": "Pass the drop probability: `keep_prob=K` → `p=1 - K`",
        "reason": fixes["API105"]["reason"],
        "edits": [{"path": "m.py", "line": 2, "column": 16, "end_line": 2, "end_column": 25, "content": "p"},
                  {"path": "m.py", "line": 2, "column": 26, "end_line": 2, "end_column": 29, "content": "0.1"}]}
    assert fixes["API101"]["applicability"] == "unsafe"
    assert fixes["API101"]["edits"][0]["content"] == "p=0.1"


def test_sarif_fixes_validate(tmp_path) -> None:
    (tmp_path / "m.py").write_text("import mindspore.nn as nn\nd = nn.Dropout(keep_prob=0.9)\n")
    code, out, _ = run("--format", "sarif", "--extend-select", "API105", ".", cwd=str(tmp_path))
    doc = json.loads(out)
    with open(SARIF_SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    jsonschema.Draft7Validator(schema).validate(doc)
    (result,) = doc["runs"][0]["results"]
    (fix,) = result["fixes"]
    change = fix["artifactChanges"][0]
    assert change["artifactLocation"]["uri"] == "m.py"
    assert change["replacements"][1] == {"deletedRegion": {"startLine": 2, "startColumn": 26, "endLine": 2, "endColumn": 29},
                                         "insertedContent": {"text": "0.1"}}
    assert fix["description"]["text"].startswith("Pass the drop probability")


def test_text_output_marks_fixable_findings(tmp_path) -> None:
    (tmp_path / "m.py").write_text("import mindspore.nn as nn\nd = nn.Dropout(keep_prob=0.9)\n")
    code, out, _ = run("--extend-select", "API105", "--show-info", ".", cwd=str(tmp_path))
    assert "[*] fixable" in out and "1 fixable with `trainlint check --fix`" in out
    # without --show-info the info finding is counted in one line, and so is its fix: not advertised
    code, out, _ = run("--extend-select", "API105", ".", cwd=str(tmp_path))
    assert code == 0 and "[*]" not in out and "fixable" not in out
    assert "1 info finding not shown (true but minor; --show-info shows them)." in out
    assert (tmp_path / "m.py").read_text().endswith("keep_prob=0.9)\n")   # files change only with --fix


def test_fix_and_write_baseline_conflict(tmp_path) -> None:
    code, _, err = run("--fix", "--write-baseline", "b.json", ".", cwd=str(tmp_path))
    assert code == 2 and "cannot be combined" in err


def test_opt_in_rule_runs_only_when_selected(tmp_path) -> None:
    (tmp_path / "m.py").write_text("import mindspore.nn as nn\nd = nn.Dropout(keep_prob=0.9)\n")
    assert run("--format", "concise", ".", cwd=str(tmp_path))[:2] == (0, "")
    code, out, _ = run("--format", "concise", "--extend-select", "API105", "--fail-on", "info", ".", cwd=str(tmp_path))
    assert code == 1 and "API105" in out
    assert "API105" in run("--format", "concise", "--select", "ALL", "--show-info", ".", cwd=str(tmp_path))[1]
    assert run("--fix", ".", cwd=str(tmp_path))[0] == 0 and "keep_prob=0.9" in (tmp_path / "m.py").read_text()


def test_fix_annotations_are_cached_and_identical(tmp_path, monkeypatch) -> None:
    """A warm run must not re-parse files to find their fixes (it dominated warm-run time);
    the cached fix objects are the ones planning gives, and an edited file is planned again."""
    import linter.fix.run as fixrun

    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "ex")
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "ex" / "copy")   # same texts, other paths
    cache = tmp_path / "cache"

    def json_run() -> str:
        out, err = io.StringIO(), io.StringIO()
        main(["check", "--cache-dir", str(cache), "--format", "json", str(tmp_path / "ex")], out, err)
        return out.getvalue()

    cold = json_run()
    assert '"fix": {' in cold
    for f in json.loads(cold)["findings"]:   # each fix edits its own file, not an identical copy's
        assert all(e["path"] == f["path"] for e in (f.get("fix") or {}).get("edits", [])), f
    # the key names the path: identical copies never share their (path-carrying) edits
    from linter.core.cache import Cache

    c = Cache(str(cache))
    assert fixrun._annotate_key(c, "rules", "en", "a.py", "x = 1\n", []) != \
        fixrun._annotate_key(c, "rules", "en", "b.py", "x = 1\n", [])
    calls = []
    real_plan = fixrun.plan
    monkeypatch.setattr(fixrun, "plan", lambda *a, **k: calls.append(a[1]) or real_plan(*a, **k))
    assert json_run() == cold and calls == []
    fixable = sorted({f["path"] for f in json.loads(cold)["findings"] if f.get("fix")})
    target = tmp_path / os.path.join(os.getcwd(), fixable[0])   # report paths are relative to the cwd
    target.write_text(target.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    json_run()
    assert len(calls) == 1 and calls[0].endswith("# edited\n")


def test_fix_annotations_planned_in_parallel_are_the_serial_ones(tmp_path) -> None:
    """With -j2 and enough files the fixes are planned by forked workers; the report must not change."""
    import linter.fix.run as fixrun

    for i in range(6):   # 3 files with fixable findings per copy: 18 files, above the parallel threshold
        shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / f"ex{i}")
    outputs = []
    for jobs in ("1", "2"):
        out, err = io.StringIO(), io.StringIO()
        main(["check", "--no-cache", "-j", jobs, "--format", "json", str(tmp_path)], out, err)
        outputs.append(out.getvalue())
    fixable = {f["path"] for f in json.loads(outputs[0])["findings"] if f.get("fix")}
    assert len(fixable) >= fixrun._PARALLEL_MIN_FILES
    assert outputs[0] == outputs[1]
