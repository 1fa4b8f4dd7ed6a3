"""Release hygiene: the sdist and the wheel build (`python -m build`: the wheel is built from the
sdist, so the sdist carries what the wheel needs), the wheel carries every rule pack, API table and
mapping, and a fresh virtual environment with only the wheel (and its declared dependencies) runs
`trainlint check examples/` with the same findings as this checkout and passes `trainlint test-rules`.
The version lives in one place (`linter/__init__.py`)."""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import tarfile
import zipfile

import pytest

import linter
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), ROOT], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (sdist,) = glob.glob(str(out / "*.tar.gz"))
    (wheel,) = glob.glob(str(out / "*.whl"))
    return sdist, wheel


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory):
    where = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    py = str(where / ("Scripts" if os.name == "nt" else "bin") / "python")
    proc = subprocess.run([py, "-m", "pip", "install", "--quiet", dist[1]], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return py


def test_artifacts_are_named_for_the_one_version(dist) -> None:
    sdist, wheel = dist
    assert os.path.basename(sdist) == f"trainlint-{linter.__version__}.tar.gz"
    assert os.path.basename(wheel) == f"trainlint-{linter.__version__}-py3-none-any.whl"


def test_the_wheel_carries_every_rule_pack_table_and_mapping(dist) -> None:
    names = set(zipfile.ZipFile(dist[1]).namelist())
    shipped = [os.path.relpath(p, os.path.join(ROOT, "rules"))
               for p in glob.glob(os.path.join(ROOT, "rules", "**", "*.yaml"), recursive=True)]
    assert len(shipped) > 50
    missing = [p for p in shipped if f"linter/_packs/{p.replace(os.sep, '/')}" not in names]
    assert missing == []
    assert "linter/schema/rule.json" in names


def test_the_sdist_carries_the_docs_and_the_changelog(dist) -> None:
    names = {n.split("/", 1)[1] for n in tarfile.open(dist[0]).getnames() if "/" in n}
    for needed in ("README.md", "CHANGELOG.md", "docs/framework-facts.yaml", "docs/rules.md", "pyproject.toml",
                   "rules/roles.yaml", "examples/README.md"):
        assert needed in names, needed


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, TRAINLINT_NO_PROGRESS="1")
    return subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)


def test_the_installed_wheel_checks_the_examples_like_this_checkout(venv) -> None:
    examples = os.path.join(ROOT, "examples")
    args = ["-m", "linter", "check", ".", "--format", "json", "--exit-zero", "--no-cache", "--isolated"]
    installed = _run([venv] + args, cwd=examples)
    here = _run([sys.executable] + args, cwd=examples)
    assert installed.returncode == 0, installed.stderr
    got = json.loads(installed.stdout)["findings"]
    assert got and got == json.loads(here.stdout)["findings"]
    # the wheel's package, not this checkout, answered
    where = _run([venv, "-c", "import linter, os; print(os.path.dirname(linter.__file__))"], cwd=examples).stdout.strip()
    assert not where.startswith(ROOT)


def test_the_installed_wheel_passes_its_rule_examples_and_knows_its_version(venv) -> None:
    bin_dir = os.path.dirname(venv)
    cli = os.path.join(bin_dir, "trainlint")
    proc = _run([cli, "test-rules"])
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "examples passed" in proc.stdout
    assert _run([cli, "--version"]).stdout.strip() == f"trainlint {linter.__version__}"
