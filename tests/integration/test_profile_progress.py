"""Where a run's time goes (``--profile``, the observer API) and the progress display: on a
terminal only, never in CI or machine formats, never on stdout."""
from __future__ import annotations

import io
import json
import os

import pytest

from linter.api import check_paths
from linter.cli import main
from linter.engine.packs import load_packs
from linter.engine.units import Options
from linter.report.progress import wants_progress
from linter.core.observer import Observer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROJECT = os.path.join(ROOT, "tests", "projects", "ms_resnet")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(argv, err=None):
    out = io.StringIO()
    err = err if err is not None else io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def no_ci(monkeypatch):
    for name in ("CI", "TRAINLINT_NO_PROGRESS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm")


def test_profile_lists_every_stage_and_every_rule_on_stderr() -> None:
    code, out, err = _run(["check", PROJECT, "--no-cache", "--isolated", "-j1", "--format", "json", "--profile"])
    json.loads(out)                                   # stdout stays the report alone
    assert err.startswith("Where the time went: ") and "peak memory" in err
    stages = [line.split()[0] for line in err.splitlines()[1:] if line.startswith("  ") and not line.startswith("    ")]
    for stage in ("settings", "discover", "parse", "index", "rules", "report"):
        assert stage in stages, (stage, err)
    rules = err.split("Rules, slowest first")[1].splitlines()[1:]
    ids = [line.split()[0] for line in rules]
    assert "API201" in ids and len(ids) == len(set(ids)) >= 20   # every MindSpore rule
    times = [float(line.split()[1]) for line in rules]
    assert times == sorted(times, reverse=True)


def test_no_profile_without_the_flag() -> None:
    _code, _out, err = _run(["check", PROJECT, "--no-cache", "--isolated", "-j1", "--format", "json"])
    assert "Where the time went" not in err


def test_the_observer_receives_stages_rule_times_and_progress_ticks() -> None:
    ticks = []
    obs = Observer(progress=lambda phase, done, total: ticks.append((phase, done, total)))
    packs = load_packs()
    result = check_paths([PROJECT], packs, Options(jobs=1, observer=obs), cwd=ROOT)
    assert result.files == 7
    names = [s.name for s in obs.stages]
    assert names[:2] == ["discover", "parse"] and "program model" in names and "rules" in names
    assert next(s for s in obs.stages if s.name == "parse").detail == "7 files"
    default = {r.id for r in packs.rules if r.default_on}
    assert {r.id for r in packs.rules if r.default_on and r.framework == "mindspore"} <= set(obs.rules) <= default
    assert all(t >= 0 for t in obs.rules.values())
    parse = [t for t in ticks if t[0] == "parse"]
    assert parse[-1] == ("parse", 7, 7) and [d for _, d, _ in parse] == sorted(d for _, d, _ in parse)
    rules = [t for t in ticks if t[0] == "rules"]
    assert rules[-1][1] == rules[-1][2] == len(obs.rules)
    assert json.loads(json.dumps(obs.to_json()))["rules"].keys() == obs.rules.keys()


def test_a_terminal_gets_a_transient_bar_with_the_engine_phases(no_ci) -> None:
    err = Terminal()
    code, out, text = _run(["check", PROJECT, "--no-cache", "--isolated", "-j1"], err=err)
    assert "parsing files" in text and "running rules" in text
    assert "parsing files" not in out and "running rules" not in out


@pytest.mark.parametrize("argv,env", [
    (["--format", "json"], {}),
    (["--format", "sarif"], {}),
    (["--quiet"], {}),
    ([], {"CI": "true"}),
    ([], {"TRAINLINT_NO_PROGRESS": "1"}),
])
def test_no_bar_for_machine_formats_quiet_runs_or_ci(no_ci, monkeypatch, argv, env) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    _code, _out, text = _run(["check", PROJECT, "--no-cache", "--isolated", "-j1"] + argv, err=Terminal())
    assert "parsing files" not in text and "running rules" not in text


def test_no_bar_when_stderr_is_not_a_terminal(no_ci) -> None:
    assert not wants_progress(io.StringIO())
    assert wants_progress(Terminal())
    _code, _out, text = _run(["check", PROJECT, "--no-cache", "--isolated", "-j1"])
    assert "parsing files" not in text and "\r" not in text


def test_audit_bar_shows_the_engine_phases_then_the_projects(no_ci) -> None:
    err = Terminal()
    _run(["audit", PROJECT, "--no-cache", "--isolated", "--format", "json"], err=err)
    text = err.getvalue()
    assert "parsing files" in text and "running rules" in text and "auditing projects" in text
