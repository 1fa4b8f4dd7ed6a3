"""Positions, related locations, edits and client settings in the server's own terms (no process)."""
from __future__ import annotations

import pytest
from lsprotocol import types as lsp

from linter.core.model import Finding, Severity, Span
from linter.server import convert
from linter.server.engine import Folder, Overrides


def test_columns_are_converted_to_the_clients_encoding() -> None:
    text = "x = '数据😀'; y = nn.Dropout(0.1)\r\nz = 1\n"
    col = text.index("nn.Dropout") + 1                     # 1-based, in code points
    for enc, expected in (("utf-16", col - 1 + 1), ("utf-32", col - 1), ("utf-8", col - 1 + 2 * 2 + 3)):
        pos = convert.Lines(text, enc).position(1, col)
        assert pos == lsp.Position(0, expected), enc
    lines = convert.Lines(text, "utf-16")
    assert lines.position(2, 1) == lsp.Position(1, 0)      # after a \r\n
    assert lines.offset(lines.position(1, col)) == col - 1  # and back


def test_a_form_feed_is_not_a_line_break() -> None:
    lines = convert.Lines("a = 1\x0c\nb = 2\n")
    assert lines.position(2, 1) == lsp.Position(1, 0) and lines.line_text(1) == "a = 1\x0c"


def test_edits_map_offsets_to_positions() -> None:
    class E:
        def __init__(self, start: int, end: int, content: str) -> None:
            self.start, self.end, self.content = start, end, content

    text = "ab😀c\nd\n"
    lines = convert.Lines(text)
    (edit,) = convert.text_edits([E(3, 4, "X")], lines)    # replaces "c", after a surrogate pair
    assert edit.range == lsp.Range(lsp.Position(0, 4), lsp.Position(0, 5)) and edit.new_text == "X"
    end = convert.text_edits([E(len(text), len(text), "e\n")], lines)[0]
    assert end.range.start == lsp.Position(2, 0)


def test_whole_text_edit_keeps_the_common_prefix_and_suffix() -> None:
    old = convert.Lines("a\nclip()\nstep()\n")
    e = convert.whole_text_edit(old, "a\nunscale()\nclip()\nstep()\n")
    assert e.range.start == lsp.Position(1, 0) and e.new_text == "unscale()\n"


def test_the_suppression_comment_is_added_or_joined() -> None:
    lines = convert.Lines("x = nn.Dropout(0.1)\ny = 2  # trainlint: ignore[API111]\n")
    add = convert.suppression_edit(lines, 1, "API101")
    assert add.new_text == "  # trainlint: ignore[API101]" and add.range.start == lsp.Position(0, 19)
    join = convert.suppression_edit(lines, 2, "API101")
    assert join.new_text == "API111, API101"


def test_the_places_a_message_cites_become_related_information() -> None:
    msg = ("`ops.clip_by_global_norm(...)` clips gradients that still carry the loss scale (from "
           "`loss_scaler.scale(loss)` (src/train.py:32)); BN_MOMENTUM (0.1 at src/config.py:7)")
    assert convert.cited(msg) == [("src/train.py", 32, "`loss_scaler.scale(loss)`"),
                                  ("src/config.py", 7, "0.1 at src/config.py:7")]
    f = Finding("m.py", Span(3, 5, 3, 9), "MP302", "x", "mp.03", "mindspore", Severity.WARNING, msg,
                related=(("src/train.py", 32, "own evidence"),))
    d = convert.diagnostic(f, convert.Lines("a\nb\n    clip\n"), lambda p: "file:///w/" + p)
    assert [(r.location.uri, r.location.range.start.line, r.message) for r in d.related_information] == [
        ("file:///w/src/train.py", 31, "own evidence"), ("file:///w/src/config.py", 6, "0.1 at src/config.py:7")]
    assert d.code == "MP302" and d.severity == lsp.DiagnosticSeverity.Warning
    assert d.range == lsp.Range(lsp.Position(2, 4), lsp.Position(2, 8))
    # a path that is not there is not offered
    assert convert.diagnostic(f, convert.Lines("a\n"), lambda p: None).related_information is None


def test_client_settings_accept_editor_shapes_and_reject_wrong_types() -> None:
    o = Overrides.from_json({"trainlint": {"lang": "", "select": [], "extendSelect": ["API1"],
                                           "targetVersion": ["mindspore=2.3"], "ignore": "API101, API102",
                                           "command": ["trainlint", "server"]}})
    assert (o.lang, o.select, o.extend_select, o.target_version, o.ignore) == \
        (None, None, ["API1"], ["mindspore=2.3"], ["API101", "API102"])
    assert Overrides.from_json({"target_version": {"mindspore": "2.3"}}).target_version == ["mindspore=2.3"]
    with pytest.raises(ValueError, match="lang"):
        Overrides.from_json({"lang": "fr"})
    with pytest.raises(ValueError, match="select"):
        Overrides.from_json({"select": [1]})


def test_info_findings_are_information_or_hints_as_the_client_asks() -> None:
    f = Finding("m.py", Span(1, 1, 1, 2), "WI201", "x", "wi.02", "mindspore", Severity.INFO, "minor")
    lines, uri = convert.Lines("a\n"), (lambda p: None)
    assert convert.diagnostic(f, lines, uri).severity == lsp.DiagnosticSeverity.Information
    assert convert.diagnostic(f, lines, uri, info_severity="hint").severity == lsp.DiagnosticSeverity.Hint
    warning = Finding("m.py", Span(1, 1, 1, 2), "WI301", "x", "wi.03", "mindspore", Severity.WARNING, "w")
    assert convert.diagnostic(warning, lines, uri, info_severity="hint").severity == lsp.DiagnosticSeverity.Warning
    assert Overrides.from_json({"trainlint": {"infoSeverity": "hint"}}).info_severity == "hint"
    assert Overrides.from_json({"infoSeverity": ""}).info_severity == "information"
    with pytest.raises(ValueError, match="infoSeverity"):
        Overrides.from_json({"info-severity": "note"})


def test_a_bad_config_is_a_problem_with_its_file_not_an_exception(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.trainlint]\nselect = ["NOPE1"]\n')
    f = Folder(str(tmp_path))
    assert f.settings is None and f.problem is not None
    assert f.problem.path == str(tmp_path / "pyproject.toml") and "NOPE1" in f.problem.message
    assert f.lint({str(tmp_path / "a.py"): b"x = 1\n"}).findings == {}
    (tmp_path / "pyproject.toml").write_text('[tool.trainlint]\nselect = ["API101"]\n')
    out = f.lint({str(tmp_path / "a.py"): b"from mindspore import nn\nd = nn.Dropout(0.1)\n"})
    assert f.problem is None and [x.rule for x in out.findings[str(tmp_path / "a.py")]] == ["API101"]


def test_context_is_bounded_by_what_the_open_files_import(tmp_path) -> None:
    for i in range(30):
        (tmp_path / f"mod{i}.py").write_text(f"X{i} = {i}\n")
    (tmp_path / "train.py").write_text("import mod1\nimport mod2\n")
    f = Folder(str(tmp_path))
    f.lint({str(tmp_path / "train.py"): b"import mod1\nimport mod2\n"})
    assert f.context_size() == 2
    f.lint({str(tmp_path / "train.py"): b"import mod3\n"})
    assert f.context_size() == 1   # what the open files no longer import is let go
