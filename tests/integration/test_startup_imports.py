"""A one-file check imports what it uses: no jsonschema when the compiled rule packs come from the
cache, no rich for a plain-text format, and nothing of the parser or the program model when the
result comes from the result cache (the file is unchanged). Each case runs in a fresh interpreter."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

PROBE = r"""
import io, json, sys
import linter.cli
code = linter.cli.main(sys.argv[1:], io.StringIO(), io.StringIO())
print(json.dumps({"code": code, "modules": sorted(m for m in sys.modules
                                                  if m.split(".")[0] in ("libcst", "jsonschema", "rich", "yaml")
                                                  or m.startswith(("linter.facts.extract", "linter.index.project", "linter.match.context")))}))
"""


def _loaded(tmp_path, *argv: str) -> set:
    env = dict(os.environ, TRAINLINT_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.splitlines()[-1])["modules"])


def test_a_one_file_check_loads_only_what_it_uses(tmp_path) -> None:
    (tmp_path / "one.py").write_text("from mindspore import nn\ndrop = nn.Dropout(0.1)\n")
    args = ("check", "--isolated", "--format", "concise", "one.py")
    first = _loaded(tmp_path, *args)            # compiles the packs into the cache
    assert "libcst" in first
    changed = (tmp_path / "one.py").read_text() + "# edited\n"
    (tmp_path / "one.py").write_text(changed)
    second = _loaded(tmp_path, *args)           # a changed file: parsed, packs from the cache
    assert "libcst" in second and "linter.facts.extract" in second
    assert not {m for m in second if m.split(".")[0] in ("jsonschema", "rich", "yaml")}
    third = _loaded(tmp_path, *args)            # unchanged: the stored result
    assert third == set(), third
