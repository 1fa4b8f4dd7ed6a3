"""Stage 6: `# trainlint: ignore[...]` comments."""
from __future__ import annotations

from tests.conftest import lint

SRC = """\
from mindspore import nn
a = nn.Dropout(0.1)  # trainlint: ignore[API101]
# trainlint: ignore[mindspore-dropout-keep-prob]
b = nn.Dropout(0.1)
c = nn.Dropout(0.1)  # trainlint: ignore[API999]
d = nn.Dropout(0.1)  # trainlint: ignore
"""


def test_ignore_on_line_before_and_by_name() -> None:
    res = lint({"m.py": SRC}, select="API101")
    assert [f.span.line for f in res.findings] == [5]
    assert res.suppressed == 3


def test_ignore_file() -> None:
    res = lint({"m.py": "# trainlint: ignore-file[API1]\n" + SRC.replace("# trainlint: ignore", "#")}, select="API101")
    assert [f.span.line for f in res.findings] == [3, 5, 6, 7]  # ids are exact, not prefixes
    res = lint({"m.py": "# trainlint: ignore-file[API101]\n" + SRC}, select="API101")
    assert res.findings == []
