"""Notebooks: code cells joined into lintable Python, IPython syntax neutralised line for line,
and every position mapped back to the cell and to the raw .ipynb text."""
from __future__ import annotations

import base64
import json
from typing import Any, Dict, List

import libcst
import pytest

from linter.source.notebooks import Location, NotebookError, read_notebook


def _nb(*cells: Dict[str, Any], metadata: Any = None) -> Dict[str, Any]:
    meta = {"kernelspec": {"name": "python3", "language": "python"},
            "language_info": {"name": "python"}} if metadata is None else metadata
    return {"cells": list(cells), "metadata": meta, "nbformat": 4, "nbformat_minor": 5}


def code(source: Any, **extra: Any) -> Dict[str, Any]:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": source, **extra}


def markdown(source: Any) -> Dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def lines(source: str) -> List[str]:
    """nbformat's list form: one string per line, each keeping its newline."""
    return source.splitlines(keepends=True)


def raw_at(raw: str, loc: Location) -> str:
    """The raw file text from (file_line, file_column) to the end of that raw line."""
    return raw.split("\n")[loc.file_line - 1][loc.file_column - 1:]


def escaped(ch: str, ensure_ascii: bool) -> str:
    """How json.dumps writes ``ch`` inside a string literal."""
    return json.dumps(ch, ensure_ascii=ensure_ascii)[1:-1]


DUMPS = {
    "indent1": lambda nb: json.dumps(nb, indent=1, ensure_ascii=False) + "\n",
    "minified": lambda nb: json.dumps(nb, separators=(",", ":"), ensure_ascii=False),
    "ascii": lambda nb: json.dumps(nb, indent=1, ensure_ascii=True),
    "crlf": lambda nb: json.dumps(nb, indent=2, ensure_ascii=False).replace("\n", "\r\n"),
}

# Cell 3 holds Chinese, an emoji (a surrogate pair when ASCII-escaped), quotes and backslashes.
TRICKY = 'x = 1\nmsg = "训练 😀 \\"q\\" \\\\ é"\t# 注释\nprint(msg)'


def tricky_notebook(string_source: bool = False) -> Dict[str, Any]:
    src = TRICKY if string_source else lines(TRICKY)
    return _nb(markdown(["# 标题\n", "text"]), code(["import os\n"]), code(src), markdown("end"))


@pytest.mark.parametrize("string_source", [False, True])
@pytest.mark.parametrize("style", sorted(DUMPS))
def test_every_character_of_cell_3_maps_to_its_raw_escape(style: str, string_source: bool) -> None:
    raw = DUMPS[style](tricky_notebook(string_source))
    nb = read_notebook(raw)
    ensure_ascii = style == "ascii"
    assert nb.cells == 4
    assert nb.text == "import os\n" + TRICKY + "\n"
    for i, cell_line in enumerate(TRICKY.split("\n"), 1):
        for col in range(1, len(cell_line) + 2):
            loc = nb.locate(i + 1, col)
            assert loc is not None
            assert (loc.cell, loc.cell_line, loc.cell_column) == (3, i, col)
            if col <= len(cell_line):
                want = escaped(cell_line[col - 1], ensure_ascii)
            elif i < 3:  # the newline ending the line
                want = "\\n"
            else:  # end of a source without trailing newline: the closing quote
                want = '"'
            assert raw_at(raw, loc).startswith(want), (style, i, col, raw_at(raw, loc)[:12])


def test_cell_3_line_2_exact_positions_indent1() -> None:
    nb_json = tricky_notebook()
    raw = json.dumps(nb_json, indent=1, ensure_ascii=False)
    nb = read_notebook(raw)
    column = TRICKY.split("\n")[1].index("😀") + 1
    loc = nb.locate(3, column)
    raw_lines = raw.split("\n")
    expected_line = next(n for n, text in enumerate(raw_lines, 1) if "😀" in text)
    assert loc == Location(cell=3, cell_line=2, cell_column=column, file_line=expected_line,
                           file_column=raw_lines[expected_line - 1].index("😀") + 1)
    # indent=1 puts a list element at 4 spaces + the quote; the content starts at column 6
    assert nb.locate(3, 1) == Location(3, 2, 1, expected_line, 6)


def test_minified_and_ascii_single_string_source_stay_on_one_raw_line() -> None:
    raw = json.dumps(tricky_notebook(string_source=True), separators=(",", ":"), ensure_ascii=True)
    nb = read_notebook(raw)
    first, last = nb.locate(2, 1), nb.locate(4, 1)
    assert first is not None and last is not None
    assert first.file_line == last.file_line == 1
    assert raw_at(raw, first).startswith("x = 1\\nmsg")
    loc = nb.locate(3, TRICKY.split("\n")[1].index("😀") + 1)
    assert loc is not None and raw_at(raw, loc).startswith("\\ud83d\\ude00 ")
    assert nb.locate(3, TRICKY.split("\n")[1].index("训") + 1) is not None


def test_list_and_string_sources_and_markdown_numbering() -> None:
    nb = read_notebook(json.dumps(_nb(
        markdown("# Title"),
        code(["a = 1\n", "b = 2"]),
        {"cell_type": "raw", "metadata": {}, "source": "not python ("},
        markdown(["more"]),
        code("c = 3\nd = 4\n"),
        code([]),
        {"cell_type": "code", "metadata": {}, "outputs": []},  # no source: empty
    )))
    assert nb.cells == 7
    assert nb.text == "a = 1\nb = 2\nc = 3\nd = 4\n"
    located = [nb.locate(n, 1) for n in range(1, 5)]
    assert [(loc.cell, loc.cell_line) for loc in located if loc] == [(2, 1), (2, 2), (5, 1), (5, 2)]
    assert nb.cell_source(1) == "# Title" and nb.cell_source(2) == "a = 1\nb = 2"
    assert nb.cell_source(3) == "not python (" and nb.cell_source(7) == ""
    with pytest.raises(IndexError):
        nb.cell_source(8)


def test_list_elements_need_not_be_whole_lines() -> None:
    raw = json.dumps(_nb(code(["x = ", "(1,\n 2", ")\n", "", "y = 2"])), indent=1)
    nb = read_notebook(raw)
    assert nb.text == "x = (1,\n 2)\ny = 2\n"
    loc = nb.locate(1, 5)  # "(" is the first character of the second element
    assert loc is not None and raw_at(raw, loc).startswith("(1,\\n 2")
    loc = nb.locate(2, 3)  # ")" starts the third element
    assert loc is not None and (loc.cell_line, loc.cell_column) == (2, 3)
    assert raw_at(raw, loc).startswith(')\\n"')
    loc = nb.locate(3, 1)  # after the empty element
    assert loc is not None and raw_at(raw, loc).startswith('y = 2"')


def test_line_magics_shell_help_and_assignments_are_neutralised_in_place() -> None:
    src = "\n".join([
        "%matplotlib inline",
        "import os",
        "files = !ls -la",
        "home = %env HOME",
        "for f in files:",
        "    !echo {f} \"it's\"",
        "    %time os.stat(f)",
        "os.path?",
        "??os",
        "os.getcwd??  # help",
        "!pip install \\",
        "    torch",
        "a, b = %sx echo 1 2",
        "/print 1",
        "y = 1",
    ])
    nb = read_notebook(json.dumps(_nb(code(lines(src)))))
    assert nb.text.split("\n")[:-1] == [
        "pass",
        "import os",
        "files = None",
        "home = None",
        "for f in files:",
        "    pass",
        "    pass",
        "pass",
        "pass",
        "pass",
        "pass",
        "",
        "a, b = None",
        "pass",
        "y = 1",
    ]
    libcst.parse_module(nb.text)
    loc = nb.locate(3, 1)
    assert loc is not None and (loc.cell, loc.cell_line, loc.cell_column) == (1, 3, 1)


def test_magic_like_lines_in_strings_brackets_and_continuations_are_untouched() -> None:
    src = "\n".join([
        'doc = """',
        "%not a magic",
        "!not a shell",
        '  what?',
        '"""',
        "x = (10",
        "     % 3)",
        "s = 'a' \\",
        "    '!b'",
        "t = '''one''' + \"\"\"",
        "!still in a string\"\"\"",
        "u = r'\\'' # ' ( not a quote or bracket",
        "!ls",
    ])
    nb = read_notebook(json.dumps(_nb(code(src))))
    out = nb.text.split("\n")[:-1]
    assert out[:-1] == src.split("\n")[:-1]
    assert out[-1] == "pass"
    libcst.parse_module(nb.text)


def test_cell_magics_bash_inert_time_kept() -> None:
    nb = read_notebook(json.dumps(_nb(
        code(lines("%%bash\nfor i in 1 2; do\n  echo $i\ndone\n")),
        code(lines("\n%%time\nmodel = 1\n%timeit model + 1\n")),
        code("%%writefile train.py\nimport (\n"),
        code("%%capture out\nprint('x')"),
        code("%%html\n<b>bold</b>"),
    )))
    assert nb.text.split("\n")[:-1] == [
        "", "", "", "",                            # %%bash: every line inert
        "", "pass", "model = 1", "pass",           # %%time: body kept
        "", "",                                    # %%writefile
        "pass", "print('x')",                      # %%capture
        "", "",                                    # %%html
    ]
    libcst.parse_module(nb.text)
    loc = nb.locate(7, 1)
    assert loc is not None and (loc.cell, loc.cell_line, loc.cell_column) == (2, 3, 1)


def test_notebook_full_of_magics_parses_with_libcst() -> None:
    nb = read_notebook(json.dumps(_nb(
        code(["%load_ext autoreload\n", "%autoreload 2\n", "!nvidia-smi\n", "import torch\n"]),
        markdown(["## Train\n"]),
        code(["%%time\n", "for epoch in range(3):\n", "    loss = !echo 1\n",
              "    %debug\n", "    torch.save?\n", "print(loss)"]),
        code("%%sql\nSELECT * FROM t WHERE x = 'y"),
        code(["def f():\n", "    '''\n", "    %doc\n", "    '''\n", "    return 1\n", "f??"]),
    )))
    module = libcst.parse_module(nb.text)
    assert module.code == nb.text


def test_replaced_and_out_of_range_positions() -> None:
    nb = read_notebook(json.dumps(_nb(code("x = 1\n!ls"), markdown("m"))))
    assert nb.text == "x = 1\npass\n"
    assert nb.locate(0, 1) is None and nb.locate(4, 1) is None
    assert nb.locate(1, 7) is None and nb.locate(1, 0) is None
    loc = nb.locate(2, 5)  # end of "pass", beyond "!ls": clamped to the end of the original line
    assert loc is not None and (loc.cell_line, loc.cell_column) == (2, 4)
    end = nb.locate(3, 1)  # end of text (where "unexpected EOF" is reported): after "!ls"
    assert end is not None and (end.cell, end.cell_line, end.cell_column) == (1, 2, 4)
    assert raw_at(json.dumps(_nb(code("x = 1\n!ls"), markdown("m"))), end).startswith('"}')


def test_crlf_inside_cell_sources_is_one_line_break() -> None:
    raw = json.dumps(_nb(code(["a = 1\r\n", "b = 2\r\n"]), code("c = 3\rd = 4")), indent=1)
    nb = read_notebook(raw.replace("\n", "\r\n"))
    assert nb.text == "a = 1\nb = 2\nc = 3\nd = 4\n"
    loc = nb.locate(2, 6)  # the line break is "\r\n": points at the "\r" escape
    assert loc is not None and (loc.cell, loc.cell_line, loc.cell_column) == (1, 2, 6)
    assert raw_at(raw.replace("\n", "\r\n"), loc).startswith('\\r\\n"')
    loc = nb.locate(4, 1)
    assert loc is not None and (loc.cell, loc.cell_line) == (2, 2)


def test_duplicate_keys_and_decoy_sources_follow_the_json_structure() -> None:
    raw = (
        '{"metadata": {"source": "decoy = 1", "cells": [{"source": "decoy"}]},\n'
        ' "cells": [{"source": "bad = 0", "cell_type": "code"}],\n'
        ' "cells": [\n'
        '  {"outputs": [{"source": "out", "text": ["!x\\n"]}], "source": "first = 1",\n'
        '   "source": ["real = 1\\n", "z = 2"], "metadata": {"source": "m"},\n'
        '   "cell_type": "markdown", "cell_type": "code"},\n'
        '  {"source": "md", "cell_type": "markdown"}\n'
        ' ], "nbformat_minor": 4, "nbformat": 4}'
    )
    assert json.loads(raw)["cells"][0]["source"] == ["real = 1\n", "z = 2"]
    nb = read_notebook(raw)
    assert nb.cells == 2 and nb.text == "real = 1\nz = 2\n"
    loc = nb.locate(2, 1)
    assert loc == Location(1, 2, 1, 5, 30) and raw_at(raw, loc).startswith('z = 2"]')


def test_bom_is_not_a_column() -> None:
    raw = json.dumps(_nb(code("x = 1")), separators=(",", ":"))
    loc = read_notebook("\ufeff" + raw).locate(1, 1)
    assert loc is not None and loc.file_column == raw.index("x = 1") + 1


def test_invalid_json_reports_its_position() -> None:
    with pytest.raises(NotebookError) as info:
        read_notebook('{\n "cells": [\n  {"cell_type" "code"}\n ]\n}')
    assert (info.value.line, info.value.column) == (3, 16)
    assert "invalid JSON" in str(info.value)
    with pytest.raises(NotebookError) as info:
        read_notebook("")
    assert (info.value.line, info.value.column) == (1, 1)


def test_structural_errors() -> None:
    with pytest.raises(NotebookError, match="nbformat 4"):
        read_notebook(json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {},
                                  "worksheets": [{"cells": [{"cell_type": "code", "input": "x"}]}]}))
    with pytest.raises(NotebookError, match='no "cells"'):
        read_notebook(json.dumps({"nbformat": 4, "metadata": {}}))
    with pytest.raises(NotebookError, match="not a JSON object"):
        read_notebook("[1, 2]")
    with pytest.raises(NotebookError) as info:
        read_notebook('{"nbformat": 4,\n "cells": [{"cell_type": "code", "source": "x"},\n  42]}')
    assert "cell 2" in str(info.value) and (info.value.line, info.value.column) == (3, 3)
    with pytest.raises(NotebookError, match="list of strings") as info:
        read_notebook('{"cells": [{"cell_type": "code",\n "source": ["a\\n", 7]}]}')
    assert (info.value.line, info.value.column) == (2, 20)
    assert read_notebook('{"cells": [{"cell_type": "code", "source": null}]}').text == ""


@pytest.mark.parametrize("metadata", [
    {"kernelspec": {"name": "ir", "language": "R"}, "language_info": {"name": "R"}},
    {"kernelspec": {"name": "ir", "language": "R"}},
    {"language_info": {"name": "r"}},
])
def test_non_python_notebook(metadata: Dict[str, Any]) -> None:
    with pytest.raises(NotebookError) as info:
        read_notebook(json.dumps(_nb(code("x <- 1"), metadata=metadata)))
    assert str(info.value) == "not a Python notebook (language: r)"


def test_python_notebooks_without_or_with_odd_language_metadata() -> None:
    for metadata in ({}, {"kernelspec": {"language": "python3"}}, {"language_info": {"name": "Python"}},
                     {"kernelspec": None}, {"language_info": {"name": ""}}):
        assert read_notebook(json.dumps(_nb(code("x = 1"), metadata=metadata))).text == "x = 1\n"


def test_big_outputs_do_not_shift_positions() -> None:
    """Megabytes of outputs between cells: positions after them are still right. (How fast such a
    notebook is read is not asserted here: no test depends on the machine's speed.)"""
    image = base64.b64encode(bytes(range(256)) * 4000).decode()  # ~1.3 MB per image
    output = {"output_type": "display_data", "metadata": {},
              "data": {"image/png": image, "text/plain": ["<Figure>"] * 1000}}
    cells = [code(["import torch\n", f"x = {i}\n", "!nvidia-smi"], outputs=[output])
             for i in range(4)]
    raw = json.dumps(_nb(markdown("# big"), *cells), indent=1)
    assert len(raw) > 5_000_000
    nb = read_notebook(raw)
    loc = nb.locate(len(cells) * 3 - 1, 5)
    assert loc is not None and loc.cell == 5 and raw_at(raw, loc).startswith("3\\n")
