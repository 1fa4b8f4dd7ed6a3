"""`trainlint server` without the optional dependencies."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT


def test_without_the_server_extra_the_command_says_what_to_install(tmp_path) -> None:
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "pygls.py").write_text("raise ImportError('blocked for the test')\n")
    env = dict(os.environ, PYTHONPATH=str(blocker) + os.pathsep + ROOT)
    out = subprocess.run([sys.executable, "-m", "linter", "server"], capture_output=True, text=True, env=env,
                         stdin=subprocess.DEVNULL, timeout=60)
    assert out.returncode == 2 and "pip install 'trainlint[server]'" in out.stderr
