"""Stage 2: one libcst pass → facts (positions, calls, arguments, bindings, statement IR)."""
from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from linter.facts.extract import extract


def facts(src: str):
    return extract("m.py", textwrap.dedent(src))


def test_call_positions_are_one_based_and_match_ast() -> None:
    src = "import x\nx.a(1,\n    b=2)\ny = [x.c(z) for z in x.d()]\n"
    f = facts(src)
    expected = sorted((n.lineno, n.col_offset + 1) for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Call))
    assert sorted((c.line, c.column) for c in f.calls) == expected
    first = next(c for c in f.calls if c.dotted == "x.a")
    assert (first.line, first.column, first.end_line) == (2, 1, 3)


def test_argument_text_keyword_and_star() -> None:
    f = facts("f(0.1, p = keep, *args, **kw)\n")
    args = f.calls[0].args
    assert [(a.keyword, a.star, a.text) for a in args] == [
        (None, "", "0.1"), ("p", "", "keep"), (None, "*", "args"), (None, "**", "kw")]
    assert args[0].value == ("const", 0.1)


def test_constant_folding_of_literals() -> None:
    f = facts("f(1 - 0.1, -0.5, 2 * 3)\n")
    assert [a.value for a in f.calls[0].args] == [("const", 0.9), ("const", -0.5), ("const", 6)]


def test_reaching_definitions_strong_update_and_branch_join() -> None:
    f = facts("""
        x = 1
        x = 2
        use(x)
        if c:
            y = 1
        else:
            y = 2
        use(y)
    """)
    uses = [c for c in f.calls if c.dotted == "use"]
    x_defs = uses[0].args[0].value[2]
    y_defs = uses[1].args[0].value[2]
    assert [f.assigns[d].value for d in x_defs] == [("const", 2)]
    assert sorted(f.assigns[d].value[1] for d in y_defs) == [1, 2]


def test_loop_targets_comprehensions_and_with_bind_names() -> None:
    f = facts("""
        for g in grads:
            clip(g)
        out = [clip2(h) for h in grads]
        with tape() as t:
            t.gradient(1)
    """)
    clip = next(c for c in f.calls if c.dotted == "clip")
    assert f.assigns[clip.args[0].value[2][0]].value[0] == "iter"
    clip2 = next(c for c in f.calls if c.dotted == "clip2")
    assert f.assigns[clip2.args[0].value[2][0]].value[0] == "iter"
    grad = next(c for c in f.calls if c.dotted == "t.gradient")
    assert f.assigns[grad.func[1][2][0]].value[0] == "enter"


def test_unpacking_targets_keep_element_index() -> None:
    f = facts("(loss, _), grads = grad_fn(x)\nuse(grads)\n")
    use = next(c for c in f.calls if c.dotted == "use")
    bound = f.assigns[use.args[0].value[2][0]].value
    assert bound[0] == "unpack" and bound[2] == 1


def test_functions_classes_methods_and_self_attributes() -> None:
    f = facts("""
        class Net(nn.Cell):
            def __init__(self, drop=0.1):
                super().__init__()
                self.drop = nn.Dropout(drop)
            def construct(self, x):
                return self.drop(x)
        def outer():
            def inner():
                pass
    """)
    cls = f.classes[0]
    assert cls.name == "Net" and set(cls.methods) == {"__init__", "construct"}
    assert set(cls.attrs) == {"drop"}
    quals = {fn.qualname for fn in f.funcs}
    assert {"Net.__init__", "Net.construct", "outer", "outer.inner"} <= quals
    init = f.funcs[cls.methods["__init__"]]
    assert [(p.name, p.default) for p in init.params] == [("self", None), ("drop", ("const", 0.1))]


def test_main_guard_generators_and_pragmas() -> None:
    f = facts("""
        def gen():
            yield 1
        if __name__ == "__main__":
            gen()  # trainlint: ignore[DP301]
    """)
    assert f.has_main_guard
    assert next(fn for fn in f.funcs if fn.name == "gen").is_generator
    assert f.pragmas == [(5, "# trainlint: ignore[DP301]")]


def test_statement_ir_shapes() -> None:
    f = facts("""
        def step():
            for x in data:
                if ok:
                    a()
                else:
                    b()
            try:
                c()
            except E as e:
                d()
            return 1
    """)
    body = next(fn for fn in f.funcs if fn.name == "step").body
    assert [st[0] for st in body] == ["for", "try", "return"]
    assert body[0][4][0][0] == "if"


def test_calls_in_fstrings_decorators_defaults_and_lambdas_are_seen() -> None:
    src = 'x = f"{a()} " f"{b():.3f}"\n@deco(c())\ndef g(p=d()):\n    return (lambda: e())\n'
    names = sorted(c.dotted for c in facts(src).calls)
    assert names == ["a", "b", "c", "d", "deco", "e"]


def test_syntax_error_raises_parser_error() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        extract("bad.py", "print 'python 2'\n")


def test_literal_decoding_agrees_with_python() -> None:
    import ast

    from hypothesis import given, settings, strategies as st

    from linter.facts.extract import _NOT_LITERAL, _literal

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12),
                     st.binary(max_size=6), st.complex_numbers(allow_nan=False, allow_infinity=False)))
    def check(value) -> None:
        text = repr(value)
        if text.startswith("-") or text.startswith("(") or " " in text:
            return  # unary minus / parenthesised complex are expressions, not literals
        assert _literal(text) == ast.literal_eval(text)

    check()
    for text in ["0x1F", "0o17", "0b1", "1_000", "1e-5", ".5", "5.", "1.5j", "r'\\d'", "'''x'''", "u'z'", "00"]:
        assert _literal(text) == ast.literal_eval(text), text
    assert _literal("f'x'") is _NOT_LITERAL
