"""What a run shows and what fails it: `info` findings (true but minor) never fail a run by default
and are left out of the text formats with one line saying so; `--fail-on` / `fail-on` moves the
threshold; the machine formats carry every finding with its level."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from tests.integration.test_cli import run

# A MindSpore model file nothing in the project builds: its finding is `info` ("not run").
UNREACHED = """\
from mindspore import nn


class OldHead(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(64, momentum=0.1)

    def construct(self, x):
        return self.bn(x)
"""
# A training script of the same project: it builds and trains its own network, seeded.
TRAIN = """\
import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn

ms.set_seed(1)
net = nn.Dense(4, 2)
ms.Model(net, nn.MSELoss(), nn.Adam(net.trainable_params())).train(1, ds.MnistDataset("data"))
"""
# A model the training script trains, with a real error.
TRAINED = """\
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(64, momentum=0.1)

    def construct(self, x):
        return self.bn(x)
"""


def project(tmp_path, with_error: bool = False):
    (tmp_path / "old_head.py").write_text(UNREACHED)
    train = TRAIN
    if with_error:
        (tmp_path / "net.py").write_text(TRAINED)
        train = train.replace("net = nn.Dense(4, 2)", "from net import Net\nnet = Net()")
    (tmp_path / "train.py").write_text(train)
    return str(tmp_path)


def test_only_info_findings_exit_0_and_are_counted_in_one_line(tmp_path) -> None:
    code, out, _ = run("check", ".", cwd=project(tmp_path))
    assert code == 0
    assert "API121" not in out
    assert "1 info finding not shown (true but minor; --show-info shows them)." in out
    assert "No warnings or errors (2 files checked)." in out


def test_fail_on_info_fails_and_shows_them(tmp_path) -> None:
    code, out, _ = run("check", "--fail-on", "info", ".", cwd=project(tmp_path))
    assert code == 1 and "old_head.py" in out and "API121 [api.01] info" in out
    assert "not shown" not in out


def test_fail_on_in_the_config_and_the_command_line_wins(tmp_path) -> None:
    root = project(tmp_path)
    (tmp_path / "trainlint.toml").write_text('fail-on = "info"\n')
    assert run("check", ".", cwd=root)[0] == 1
    assert run("check", "--fail-on", "warning", ".", cwd=root)[0] == 0
    (tmp_path / "trainlint.toml").write_text('fail-on = "note"\n')
    code, _, err = run("check", ".", cwd=root)
    assert code == 2 and "fail-on: 'note' is not one of error, warning, info" in err


def test_fail_on_error_passes_warnings(tmp_path) -> None:
    (tmp_path / "train.py").write_text(TRAIN.replace("ms.set_seed(1)\n", ""))   # WI301, a warning
    assert run("check", ".", cwd=str(tmp_path))[0] == 1
    code, out, _ = run("check", "--fail-on", "error", ".", cwd=str(tmp_path))
    assert code == 0 and "WI301" in out          # shown, but it does not fail the run


def test_show_info_shows_without_failing(tmp_path) -> None:
    code, out, _ = run("check", "--show-info", "--format", "concise", ".", cwd=project(tmp_path))
    assert code == 0
    assert [ln.split(": ")[0] for ln in out.splitlines()] == ["old_head.py:7:19"]
    assert "API121 [api.01] info:" in out


def test_warnings_are_shown_above_the_info_line(tmp_path) -> None:
    code, out, _ = run("check", "--format", "concise", ".", cwd=project(tmp_path, with_error=True))
    lines = out.splitlines()
    assert code == 1
    assert lines[0].startswith("net.py:7:19: API121 [api.01] error:")
    assert lines[-1] == "1 info finding not shown (true but minor; --show-info shows them)."
    assert code == 1 and len(lines) == 2
    code, out, _ = run("check", "--format", "concise", "--quiet", ".", cwd=str(tmp_path))
    assert "not shown" not in out


def test_machine_formats_carry_every_level(tmp_path) -> None:
    root = project(tmp_path, with_error=True)
    doc = json.loads(run("check", "--format", "json", ".", cwd=root)[1])
    assert sorted((f["path"], f["severity"]) for f in doc["findings"]) == [("net.py", "error"), ("old_head.py", "info")]
    sarif = json.loads(run("check", "--format", "sarif", ".", cwd=root)[1])
    levels = sorted(r["level"] for r in sarif["runs"][0]["results"])
    assert levels == ["error", "note"]
    github = run("check", "--format", "github", ".", cwd=root)[1].splitlines()
    assert sorted(ln.split(" ", 1)[0] for ln in github) == ["::error", "::notice"]


def test_junit_fails_only_at_or_above_the_threshold(tmp_path) -> None:
    root = project(tmp_path, with_error=True)
    code, out, _ = run("check", "--format", "junit", ".", cwd=root)
    doc = ET.fromstring(out)
    assert code == 1 and doc.get("tests") == "2" and doc.get("failures") == "1"
    info_case = next(c for c in doc.iter("testcase") if c.get("classname") == "old_head.py")
    assert info_case.find("failure") is None and "API121 [api.01] info" in info_case.find("system-out").text
    code, out, _ = run("check", "--format", "junit", "--fail-on", "info", ".", cwd=root)
    assert code == 1 and ET.fromstring(out).get("failures") == "2"


def test_statistics_count_info_too(tmp_path) -> None:
    code, out, _ = run("check", "--statistics", ".", cwd=project(tmp_path))
    assert code == 0
    assert out.split() == ["1", "API121", "[api.01]", "mindspore-batchnorm-torch-momentum", "(1", "info)"]


def test_chinese_hint_line(tmp_path) -> None:
    code, out, _ = run("check", "--lang", "zh", ".", cwd=project(tmp_path))
    assert code == 0 and "另有 1 个 info 级问题未显示" in out
