"""The parse-ahead process (linter/parse_ahead.py): the console command forks a parser before it
reads its options; the files that miss the cache are parsed there. Each case runs in a fresh
interpreter (the process is only started where libcst is not imported yet), and every answer is
compared with the same check parsed in-process."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from linter.entry import _jobs
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2,
                                reason="the parse-ahead process is started on Linux with two or more CPUs")

PROBE = r"""
import io, json, os, sys
from linter.parse_ahead import ParseAhead
ahead = ParseAhead.start()
if ahead is not None and os.environ.get("PROBE_KILL"):
    os.kill(ahead.pid, 9)          # the parser dies before it is asked
    os.waitpid(ahead.pid, 0)
import linter.cli
out = io.StringIO()
code = linter.cli.main(sys.argv[1:], out, io.StringIO(), parse_ahead=ahead)
print(json.dumps({"started": ahead is not None, "code": code, "out": out.getvalue(),
                  "parsed_here": "libcst" in sys.modules}))
"""

BAD = "from mindspore import nn\ndrop = nn.Dropout(0.1)\nbn = nn.BatchNorm2d(64, momentum=0.1)\n"
BROKEN = "def f(:\n    pass\n"


def _env(tmp_path) -> dict:
    return dict(os.environ, TRAINLINT_CACHE_DIR=str(tmp_path / "cache"),
                PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _probe(tmp_path, *argv: str, kill: bool = False) -> dict:
    env = _env(tmp_path)
    if kill:
        env["PROBE_KILL"] = "1"
    run = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.splitlines()[-1])


@pytest.fixture
def project(tmp_path):
    (tmp_path / "one.py").write_text(BAD)
    (tmp_path / "broken.py").write_text(BROKEN)
    return tmp_path


ARGS = ("check", "--isolated", "--format", "concise", "one.py", "broken.py")


def _edit(tmp_path, note: str) -> None:
    path = tmp_path / "one.py"
    path.write_text(path.read_text() + f"# {note}\n")


def test_changed_files_are_parsed_in_the_other_process_with_the_same_answer(project) -> None:
    serial = _probe(project, *ARGS, "-j", "1")          # -j 1: stopped at once, parsed here
    assert serial["started"] and serial["parsed_here"]
    assert "one.py:2:8: API101" in serial["out"] and "one.py:3:6: API121" in serial["out"]
    assert "broken.py:1:7: syntax error" in serial["out"]
    _edit(project, "changed")
    ahead = _probe(project, *ARGS)
    assert ahead["started"] and not ahead["parsed_here"]    # libcst never imported in this process
    assert ahead["code"] == serial["code"] == 2
    assert _lines(ahead["out"]) == _lines(serial["out"])
    again = _probe(project, *ARGS)                      # unchanged: the stored result, no parse
    assert not again["parsed_here"] and _lines(again["out"]) == _lines(serial["out"])


def test_a_parser_that_dies_costs_nothing_but_time(project) -> None:
    serial = _probe(project, *ARGS, "-j", "1")
    _edit(project, "changed")
    dead = _probe(project, *ARGS, kill=True)
    assert dead["started"] and dead["code"] == serial["code"]
    assert _lines(dead["out"]) == _lines(serial["out"])


def test_the_console_command_answers_as_the_in_process_check(project) -> None:
    serial = _probe(project, *ARGS, "-j", "1")
    _edit(project, "changed")
    run = subprocess.run([sys.executable, "-m", "linter", *ARGS], cwd=project, env=_env(project),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == serial["code"], run.stderr
    assert _lines(run.stdout) == _lines(serial["out"])


def _lines(text: str) -> list:
    # the edit adds a comment line at the end: positions of the findings are unchanged
    return sorted(line for line in text.splitlines() if line.strip())


@pytest.mark.parametrize("argv, jobs", [
    (["check", "a.py"], None), (["check", "-j1", "a.py"], 1), (["check", "-j", "1"], 1), (["check", "-j=3"], 3),
    (["check", "--jobs", "2", "a.py"], 2), (["check", "--jobs=1"], 1), (["check", "-jx"], None),
    (["check", "--", "-j1"], None), (["check", "--jobs"], None),
])
def test_jobs_are_peeked_before_the_options_are_parsed(argv, jobs) -> None:
    assert _jobs(argv) == jobs
