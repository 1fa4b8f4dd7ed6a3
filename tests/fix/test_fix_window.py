"""Fixes planned on a window of the file (linter/fix/window.py) are the fixes planned on the
whole file: same edits, same refusals — the window only saves parsing."""
from __future__ import annotations

from typing import Dict, Optional, Sequence

import pytest

from linter.compiler.fixes import Binder, Edit, FixSpec, Unless
from linter.fix.edits import NoFix, SourceFile, apply_edits, fix_edits
from linter.fix.window import file_words, window
from tests.fix.test_fix_edits import call_span

FILLER = "".join(f"def helper_{i}(x):\n    return x * {i}\n\n\n" for i in range(12))

SCRIPT = '''"""Train."""
import mindspore
from mindspore import nn
@decorated
# a comment
def build():
    return nn.Conv2d(3, 8, 3)
''' + FILLER + '''a = 1; b = nn.Dense(
    2, 3)
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(8, momentum=0.1)
''' + FILLER + '''if __name__ == "__main__":
    net = Net()
'''


def spec(*edits: Edit, binders: Sequence[Binder] = (), unless: Sequence[Unless] = ()) -> FixSpec:
    return FixSpec("unsafe", (("en", "t"),), (("en", "r"),), tuple(edits), binders=tuple(binders), unless=tuple(unless))


def both(text: str, needle: str, fx: FixSpec, words: Sequence[str] = (), data: Optional[Dict[str, str]] = None) -> str:
    """The fixed text through a window and through the whole file (asserted equal)."""
    span = call_span(text, needle)
    part = window(text, [span[0]], words)
    assert part is not None and part != text
    src = SourceFile(text, part)
    assert src.partial
    try:
        via_window = apply_edits(text, fix_edits(src, fx, span, data or {}))
    except NoFix as exc:
        with pytest.raises(NoFix, match=str(exc)):
            fix_edits(SourceFile(text), fx, span, data or {})
        return "NoFix"
    assert via_window == apply_edits(text, fix_edits(SourceFile(text), fx, span, data or {}))
    return via_window


def test_window_keeps_lines_and_columns_of_what_it_keeps() -> None:
    span = call_span(SCRIPT, "nn.BatchNorm2d")
    part = window(SCRIPT, [span[0]])
    assert part is not None
    kept, orig = part.splitlines(keepends=True), SCRIPT.splitlines(keepends=True)
    assert len(kept) == len(orig)
    for k, o in zip(kept, orig):
        assert k in (o, "\n")
    assert "self.bn = nn.BatchNorm2d" in part and "import mindspore" in part and '"""Train."""' in part
    assert "helper_3" not in part and "nn.Dense" not in part
    # a statement's decorators belong to it; statements sharing a line stand together
    part2 = window(SCRIPT, [call_span(SCRIPT, "nn.Dense")[0]])
    assert part2 is not None and "a = 1; b = nn.Dense(\n    2, 3)" in part2
    part3 = window(SCRIPT, [call_span(SCRIPT, "nn.Conv2d")[0]])
    assert part3 is not None and "@decorated\n" in part3


def test_keyword_edits_are_the_same_through_a_window() -> None:
    fx = spec(Edit("replace-argument", arg="momentum", value="1 - {momentum}"))
    assert "nn.BatchNorm2d(8, momentum=0.9)" in both(SCRIPT, "nn.BatchNorm2d", fx, data={"momentum": "0.1"})
    assert both(SCRIPT, "nn.BatchNorm2d", fx) == "NoFix"   # no value bound: refused the same way on both
    out = both(SCRIPT, "nn.BatchNorm2d", spec(Edit("set-keyword", name="use_batch_statistics", value="None")))
    assert "nn.BatchNorm2d(8, momentum=0.1, use_batch_statistics=None)" in out
    out = both(SCRIPT, "nn.Dense", spec(Edit("set-keyword", name="has_bias", value="True")))
    assert "nn.Dense(\n    2, 3, has_bias=True)" in out


def test_imports_and_top_of_file_edits_are_the_same_through_a_window() -> None:
    fx = spec(Edit("add-import", module="mindspore"), Edit("insert-after-imports", template="{mindspore}.set_seed(1)"))
    out = both(SCRIPT, "Net()", fx)
    assert out.startswith('"""Train."""\nimport mindspore\nfrom mindspore import nn\nmindspore.set_seed(1)\n')
    out = both(SCRIPT, "Net()", spec(Edit("add-import", module="numpy", name="random"),
                                     Edit("insert-before", template="{random}.seed(0)")))
    assert "from numpy import random\n" in out and "    random.seed(0)\n    net = Net()" in out


def test_file_scope_searches_see_the_statements_that_hold_their_name() -> None:
    seeded = SCRIPT + "def later():\n    mindspore.set_seed(7)\n" + FILLER
    fx = spec(Edit("add-import", module="mindspore"), Edit("insert-after-imports", template="{mindspore}.set_seed(1)"),
              unless=[Unless("*.set_seed", scope="file")])
    words = file_words(["*.set_seed"])
    assert words == ["set_seed"]
    assert both(seeded, "Net()", fx, words) == "NoFix"     # the set_seed of `later` was kept in the window
    part = window(seeded, [call_span(seeded, "Net()")[0]], words)
    assert part is not None and "mindspore.set_seed(7)" in part


def test_what_a_window_cannot_answer_is_planned_on_the_whole_file() -> None:
    assert file_words(["*"]) is None and file_words(["{opt}.step"]) is None
    text = "import x\n" + FILLER + "x.prepare()\n" + FILLER + "x.run()\n"
    span = call_span(text, "x.prepare()")
    part = window(text, [span[0]])
    assert part is not None and "x.run()" not in part
    # move-after looks for a later top-level statement: the window is not used for it
    out = apply_edits(text, fix_edits(SourceFile(text, part), spec(Edit("move-after", until=r"x\.run")), span, {}))
    assert out.endswith("x.run()\nx.prepare()\n")
    # a finding that is not at a call: its function-scope searches cover the whole file
    line = text.count("\n", 0, text.index("x.prepare()")) + 1
    fx = spec(Edit("insert-after-imports", template="x.seed(0)"), unless=[Unless("*.run")])
    src = SourceFile(text, part)
    with pytest.raises(NoFix, match="already calls `x.run`"):
        fix_edits(src, fx, (line, 1, line, 1), {})
    assert src.whole() is not src and src.whole().partial is False and src.whole() is src.whole()
    # ...while file-scope ones are served by the window (their names were kept in it)
    fx = spec(Edit("insert-after-imports", template="x.seed(0)"), unless=[Unless("*.seed", scope="file")])
    src = SourceFile(text, part)
    assert apply_edits(text, fix_edits(src, fx, (line, 1, line, 1), {})).startswith("import x\nx.seed(0)\n")
    assert src._whole is None   # the whole file was never parsed


def test_no_window_where_it_would_not_pay_or_cannot_be_made() -> None:
    assert window("import x\nx.run()\n", [2]) is None                      # little to remove
    assert window("def f(:\n    pass\n" + FILLER, [1]) is None             # not Python here: parse it all
    assert window(FILLER, [1]) is not None


def test_calls_in_lists_a_scope_s_calls_in_visiting_order() -> None:
    import libcst as cst

    text = "def f(a):\n    g(h(a))(k)\n    return m.n(a)\n\nx = f(1)\nprint(f(2)(3))\n"
    src = SourceFile(text)

    def walked(scope: cst.CSTNode) -> list:
        out: list = []

        class V(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                out.append(node)

        scope.visit(V())
        return out

    func = src.module.body[0]
    assert [src.code(c) for c in src.calls_in(func)] == ["g(h(a))(k)", "g(h(a))", "h(a)", "m.n(a)"]
    assert src.calls_in(func) == walked(func)
    assert src.calls_in(src.module) == walked(src.module)


def test_lines_are_counted_as_python_counts_them() -> None:
    # a form feed or U+2028 inside a line is not a line break for Python (str.splitlines says it is)
    text = "import x\n\x0c\n" + "y = '\u2028'  # odd\r\n" + FILLER + "x.run(1)\n" + FILLER
    span = call_span(text, "x.run(1)")
    part = window(text, [span[0]])
    assert part is not None and len(part) < len(text)
    assert part.count("\n") == text.count("\n") and "x.run(1)\n" in part
    fx = spec(Edit("set-keyword", name="k", value="2"))
    assert both(text, "x.run(1)", fx).count("x.run(1, k=2)") == 1
