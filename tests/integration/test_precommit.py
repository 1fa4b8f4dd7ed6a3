"""The pre-commit hook (``.pre-commit-hooks.yaml``), run by the real pre-commit tool.

pre-commit installs trainlint from a committed snapshot of this checkout (tracked files plus
untracked, not ignored ones: what ``pip install .`` would package) into a fresh hook
environment and runs hook ``trainlint`` in a throwaway git repository, as a user's
``.pre-commit-config.yaml`` would. One ``PRE_COMMIT_HOME`` is shared by the module so the
hook environment is built once (``pre-commit run`` with a config naming the snapshot);
``pre-commit try-repo`` always builds its own in a temporary store, so it runs only once.

Needs git and pre-commit (the ``test`` extra); skipped without them. Building the hook
environment pip-installs this project, so pip's package index must be reachable.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOOK_ID = "trainlint"
INSTALL_TIMEOUT = 900  # seconds; a cold hook environment is a virtualenv plus a pip install

# A MindSpore model whose Dropout passes a drop rate where 2.x expects keep_prob (API101);
# model definitions only, so no training-script rule (e.g. the missing seed) applies.
BAD = '''\
import mindspore
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(16, 2)
        self.drop = nn.Dropout(0.1)

    def construct(self, x):
        return self.drop(self.fc(x))
'''
GOOD = BAD.replace("nn.Dropout(0.1)", "nn.Dropout(p=0.1)")
NOTEBOOK = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "markdown", "metadata": {}, "source": ["# Ported head"]},
    {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
     "source": ["from mindspore import nn\n", "head = nn.SequentialCell([nn.Dense(8, 8), nn.Dropout(0.1)])\n"]},
    {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
     "source": ["import mindspore as ms\n", "ms.set_seed(1)\n",
                "ms.Model(head, nn.MSELoss(), nn.Adam(head.trainable_params())).train(1, None)\n"]},
]}, indent=1)
# The hook's (concise) report of BAD as bad.py, path as pre-commit passed it: an error where no
# program is known (a repository of model files only).
BAD_FINDING = re.compile(r"^bad\.py:9:\d+: API101 \[api\.01\] error: ", re.MULTILINE)
# In `project` the repository's train.py (read for context though not passed) does not import
# bad.py, so the finding says no program runs the code (info): a file checked alone is judged by
# the same programs as the whole repository.
BAD_FINDING_UNUSED = re.compile(r"^bad\.py:9:\d+: API101 \[api\.01\] info: ", re.MULTILINE)

# A training script whose seed is set by a helper in another project file.
TRAIN = '''\
import mindspore.dataset as ds
from mindspore import nn
from mindspore.train import Model

from utils import seed_all


def main():
    seed_all(42)
    net = nn.Dense(4, 2)
    model = Model(net, nn.MSELoss(), nn.Adam(net.trainable_params()))
    model.train(1, ds.MnistDataset("data"))


if __name__ == "__main__":
    main()
'''
UTILS_SEEDED = "import mindspore\n\n\ndef seed_all(seed):\n    mindspore.set_seed(seed)\n"
# Seeds only Python's `random`: MindSpore's initialisers stay unseeded (WI301).
UTILS_UNSEEDED = "import random\n\n\ndef seed_all(seed):\n    random.seed(seed)\n"

# What GIT_* variables may pass through (as pre-commit's own `no_git_env`): GIT_DIR,
# GIT_INDEX_FILE or GIT_WORK_TREE from an enclosing git hook would point git at another repo.
_GIT_KEEP = {"GIT_EXEC_PATH", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSL_CAINFO", "GIT_SSL_NO_VERIFY",
             "GIT_ASKPASS", "GIT_ALLOW_PROTOCOL", "GIT_HTTP_PROXY_AUTHMETHOD"}


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    """Isolated environment: no user/system git config, a module-wide PRE_COMMIT_HOME."""
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install '.[test]')")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    clean = {k: v for k, v in os.environ.items()
             if not (k.startswith("GIT_") and k not in _GIT_KEEP)
             and not k.startswith("PRE_COMMIT")
             and k != "SKIP"}  # pre-commit's SKIP=hook,ids would skip the hook under test
    clean.update(
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")),
        PRE_COMMIT_COLOR="never",
    )
    return clean


def git(cwd: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout


def init_repo(path: Path, env: dict[str, str], files: dict[str, str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    git(path, env, "-c", "init.defaultBranch=main", "init", "-q")
    git(path, env, "config", "user.name", "trainlint tests")
    git(path, env, "config", "user.email", "tests@trainlint.invalid")
    git(path, env, "config", "commit.gpgsign", "false")
    if files:
        git(path, env, "add", "-A")
        git(path, env, "commit", "-q", "--no-verify", "-m", "initial")
    return path


@pytest.fixture(scope="module")
def hook_repo(env, tmp_path_factory) -> dict[str, str]:
    """The checkout as a committed hook repository: {"repo": path, "rev": sha}.

    ``pre-commit try-repo ROOT`` would commit only tracked files (a new, not yet added
    module is left out), and into a new temporary repository on every call, so no hook
    environment could be reused; the snapshot has neither problem."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True, check=False)
    if listed.returncode != 0:
        why = listed.stderr.decode(errors="replace").strip()
        pytest.skip(f"{ROOT} is not a git checkout, so there is no hook repository: {why}")
    dest = tmp_path_factory.mktemp("hook-repo")
    for rel in filter(None, listed.stdout.decode().split("\0")):
        src = ROOT / rel
        if not os.path.lexists(src) or (src.is_dir() and not src.is_symlink()):
            continue  # deleted in the work tree, or a submodule
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel, follow_symlinks=False)
    assert (dest / ".pre-commit-hooks.yaml").is_file()
    init_repo(dest, env, {})
    git(dest, env, "add", "-A")
    git(dest, env, "commit", "-q", "--no-verify", "-m", "snapshot")
    return {"repo": str(dest), "rev": git(dest, env, "rev-parse", "HEAD").strip()}


def pre_commit(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=INSTALL_TIMEOUT, check=False)


def config(hook_repo: dict[str, str]) -> str:
    return textwrap.dedent(f"""\
        repos:
          - repo: {hook_repo["repo"]}
            rev: {hook_repo["rev"]}
            hooks:
              - id: {HOOK_ID}
        """)


@pytest.fixture(scope="module")
def project(env, hook_repo, tmp_path_factory) -> Path:
    """A user's repository using the hook, everything committed."""
    return init_repo(tmp_path_factory.mktemp("project"), env, {
        ".pre-commit-config.yaml": config(hook_repo),
        "bad.py": BAD,
        "good.py": GOOD,
        "train.py": TRAIN,
        "utils.py": UTILS_SEEDED,
        "unseeded/train.py": TRAIN,
        "unseeded/utils.py": UTILS_UNSEEDED,
        "port.ipynb": NOTEBOOK,
        "trainlint.toml": "extend-exclude = ['vendor/']\n",
        "vendor/copy_of_bad.py": BAD,
    })


def test_notebooks_are_checked(env, project) -> None:
    """types_or includes jupyter: a notebook cell with the bug fails, reported by cell."""
    proc = run_hook(project, env, "port.ipynb")
    assert proc.returncode == 1, show(proc)
    assert re.search(r"^port\.ipynb:cell 2:2:\d+: API101 ", proc.stdout, re.MULTILINE), show(proc)


def test_config_excludes_apply_to_files_pre_commit_names(env, project) -> None:
    """pre-commit names every changed file; --force-exclude in the hook keeps excluded ones out."""
    proc = run_hook(project, env, "vendor/copy_of_bad.py")
    assert proc.returncode == 0, show(proc)
    assert "API101" not in proc.stdout, show(proc)


def run_hook(project: Path, env: dict[str, str], *files: str) -> subprocess.CompletedProcess:
    args: list[str] = ["run", HOOK_ID, "--verbose"]
    if files:
        args += ["--files", *files]
    return pre_commit(project, env, *args)


def show(proc: subprocess.CompletedProcess) -> str:
    return f"exit code {proc.returncode}; output:\n{proc.stdout}"


def test_try_repo_reports_the_bad_file_only(env, hook_repo, tmp_path) -> None:
    """The documented way to try a hook: `pre-commit try-repo REPO HOOK --files ...`
    (it builds its own hook environment, so it runs once, on both files)."""
    work = init_repo(tmp_path / "work", env, {"bad.py": BAD, "good.py": GOOD})
    proc = pre_commit(work, env, "try-repo", hook_repo["repo"], HOOK_ID, "--ref", hook_repo["rev"],
                      "--verbose", "--files", "bad.py", "good.py")
    assert proc.returncode == 1, show(proc)
    assert re.search(r"^trainlint\.+Failed$", proc.stdout, re.MULTILINE), show(proc)
    assert f"- hook id: {HOOK_ID}" in proc.stdout and "- exit code: 1" in proc.stdout, show(proc)
    assert BAD_FINDING.search(proc.stdout), show(proc)
    assert not re.search(r"^good\.py:", proc.stdout, re.MULTILINE), show(proc)


def test_unreached_bad_file_passes_with_its_info_finding_counted(env, project) -> None:
    """No program of the repository runs bad.py: its finding is `info` (true but minor), which
    does not block a commit; one line says it was left out."""
    proc = run_hook(project, env, "bad.py")
    assert proc.returncode == 0, show(proc)
    assert re.search(r"^trainlint\.+Passed$", proc.stdout, re.MULTILINE), show(proc)
    assert "1 info finding not shown (true but minor; --show-info shows them)." in proc.stdout, show(proc)
    assert not BAD_FINDING_UNUSED.search(proc.stdout), show(proc)


def test_fail_on_info_in_the_config_fails_the_hook(env, hook_repo, tmp_path) -> None:
    """`fail-on = "info"` in [tool.trainlint]: the hook follows it and shows what fails it."""
    work = init_repo(tmp_path / "strict", env, {
        ".pre-commit-config.yaml": config(hook_repo), "bad.py": BAD, "train.py": TRAIN, "utils.py": UTILS_SEEDED,
        "pyproject.toml": "[tool.trainlint]\nfail-on = \"info\"\n"})
    proc = run_hook(work, env, "bad.py")
    assert proc.returncode == 1, show(proc)
    assert re.search(r"^trainlint\.+Failed$", proc.stdout, re.MULTILINE), show(proc)
    assert BAD_FINDING_UNUSED.search(proc.stdout), show(proc)


def test_good_file_passes(env, project) -> None:
    proc = run_hook(project, env, "good.py")
    assert proc.returncode == 0, show(proc)
    assert re.search(r"^trainlint\.+Passed$", proc.stdout, re.MULTILINE), show(proc)


def test_only_passed_files_are_linted_imports_give_context(env, project) -> None:
    """train.py alone: bad.py (in the repo, not passed) is not linted, and utils.py (not
    passed either) is read for context, so its mindspore.set_seed counts (no WI301)."""
    proc = run_hook(project, env, "train.py")
    assert proc.returncode == 0, show(proc)
    assert re.search(r"^trainlint\.+Passed$", proc.stdout, re.MULTILINE), show(proc)
    assert "WI301" not in proc.stdout and "API101" not in proc.stdout, show(proc)


def test_context_file_contents_decide(env, project) -> None:
    """Control for the test above: the same train.py whose helper seeds only `random` is
    reported, citing the helper file that was read but not passed."""
    proc = run_hook(project, env, "unseeded/train.py")
    assert proc.returncode == 1, show(proc)
    assert re.search(r"^unseeded/train\.py:\d+:\d+: WI301 ", proc.stdout, re.MULTILINE), show(proc)
    assert "unseeded/utils.py:5" in proc.stdout, show(proc)
    assert not re.search(r"^unseeded/utils\.py:\d+:\d+: ", proc.stdout, re.MULTILINE), show(proc)


def test_commit_checks_only_staged_files(env, hook_repo, tmp_path) -> None:
    """Without --files pre-commit passes the staged files: a staged edit to train.py passes
    although the committed bad.py would fail; staging a bad file fails on that file only."""
    work = init_repo(tmp_path / "work", env, {
        ".pre-commit-config.yaml": config(hook_repo), "bad.py": BAD, "train.py": TRAIN,
        "utils.py": UTILS_SEEDED})
    (work / "train.py").write_text("# entry point\n" + TRAIN)
    git(work, env, "add", "train.py")
    proc = run_hook(work, env)
    assert proc.returncode == 0, show(proc)
    assert "API101" not in proc.stdout and "WI301" not in proc.stdout, show(proc)

    (work / "model.py").write_text(BAD)
    (work / "train.py").write_text(TRAIN.replace("    net = nn.Dense(4, 2)\n", "    from model import Net\n    net = Net()\n"))
    git(work, env, "add", "model.py", "train.py")
    proc = run_hook(work, env)
    assert proc.returncode == 1, show(proc)
    assert re.search(r"^model\.py:9:\d+: API101 ", proc.stdout, re.MULTILINE), show(proc)
    assert not re.search(r"^bad\.py:", proc.stdout, re.MULTILINE), show(proc)
