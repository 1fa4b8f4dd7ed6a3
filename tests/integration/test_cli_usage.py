"""How users run `trainlint check`: configuration, stdin (editors), statistics, suppression
comments, baselines, excludes, notebooks and colour — through the real CLI entry point."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

from tests.integration.test_cli import run

BAD = "from mindspore import nn\nlayer = nn.Dropout(0.1)\n"
BAD_TWICE = "from mindspore import nn\na = nn.Dropout(0.1)\nb = nn.Dropout(0.2)\n"
BN = "from mindspore import nn\nbn = nn.BatchNorm2d(64, momentum=0.1)\n"


def write(root, rel, text):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def concise(*argv, cwd):
    code, out, err = run("check", "--format", "concise", *argv, cwd=str(cwd))
    return code, [ln for ln in out.splitlines() if ln], err


# ---------------------------------------------------------------------------- configuration
def test_config_in_pyproject_is_found_from_a_subdirectory(tmp_path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.trainlint]\nignore = ['API101']\nformat = 'concise'\n")
    write(tmp_path, "src/model.py", BAD + BN)
    code, out, _ = run("check", "model.py", cwd=str(tmp_path / "src"))
    assert code == 1
    assert [ln.split(": ")[1].split()[0] for ln in out.splitlines()] == ["API121"]  # concise, API101 ignored


def test_per_file_ignores_and_severity_overrides(tmp_path) -> None:
    write(tmp_path, "trainlint.toml", "per-file-ignores = {'legacy/**' = ['API101']}\nseverity = {API121 = 'info'}\n")
    write(tmp_path, "legacy/old.py", BAD)
    write(tmp_path, "new.py", BAD + BN)
    code, lines, _ = concise("--show-info", ".", cwd=tmp_path)
    assert code == 1
    assert [ln.split(": ")[0] for ln in lines] == ["new.py:2:9", "new.py:4:6"]
    assert "API121 [api.01] info:" in lines[1]
    # by default the info finding is one line of its own, not shown
    code, lines, _ = concise(".", cwd=tmp_path)
    assert code == 1 and lines[0].startswith("new.py:2:9: API101")
    assert lines[1:] == ["1 info finding not shown (true but minor; --show-info shows them)."]


def test_config_errors_exit_2_with_file_line_and_key(tmp_path) -> None:
    write(tmp_path, "trainlint.toml", "select = ['API1']\nexlude = ['x']\n")
    write(tmp_path, "a.py", BAD)
    code, out, err = run("check", ".", cwd=str(tmp_path))
    assert code == 2 and out == ""
    assert "trainlint.toml:2: configuration: unknown key 'exlude' (did you mean 'exclude'?)" in err


def test_config_exclude_and_force_exclude(tmp_path) -> None:
    write(tmp_path, "trainlint.toml", "extend-exclude = ['third_party/']\n")
    write(tmp_path, "third_party/vendored.py", BAD)
    write(tmp_path, "ok.py", "x = 1\n")
    assert concise(".", cwd=tmp_path)[0] == 0                                   # walked: excluded
    assert concise("third_party/vendored.py", cwd=tmp_path)[0] == 1             # named: linted
    code, lines, _ = concise("--force-exclude", "third_party/vendored.py", "ok.py", cwd=tmp_path)
    assert code == 0 and lines == []                                           # pre-commit mode


def test_isolated_ignores_the_config(tmp_path) -> None:
    write(tmp_path, "trainlint.toml", "ignore = ['API101']\n")
    write(tmp_path, "a.py", BAD)
    assert concise("a.py", cwd=tmp_path)[0] == 0
    assert concise("--isolated", "a.py", cwd=tmp_path)[0] == 1


# ---------------------------------------------------------------------------- stdin (editors)
def stdin_run(argv, data: bytes, cwd):
    old_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        return run(*argv, cwd=str(cwd))
    finally:
        sys.stdin = old_stdin


def test_stdin_is_reported_under_the_given_name_with_project_context(tmp_path) -> None:
    write(tmp_path, "src/config.py", "DROPOUT = 0.2\n")
    write(tmp_path, "src/model.py", "x = 1\n")   # on disk: clean; the unsaved buffer is not
    buf = b"from mindspore import nn\nfrom src import config\nd = nn.Dropout(config.DROPOUT)\n"
    code, out, _ = stdin_run(["check", "--format", "concise", "--stdin-filename", "src/model.py"], buf, tmp_path)
    assert code == 1
    (line,) = out.splitlines()
    assert line.startswith(os.path.join("src", "model.py") + ":3:5: API101") and "config.py:1" in line


def test_stdin_with_paths_is_a_usage_error(tmp_path) -> None:
    code, _, err = stdin_run(["check", "--stdin-filename", "a.py", "b.py"], b"", tmp_path)
    assert code == 2 and "either paths or --stdin-filename" in err


def test_stdin_excluded_buffer_is_silent_with_force_exclude(tmp_path) -> None:
    write(tmp_path, "trainlint.toml", "extend-exclude = ['gen/']\n")
    code, out, _ = stdin_run(["check", "--force-exclude", "--stdin-filename", "gen/x.py"], BAD.encode(), tmp_path)
    assert code == 0 and out == ""


# ---------------------------------------------------------------------------- statistics, quiet
def test_statistics(tmp_path) -> None:
    write(tmp_path, "a.py", BAD_TWICE + BN)
    code, out, _ = run("check", "--statistics", str(tmp_path))
    assert code == 1
    rows = [ln.split() for ln in out.splitlines()]
    assert rows == [["2", "API101", "[api.01]", "mindspore-dropout-keep-prob", "(2", "error)"],
                    ["1", "API121", "[api.01]", "mindspore-batchnorm-torch-momentum", "(1", "error)"]]
    code, out, _ = run("check", "--statistics", "--format", "json", str(tmp_path))
    assert json.loads(out)[0] == {"rule": "API101", "name": "mindspore-dropout-keep-prob", "checklist": "api.01", "count": 2,
                                  "by_severity": {"error": 2}}
    # every level is counted, info included (they are only left out of the text formats' findings)
    write(tmp_path, "trainlint.toml", "severity = {API121 = 'info'}\n")
    code, out, _ = run("check", "--statistics", str(tmp_path))
    assert [ln.split() for ln in out.splitlines()][1] == ["1", "API121", "[api.01]", "mindspore-batchnorm-torch-momentum",
                                                          "(1", "info)"]


def test_quiet_drops_the_summary(tmp_path) -> None:
    write(tmp_path, "a.py", BAD)
    _, out, _ = run("check", str(tmp_path))
    _, quiet, _ = run("check", "--quiet", str(tmp_path))
    assert "By checklist item" in out and "By checklist item" not in quiet and "API101" in quiet


# ---------------------------------------------------------------------------- suppressions
SUPPRESSED = """\
from mindspore import nn
a = nn.Dropout(0.1)  # trainlint: ignore[API101]
b = nn.Dropout(p=0.1)  # trainlint: ignore[API101]
c = nn.Dropout(0.1)  # trainlint: ignore[API101, API121]
d = nn.Dropout(0.1)  # trainlint: ignore[APY101]
e = nn.Dropout(0.1)  # trainlint: ignore
x = 1  # trainlint: disable
"""


def test_unused_unknown_and_malformed_suppressions_are_reported(tmp_path) -> None:
    write(tmp_path, "s.py", SUPPRESSED)
    code, lines, _ = concise("s.py", cwd=tmp_path)
    assert code == 1   # d is still reported; suppression warnings alone do not fail
    assert lines == [
        "s.py:5:5: API101 [api.01] error: " + lines[0].split(" error: ", 1)[1],
        "s.py:3:24: suppression warning: unused suppression: no API101 finding on this line",
        "s.py:4:22: suppression warning: unused suppression: no API121 finding on this line",
        "s.py:5:22: suppression warning: unknown rule 'APY101' in suppression (see `trainlint rules`)",
        "s.py:7:8: suppression warning: not a suppression: expected `# trainlint: ignore[ID, ...]` or "
        "`# trainlint: ignore-file[ID, ...]`",
    ]


def test_unused_is_only_claimed_for_rules_that_ran(tmp_path) -> None:
    write(tmp_path, "s.py", "x = 1  # trainlint: ignore[API121]\ny = 2  # trainlint: ignore\n")
    _, lines, _ = concise("--select", "API101", "s.py", cwd=tmp_path)
    assert lines == []
    _, lines, _ = concise("s.py", cwd=tmp_path)
    assert [ln.split(": ", 1)[0] for ln in lines] == ["s.py:1:8", "s.py:2:8"]


def test_strict_suppressions_report_bare_comments_and_fail(tmp_path) -> None:
    write(tmp_path, "s.py", "from mindspore import nn\na = nn.Dropout(0.1)  # trainlint: ignore\n")
    code, lines, _ = concise("s.py", cwd=tmp_path)
    assert code == 0 and lines == []
    code, lines, _ = concise("--strict-suppressions", "s.py", cwd=tmp_path)
    assert code == 1
    assert lines == ["s.py:2:22: suppression warning: bare `# trainlint: ignore` silences every rule; name the rules, "
                     "e.g. `# trainlint: ignore[API101]`"]


def test_suppression_in_a_docstring_is_not_a_comment(tmp_path) -> None:
    write(tmp_path, "s.py", 'from mindspore import nn\n"""Write `# trainlint: ignore[API101]` to silence."""\n'
                            "a = nn.Dropout(0.1)\n")
    code, lines, _ = concise("s.py", cwd=tmp_path)
    assert code == 1 and len(lines) == 1 and "API101" in lines[0]


# ---------------------------------------------------------------------------- baseline
def test_baseline_survives_line_shifts_and_reports_only_new_findings(tmp_path) -> None:
    f = write(tmp_path, "src/a.py", BAD_TWICE)
    code, _, err = run("check", "--write-baseline", "baseline.json", ".", cwd=str(tmp_path))
    assert code == 0 and "recorded 2 findings in baseline.json" in err
    doc = json.loads((tmp_path / "baseline.json").read_text())
    assert doc["trainlint_baseline"] == 1 and [e["path"] for e in doc["findings"]] == ["src/a.py", "src/a.py"]
    assert concise("--baseline", "baseline.json", ".", cwd=tmp_path)[:2] == (0, [])
    # Lines move (an import and a blank line above), one identical new bug appears, one is fixed.
    f.write_text("import os\n\nfrom mindspore import nn\na = nn.Dropout(0.1)\nc = nn.Dropout(0.1)\n")
    code, lines, _ = concise("--baseline", "baseline.json", ".", cwd=tmp_path)
    assert code == 1 and [ln.split(": ")[0] for ln in lines] == [os.path.join("src", "a.py") + ":5:5"]
    code, out, _ = run("check", "--baseline", "baseline.json", ".", cwd=str(tmp_path))
    assert "1 finding recorded in the baseline baseline.json not shown; 1 baseline entry no longer occur" in out


def test_baseline_works_from_another_directory_and_from_config(tmp_path) -> None:
    write(tmp_path, "src/a.py", BAD)
    assert run("check", "--write-baseline", "bl.json", "src", cwd=str(tmp_path))[0] == 0
    assert concise("--baseline", "../bl.json", "a.py", cwd=tmp_path / "src")[:2] == (0, [])
    write(tmp_path, "trainlint.toml", "baseline = 'bl.json'\n")
    assert concise("a.py", cwd=tmp_path / "src")[:2] == (0, [])


def test_bad_baseline_file_is_an_error(tmp_path) -> None:
    write(tmp_path, "a.py", BAD)
    write(tmp_path, "bl.json", '{"findings": []}')
    code, _, err = run("check", "--baseline", "bl.json", "a.py", cwd=str(tmp_path))
    assert code == 2 and "not a trainlint baseline" in err
    code, _, err = run("check", "--baseline", "missing.json", "a.py", cwd=str(tmp_path))
    assert code == 2 and "cannot read baseline" in err


# ---------------------------------------------------------------------------- notebooks
def notebook(cells):
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {"language_info": {"name": "python"}},
                       "cells": [{"cell_type": t, "metadata": {}, "source": src,
                                  **({"outputs": [], "execution_count": None} if t == "code" else {})}
                                 for t, src in cells]}, indent=1)


NB = notebook([
    ("markdown", ["# Port of the PyTorch model\n"]),
    ("code", ["%matplotlib inline\n", "!pip install mindspore\n", "from mindspore import nn\n"]),
    ("code", ["files = !ls\n", "head = nn.SequentialCell([\n", "    nn.Dense(10, 10),\n", "    nn.Dropout(0.1),\n", "])\n"]),
])


def test_notebook_findings_name_the_cell_and_the_file_position(tmp_path) -> None:
    write(tmp_path, "port.ipynb", NB)
    code, lines, _ = concise(".", cwd=tmp_path)
    assert code == 1
    assert lines[0].startswith("port.ipynb:cell 3:4:5: API101 [api.01] error: ")
    code, out, _ = run("check", "--format", "json", ".", cwd=str(tmp_path))
    (f,) = json.loads(out)["findings"]
    raw = (tmp_path / "port.ipynb").read_text().splitlines()[f["line"] - 1]
    assert raw[f["column"] - 1:].startswith("nn.Dropout(0.1)")
    assert (f["cell"], f["cell_line"], f["cell_column"]) == (3, 4, 5)
    _, out, _ = run("check", ".", cwd=str(tmp_path))
    assert "cell 3:4:5" in out and "nn.Dropout(0.1)," in out      # rich shows the cell's line


def test_notebook_syntax_errors_and_invalid_json_are_reported_with_positions(tmp_path) -> None:
    write(tmp_path, "broken.ipynb", notebook([("code", ["x = 1\n"]), ("code", ["def f(:\n", "    pass\n"])]))
    write(tmp_path, "invalid.ipynb", '{"cells": [\n')
    code, lines, _ = concise(".", cwd=tmp_path)
    assert code == 2
    assert lines[0].startswith("broken.ipynb:cell 2:1:") and "syntax error" in lines[0]
    assert lines[1].startswith("invalid.ipynb:2:1: notebook error: invalid JSON")


# ---------------------------------------------------------------------------- colour
@pytest.mark.parametrize("env,coloured", [({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False), ({}, False)])
def test_colour_only_on_terminals_and_never_with_no_color(tmp_path, env, coloured) -> None:
    write(tmp_path, "a.py", BAD)
    full_env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "TERM")}
    full_env.update(env)
    proc = subprocess.run([sys.executable, "-m", "linter", "check", "a.py"], cwd=str(tmp_path), env=full_env,
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "API101" in proc.stdout
    assert ("\x1b[" in proc.stdout) is coloured


# ---------------------------------------------------------------------------- editor patterns in docs/editors.md
ROOT_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EDITORS = os.path.join(ROOT_DIR, "docs", "editors.md")


def _readme_block(lang: str, needle: str) -> str:
    import re

    text = open(EDITORS, encoding="utf-8").read()
    blocks = re.findall(r"```" + lang + r"\n(.*?)```", text, re.S)
    (block,) = [b for b in blocks if needle in b]
    return block


def test_the_documented_editor_patterns_parse_concise_output(tmp_path) -> None:
    import re

    write(tmp_path, "pkg/model.py", BAD)
    _, lines, _ = concise(".", cwd=tmp_path)
    line = lines[0]
    want = (os.path.join("pkg", "model.py"), "2", "9")
    # VS Code problem matcher (JSON inside docs/editors.md).
    task = json.loads(_readme_block("json", "problemMatcher"))
    pattern = task["tasks"][0]["problemMatcher"]["pattern"]
    m = re.match(pattern["regexp"], line)
    assert m and (m.group(pattern["file"]), m.group(pattern["line"]), m.group(pattern["column"])) == want
    assert (m.group(pattern["code"]), m.group(pattern["severity"])) == ("API101", "error")
    assert m.group(pattern["message"]).startswith("`nn.Dropout(0.1)`")
    # Emacs compilation regexp (elisp string syntax → Python).
    elisp = _readme_block("elisp", "compilation-error-regexp-alist")
    raw = re.search(r'\(trainlint "(.*)" 1 2 3\)', elisp).group(1)
    emacs = raw.replace("\\\\(", "(").replace("\\\\)", ")").replace("\\\\[", "\\[").replace("\\n", "\n")
    m = re.match(emacs, line)
    assert m and m.groups() == want
    # Vim errorformat %f:%l:%c:\ %m.
    vim = _readme_block("vim", "errorformat")
    assert "set errorformat=%f:%l:%c:\\ %m" in vim
    m = re.match(r"^(.+?):(\d+):(\d+): (.*)$", line)
    assert m and m.groups()[:3] == want


# ---------------------------------------------------------------------------- CI formats through the CLI
def test_ci_formats_through_the_cli(tmp_path) -> None:
    import xml.etree.ElementTree as ET

    import jsonschema

    write(tmp_path, "a.py", BAD)
    write(tmp_path, "nb.ipynb", NB)
    write(tmp_path, "broken.py", "def f(:\n")
    code, out, _ = run("check", "--format", "sarif", ".", cwd=str(tmp_path))
    assert code == 2   # the syntax error
    doc = json.loads(out)
    schema_path = os.path.join(ROOT_DIR, "tests", "data", "sarif-schema-2.1.0.json")
    with open(schema_path, encoding="utf-8") as fh:
        schema = json.load(fh)
    jsonschema.validators.validator_for(schema)(schema).validate(doc)
    results = doc["runs"][0]["results"]
    assert sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results) == ["a.py", "nb.ipynb"]
    assert all(r["partialFingerprints"] for r in results)
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is False

    code, out, _ = run("check", "--format", "github", ".", cwd=str(tmp_path))
    assert "::error file=a.py,line=2,col=9," in out and "::error file=broken.py,line=1" in out

    code, out, _ = run("check", "--format", "junit", ".", cwd=str(tmp_path))
    root = ET.fromstring(out.encode("utf-8"))
    assert root.tag == "testsuites" and int(root.get("failures")) == 2 and int(root.get("errors")) == 1
