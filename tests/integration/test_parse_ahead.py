"""The parse-ahead process (linter/facts/ahead.py): the console command forks a parser before it
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
from linter.facts.ahead import ParseAhead
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


def test_the_console_command_flushes_everything_before_its_fast_exit(project) -> None:
    _edit(project, "changed")
    run = subprocess.run([sys.executable, "-m", "linter", *ARGS, "--profile"], cwd=project, env=_env(project),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stdout.count("\n") == 3 and run.stdout.endswith("syntax error: invalid syntax\n")
    assert "Where the time went" in run.stderr and run.stderr.rstrip().splitlines()[-1].startswith("  ")


FORKED = r"""
import json, os, pickle
from linter.facts.ahead import ParseAhead
ahead = ParseAhead.start()
pid = os.fork()
if pid == 0:                       # a worker forked later, holding a copy of the handle
    ok = not ahead.available
    ahead.close()                  # must not stop the owner's parser
    os._exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
blobs = ahead.parse([("a.py", b"x = 1\n")])
facts = pickle.loads(blobs[0])[0] if blobs else None
print(json.dumps({"worker_saw_it_unavailable": status == 0, "owner_parsed": facts is not None and facts.path == "a.py"}))
"""


def test_a_forked_worker_can_neither_use_nor_stop_the_owners_parser(tmp_path) -> None:
    run = subprocess.run([sys.executable, "-c", FORKED], cwd=tmp_path, env=_env(tmp_path), capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"worker_saw_it_unavailable": True, "owner_parsed": True}


TRAIN = """import mindspore as ms
from mindspore import nn
import mindspore.dataset as ds


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout({keep})
        self.bn = nn.BatchNorm2d(64, momentum=0.1)

    def construct(self, x):
        return self.bn(self.drop(x))


def main():
    data = ds.Cifar10Dataset("data/")
    net = Net()
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    model.train(10, data)


if __name__ == "__main__":
    main()
"""


def test_a_tree_of_projects_in_workers_answers_as_with_one_process(tmp_path) -> None:
    # The projects of a tree are checked in forked workers: each holds a copy of the handle on the
    # early parser and must not use its pipe (a first version did: answers crossed between workers).
    for i in range(6):
        (tmp_path / f"model{i}").mkdir()
        (tmp_path / f"model{i}" / "train.py").write_text(TRAIN.format(keep=f"0.{i + 1}"))
    args = ("check", "--isolated", "--no-cache", "--format", "concise", ".")
    runs = [subprocess.run([sys.executable, "-m", "linter", *args, *jobs], cwd=tmp_path, env=_env(tmp_path),
                           capture_output=True, text=True, timeout=120) for jobs in ([], ["-j", "1"])]
    assert runs[0].returncode == runs[1].returncode == 1, runs[0].stderr + runs[1].stderr
    assert _lines(runs[0].stdout) == _lines(runs[1].stdout)
    assert {line.split("/")[0] for line in _lines(runs[0].stdout)} == {f"model{i}" for i in range(6)}


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
