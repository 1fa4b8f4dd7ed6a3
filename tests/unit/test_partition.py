"""A many-project tree is checked project by project (linter/program/projects.py finds the projects, linter/engine/projects.py checks them): where it splits,
that shared files are still judged with the programs that run them, that each project's
memory is released, and that the answers do not depend on the job count."""
from __future__ import annotations

import gc
import json
import os
import weakref

import pytest

from linter.engine import projects as partition_stage
from linter.api import discover_units
from linter.engine.packs import load_packs
from linter.program import projects as program_projects
from linter.program.projects import partition
from tests.integration.test_cli import run

TRAIN = """\
import mindspore as ms
from mindspore import nn
from mindspore.train import Model
{imports}
ms.set_seed(1)
net = {net}
model = Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()))
if __name__ == "__main__":
    model.train(10, {data})
"""

SHARED_DATA = """\
import mindspore.dataset as ds


def create_dataset(path, batch_size=32):
    data = ds.ImageFolderDataset(path, shuffle=False)
    return data.batch(batch_size)
"""


def write(root, rel, text=""):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def groups_of(tmp_path, *files):
    for rel in files:
        write(tmp_path, rel)
    units, _ = discover_units(["."], str(tmp_path))
    return [(os.path.relpath(g.folder, tmp_path) if g.folder else "", g.rest,
             sorted(os.path.relpath(u.abspath, tmp_path) for u in g.units))
            for g in partition(units, load_packs().roles)]


def test_a_zoo_splits_at_the_shallowest_folders_holding_entry_scripts(tmp_path) -> None:
    got = groups_of(tmp_path, "cv/a/train.py", "cv/a/src/net.py", "cv/a/sub/train.py",
                    "cv/b/scripts/train.py", "cv/b/src/x.py", "nlp/c/eval.py", "utils/common.py")
    assert got == [
        ("cv/a", False, ["cv/a/src/net.py", "cv/a/sub/train.py", "cv/a/train.py"]),
        ("cv/b", False, ["cv/b/scripts/train.py", "cv/b/src/x.py"]),   # scripts/ counts for its parent
        ("nlp/c", False, ["nlp/c/eval.py"]),
        ("", True, ["utils/common.py"]),                                # files of no project, last
    ]


@pytest.mark.parametrize("files", [
    ("train.py", "cv/a/train.py", "cv/b/train.py", "lib/net.py"),    # an entry script at the root
    ("examples/train.py", "lib/net.py", "lib/data.py"),              # a library and its example
    ("lib/net.py", "lib/data.py"),                                    # no entry script at all
])
def test_a_single_project_is_not_split(tmp_path, files) -> None:
    got = groups_of(tmp_path, *files)
    assert len(got) == 1 and got[0][2] == sorted(files)


def zoo(tmp_path):
    root = tmp_path / "zoo"
    write(root, "common/data.py", SHARED_DATA)
    write(root, "a/train.py", TRAIN.format(imports="from common.data import create_dataset",
                                           net="nn.Dense(4, 2)", data='create_dataset("/data/train")'))
    write(root, "b/train.py", TRAIN.format(imports="import mindspore.dataset as ds", net="nn.Dense(4, 2)",
                                           data='ds.ImageFolderDataset("/data", shuffle=False).batch(8)'))
    write(root, "c/eval.py", "from common.data import create_dataset\nds = create_dataset('/data/val')\n")
    return root


def test_shared_files_are_judged_with_the_projects_that_import_them(tmp_path, monkeypatch) -> None:
    """`common/data.py` belongs to no project; its dataset is a training pipeline only because
    `a/train.py` trains on it — the rest group reads the importing projects for context."""
    root = zoo(tmp_path)
    code, out, _ = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", ".", cwd=str(root))
    found = {(f["path"], f["rule"]) for f in json.loads(out)["findings"] if f["rule"] == "DP301"}
    assert found == {("common/data.py", "DP301"), ("b/train.py", "DP301")}
    msg = [f["message"] for f in json.loads(out)["findings"] if f["path"] == "common/data.py"][0]
    assert "a/train.py" in msg

    # the same tree checked as one project says the same
    monkeypatch.setattr(program_projects, "partition", lambda units, spec: [program_projects.Group("", "", list(units))])
    whole = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", ".", cwd=str(root))
    assert json.loads(whole[1])["findings"] == json.loads(out)["findings"]

    # and without the importers read for context the shared dataset would be missed
    monkeypatch.undo()
    monkeypatch.setattr(partition_stage, "importers", lambda *a: [])
    blind = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", ".", cwd=str(root))
    assert ("common/data.py", "DP301") not in {(f["path"], f["rule"]) for f in json.loads(blind[1])["findings"]}


def test_the_answer_does_not_depend_on_the_job_count(tmp_path) -> None:
    root = zoo(tmp_path)
    serial = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", ".", cwd=str(root))
    parallel = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "2", ".", cwd=str(root))
    assert serial[1] == parallel[1] and json.loads(serial[1])["findings"]


def test_each_project_is_released_when_it_is_done(tmp_path, monkeypatch) -> None:
    """A project's index and facts are garbage once it is checked: nothing may keep them —
    in particular not the collector's frozen generation, where a parse that freezes its facts
    would put the previous project's reference cycles out of reach for good."""
    from linter.index.project import Project

    root = zoo(tmp_path)
    alive = []
    init = Project.__init__

    def tracked(self, *a, **k):
        init(self, *a, **k)
        alive.append(weakref.ref(self))

    monkeypatch.setattr(Project, "__init__", tracked)
    gc.unfreeze()        # what earlier runs in this process froze
    run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", ".", cwd=str(root))
    gc.collect()
    assert len(alive) == 4 and all(r() is None for r in alive)
    assert gc.get_freeze_count() == 0


def test_a_project_whose_worker_fails_is_checked_in_the_parent(tmp_path, monkeypatch) -> None:
    root = zoo(tmp_path)
    serial = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", ".", cwd=str(root))
    parent = os.getpid()
    check = partition_stage.check_group

    def failing(group, *args, **kwargs):
        if os.getpid() != parent and group.rest:
            raise MemoryError("worker lost")       # as a killed worker would surface
        return check(group, *args, **kwargs)

    monkeypatch.setattr(partition_stage, "check_group", failing)
    parallel = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "2", ".", cwd=str(root))
    assert parallel[1] == serial[1]


def test_a_library_with_a_few_projects_is_one_project(tmp_path) -> None:
    """Files of no project outnumber the projects' files (a library and its examples): split,
    each project would read the library again and the library would be checked alone in one
    worker at the end (the benchmark corpus: -j 2 was 1.6x -j 1); it is one project."""
    files = ["cv/a/train.py", "cv/b/train.py"] + [f"lib/m{i}.py" for i in range(6)]
    for rel in files:
        write(tmp_path, rel)
    units, _ = discover_units(["."], str(tmp_path))
    groups = partition(units, load_packs().roles)
    assert [(len(g.units), g.rest) for g in groups] == [(8, False)]


def test_a_group_larger_than_its_share_parses_with_the_runs_jobs(tmp_path, monkeypatch) -> None:
    # One project holds most of a zoo's files: parsed alone in one worker it would leave the
    # other idle, so it parses with the run's jobs inside its worker.
    files = ["cv/a/train.py"] + [f"cv/a/src/m{i}.py" for i in range(6)] + ["cv/b/train.py", "common/util.py"]
    for rel in files:
        write(tmp_path, rel)
    units, _ = discover_units(["."], str(tmp_path))
    groups = partition(units, load_packs().roles)
    sizes = [(len(g.units), g.rest) for g in groups]
    assert sizes == [(7, False), (1, False), (1, True)]
    assert partition_stage._inner_jobs(groups, 2, 2) == [2, 1, 1]
    assert partition_stage._inner_jobs(groups, 2, 1) == [1, 1, 1]
    # and the answer with parse workers forked inside a project worker is the serial one
    drop = "from mindspore import nn\ndrop{i} = nn.Dropout(0.{i})\n"
    for i in range(6):
        write(tmp_path, f"cv/a/src/m{i}.py", drop.format(i=i % 3 + 1))
    imports = "".join(f"import src.m{i}\n" for i in range(6))
    write(tmp_path, "cv/a/train.py", TRAIN.format(imports=imports, net="nn.Dense(2, 2)", data="None"))
    write(tmp_path, "cv/b/train.py", TRAIN.format(imports="", net="nn.Dense(2, 2)", data="None"))
    monkeypatch.setattr("linter.facts.batch.PARALLEL_MIN_BYTES", 0)
    serial = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", ".", cwd=str(tmp_path))
    parallel = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "2", ".", cwd=str(tmp_path))
    assert serial[1] == parallel[1]
    assert {f["path"] for f in json.loads(serial[1])["findings"]} >= {f"cv/a/src/m{i}.py" for i in range(6)}
