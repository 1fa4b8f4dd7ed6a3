"""One cause, one finding: matches whose value comes from one definition are reported once, with
every use as a related place in every format, fixed once at the cause, suppressed and baselined
as one."""
from __future__ import annotations

import json
import os

import pytest

from tests.integration.test_cli import run

MODEL = """\
import mindspore.nn as nn

BN_MOMENTUM = 0.1


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b1 = nn.BatchNorm2d(8, momentum=BN_MOMENTUM)
        self.b2 = nn.BatchNorm2d(8, momentum=BN_MOMENTUM)
        self.b3 = nn.BatchNorm2d(8, momentum=BN_MOMENTUM)
        self.b4 = nn.BatchNorm2d(8, momentum=BN_MOMENTUM)
        self.b5 = nn.BatchNorm2d(8, momentum=BN_MOMENTUM)

    def construct(self, x):
        return self.b5(self.b4(self.b3(self.b2(self.b1(x)))))
"""
USES = [9, 10, 11, 12, 13]
TRAIN = """\
import mindspore as ms
import mindspore.nn as nn
from model import Net

ms.set_seed(1)
net = Net()
ms.Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, None)
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text(TRAIN)
    return tmp_path


def findings(root, *args):
    code, out, err = run("check", "--format", "json", "--no-cache", *args, ".", cwd=str(root))
    assert code in (0, 1), err
    return json.loads(out)["findings"]


def test_one_constant_five_batchnorms_is_one_finding_at_the_constant(project) -> None:
    (f,) = findings(project)
    assert (f["rule"], f["path"], f["line"], f["column"], f["end_column"]) == ("API121", "model.py", 3, 15, 18)
    assert [(r["path"], r["line"]) for r in f["related"]] == [("model.py", ln) for ln in USES]
    assert f["related"][0]["note"] == "`nn.BatchNorm2d(momentum=BN_MOMENTUM)`"
    assert f["cause"] == {"path": "model.py", "line": 3, "value": "0.1", "reported_at": "cause", "uses": 5}
    assert "This value reaches 5 calls (the related places): one finding, fixed here once." in f["message"]


def test_text_formats_list_the_uses(project) -> None:
    code, out, _ = run("check", "--no-cache", ".", cwd=str(project))
    assert code == 1 and "Found 1 finding in 1 file" in out
    assert "related (5):" in out
    for ln in USES:
        assert f"model.py:{ln}: `nn.BatchNorm2d(momentum=BN_MOMENTUM)`" in out
    code, out, _ = run("check", "--no-cache", "--format", "concise", ".", cwd=str(project))
    (line,) = out.splitlines()
    assert line.startswith("model.py:3:15: API121 [api.01] error:")
    assert line.endswith("[related: " + ", ".join(f"model.py:{ln}" for ln in USES) + "]")


def test_sarif_related_locations(project) -> None:
    code, out, _ = run("check", "--no-cache", "--format", "sarif", ".", cwd=str(project))
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert [r["physicalLocation"]["region"]["startLine"] for r in result["relatedLocations"]] == USES


def test_lsp_related_information(project) -> None:
    from linter.server import convert
    from linter.settings.resolve import CliOverrides, resolve_settings
    from linter.api import check_paths

    st = resolve_settings([str(project)], str(project), CliOverrides(no_cache=True))
    old = os.getcwd()
    os.chdir(project)
    try:
        result = check_paths(["."], st.packs, st.options, str(project), st.walk)
    finally:
        os.chdir(old)
    (f,) = result.findings
    d = convert.diagnostic(f, convert.Lines(MODEL), lambda p: "file:///w/" + p)
    assert [(r.location.uri, r.location.range.start.line) for r in d.related_information] == \
        [("file:///w/model.py", ln - 1) for ln in USES]
    assert d.range.start.line == 2


def test_fix_changes_the_constant_once(project) -> None:
    code, out, err = run("check", "--no-cache", "--fix", "--unsafe-fixes", ".", cwd=str(project))
    text = (project / "model.py").read_text()
    assert "BN_MOMENTUM = 0.9\n" in text and text.count("momentum=BN_MOMENTUM") == 5
    assert text == MODEL.replace("BN_MOMENTUM = 0.1", "BN_MOMENTUM = 0.9")
    assert code == 0 and "1 fixed, 0 remaining" in out + err


def test_a_comment_at_the_constant_silences_every_use(project) -> None:
    (project / "model.py").write_text(MODEL.replace("BN_MOMENTUM = 0.1", "BN_MOMENTUM = 0.1  # trainlint: ignore[API121]"))
    code, out, err = run("check", "--no-cache", "--format", "json", "--strict-suppressions", ".", cwd=str(project))
    doc = json.loads(out)
    assert doc["findings"] == [] and doc["errors"] == [] and code == 0


def test_a_comment_at_one_use_takes_that_use_out(project) -> None:
    (project / "model.py").write_text(MODEL.replace(
        "self.b5 = nn.BatchNorm2d(8, momentum=BN_MOMENTUM)", "self.b5 = nn.BatchNorm2d(8, momentum=BN_MOMENTUM)  # trainlint: ignore[API121]"))
    (f,) = findings(project)
    assert f["line"] == 3 and [r["line"] for r in f["related"]] == USES[:4]


def test_the_baseline_records_the_group_once(project) -> None:
    code, _, err = run("check", "--no-cache", "--write-baseline", "base.json", ".", cwd=str(project))
    assert code == 0 and "recorded 1 finding" in err
    assert findings(project, "--baseline", "base.json") == []


def test_a_single_use_stays_at_the_call(project) -> None:
    one = "\n".join(ln for ln in MODEL.splitlines() if not any(f"self.b{i} =" in ln for i in (2, 3, 4, 5))) + "\n"
    one = one.replace("self.b5(self.b4(self.b3(self.b2(self.b1(x)))))", "self.b1(x)")
    (project / "model.py").write_text(one)
    (f,) = findings(project)
    assert (f["line"], f.get("related"), f.get("cause")) == (9, None, None)


def test_literals_at_each_call_are_separate_findings(project) -> None:
    (project / "model.py").write_text(MODEL.replace("momentum=BN_MOMENTUM", "momentum=0.1"))
    assert [f["line"] for f in findings(project)] == USES


def test_a_cause_in_a_file_not_checked_is_reported_at_the_first_use(project) -> None:
    """pre-commit names model.py only; the constant lives in config.py, read for context."""
    (project / "config.py").write_text("BN_MOMENTUM = 0.1\n")
    (project / "model.py").write_text(MODEL.replace("BN_MOMENTUM = 0.1\n", "from config import BN_MOMENTUM\n"))
    code, out, _ = run("check", "--no-cache", "--format", "json", "model.py", "train.py", cwd=str(project))
    (f,) = json.loads(out)["findings"]
    assert (f["path"], f["line"]) == ("model.py", USES[0])
    assert [(r["path"], r["line"]) for r in f["related"]] == [("config.py", 1)] + [("model.py", ln) for ln in USES[1:]]
    assert f["cause"]["reported_at"] == "first-use"
    # the whole repository: the constant's file is checked, the finding is there
    (f,) = findings(project)
    assert (f["path"], f["line"]) == ("config.py", 1)


ZOO_CONFIG = """\
import argparse
import os
import yaml


class Config:
    def __init__(self, cfg_dict):
        for k, v in cfg_dict.items():
            setattr(self, k, v)


def get_config():
    parser = argparse.ArgumentParser(add_help=False)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--config_path", type=str, default=os.path.join(here, "default_config.yaml"))
    path_args, _ = parser.parse_known_args()
    with open(path_args.config_path) as fin:
        return Config(yaml.load(fin.read(), Loader=yaml.FullLoader))


config = get_config()
"""


def test_a_cause_in_a_configuration_file_is_reported_at_the_first_use(project) -> None:
    (project / "default_config.yaml").write_text("lr: 0.1\nbn_momentum: 0.1\n")
    (project / "config.py").write_text(ZOO_CONFIG)
    (project / "model.py").write_text(MODEL.replace("BN_MOMENTUM = 0.1\n", "from config import config\n")
                                      .replace("momentum=BN_MOMENTUM", "momentum=config.bn_momentum"))
    (f,) = findings(project)
    assert (f["path"], f["line"], f["cause"]["reported_at"]) == ("model.py", USES[0], "first-use")
    assert (f["related"][0]["path"], f["related"][0]["line"]) == ("default_config.yaml", 2)
    assert [r["line"] for r in f["related"][1:]] == USES[1:]


def test_per_file_ignores_keep_the_group_out_of_an_ignored_file(project) -> None:
    (project / "config.py").write_text("BN_MOMENTUM = 0.1\n")
    (project / "model.py").write_text(MODEL.replace("BN_MOMENTUM = 0.1\n", "from config import BN_MOMENTUM\n"))
    (project / "trainlint.toml").write_text("per-file-ignores = { 'config.py' = ['API121'] }\n")
    (f,) = findings(project)
    assert (f["path"], f["line"], f["cause"]["reported_at"]) == ("model.py", USES[0], "first-use")


def test_first_use_groups_are_fixed_at_every_use(tmp_path) -> None:
    (tmp_path / "model.py").write_text(
        "from mindspore import nn\n\n\nclass Block(nn.Cell):\n    def __init__(self, dim, drop=0.1):\n"
        "        super().__init__()\n        self.a = nn.Dropout(drop)\n        self.b = nn.Dropout(drop)\n\n\n"
        "block = Block(8)\n")
    (f,) = findings(tmp_path)
    assert (f["rule"], f["line"], f["cause"]["reported_at"]) == ("API101", 7, "first-use")
    assert [(r["line"], r["note"]) for r in f["related"]] == [(5, "the value they share: 0.1"), (8, "`nn.Dropout(drop)`")]
    assert [e["content"] for e in f["fix"]["edits"]] == ["p=drop", "p=drop"]
    run("check", "--no-cache", "--fix", "--unsafe-fixes", ".", cwd=str(tmp_path))
    assert (tmp_path / "model.py").read_text().count("nn.Dropout(p=drop)") == 2
