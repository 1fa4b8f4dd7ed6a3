"""`trainlint audit` on the fixture zoo (tests/audit/zoo): projects, statuses, findings, evidence,
facts and the migration risk inventory, through the library and the CLI (JSON contract)."""
from __future__ import annotations

import io
import json
import os
import re
from typing import Dict, Set, Tuple

import pytest

from linter.audit.run import audit_path
from linter.audit.model import STATUSES
from linter.cli import main
from linter.engine.units import Options
from linter.testing import expected_marks
from tests.conftest import ROOT, builtin_packs

ZOO = os.path.join("tests", "audit", "zoo")
_EVIDENCE = re.compile(r"#\s*evidence:\s*([a-z0-9., ]+)")
_EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")

# Statuses a reader can check against the zoo's code; every other item is asserted to have *a*
# status by test_every_item_has_one_status.
EXPECTED: Dict[str, Dict[str, str]] = {
    "models/ms_resnet": {"dp.01": "no-issue", "dp.03": "no-issue", "dp.05": "no-issue", "api.01": "found",
                         "api.02": "no-issue", "cg.04": "no-issue", "wi.02": "no-issue", "wi.03": "no-issue",
                         "mp.02": "no-issue", "mp.03": "not-applicable", "mp.04": "not-applicable", "cg.05": "no-issue", "wi.01": "no-issue",
                         "hp.01": "manual", "hp.02": "manual", "hp.03": "manual", "ds.01": "manual"},
    "models/torch_vit": {"dp.03": "no-issue", "dp.05": "not-applicable", "mp.03": "found", "mp.02": "no-issue",
                         "wi.03": "no-issue", "api.02": "no-issue", "wi.02": "not-applicable", "cg.05": "not-applicable"},
    "models/half_migrated": {"dp.01": "found", "dp.03": "found", "api.01": "found", "api.02": "found", "wi.03": "no-issue",
                             "mp.01": "not-applicable", "mp.02": "not-applicable", "dp.05": "not-applicable"},
    "deploy": {"hp.01": "not-applicable", "hp.02": "not-applicable", "hp.03": "not-applicable", "wi.03": "not-applicable",
               "wi.02": "no-issue", "dp.03": "not-applicable", "api.02": "no-issue"},
}


@pytest.fixture(scope="module")
def zoo():
    return audit_path(ZOO, builtin_packs(), Options(), cwd=ROOT)


@pytest.fixture(scope="module")
def zoo_json() -> dict:
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        code = main(["audit", ZOO, "--format", "json", "--no-cache", "--isolated"], out, err)
    finally:
        os.chdir(cwd)
    assert code == 1, err.getvalue()   # items are found in the zoo
    return json.loads(out.getvalue())


def _project(result, rel: str):
    path = os.path.join(ZOO, rel)
    return next(p for p in result.projects if p.path == path)


def _markers(pattern: "re.Pattern[str]") -> Set[Tuple[str, int, str]]:
    files = []
    for dirpath, _dirs, names in os.walk(os.path.join(ROOT, ZOO)):
        for name in names:
            if name.endswith(".py"):
                full = os.path.join(dirpath, name)
                with open(full, encoding="utf-8") as fh:
                    files.append((os.path.relpath(full, ROOT), fh.read()))
    return expected_marks(files, pattern)


def test_projects_found(zoo) -> None:
    assert [p.path for p in zoo.projects] == [os.path.join(ZOO, r) for r in
                                             ("deploy", "models/half_migrated", "models/ms_resnet", "models/torch_vit")]
    ms = _project(zoo, "models/ms_resnet")
    assert ms.entries == [os.path.join(ZOO, "models/ms_resnet/train.py"), os.path.join(ZOO, "models/ms_resnet/eval.py")]
    assert ms.frameworks == ["mindspore"]
    # the shared helper is in the closure of both MindSpore projects
    shared = os.path.join(ZOO, "common", "seeding.py")
    assert shared in ms.files and shared in _project(zoo, "models/half_migrated").files
    # tools/train.py belongs to the folder above
    vit = _project(zoo, "models/torch_vit")
    assert vit.entries == [os.path.join(ZOO, "models/torch_vit/tools/train.py")]
    assert os.path.join(ZOO, "models/torch_vit/model.py") in vit.files
    assert not _project(zoo, "deploy").trains and vit.trains


def test_every_item_has_one_status(zoo, packs) -> None:
    ids = list(packs.checklist)
    assert len(ids) == 26
    for p in zoo.projects:
        assert [i.id for i in p.items] == ids
        for it in p.items:
            assert it.status in STATUSES, (p.path, it.id)
            assert it.title and it.how_to_check
            if it.status == "not-applicable":
                assert it.reason, (p.path, it.id)
            if it.status == "found":
                assert it.findings and all(f.checklist == it.id for f in it.findings)
            if it.status == "no-issue":
                assert it.evidence, (p.path, it.id)


@pytest.mark.parametrize("project", sorted(EXPECTED))
def test_statuses(zoo, project) -> None:
    p = _project(zoo, project)
    got = {i.id: i.status for i in p.items}
    assert {k: got[k] for k in EXPECTED[project]} == EXPECTED[project]


def test_findings_are_the_rules_findings_on_their_lines(zoo) -> None:
    expected = {(path, line, rule) for path, line, rule in _markers(_EXPECT)}
    got = set()
    for p in zoo.projects:
        for it in p.items:
            got |= {(f.path, f.span.line, f.rule) for f in it.findings}
    assert got == expected


def test_evidence_cites_the_good_practice(zoo) -> None:
    """Each `# evidence: item` line is cited as evidence of that item in some project, and a
    no-issue item's evidence points at real lines whose text is shown."""
    cited = set()
    for p in zoo.projects:
        for it in p.items:
            for e in it.evidence:
                cited.add((e.path, e.line, it.id))
                with open(os.path.join(ROOT, e.path), encoding="utf-8") as fh:
                    assert fh.read().splitlines()[e.line - 1].strip() == e.text
    missing = _markers(_EVIDENCE) - cited
    assert not missing


def test_manual_items_list_the_facts(zoo) -> None:
    ms = _project(zoo, "models/ms_resnet")
    facts = {i.id: {f.name: f.value for f in i.facts} for i in ms.items}
    assert facts["hp.01"]["optimizer.lr"] == "0.1"          # argparse default of --lr
    assert facts["hp.02"]["train.epochs"] == "90"
    assert facts["hp.03"]["data.train.batch_size"] == "32"
    vit = _project(zoo, "models/torch_vit")
    vfacts = {i.id: {f.name: f.value for f in i.facts} for i in vit.items}
    assert vfacts["hp.01"]["optimizer.lr"] == "0.0003"
    assert vfacts["hp.03"]["data.train.batch_size"] == "128"


def test_migration_risks(zoo) -> None:
    vit = _project(zoo, "models/torch_vit")
    assert vit.migration_target == "mindspore"
    rows = {(os.path.basename(r.path), r.line, r.parameter): (r.target_api, r.write, r.kind) for r in vit.risks}
    assert rows[("model.py", 22, "bias")] == ("mindspore.nn.Conv2d", "has_bias=True", "default")
    assert rows[("model.py", 25, "momentum")] == ("mindspore.nn.BatchNorm1d", "momentum=0.9", "meaning")
    assert rows[("model.py", 26, "stride")] == ("mindspore.nn.MaxPool2d", "stride=2", "default")
    assert rows[("model.py", 12, "drop_probability")] == ("mindspore.nn.Dropout", "p=0.1", "meaning")
    assert rows[("model.py", 9, "eps")] == ("mindspore.nn.LayerNorm", "epsilon=1e-05", "default")
    assert rows[("model.py", 12, "approximate")] == ("mindspore.nn.GELU", "approximate=False", "default")
    # written values that mean the same on both sides are not risks
    assert ("model.py", 22, "kernel_size") not in rows and ("model.py", 26, "kernel_size") not in rows
    ms = _project(zoo, "models/ms_resnet")
    assert ms.migration_target == "pytorch"
    assert all(r.api.startswith("mindspore.") and r.target_api.startswith("torch.") for r in ms.risks)
    # the BatchNorm momentum written in torch's convention is the rule's finding; in PyTorch it means the same
    assert not [r for r in ms.risks if r.parameter == "momentum"]


def test_json_contract(zoo_json, packs) -> None:
    d = zoo_json
    assert set(d) >= {"version", "projects", "errors"} and isinstance(d["version"], str)
    assert d["errors"] == []
    for p in d["projects"]:
        assert set(p) >= {"path", "entries", "frameworks", "items"}
        assert [i["id"] for i in p["items"]] == list(packs.checklist)
        for it in p["items"]:
            assert set(it) >= {"id", "status", "title", "findings", "evidence", "facts", "how_to_check"}
            assert it["status"] in ("found", "no-issue", "not-applicable", "manual")
            for e in it["evidence"]:
                assert set(e) >= {"path", "line", "text"} and isinstance(e["line"], int)
            for f in it["findings"]:
                # the same objects as `check --format json`
                assert set(f) >= {"path", "line", "column", "end_line", "end_column", "rule", "name", "checklist",
                                  "framework", "severity", "message"}
    vit = next(p for p in d["projects"] if p["path"].endswith("torch_vit"))
    mp03 = next(i for i in vit["items"] if i["id"] == "mp.03")
    assert mp03["status"] == "found" and mp03["findings"][0]["rule"] == "MP301"


def test_chinese_report(packs) -> None:
    result = audit_path(ZOO, packs, Options(lang="zh"), cwd=ROOT)
    p = _project(result, "models/ms_resnet")
    dp05 = next(i for i in p.items if i.id == "dp.05")
    assert "多节点数据分片" in dp05.title
    assert any("\u4e00" <= ch <= "\u9fff" for ch in dp05.how_to_check)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in dp05.evidence[0].note)


def test_training_data_items_cite_the_training_pipeline(zoo) -> None:
    """dp.01 (training data normalised) is shown by the training pipeline's Normalize, never by the
    evaluation pipeline's (an inference script's preprocessing says nothing about training data)."""
    ms = _project(zoo, "models/ms_resnet")
    dp01 = next(i for i in ms.items if i.id == "dp.01")
    cited = {(os.path.basename(e.path), e.line) for e in dp01.evidence}
    assert ("dataset.py", 15) in cited and ("dataset.py", 24) not in cited, cited


def test_a_fact_not_known_statically_says_so(tmp_path) -> None:
    """`optimizer.lr=lr` would read as a value; an unresolved fact is shown as unresolved."""
    (tmp_path / "train.py").write_text(
        "import torch\nfrom torch import nn\nfrom helpers import schedule\n"
        "net = nn.Linear(4, 2)\nlr = schedule()\n"
        "opt = torch.optim.SGD(net.parameters(), lr=lr)\n"
        "for x, y in []:\n    opt.zero_grad(); nn.functional.mse_loss(net(x), y).backward(); opt.step()\n",
        encoding="utf-8")
    result = audit_path(str(tmp_path), builtin_packs(), Options(), cwd=str(tmp_path))
    facts = {f.name: f.value for i in result.projects[0].items for f in i.facts}
    assert facts["optimizer.lr"] == "unresolved: lr"
    assert facts["optimizer.kind"] == "sgd"
