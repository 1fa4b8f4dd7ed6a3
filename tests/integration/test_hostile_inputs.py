"""Never wrong silently: every input that cannot be checked as written is reported (kind, file,
line where known), counted, and makes the exit code non-zero — and never stops the run.

The fixtures are generated here (no binary blobs in the repository). Each test lints a tree
that also holds a file with a real finding, to show the rest of the run went on."""
from __future__ import annotations

import json
import os
import sys

import pytest

from tests.integration.test_cli import run

BAD = "from mindspore import nn\nlayer = nn.Dropout(0.1)\n"


def write_bytes(root, rel, data: bytes):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p


def lint(root, *extra):
    code, out, err = run("check", "--isolated", "--no-cache", "--format", "json", *extra, str(root))
    doc = json.loads(out) if out.strip() else {"findings": [], "errors": [], "summary": {}}
    return code, doc, err


def only(doc, name):
    return [e for e in doc["errors"] if os.path.basename(e["path"]) == name]


@pytest.fixture
def tree(tmp_path):
    write_bytes(tmp_path, "ok/bad_dropout.py", BAD.encode())
    return tmp_path


def assert_rest_linted(doc) -> None:
    assert any(f["rule"] == "API101" and f["path"].endswith("bad_dropout.py") for f in doc["findings"])


# ---------------------------------------------------------------------------- syntax
def test_syntax_error_is_reported_with_position(tree) -> None:
    write_bytes(tree, "broken.py", b"import os\n\ndef f(:\n    pass\n")
    code, doc, _ = lint(tree)
    (e,) = only(doc, "broken.py")
    assert code == 2 and e["kind"] == "syntax" and e["line"] == 3 and e["column"] >= 7 and e["severity"] == "error"
    assert doc["summary"]["errors"] == 1
    assert_rest_linted(doc)


def test_python2_script_is_named_as_such(tree) -> None:
    write_bytes(tree, "old.py", b"import sys\nprint 'epoch', 1\n")
    code, doc, _ = lint(tree)
    (e,) = only(doc, "old.py")
    assert code == 2 and e["line"] == 2 and "Python 2" in e["message"]
    assert_rest_linted(doc)


# ---------------------------------------------------------------------------- encodings
def test_pep263_and_bom_are_honoured(tree) -> None:
    write_bytes(tree, "latin.py", "# -*- coding: latin-1 -*-\n# caf\xe9\n".encode("latin-1") + BAD.encode())
    write_bytes(tree, "bom.py", b"\xef\xbb\xbf" + BAD.encode())
    code, doc, _ = lint(tree)
    assert code == 1 and doc["errors"] == []
    assert {os.path.basename(f["path"]) for f in doc["findings"]} == {"latin.py", "bom.py", "bad_dropout.py"}


def test_undeclared_gbk_is_linted_with_an_encoding_warning(tree) -> None:
    write_bytes(tree, "gbk.py", "# 训练脚本\n".encode("gbk") + BAD.encode())
    code, doc, _ = lint(tree)
    (e,) = only(doc, "gbk.py")
    assert e["kind"] == "encoding" and e["severity"] == "warning" and e["line"] == 1 and "gb18030" in e["message"]
    assert any(f["path"].endswith("gbk.py") for f in doc["findings"])      # still linted
    assert doc["summary"]["warnings"] == 1


def test_a_warning_alone_makes_the_exit_code_non_zero(tmp_path) -> None:
    write_bytes(tmp_path, "gbk.py", "# 训练\nx = 1\n".encode("gbk"))
    code, doc, _ = lint(tmp_path)
    assert code == 1 and doc["findings"] == [] and doc["errors"][0]["kind"] == "encoding"


@pytest.mark.parametrize("name,data,message", [
    ("declared.py", b"# coding: utf-8\nx = '\xff\xfe'\n", "cannot decode as utf-8"),
    ("bom_bad.py", b"\xef\xbb\xbfx = '\xff'\n", "cannot decode as utf-8 (BOM)"),
    ("unknown_codec.py", b"# coding: klingon\nx = 1\n", "unknown encoding declared"),
    ("nul.py", b"x = 1\n\x00\x00\x00", "NUL bytes"),
    ("elf.py", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)), "NUL bytes"),
])
def test_undecodable_and_binary_files_are_errors(tree, name, data, message) -> None:
    write_bytes(tree, name, data)
    code, doc, _ = lint(tree)
    (e,) = only(doc, name)
    assert code == 2 and e["kind"] == "encoding" and message in e["message"] and e["severity"] == "error"
    assert_rest_linted(doc)


def test_empty_files_are_checked_quietly(tree) -> None:
    """An empty file is valid Python (every package's ``__init__.py``): it is counted as
    checked, not reported — reporting it would cry wolf on every package."""
    write_bytes(tree, "empty.py", b"")
    write_bytes(tree, "pkg/__init__.py", b"")
    code, doc, _ = lint(tree)
    assert code == 1 and doc["errors"] == [] and doc["summary"]["files"] == 3


# ---------------------------------------------------------------------------- size and depth limits
def test_a_very_large_file_hits_a_clear_limit(tree) -> None:
    line = b"x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]\n"
    write_bytes(tree, "huge.py", line * (10 * 1024 * 1024 // len(line) + 1))
    code, doc, _ = lint(tree)
    (e,) = only(doc, "huge.py")
    assert code == 2 and e["kind"] == "limit" and e["severity"] == "error"
    assert "file is 10.0 MB, larger than the 2 MB limit" in e["message"] and "--max-file-size" in e["message"]
    assert doc["summary"]["errors"] == 1
    assert_rest_linted(doc)


def test_the_size_limit_is_configurable(tree) -> None:
    write_bytes(tree, "mid.py", b"# padding\n" * 300 + BAD.encode())      # 3.0 KB
    code, doc, _ = lint(tree, "--max-file-size", "0.002")
    (e,) = only(doc, "mid.py")
    assert code == 2 and e["kind"] == "limit" and "file is 3.0 KB, larger than the 2.0 KB limit" in e["message"]
    (tree / "pyproject.toml").write_text("[tool.trainlint]\nmax-file-size = 0.002\n")
    code, out, _ = run("check", "--no-cache", "--format", "json", str(tree))
    assert [e["kind"] for e in json.loads(out)["errors"]] == ["limit"]
    code, out, _ = run("check", "--no-cache", "--format", "json", "--max-file-size", "1", str(tree))
    assert json.loads(out)["errors"] == [] and code == 1      # the command line wins
    code, _, err = run("check", "--isolated", "--max-file-size", "0", str(tree))
    assert code == 2 and "--max-file-size must be a positive number" in err


@pytest.mark.slow
def test_a_file_below_a_raised_limit_is_linted_in_bounded_memory(tmp_path) -> None:
    """Literal-dense generated code is libcst's worst case (about 12 s and 1.2 GB per MB)."""
    import subprocess

    line = b"x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]\n"
    write_bytes(tmp_path, "big.py", BAD.encode() + line * (2 * 1024 * 1024 // len(line)))
    probe = ("import resource, subprocess, sys; "
             "r = subprocess.run([sys.executable, '-m', 'linter', 'check', '--isolated', '--no-cache', "
             "'--format', 'json', '--max-file-size', '3', sys.argv[1]], capture_output=True, text=True); "
             "print(r.returncode); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); print(r.stdout)")
    out = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=True).stdout
    code, rss_kb, doc = out.split("\n", 2)
    assert int(code) == 1 and json.loads(doc)["errors"] == []
    assert int(rss_kb) < 4 * 1024 * 1024


@pytest.mark.parametrize("name,source,limited", [
    ("parens.py", "x = " + "(" * 1000 + "1" + ")" * 1000 + "\n", True),
    ("lists.py", "x = " + "[" * 1000 + "]" * 1000 + "\n", True),
    ("chain.py", "x = " + " + ".join(["1"] * 20000) + "\n", True),          # crashes libcst itself
    ("chain_lines.py", "x = (1\n" + "    + 1\n" * 3000 + ")\n", True),
    ("attrs.py", "x = a" + ".b" * 5000 + "\n", True),
    ("calls.py", "x = f" + "()" * 3000 + "\n", True),
    ("indent.py", "".join("    " * i + "if x:\n" for i in range(120)) + "    " * 120 + "pass\n", False),
    ("elifs.py", "if x == 0:\n    y = 0\n" + "".join(f"elif x == {i}:\n    y = {i}\n" for i in range(1, 20000)), True),
    ("elifs_ok.py", "if x == 0:\n    y = 0\n" + "".join(f"elif x == {i}:\n    y = {i}\n" for i in range(1, 300)), False),
    ("strings.py", "x = (\n" + "    'a'\n" * 3000 + ")\n", False),          # pydoc_data/topics.py
    ("flat.py", "x = {\n" + "".join(f"    'k{i}': [1, 2, 3],\n" for i in range(3000)) + "}\n", False),
    ("nested_ok.py", "x = " + "[" * 60 + "]" * 60 + "\n", False),
], ids=lambda v: v if isinstance(v, str) and v.endswith(".py") else "")
def test_deep_nesting_never_crashes(tree, name, source, limited) -> None:
    write_bytes(tree, name, source.encode())
    code, doc, _ = lint(tree)
    errors = only(doc, name)
    if limited:
        (e,) = errors
        assert e["kind"] == "limit" and "too deeply to analyse" in e["message"] and code == 2
        assert e.get("line") in (1, 3, None)      # where the deep part starts, when known
    else:
        # Linted, or refused by Python's own rules (100 indentation levels) as a syntax error.
        assert all(e["kind"] == "syntax" for e in errors)
    assert not any(e["kind"] == "internal" for e in doc["errors"])
    assert_rest_linted(doc)


def test_a_parser_process_that_dies_loses_only_its_file(tree, monkeypatch) -> None:
    """A crash inside the native parser kills the worker process: the file is reported, the
    other files of its batch are parsed again in fresh processes, and the run goes on."""
    import linter.facts.batch as parse_mod
    import linter.facts.worker as worker_mod

    for i in range(6):
        write_bytes(tree, f"more/m{i}.py", BAD.encode())
    write_bytes(tree, "killer.py", b"x = 1\n")
    real = worker_mod.parse_bytes

    def fragile(path, data):
        if path.endswith("killer.py"):
            os._exit(70)             # what a segfault in native code looks like from outside
        return real(path, data)

    monkeypatch.setattr(worker_mod, "parse_bytes", fragile)   # what the workers run
    monkeypatch.setattr(parse_mod, "PARALLEL_MIN_BYTES", 0)
    code, doc, _ = lint(tree, "--jobs", "2")
    (e,) = only(doc, "killer.py")
    assert code == 2 and e["kind"] == "internal" and "parser process died" in e["message"]
    assert sum(1 for f in doc["findings"] if f["rule"] == "API101") == 7


# ---------------------------------------------------------------------------- paths
def test_missing_paths_are_errors(tree) -> None:
    code, out, _ = run("check", "--isolated", "--no-cache", "--format", "json", str(tree), str(tree / "nope.py"))
    doc = json.loads(out)
    (e,) = [e for e in doc["errors"] if e["path"].endswith("nope.py")]
    assert code == 2 and e["kind"] == "io" and e["message"] == "path does not exist"
    assert_rest_linted(doc)


def test_symlink_loops_and_dangling_links(tree) -> None:
    if not hasattr(os, "symlink"):
        pytest.skip("no symlinks here")
    os.symlink(str(tree), str(tree / "ok" / "loop"))
    os.symlink(str(tree / "missing_target.py"), str(tree / "dangling.py"))
    code, doc, _ = lint(tree)
    assert_rest_linted(doc)
    # The loop is walked once: the finding is reported once.
    assert sum(1 for f in doc["findings"] if f["rule"] == "API101") == 1
    code, out, _ = run("check", "--isolated", "--no-cache", "--format", "json", str(tree / "dangling.py"))
    assert code == 2 and json.loads(out)["errors"][0]["message"] == "not a regular file or directory"


def test_unreadable_and_vanishing_files(tree, monkeypatch) -> None:
    gone = write_bytes(tree, "gone.py", BAD.encode())
    locked = write_bytes(tree, "locked.py", BAD.encode())
    import builtins

    import linter.source.discover as discover_mod

    real_open = builtins.open
    real_discover = discover_mod.discover

    def fake_open(path, *a, **k):
        if str(path) == str(locked):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **k)

    def discover_then_delete(*a, **k):
        result = real_discover(*a, **k)
        os.unlink(gone)            # the file vanishes between discovery and reading
        return result

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr("linter.api.discover", discover_then_delete)
    code, doc, _ = lint(tree)
    (g,) = only(doc, "gone.py")
    (lk,) = only(doc, "locked.py")
    assert code == 2 and g["kind"] == "io" and "No such file" in g["message"]
    assert lk["kind"] == "io" and "Permission denied" in lk["message"]
    assert_rest_linted(doc)


# ---------------------------------------------------------------------------- notebooks
@pytest.mark.parametrize("name,data,message", [
    ("bad_json.ipynb", b'{"cells": [', "invalid JSON"),
    ("no_cells.ipynb", b'{"nbformat": 4, "metadata": {}}', 'no "cells" list'),
    ("v3.ipynb", b'{"nbformat": 3, "worksheets": []}', "nbformat 4"),
    ("r.ipynb", json.dumps({"nbformat": 4, "metadata": {"kernelspec": {"language": "R"}}, "cells": []}).encode(),
     "not a Python notebook"),
])
def test_invalid_notebooks_are_errors(tree, name, data, message) -> None:
    write_bytes(tree, name, data)
    code, doc, _ = lint(tree)
    (e,) = only(doc, name)
    assert code == 2 and e["kind"] == "notebook" and message in e["message"]
    assert_rest_linted(doc)


# ---------------------------------------------------------------------------- rules that crash
def test_a_crashing_rule_is_reported_per_file_and_the_rest_runs(tree, monkeypatch) -> None:
    write_bytes(tree, "poison.py", b"from mindspore import nn\nPOISON = nn.Dropout(0.2)\n")
    import linter.match as match_mod

    real = match_mod.run_rule

    def flaky(rule, mc, files, lang):
        if rule.id == "API101" and any(mc.p.files[fi].path.endswith("poison.py") for fi in files):
            raise ValueError("simulated rule bug")
        return real(rule, mc, files, lang)

    monkeypatch.setattr(match_mod, "run_rule", flaky)
    code, doc, _ = lint(tree)
    (e,) = [e for e in doc["errors"] if e["kind"] == "internal"]
    assert e["path"].endswith("poison.py") and e["rule"] == "API101" and "simulated rule bug" in e["message"]
    assert code == 2
    assert_rest_linted(doc)            # the same rule still ran on the other file


# ---------------------------------------------------------------------------- determinism
def test_output_is_identical_across_runs(tree) -> None:
    write_bytes(tree, "b.py", b"from mindspore import nn\nx = nn.BatchNorm2d(3, momentum=0.1)\n" + BAD.encode())
    outs = [run("check", "--isolated", "--no-cache", "--format", "json", str(tree))[1] for _ in range(3)]
    assert outs[0] == outs[1] == outs[2]
    doc = json.loads(outs[0])
    keys = [(f["path"], f["line"], f["column"], f["rule"]) for f in doc["findings"]]
    assert keys == sorted(keys)


def test_nothing_is_written_into_the_linted_tree(tree) -> None:
    before = sorted(str(p) for p in tree.rglob("*"))
    run("check", "--isolated", "--format", "json", str(tree))     # with the (user-directory) cache
    assert sorted(str(p) for p in tree.rglob("*")) == before


def test_recursion_limit_is_restored(tree) -> None:
    limit = sys.getrecursionlimit()
    lint(tree)
    assert sys.getrecursionlimit() == limit
