"""Each edit operation on its own: exact text out, comments and formatting kept, and NoFix
(never a doubtful edit) where the operation cannot be made exactly."""
from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import pytest

from linter.compiler.fixes import Binder, Edit, FixSpec, Unless
from linter.fix.edits import NoFix, SourceFile, apply_edits, fix_edits
from linter.fix.template import TemplateError, format_number, render_expression, render_statement


def spec(*edits: Edit, binders: Sequence[Binder] = (), unless: Sequence[Unless] = ()) -> FixSpec:
    return FixSpec("safe", (("en", "t"),), (("en", "r"),), tuple(edits), binders=tuple(binders), unless=tuple(unless))


def call_span(text: str, needle: str, occurrence: int = 0) -> Tuple[int, int, int, int]:
    """The finding span (1-based columns, end exclusive) of the call starting at ``needle``."""
    src = SourceFile(text)
    starts = [(r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)
              for node, r in src.pos.items() if type(node).__name__ == "Call"]
    idx = -1
    for _ in range(occurrence + 1):
        idx = text.index(needle, idx + 1)
    line = text.count("\n", 0, idx) + 1
    col = idx - (text.rfind("\n", 0, idx) + 1) + 1
    return next(s for s in starts if s[:2] == (line, col))


def fixed(text: str, needle: str, fx: FixSpec, data: Optional[Dict[str, str]] = None, line: int = 0) -> str:
    span = call_span(text, needle) if needle else (line, 1, line, 1)
    return apply_edits(text, fix_edits(SourceFile(text), fx, span, data or {}))


# ---------------------------------------------------------------------------- templates
@pytest.mark.parametrize("template,values,out", [
    ("1 - {k}", {"k": "0.9"}, "0.1"),
    ("1 - {k}", {"k": "1 - 0.9"}, "0.9"),
    ("1 - {k}", {"k": "cfg.rate"}, "1 - cfg.rate"),
    ("1 - {k}", {"k": "a - b"}, "1 - (a - b)"),
    ("1 - {k}", {"k": "1"}, "0"),
    ("{k} * 2", {"k": "0.25"}, "0.5"),
    ("1 - {k}", {"k": "0.8999999761581421"}, "0.1000000238"),
])
def test_expression_templates_substitute_and_fold(template, values, out) -> None:
    assert render_expression(template, values) == out


def test_template_errors() -> None:
    with pytest.raises(TemplateError):
        render_expression("1 - {missing}", {})
    with pytest.raises(TemplateError):
        render_expression("1 - {k}", {"k": "(default)"})
    with pytest.raises(TemplateError):
        render_statement("if {k}:", {"k": "x"})
    assert render_statement("{s}.unscale_({o})", {"s": "self.scaler", "o": "opt"}) == "self.scaler.unscale_(opt)"
    assert format_number(1 - 0.9) == "0.1" and format_number(2.0) == "2.0" and format_number(3) == "3"


# ---------------------------------------------------------------------------- keyword operations
def test_set_keyword_appends_and_replaces_keeping_comments() -> None:
    text = "conv = nn.Conv2d(\n    3, 16, 3,  # in, out, kernel\n)\n"
    assert fixed(text, "nn.Conv2d", spec(Edit("set-keyword", name="has_bias", value="True"))) == \
        "conv = nn.Conv2d(\n    3, 16, 3, has_bias=True,  # in, out, kernel\n)\n"
    text = "conv = nn.Conv2d(3, 16, 3, has_bias=False)  # keep\n"
    assert fixed(text, "nn.Conv2d", spec(Edit("set-keyword", name="has_bias", value="True"))) == \
        "conv = nn.Conv2d(3, 16, 3, has_bias=True)  # keep\n"
    assert fixed("f()\n", "f(", spec(Edit("set-keyword", name="a", value="1"))) == "f(a=1)\n"


def test_set_keyword_refuses_with_kwargs() -> None:
    with pytest.raises(NoFix):
        fixed("f(1, **kw)\n", "f(", spec(Edit("set-keyword", name="a", value="1")))


def test_rename_keyword_with_value() -> None:
    text = "d = nn.Dropout(keep_prob=0.9)  # head\n"
    fx = spec(Edit("rename-keyword", name="keep_prob", to="p", value="1 - {keep_prob}"))
    assert fixed(text, "nn.Dropout", fx, {"keep_prob": "0.9"}) == "d = nn.Dropout(p=0.1)  # head\n"
    with pytest.raises(NoFix):
        fixed("d = nn.Dropout(keep_prob=0.9, p=0.2)\n", "nn.Dropout", fx, {"keep_prob": "0.9"})
    with pytest.raises(NoFix):
        fixed("d = nn.Dropout(0.9)\n", "nn.Dropout", fx, {"keep_prob": "0.9"})


@pytest.mark.parametrize("before,after", [
    ("f(a, k=1, c=2)\n", "f(a, c=2)\n"),
    ("f(k=1, c=2)\n", "f(c=2)\n"),
    ("f(k=1)\n", "f()\n"),
    ("f(k=1,)\n", "f()\n"),
    ("f(a, k=1)\n", "f(a)\n"),
])
def test_remove_keyword(before, after) -> None:
    assert fixed(before, "f(", spec(Edit("remove-keyword", name="k"))) == after


def test_replace_argument_positional_and_keyword() -> None:
    fx = spec(Edit("replace-argument", arg="momentum", value="1 - {momentum}"))
    assert fixed("bn = nn.BatchNorm2d(64, 1e-5, 0.1)\n", "nn.", fx, {"momentum": "0.1", "momentum.position": "2"}) == \
        "bn = nn.BatchNorm2d(64, 1e-5, 0.9)\n"
    assert fixed("bn = nn.BatchNorm2d(64, momentum=M)\n", "nn.", fx, {"momentum": "M"}) == \
        "bn = nn.BatchNorm2d(64, momentum=1 - M)\n"
    to_kw = spec(Edit("replace-argument", arg="keep_prob", to="p", value="{keep_prob}"))
    assert fixed("d = nn.Dropout(rate)\n", "nn.", to_kw, {"keep_prob": "rate", "keep_prob.position": "0"}) == \
        "d = nn.Dropout(p=rate)\n"
    with pytest.raises(NoFix):   # a positional argument after it: it cannot become a keyword
        fixed("d = nn.Dropout(rate, None)\n", "nn.", to_kw, {"keep_prob": "rate", "keep_prob.position": "0"})
    with pytest.raises(NoFix):   # no way to find it
        fixed("d = nn.Dropout(rate)\n", "nn.", to_kw, {"keep_prob": "rate"})


# ---------------------------------------------------------------------------- statement operations
def test_insert_before_and_after_keep_indentation_and_comments() -> None:
    text = "def f(s, o, m):\n    s.scale(l).backward()\n    # clip\n    n = clip(m)  # here\n    s.step(o)\n"
    before = spec(Edit("insert-before", template="{s}.unscale_({o})"))
    assert fixed(text, "clip(", before, {"s": "s", "o": "o"}) == \
        "def f(s, o, m):\n    s.scale(l).backward()\n    # clip\n    s.unscale_(o)\n    n = clip(m)  # here\n    s.step(o)\n"
    after = spec(Edit("insert-after", template="log({x})"))
    assert fixed("x = clip(m)", "clip(", after, {"x": "x"}) == "x = clip(m)\nlog(x)"


def test_insert_refuses_one_line_compound_statement() -> None:
    with pytest.raises(NoFix):
        fixed("if ok: clip(m)\n", "clip(", spec(Edit("insert-before", template="pass")))


def test_move_after_the_matching_statement() -> None:
    text = ("def step(g):\n    g = clip(g)  # too early\n    # unscale\n    g = scaler.unscale(g)\n    opt(g)\n")
    fx = spec(Edit("move-after", until="unscale"))
    assert fixed(text, "clip(", fx) == \
        "def step(g):\n    # unscale\n    g = scaler.unscale(g)\n    g = clip(g)  # too early\n    opt(g)\n"
    with pytest.raises(NoFix):
        fixed("def step(g):\n    g = clip(g)\n    opt(g)\n", "clip(", fx)


def test_add_import_reuses_an_alias_or_goes_after_docstring_and_future() -> None:
    seed = spec(Edit("add-import", module="mindspore"), Edit("insert-after-imports", template="{mindspore}.set_seed(1)"))
    text = "import mindspore as ms\nfrom mindspore import nn\nnet = nn.Dense(1, 1)\n"
    assert fixed(text, "", seed, line=3) == "import mindspore as ms\nfrom mindspore import nn\nms.set_seed(1)\nnet = nn.Dense(1, 1)\n"
    text = '#!/usr/bin/env python\n"""Doc."""\nfrom __future__ import annotations\nfrom mindspore import nn\nnet = nn.Dense(1, 1)\n'
    assert fixed(text, "", seed, line=5) == ('#!/usr/bin/env python\n"""Doc."""\nfrom __future__ import annotations\nimport mindspore\n'
                                             'from mindspore import nn\nmindspore.set_seed(1)\nnet = nn.Dense(1, 1)\n')
    only = spec(Edit("add-import", module="tensorflow", bind="tf", existing_only=True),
                Edit("insert-after-imports", template="{tf}.random.set_seed(0)"))
    with pytest.raises(NoFix):
        fixed("from tensorflow import keras\nm = keras.Sequential()\n", "", only, line=2)
    named = spec(Edit("add-import", module="torch", name="manual_seed"), Edit("insert-after-imports", template="{manual_seed}(0)"))
    assert fixed("from torch import manual_seed as ms\nx = 1\n", "", named, line=2) == "from torch import manual_seed as ms\nms(0)\nx = 1\n"


def test_insert_after_imports_uses_only_imports_before_the_finding() -> None:
    text = "import torch\nmodel = build()\nimport late\ntrain(model)\n"
    fx = spec(Edit("insert-after-imports", template="torch.manual_seed(0)"))
    assert fixed(text, "", fx, line=2) == "import torch\ntorch.manual_seed(0)\nmodel = build()\nimport late\ntrain(model)\n"


# ---------------------------------------------------------------------------- bindings
def test_bindings_must_be_unique_and_unless_blocks() -> None:
    binders = (Binder("scaler", "*.scale", "receiver", "backward"), Binder("optimizer", "{scaler}.step", "arg:0"))
    fx = spec(Edit("insert-before", template="{scaler}.unscale_({optimizer})"), binders=binders,
              unless=(Unless("{scaler}.unscale_"),))
    body = "def f(m, s, o, o2):\n    s.scale(l).backward()\n    clip(m)\n    s.step(o)\n"
    assert "    s.unscale_(o)\n    clip(m)" in fixed(body, "clip(", fx)
    with pytest.raises(NoFix):   # two optimizers
        fixed(body + "    s.step(o2)\n", "clip(", fx)
    with pytest.raises(NoFix):   # already unscaled somewhere
        fixed(body + "    s.unscale_(o)\n", "clip(", fx)
    with pytest.raises(NoFix):   # no `.scale(...).backward()` in this function
        fixed("def f(m, s, o):\n    clip(m)\n    s.step(o)\n", "clip(", fx)


def test_lean_positions_equal_libcst_position_provider_for_every_node() -> None:
    """Fixes are planned on positions and parents from one lean codegen pass; they must be
    libcst's ``PositionProvider`` ranges exactly (statement ends hoisted from their last child,
    whitespace-inclusive ranges for nodes without a syntactic one) and ``ParentNodeProvider``'s
    parents."""
    import glob
    import os

    import libcst as cst
    from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

    from linter.facts.positions import all_positions

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = sorted(glob.glob(os.path.join(root, "tests", "projects", "**", "*.py"), recursive=True))
    files += sorted(glob.glob(os.path.join(root, "examples", "**", "*.py"), recursive=True))
    assert len(files) > 50
    checked = 0
    for path in files:
        with open(path, "rb") as fh:
            module = cst.parse_module(fh.read())
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        theirs = wrapper.resolve(PositionProvider)
        their_parents = wrapper.resolve(ParentNodeProvider)
        ours, nodes, parents = all_positions(module)
        assert len(ours) == len(theirs), path
        for node, r in theirs.items():
            assert ours[id(node)] == (r.start.line, r.start.column, r.end.line, r.end.column), (path, node)
            assert nodes[id(node)] is node
            assert parents.get(id(node)) is their_parents.get(node), (path, node)
            checked += 1
    assert checked > 50_000
