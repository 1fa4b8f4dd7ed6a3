"""Stage 1b: bytes → text, honouring BOMs and PEP 263, with a reported fallback.

Chinese repositories often hold GBK/GB18030 files without an encoding declaration; Python
rejects them, but they are real training scripts. They are still linted after a fallback
decode, and the fallback is reported, so nothing is checked silently under a wrong
assumption.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import List, Optional

from linter.core.model import Diagnostic, ErrorKind

_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_FALLBACKS = ("gb18030", "latin-1")


@dataclass(frozen=True)
class Decoded:
    text: Optional[str]
    """None when the file could not be decoded at all (see diagnostics)."""
    encoding: str
    diagnostics: List[Diagnostic]


def declared_encoding(data: bytes) -> Optional[str]:
    """The PEP 263 declaration of the first two lines, if any."""
    for line in data.splitlines()[:2]:
        m = _COOKIE.match(line)
        if m:
            return m.group(1).decode("ascii", "replace")
        if line.strip() and not line.lstrip().startswith(b"#"):
            break
    return None


def decode(path: str, data: bytes) -> Decoded:
    """Decode ``data`` the way Python would, falling back (with a warning) where Python would fail."""
    if data.startswith(codecs.BOM_UTF8):
        try:
            return Decoded(data[len(codecs.BOM_UTF8):].decode("utf-8"), "utf-8-sig", [])
        except UnicodeDecodeError as exc:
            return Decoded(None, "utf-8-sig", [_undecodable(path, data, exc, "utf-8 (BOM)")])
    if b"\x00" in data:
        return Decoded(None, "binary", [Diagnostic(
            ErrorKind.ENCODING, path, "file contains NUL bytes; it is binary, not Python source",
            line=data[: data.index(b"\x00")].count(b"\n") + 1)])
    declared = declared_encoding(data)
    if declared is not None:
        try:
            codecs.lookup(declared)
        except LookupError:
            return Decoded(None, declared, [Diagnostic(
                ErrorKind.ENCODING, path, f"unknown encoding declared: {declared!r}", line=1)])
        try:
            return Decoded(data.decode(declared), declared, [])
        except UnicodeDecodeError as exc:
            return Decoded(None, declared, [_undecodable(path, data, exc, declared)])
    try:
        return Decoded(data.decode("utf-8"), "utf-8", [])
    except UnicodeDecodeError as exc:
        first_error = exc
    for enc in _FALLBACKS:
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        line = data[: first_error.start].count(b"\n") + 1
        return Decoded(text, enc, [Diagnostic(
            ErrorKind.ENCODING, path,
            f"not valid UTF-8 and no encoding declared (byte 0x{data[first_error.start]:02x} at line {line}); "
            f"linted as {enc}. Add '# -*- coding: {enc} -*-' or convert the file to UTF-8",
            line=line, fatal=False)])
    return Decoded(None, "unknown", [_undecodable(path, data, first_error, "utf-8")])  # pragma: no cover


def _undecodable(path: str, data: bytes, exc: UnicodeDecodeError, enc: str) -> Diagnostic:
    line = data[: exc.start].count(b"\n") + 1
    return Diagnostic(ErrorKind.ENCODING, path, f"cannot decode as {enc}: {exc.reason} at byte {exc.start}", line=line)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> List[int]:
    """The offset where each line starts, counted as :func:`source_lines` counts lines (a text
    ending with a line break has one more start, at its end)."""
    return [0] + [m.end() for m in _LINE_BREAK.finditer(text)]


def source_lines(text: str) -> List[str]:
    """Lines as Python numbers them: only ``\\n``, ``\\r\\n`` and ``\\r`` end a line
    (``str.splitlines`` also splits at form feeds and U+2028, which would shift every
    line number after them)."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines
