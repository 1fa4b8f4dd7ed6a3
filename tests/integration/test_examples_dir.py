"""The bundled examples/ (the README quickstart): every `# BUG:` line is reported as a warning
or error, every `# INFO:` line as info, nothing else."""
from __future__ import annotations

import os

from linter.api import check_paths
from tests.conftest import builtin_packs

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "examples")


def test_examples_report_exactly_the_planted_bugs() -> None:
    planted, noted = set(), set()
    for dirpath, _dirs, names in os.walk(EXAMPLES):
        for n in names:
            if n.endswith(".py"):
                path = os.path.join(dirpath, n)
                with open(path, encoding="utf-8") as fh:
                    for i, line in enumerate(fh, 1):
                        if "# BUG:" in line:
                            planted.add((os.path.relpath(path, EXAMPLES), i))
                        if "# INFO:" in line:
                            noted.add((os.path.relpath(path, EXAMPLES), i))
    result = check_paths([EXAMPLES], builtin_packs(), cwd=EXAMPLES)
    found = {(f.path, f.span.line) for f in result.findings if f.severity.value != "info"}
    assert found == planted
    assert {(f.path, f.span.line) for f in result.findings if f.severity.value == "info"} == noted
    assert not result.errors
    assert len({f.checklist for f in result.findings}) >= 5
