"""Stage 2, one file: read it (size-checked), decode it, unpack a notebook, extract its facts,
and say precisely why when it cannot be done (a syntax error's position and Python's own
message, a file too large or nested too deeply). Shared by the batch parser, its workers and
the parse-ahead process, and by the language server for an unsaved buffer."""
from __future__ import annotations

import ast
import dataclasses
import os
import re
import sys
import threading
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from linter.core.model import CellSpan, Diagnostic, ErrorKind, Span
from linter.source.decode import decode

if TYPE_CHECKING:
    import libcst as cst

    from linter.facts.model import FileFacts
    from linter.source.notebooks import Notebook


DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024
"""Bytes. Hand-written source stays far below this; bigger files are generated (protobuf
messages, data tables), and libcst needs up to ~1.2 GB of memory and ~12 s per MB of such
literal-dense code, so parsing them by default would cost gigabytes for nothing a rule checks."""


@dataclass
class Unit:
    """One file taking part in the run."""

    path: str
    abspath: str
    root: str
    linted: bool
    facts: Optional[FileFacts] = None
    source: Optional[str] = None
    notebook: Optional[Notebook] = None
    """For ``.ipynb`` files: the joined code cells (``source``) and the map back to cells."""
    data: Optional[bytes] = None
    """The file's bytes, when read before parsing (to key the caches); dropped once parsed."""


def read_source(path: str, abspath: str, limit: int = DEFAULT_MAX_FILE_SIZE) -> Tuple[Optional[bytes], Optional[Diagnostic]]:
    """A file's bytes, or the diagnostic saying why they are not available. The size is
    checked before reading, so a huge file never enters memory."""
    try:
        with open(abspath, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                return None, too_large(path, size, limit)
            return fh.read(limit + 1), None
    except OSError as exc:
        return None, Diagnostic(ErrorKind.IO, path, f"cannot read file: {exc.strerror or exc}")


def too_large(path: str, size: int, limit: int) -> Diagnostic:
    return Diagnostic(ErrorKind.LIMIT, path, f"file is {_human(size)}, larger than the {_human(limit)} limit; "
                                             "not checked (raise it with --max-file-size or `max-file-size`)")


def _human(n: int) -> str:
    mb = n / (1024 * 1024)
    if n >= 100 * 1024:
        return f"{mb:g} MB" if mb == int(mb) else f"{mb:.1f} MB"
    return f"{n / 1024:.1f} KB"


def parse_unit(unit: Unit, data: bytes) -> List[Diagnostic]:
    """Decode and extract one file's bytes; return the diagnostics (the unit gets its facts).
    Reading, with its size limit, is :func:`read_source`'s job."""
    errors: List[Diagnostic] = []
    decoded = decode(unit.path, data)
    errors += decoded.diagnostics
    if decoded.text is None:
        return errors
    text = decoded.text
    if unit.path.endswith(".ipynb"):
        # notebooks only
        from linter.source.notebooks import NotebookError, read_notebook

        try:
            unit.notebook = read_notebook(text)
        except NotebookError as exc:
            errors.append(Diagnostic(ErrorKind.NOTEBOOK, unit.path, exc.message, line=exc.line, column=exc.column))
            return errors
        text = unit.notebook.text
    # imported where it is used: libcst is slow to import (start-up time)
    import libcst as cst

    # the extractor (and libcst) only when a file must be parsed (start-up time)
    from linter.facts.depth import nesting_problem
    from linter.facts.extract import extract

    unit.source = text
    deep = nesting_problem(text)
    if deep is not None:
        errors.append(locate_diagnostic(Diagnostic(ErrorKind.LIMIT, unit.path, deep[2], line=deep[0], column=deep[1]), unit.notebook))
        return errors
    try:
        try:
            unit.facts = extract(unit.path, text)
        except RecursionError:
            unit.facts = with_deep_stack(extract, unit.path, text)
    except cst.ParserSyntaxError as exc:
        line, column, message = syntax_error_details(text, exc)
        errors.append(locate_diagnostic(Diagnostic(ErrorKind.SYNTAX, unit.path, message, line=line, column=column), unit.notebook))
    except RecursionError:
        errors.append(Diagnostic(ErrorKind.LIMIT, unit.path, "statements nested too deeply to analyse (the recursion limit was reached); file not checked"))
    return errors


DEEP_RECURSION = 30_000


DEEP_STACK = 512 * 1024 * 1024


def with_deep_stack(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a thread with a large stack and recursion limit.

    Long but legitimate structures (an ``elif`` chain of thousands of branches, a generated
    file of thousands of adjacent string literals) nest libcst's trees deeper than Python's
    default limit of 1,000 frames, in libcst's own code as well as ours. Raising the limit on
    the normal stack could overflow it; a fresh thread gets a stack sized for the limit. Only
    files that failed at the default limit take this path; pathological expression depth is
    refused earlier (``facts/depth.py``)."""

    out: Dict[str, Any] = {}

    def target() -> None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, DEEP_RECURSION))   # the calling thread waits meanwhile
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # re-raised in the caller
            out["error"] = exc
        finally:
            sys.setrecursionlimit(old)

    old_size = threading.stack_size(DEEP_STACK)
    try:
        thread = threading.Thread(target=target, name="trainlint-deep")
        thread.start()
        thread.join()
    finally:
        threading.stack_size(old_size)
    if "error" in out:
        raise out["error"]
    return out["value"]


def locate_diagnostic(d: Diagnostic, nb: Optional[Notebook]) -> Diagnostic:
    """A diagnostic at a position of a notebook's joined text, moved to the file and cell."""
    if nb is None or d.line is None:
        return d
    loc = nb.locate(d.line, d.column or 1)
    if loc is None:
        return d
    return dataclasses.replace(d, line=loc.file_line, column=loc.file_column,
                               cell=CellSpan(loc.cell, Span(loc.cell_line, loc.cell_column, loc.cell_line, loc.cell_column)))


_LIBCST_AT = re.compile(r"error at (\d+):(\d+)")


_PY2_HINTS = ("Missing parentheses in call to", "print ", "exec ")


def syntax_error_details(source: str, exc: "cst.ParserSyntaxError") -> Tuple[int, int, str]:
    """Position and message of a syntax error, as precise as possible.

    libcst's native parser reports where it gave up; Python's own parser usually names the
    offending token and recognises Python 2 code, so it is asked first.
    """

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # SyntaxWarnings of the linted code are not ours to print
            ast.parse(source)
    except SyntaxError as err:
        msg = err.msg or "invalid syntax"
        if any(h in msg for h in _PY2_HINTS) or (err.text or "").lstrip().startswith(("print ", "exec ")):
            msg += " (this looks like Python 2 code, which cannot be linted; port it to Python 3)"
        return err.lineno or 1, max(err.offset or 1, 1), msg
    except (ValueError, RecursionError, MemoryError):
        pass
    m = _LIBCST_AT.search(exc.message)
    if m:
        return int(m.group(1)), int(m.group(2)) + 1, exc.message.split(": ", 1)[-1]
    return exc.raw_line, exc.raw_column + 1, exc.message
