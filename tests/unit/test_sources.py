"""Stage 1b: decoding — BOM, PEP 263, a reported fallback for undeclared GBK/Latin-1."""
from __future__ import annotations

import codecs

from linter.core.model import ErrorKind
from linter.source.decode import decode


def test_utf8_and_bom() -> None:
    assert decode("a.py", "x = '中'\n".encode()).text == "x = '中'\n"
    d = decode("a.py", codecs.BOM_UTF8 + b"x = 1\n")
    assert d.text == "x = 1\n" and not d.diagnostics


def test_pep263_declaration_honoured() -> None:
    data = "# -*- coding: gbk -*-\nx = '训练'\n".encode("gbk")
    d = decode("a.py", data)
    assert d.text is not None and "训练" in d.text and not d.diagnostics


def test_undeclared_gbk_falls_back_with_a_warning() -> None:
    d = decode("a.py", "x = '训练'\n".encode("gbk"))
    assert d.text is not None and "训练" in d.text
    assert d.encoding == "gb18030"
    (diag,) = d.diagnostics
    assert diag.kind is ErrorKind.ENCODING and not diag.fatal and diag.line == 1


def test_binary_and_unknown_encoding_are_errors() -> None:
    d = decode("a.py", b"\x7fELF\x00\x00")
    assert d.text is None and d.diagnostics[0].fatal
    d = decode("a.py", b"# coding: no-such-codec\nx = 1\n")
    assert d.text is None and "unknown encoding" in d.diagnostics[0].message
