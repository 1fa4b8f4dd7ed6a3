"""One real editor: Neovim, headless, with its built-in LSP client started on `trainlint server`,
opens a script with planted bugs and reads back the diagnostics it shows (`-m editor`)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.editor

NVIM = shutil.which("nvim")


@pytest.mark.skipif(NVIM is None, reason="Neovim (`nvim`) is not installed; .ci/run installs Debian's `neovim`")
def test_neovim_shows_the_servers_diagnostics(tmp_path) -> None:
    pytest.importorskip("pygls", reason="the server extra (pygls) is not installed")
    ws = tmp_path / "ws"
    shutil.copytree(os.path.join(ROOT, "examples"), ws)
    target = ws / "mindspore_port" / "src" / "model.py"
    out = tmp_path / "diagnostics.json"
    script = os.path.join(ROOT, "tests", "server", "data", "neovim_diagnostics.lua")
    setup = f"lua _G.arg_path={json.dumps(str(target))}; _G.arg_out={json.dumps(str(out))}; _G.arg_py={json.dumps(sys.executable)}"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TRAINLINT_CACHE_DIR=str(tmp_path / "cache"), XDG_STATE_HOME=str(tmp_path / "state"))
    proc = subprocess.run([NVIM, "--headless", "--clean", "--cmd", setup, "-c", f"luafile {script}"],
                          capture_output=True, text=True, timeout=120, env=env, cwd=str(ws))
    assert proc.returncode == 0, proc.stderr
    got = json.loads(out.read_text())
    assert got["ok"] is True
    shown = {(d["code"], d["lnum"], d["col"]) for d in got["diagnostics"]}
    assert shown == {("API121", 10, 8), ("API111", 34, 20), ("API101", 38, 20)}
    assert all(d["source"] == "trainlint" for d in got["diagnostics"])
    drop = next(d for d in got["diagnostics"] if d["code"] == "API101")
    assert "keep_prob" in drop["message"] and drop["severity"] == 1
