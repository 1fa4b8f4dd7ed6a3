"""The VS Code extension (editors/vscode): its activation logic under Node with stand-ins for VS
Code (always, where `node` exists), and the packaged .vsix built by its own script (`-m slow`:
it installs the npm dependencies)."""
from __future__ import annotations

import os
import shutil
import subprocess
import zipfile

import pytest

from tests.conftest import ROOT

EXT = os.path.join(ROOT, "editors", "vscode")
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="Node.js (`node`) is not installed")
def test_the_extension_starts_trainlint_server_with_the_settings() -> None:
    proc = subprocess.run([NODE, os.path.join("test", "activate.test.js")], cwd=EXT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "ok: activate, restart, deactivate" in proc.stdout


def test_the_extension_version_is_trainlints() -> None:
    import json

    from linter import __version__

    with open(os.path.join(EXT, "package.json"), encoding="utf-8") as fh:
        assert json.load(fh)["version"] == __version__


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_the_vsix_builds(tmp_path) -> None:
    work = tmp_path / "vscode"
    shutil.copytree(EXT, work, ignore=shutil.ignore_patterns("node_modules", "*.vsix"))
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=work, check=True, capture_output=True, timeout=600)
    subprocess.run(["npm", "run", "package"], cwd=work, check=True, capture_output=True, timeout=300)
    names = zipfile.ZipFile(work / "trainlint.vsix").namelist()
    assert "extension/extension.js" in names and "extension/package.json" in names
    assert any(n.startswith("extension/node_modules/vscode-languageclient/") for n in names)
    assert not any("/test/" in n or "@vscode/vsce" in n for n in names)
