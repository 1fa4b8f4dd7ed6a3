"""The architecture holds: no import cycle among trainlint's modules (function-level imports
included, annotation-only ones not), and the import-linter contracts in pyproject.toml pass
(`lint-imports`, also run by .ci/run)."""
from __future__ import annotations

import os
import subprocess
import sys
from typing import Dict, List, Set

import pytest

from linter.core.graphs import components
from tests.conftest import ROOT

grimp = pytest.importorskip("grimp", reason="import-linter (grimp) is in the test extra")


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module."""
    return [sorted(c) for c in components(sorted(graph), lambda v: sorted(graph.get(v, ()))) if len(c) > 1]


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    g = grimp.build_graph("linter", include_external_packages=False, exclude_type_checking_imports=True)
    graph = {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules}
    found = cycles(graph)
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_import_contracts_hold() -> None:
    exe = os.path.join(os.path.dirname(sys.executable), "lint-imports")
    if not os.path.exists(exe):
        pytest.skip("lint-imports is not installed (pip install '.[test]')")
    proc = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_every_deferred_import_says_why() -> None:
    """An import inside a function is for start-up time (or an optional dependency), never to
    hide a cycle (the cycle test above sees function-level imports): each says so in a comment
    on its line or above its block."""
    import ast

    missing = []
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "linter")):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as fh:
                src = fh.read().splitlines()
            for node in ast.walk(ast.parse("\n".join(src))):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for sub in ast.walk(node):
                    if not isinstance(sub, (ast.Import, ast.ImportFrom)):
                        continue
                    k = sub.lineno - 2
                    while k >= 0 and src[k].strip().startswith(("from ", "import ")):
                        k -= 1
                    above = src[k].strip() if k >= 0 else ""
                    # a comment line above the block, or on the `else:` / `except ...:` that holds it
                    said = above.startswith("#") or (above.startswith(("else", "except")) and "#" in above)
                    if "#" not in src[sub.lineno - 1] and not said:
                        missing.append(f"{os.path.relpath(path, ROOT)}:{sub.lineno}")
    assert missing == [], "function-level imports without a reason: " + ", ".join(missing)
