"""Jupyter notebooks (``.ipynb``) as lintable Python, with an exact map back to cells and file.

A finding in a notebook is only useful if the user can find it: in Jupyter (cell N, as the
notebook numbers its cells, markdown included, and the line/column inside that cell) and in the
file on disk (for editors and CI annotations, which only know the raw JSON text). The code cells
are joined into one Python text whose lines each belong to exactly one cell line; IPython syntax
is replaced line for line, so nothing shifts. ``json`` reports no positions, so the JSON text is
walked here with json's own C scanners: only the cell list is walked, every other value
(outputs, base64 images, metadata) is skipped in one C call, so big notebooks stay cheap.
"""
from __future__ import annotations

import ast
import bisect
import json
import json.decoder
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["Location", "Notebook", "NotebookError", "read_notebook"]


class NotebookError(Exception):
    """The file is not a notebook we can lint; ``line``/``column`` (1-based, in the raw file)
    when the problem has a position, so the caller can report it like a syntax error."""

    def __init__(self, message: str, line: Optional[int] = None, column: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Location:
    """One position of ``Notebook.text``, as the user sees it. All numbers are 1-based and
    columns count characters. ``file_line``/``file_column`` point at the same character inside
    the JSON string literal of the raw file (at the backslash when it is written as an escape)."""

    cell: int
    """Index among ALL cells (markdown and raw cells count), i.e. index in ``nb["cells"]`` + 1."""
    cell_line: int
    cell_column: int
    file_line: int
    file_column: int


# One line of Notebook.text: (cell, cell_line, offset of the line in the cell source,
# length of the original line, length of the line in Notebook.text).
_Line = Tuple[int, int, int, int, int]
# One JSON string literal of a cell's source: (offset of its first character in the decoded
# cell source, raw offset of its content (after the quote), raw offset of its closing quote).
_Piece = Tuple[int, int, int]


@dataclass
class Notebook:
    """The Python of a notebook's code cells; build it with :func:`read_notebook`."""

    text: str
    """Every code cell's source, each ending with a newline, IPython syntax neutralised."""
    cells: int
    """Number of cells in the notebook, all kinds."""
    _raw: str = field(default="", repr=False, compare=False)
    _sources: List[str] = field(default_factory=list, repr=False, compare=False)
    _pieces: List[List[_Piece]] = field(default_factory=list, repr=False, compare=False)
    _lines: List[_Line] = field(default_factory=list, repr=False, compare=False)
    _line_starts: Optional[List[int]] = field(default=None, repr=False, compare=False)

    def cell_source(self, cell: int) -> str:
        """The original source of cell ``cell`` (1-based, all-cells numbering)."""
        if not 1 <= cell <= len(self._sources):
            raise IndexError(f"cell {cell} out of range 1..{len(self._sources)}")
        return self._sources[cell - 1]

    def locate(self, line: int, column: int) -> Optional[Location]:
        """Map a 1-based (line, column) of :attr:`text` to the cell and the raw file.

        Column ``len(line) + 1`` (the end of the line, where parsers report "expected ...")
        is valid; so is (last line + 1, 1), the end of the text, which maps to the end of the
        last code line. Anything else outside the text gives None. On a line whose IPython
        syntax was replaced, the column is clamped to the end of the original line.
        """
        if line == len(self._lines) + 1 and column == 1 and self._lines:
            line, column = len(self._lines), self._lines[-1][4] + 1
        if not 1 <= line <= len(self._lines):
            return None
        cell, cell_line, start, original, length = self._lines[line - 1]
        if not 1 <= column <= length + 1:
            return None
        column = min(column, original + 1)
        raw = self._raw_offset(cell, start + column - 1)
        file_line, file_column = self._file_position(raw)
        return Location(cell, cell_line, column, file_line, file_column)

    def _raw_offset(self, cell: int, offset: int) -> int:
        """Raw offset of decoded character ``offset`` of the cell source (its end → closing quote)."""
        pieces = self._pieces[cell - 1]
        i = max(bisect.bisect_right(pieces, (offset, float("inf"))) - 1, 0)
        decoded_start, raw_start, raw_end = pieces[i]
        return _raw_index(self._raw, raw_start, raw_end, offset - decoded_start)

    def _file_position(self, offset: int) -> Tuple[int, int]:
        # Lines end at "\n" only, as in json.JSONDecodeError (a CRLF's "\r" ends the line before).
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self._raw)]
        i = bisect.bisect_right(self._line_starts, offset) - 1
        return i + 1, offset - self._line_starts[i] + 1


def read_notebook(text: str) -> Notebook:
    """Parse the decoded ``.ipynb`` text; raise :class:`NotebookError` if it cannot be linted."""
    if text.startswith("\ufeff"):
        text = text[1:]  # editors do not count the BOM as a column, so positions skip it
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotebookError(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise NotebookError("invalid notebook: JSON nested too deeply") from None
    if not isinstance(nb, dict):
        raise NotebookError("not a Jupyter notebook: the top level is not a JSON object", 1, 1)
    version = nb.get("nbformat")
    if "worksheets" in nb or (isinstance(version, int) and version < 4):
        raise NotebookError(f"unsupported notebook format {version if version is not None else '< 4'}: "
                            "only nbformat 4 can be linted (upgrade it with "
                            "`jupyter nbconvert --to notebook --nbformat 4`)")
    if not isinstance(nb.get("cells"), list):
        raise NotebookError('not a Jupyter notebook: no "cells" list')
    _check_language(nb.get("metadata"))
    scanned = _scan_cells(text)
    if scanned is None or len(scanned) != len(nb["cells"]):  # cannot happen for valid JSON
        raise NotebookError("internal error: notebook structure scan disagrees with the JSON parser")

    nb_obj = Notebook(text="", cells=len(scanned), _raw=text)
    where = nb_obj._file_position
    out: List[str] = []
    for index, cell in enumerate(scanned, 1):
        if not isinstance(cell, _CellScan):
            raise NotebookError(f"cell {index} is not a JSON object", *where(cell))
        pieces: List[_Piece] = []
        parts: List[str] = []
        decoded = 0
        for piece in cell.source:
            if not isinstance(piece, tuple):
                raise NotebookError(f'cell {index}: "source" must be a string or a list of strings',
                                    *where(piece))
            value, raw_start, raw_end = piece
            pieces.append((decoded, raw_start, raw_end))
            parts.append(value)
            decoded += len(value)
        source = "".join(parts)
        nb_obj._sources.append(source)
        nb_obj._pieces.append(pieces)
        if cell.cell_type != "code" or not source:
            continue
        starts, originals = zip(*_split_lines(source))
        for cell_line, (start, original, line) in enumerate(
                zip(starts, originals, _neutralise(list(originals))), 1):
            nb_obj._lines.append((index, cell_line, start, len(original), len(line)))
            out.append(line)
    nb_obj.text = "".join(line + "\n" for line in out)
    return nb_obj


def _check_language(metadata: Any) -> None:
    """Reject notebooks of other kernels (R, Julia...): their code would only give syntax errors."""
    if not isinstance(metadata, dict):
        return
    for section, key in (("language_info", "name"), ("kernelspec", "language")):
        info = metadata.get(section)
        language = info.get(key) if isinstance(info, dict) else None
        if isinstance(language, str) and language.strip():
            name = language.strip().lower()
            if not name.startswith(("python", "ipython")):
                raise NotebookError(f"not a Python notebook (language: {name})")


# --- Walking the raw JSON ---------------------------------------------------------------------
# json.loads has already validated the text, so the walk assumes valid JSON. It follows the
# structure (top object → "cells" → each cell → "source"), taking the LAST of duplicate keys as
# json does, so it can never be fooled by a "source" or "cells" key elsewhere (metadata, outputs).

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_scanstring: Callable[[str, int], Tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


@dataclass
class _CellScan:
    cell_type: Any = None
    source: List[Any] = field(default_factory=list)
    """(decoded string, raw content start, raw closing-quote offset), or the raw offset of a
    value that is not a string."""


def _ws(raw: str, pos: int) -> int:
    return _WS.match(raw, pos).end()  # type: ignore[union-attr]


def _skip(raw: str, pos: int) -> Tuple[Any, int]:
    """Decode (and so skip) any value in C: outputs never cost per-character Python work."""
    return _DECODER.raw_decode(raw, pos)


def _object(raw: str, pos: int, wanted: Dict[str, Callable[[str, int], Tuple[Any, int]]]
            ) -> Tuple[Dict[str, Any], int]:
    """Walk the object at ``raw[pos] == "{"``; return the values of the ``wanted`` keys."""
    found: Dict[str, Any] = {}
    pos = _ws(raw, pos + 1)
    if raw[pos] == "}":
        return found, pos + 1
    while True:
        key, pos = _scanstring(raw, pos + 1)
        pos = _ws(raw, _ws(raw, pos) + 1)  # past ":"
        handler = wanted.get(key)
        if handler is None:
            pos = _skip(raw, pos)[1]
        else:
            found[key], pos = handler(raw, pos)  # a duplicate key overwrites, as in json
        pos = _ws(raw, pos)
        if raw[pos] == "}":
            return found, pos + 1
        pos = _ws(raw, pos + 1)  # past ","


def _array(raw: str, pos: int, item: Callable[[str, int], Tuple[Any, int]]) -> Tuple[List[Any], int]:
    """Walk the array at ``raw[pos] == "["``, reading each element with ``item``."""
    items: List[Any] = []
    pos = _ws(raw, pos + 1)
    if raw[pos] == "]":
        return items, pos + 1
    while True:
        value, pos = item(raw, pos)
        items.append(value)
        pos = _ws(raw, pos)
        if raw[pos] == "]":
            return items, pos + 1
        pos = _ws(raw, pos + 1)


def _string(raw: str, pos: int) -> Tuple[Any, int]:
    if raw[pos] != '"':
        return pos, _skip(raw, pos)[1]
    value, end = _scanstring(raw, pos + 1)
    return (value, pos + 1, end - 1), end


def _source(raw: str, pos: int) -> Tuple[List[Any], int]:
    if raw[pos] == "[":
        return _array(raw, pos, _string)
    if raw[pos] == "n":  # null: treat as empty
        return [], _skip(raw, pos)[1]
    value, end = _string(raw, pos)
    return [value], end


def _cell(raw: str, pos: int) -> Tuple[Any, int]:
    if raw[pos] != "{":
        return pos, _skip(raw, pos)[1]
    found, end = _object(raw, pos, {"cell_type": _skip, "source": _source})
    return _CellScan(found.get("cell_type"), found.get("source", [])), end


def _cells(raw: str, pos: int) -> Tuple[Any, int]:
    if raw[pos] != "[":
        return None, _skip(raw, pos)[1]
    return _array(raw, pos, _cell)


def _scan_cells(raw: str) -> Optional[List[Any]]:
    """Per cell of the ``cells`` list: a :class:`_CellScan`, or the raw offset of a non-object."""
    pos = _ws(raw, 0)
    if raw[pos] != "{":
        return None
    return _object(raw, pos, {"cells": _cells})[0].get("cells")


def _raw_index(raw: str, start: int, end: int, k: int) -> int:
    """Raw offset of decoded character ``k`` of the JSON string content ``raw[start:end]``.

    Plain runs map one to one and are jumped over with ``str.find``; an escape is one decoded
    character of 2 raw characters, or 6 for ``\\uXXXX`` — 12 for a surrogate pair, which json
    decodes to a single character.
    """
    pos = start
    while k > 0:
        backslash = raw.find("\\", pos, end)
        if backslash < 0 or backslash - pos >= k:
            return pos + k
        k -= backslash - pos + 1
        pos = backslash
        if raw[pos + 1] != "u":
            pos += 2
            continue
        code = int(raw[pos + 2:pos + 6], 16)
        pos += 6
        if 0xD800 <= code <= 0xDBFF and raw.startswith("\\u", pos, end) \
                and 0xDC00 <= int(raw[pos + 2:pos + 6], 16) <= 0xDFFF:
            pos += 6
    return pos


# --- Neutralising IPython syntax ---------------------------------------------------------------

_EOL = re.compile(r"\r\n|\r|\n")  # Python's line ends (str.splitlines knows many more)


def _split_lines(source: str) -> List[Tuple[int, str]]:
    """(offset, text) of each line of a non-empty cell source, without line terminators."""
    lines: List[Tuple[int, str]] = []
    start = 0
    for m in _EOL.finditer(source):
        lines.append((start, source[start:m.start()]))
        start = m.end()
    if start < len(source):
        lines.append((start, source[start:]))
    return lines


_KEPT_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})
"""Cell magics whose body is ordinary Python run in this kernel; other cell magics (%%bash,
%%writefile, %%html, %%sql...) hold another language or text, so the whole cell is inert."""
_CELL_MAGIC = re.compile(r"[ \t\f]*%%(\w*)")
_ESCAPES = "!%?/,;"
"""IPython's escapes at the start of a logical line: shell, magic, help, autocall."""
_ASSIGN = re.compile(r"([ \t\f]*)([^=#]+?)[ \t\f]*=[ \t\f]*[!%]")
_HELP = re.compile(r"[ \t\f]*%{0,2}[\w*]+(?:\.[\w*]+)*[ \t\f]*\?\??[ \t\f]*(?:#.*)?\Z")


def _neutralise(lines: List[str]) -> List[str]:
    """Replace IPython syntax in a cell's lines with valid Python, line for line.

    A replaced line keeps its indentation (``pass``; ``target = None`` for ``x = !ls``, so the
    name stays defined at the same columns). Escapes are only recognised where a Python
    statement could start — not inside brackets, continuations or multi-line strings — which
    a small lexer tracks from line to line. ``tokenize`` would also have to read the shell
    lines, whose quotes need not balance (``!echo it's``), and treats ``!``/``?`` differently
    across Python versions. The lexer never fails: after an unclosed bracket or string the
    remaining lines are left as they are, so the parser reports the real error, mapped.
    """
    out = list(lines)
    first = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if first < len(lines):
        m = _CELL_MAGIC.match(lines[first])
        if m:
            if m.group(1) not in _KEPT_CELL_MAGICS:
                return [""] * len(lines)
            out[first] = lines[first][:len(lines[first]) - len(lines[first].lstrip())] + "pass"
            first += 1
    lexer = _Lexer()
    i = first
    while i < len(lines):
        replacement = _magic_replacement(lines[i]) if lexer.at_statement_start() else None
        if replacement is None:
            lexer.feed(lines[i])
        else:
            out[i] = replacement
            while lines[i].endswith("\\") and i + 1 < len(lines):  # IPython joins continued lines
                i += 1
                out[i] = ""
        i += 1
    return out


def _magic_replacement(line: str) -> Optional[str]:
    """Valid Python for a line of IPython syntax at a statement start; None for plain Python."""
    stripped = line.lstrip(" \t\f")
    if not stripped:
        return None
    indent = line[:len(line) - len(stripped)]
    if stripped[0] in _ESCAPES:
        return indent + "pass"
    m = _ASSIGN.match(line)
    if m and _assignable(m.group(2)):
        return m.group(1) + m.group(2) + " = None"
    if _HELP.match(line):
        return indent + "pass"
    return None


def _assignable(target: str) -> bool:
    try:
        ast.parse(target.strip() + " = None")
    except (SyntaxError, ValueError):
        return False
    return True


_CODE = re.compile(r"""[][(){}#\\]|'''|\"\"\"|['"]""")
_IN_STRING = {q: re.compile(r"\\(?:.|\Z)|" + q) for q in ("'", '"', "'''", '"""')}


class _Lexer:
    """Just enough of Python's lexer to know, line by line, whether a statement may start:
    bracket depth, the open string's quote, and backslash continuation."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: Optional[str] = None
        self.continued = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> None:
        self.continued = False
        pos = 0
        while True:
            if self.quote is not None:
                m = _IN_STRING[self.quote].search(line, pos)
                if m is None:
                    if len(self.quote) == 1:
                        self.quote = None  # unterminated string: Python reports it; resynchronise
                    return
                if m.group() == self.quote:
                    self.quote = None
                elif m.end() == len(line):  # backslash-newline: the string goes on
                    return
                pos = m.end()
                continue
            m = _CODE.search(line, pos)
            if m is None:
                return
            token = m.group()
            if token == "#":
                return
            if token == "\\":
                if m.end() == len(line):
                    self.continued = True
                    return
            elif token in ("(", "[", "{"):
                self.depth += 1
            elif token in (")", "]", "}"):
                self.depth = max(self.depth - 1, 0)
            else:
                self.quote = token
            pos = m.end()
