"""``trainlint server`` end to end: a real LSP client (pytest-lsp) over stdio against the
server process, on a copy of the bundled examples."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from tests.server.conftest import apply_edits, copy_examples, edits_of, served, start

pytestmark = pytest.mark.asyncio

MODEL = "mindspore_port/src/model.py"
CONFIG = "mindspore_port/src/config.py"
AMP = "pytorch_amp/train.py"


def by_code(diags):
    return {d.code: d for d in diags}


async def test_open_publishes_findings_as_the_cli_reports_them(tmp_path) -> None:
    """Rule id as code, a link to the rule's page, severity mapped, the evidence the message
    cites as related information (the constant's definition in config.py)."""
    root = copy_examples(tmp_path)
    async with served(root) as s:
        diags = await s.open(MODEL)
        codes = by_code(diags)
        assert set(codes) == {"API101", "API111", "API121"}   # what `trainlint check` reports in this file
        bn = codes["API121"]
        assert bn.source == "trainlint" and bn.severity == lsp.DiagnosticSeverity.Error
        assert bn.range.start == lsp.Position(10, 8)          # model.py:11:9, 0-based
        assert bn.code_description.href.endswith("/docs/rules/API121.md")
        rel = bn.related_information
        assert rel and rel[0].location.uri == s.uri(CONFIG) and rel[0].location.range.start.line == 6
        assert codes["API111"].severity == lsp.DiagnosticSeverity.Warning


async def test_an_edit_republishes_the_buffer_not_the_file_on_disk(tmp_path) -> None:
    root = copy_examples(tmp_path)
    async with served(root) as s:
        await s.open(MODEL)
        text = s.texts[s.uri(MODEL)].replace("nn.Dropout(config.DROPOUT_RATE)", "nn.Dropout(p=config.DROPOUT_RATE)")
        diags = await s.change(MODEL, text)
        assert set(by_code(diags)) == {"API111", "API121"}
        assert s.client.versions[s.uri(MODEL)] == 2            # published for the version it describes


async def test_a_change_in_one_file_republishes_the_other_open_files(tmp_path) -> None:
    """model.py's BatchNorm finding rests on config.py's constant: editing config.py (unsaved)
    updates model.py's diagnostics."""
    root = copy_examples(tmp_path)
    async with served(root) as s:
        assert "API121" in by_code(await s.open(MODEL))
        await s.open(CONFIG)
        text = s.texts[s.uri(CONFIG)].replace("BN_MOMENTUM = 0.1 ", "BN_MOMENTUM = 0.9 ")
        diags = await s.change(CONFIG, text, wait_for=MODEL)
        assert "API121" not in by_code(diags) and {"API101", "API111"} <= set(by_code(diags))


async def momentum_edited_unsaved(s) -> str:
    """model.py and config.py open, config's BN_MOMENTUM changed to 0.9 in the buffer only: model.py's
    BatchNorm finding is gone. Returns the edited text."""
    await s.open(MODEL)
    await s.open(CONFIG)
    edited = s.texts[s.uri(CONFIG)].replace("BN_MOMENTUM = 0.1 ", "BN_MOMENTUM = 0.9 ")
    before = s.count(s.uri(CONFIG))
    assert "API121" not in by_code(await s.change(CONFIG, edited, wait_for=MODEL))
    # the same lint publishes config.py (changed, so always published), maybe after model.py: wait for
    # it, or a later change would take that publish for its own answer
    await s.published(s.uri(CONFIG), before)
    return edited


async def test_a_syntax_error_mid_typing_keeps_the_other_files_findings(tmp_path) -> None:
    """The broken buffer gets its syntax error; the project keeps the last text of it that parsed
    (not the file on disk), so the other files' findings do not flicker."""
    root = copy_examples(tmp_path)
    async with served(root) as s:
        good = await momentum_edited_unsaved(s)
        model_publishes = s.count(s.uri(MODEL))
        diags = await s.change(CONFIG, good.replace("BN_MOMENTUM = 0.9 ", "BN_MOMENTUM = (0.9 "))
        assert [d.code for d in diags] == ["syntax-error"] and diags[0].severity == lsp.DiagnosticSeverity.Error
        assert diags[0].range.start.line == 6
        await asyncio.sleep(0.5)
        # the disk's 0.1 would bring API121 back to model.py: its findings did not change
        assert s.count(s.uri(MODEL)) == model_publishes
        assert "API121" not in by_code(s.client.diagnostics[s.uri(MODEL)])
        assert list(await s.change(CONFIG, good)) == []


async def test_a_safe_quick_fix_applied_yields_exactly_the_fixed_text(tmp_path) -> None:
    root = copy_examples(tmp_path)
    async with served(root) as s:
        diags = await s.open(AMP)
        clip = by_code(diags)["MP301"]
        actions = await s.actions(AMP, clip.range, [clip])
        fix = next(a for a in actions if a.is_preferred)
        assert fix.kind == lsp.CodeActionKind.QuickFix and "(MP301)" in fix.title and "unsafe" not in fix.title
        text = s.texts[s.uri(AMP)]
        new = apply_edits(text, edits_of(fix, s.uri(AMP)))
        line = "        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)"
        assert new == text.replace(line, "        scaler.unscale_(optimizer)\n" + line, 1)
        # the fixed buffer no longer has the finding
        assert "MP301" not in by_code(await s.change(AMP, new))


async def test_unsafe_fixes_are_labelled_and_never_preferred(tmp_path) -> None:
    root = copy_examples(tmp_path)
    async with served(root) as s:
        bn = by_code(await s.open(MODEL))["API121"]
        actions = await s.actions(MODEL, bn.range, [bn])
        fix = next(a for a in actions if "API121, unsafe" in a.title)
        assert not fix.is_preferred
        new = apply_edits(s.texts[s.uri(MODEL)], edits_of(fix, s.uri(MODEL)))
        assert "momentum=1 - config.BN_MOMENTUM" in new


async def test_the_suppress_action_adds_the_comment_and_the_finding_goes(tmp_path) -> None:
    root = copy_examples(tmp_path)
    async with served(root) as s:
        drop = by_code(await s.open(MODEL))["API101"]
        actions = await s.actions(MODEL, drop.range, [drop])
        sup = next(a for a in actions if a.title.startswith("Suppress API101"))
        text = s.texts[s.uri(MODEL)]
        new = apply_edits(text, edits_of(sup, s.uri(MODEL)))
        assert new.splitlines()[38].endswith("# BUG: first positional argument is keep_prob  # trainlint: ignore[API101]")
        assert "API101" not in by_code(await s.change(MODEL, new))
        # a second rule on a line that has the comment joins it
        bn = by_code(s.client.diagnostics[s.uri(MODEL)])["API121"]
        with_comment = new.replace("(see config)", "(see config)  # trainlint: ignore[API999]")
        await s.change(MODEL, with_comment)
        bn = by_code(s.client.diagnostics[s.uri(MODEL)])["API121"]
        sup = next(a for a in await s.actions(MODEL, bn.range, [bn]) if a.title.startswith("Suppress API121"))
        assert "# trainlint: ignore[API999, API121]" in apply_edits(with_comment, edits_of(sup, s.uri(MODEL)))


async def test_fix_all_equals_check_fix(tmp_path) -> None:
    """`source.fixAll.trainlint` gives the text `trainlint check --fix` writes."""
    root = copy_examples(tmp_path)
    async with served(root) as s:
        await s.open(AMP)
        actions = await s.actions(AMP, lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), [],
                                  only=["source.fixAll.trainlint"])
        assert [a.kind for a in actions] == ["source.fixAll.trainlint"]
        got = apply_edits(s.texts[s.uri(AMP)], edits_of(actions[0], s.uri(AMP)))
        # the light bulb on a finding with a safe fix offers it too, resolved only when chosen
        clip = by_code(s.client.diagnostics[s.uri(AMP)])["MP301"]
        offered = next(a for a in await s.actions(AMP, clip.range, [clip]) if a.title.startswith("trainlint: fix all"))
        assert offered.edit is None
        resolved = await s.client.code_action_resolve_async(offered)
        assert apply_edits(s.texts[s.uri(AMP)], edits_of(resolved, s.uri(AMP))) == got
        # not beside a finding whose only fix is unsafe
        bn_uri_diags = await s.open(MODEL)
        bn = by_code(bn_uri_diags)["API121"]
        assert not any(a.title.startswith("trainlint: fix all") for a in await s.actions(MODEL, bn.range, [bn]))
    cli = tmp_path / "cli"
    cli.mkdir()
    (cli / "train.py").write_text(open(os.path.join(root, AMP)).read())
    subprocess.run([sys.executable, "-m", "linter", "check", "--fix", "--no-cache", "train.py"], cwd=cli,
                   capture_output=True, check=False)
    assert got == (cli / "train.py").read_text() and got != open(os.path.join(root, AMP)).read()


async def test_hover_shows_the_rule_docs_in_the_configured_language(tmp_path) -> None:
    root = copy_examples(tmp_path)
    for lang, heading in (("en", "Why it hurts accuracy"), ("zh", "为什么影响精度")):
        async with served(root, init={"lang": lang}) as s:
            drop = by_code(await s.open(MODEL))["API101"]
            h = await s.client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(s.uri(MODEL)),
                                                                         drop.range.start))
            assert h is not None and h.contents.kind == lsp.MarkupKind.Markdown
            assert "**API101**" in h.contents.value and heading in h.contents.value
            assert drop.message in h.contents.value
            # nothing to say away from a finding
            assert await s.client.text_document_hover_async(lsp.HoverParams(
                lsp.TextDocumentIdentifier(s.uri(MODEL)), lsp.Position(0, 0))) is None


async def test_config_reload_and_invalid_config(tmp_path) -> None:
    """pyproject.toml is read, re-read when it changes, and a broken one is shown (message and a
    diagnostic on the file) while the server keeps linting with the last good settings."""
    root = copy_examples(tmp_path)
    pyproject = os.path.join(root, "pyproject.toml")
    with open(pyproject, "w") as fh:
        fh.write('[tool.trainlint]\nignore = ["API101"]\n')
    async with served(root) as s:
        assert set(by_code(await s.open(MODEL))) == {"API111", "API121"}
        with open(pyproject, "w") as fh:
            fh.write('[tool.trainlint]\nignore = ["API111"]\n')
        s.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(
            [lsp.FileEvent(s.uri("pyproject.toml"), lsp.FileChangeType.Changed)]))
        n = s.count(s.uri(MODEL))
        assert set(by_code(await s.published(s.uri(MODEL), n))) == {"API101", "API121"}
        with open(pyproject, "w") as fh:
            fh.write('[tool.trainlint]\nignore = ["API111"]\nselect = ["NOPE999"]\n')
        s.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(
            [lsp.FileEvent(s.uri("pyproject.toml"), lsp.FileChangeType.Changed)]))
        diags = await s.published(s.uri("pyproject.toml"))
        assert diags and "NOPE999" in diags[0].message and diags[0].severity == lsp.DiagnosticSeverity.Error
        assert any("NOPE999" in m.message and m.type == lsp.MessageType.Error for m in s.client.messages)
        # still alive, still linting with the last good settings
        text = s.texts[s.uri(MODEL)] + "\n"
        assert set(by_code(await s.change(MODEL, text))) == {"API101", "API121"}


async def test_client_settings_select_and_change(tmp_path) -> None:
    root = copy_examples(tmp_path)
    async with served(root, init={"select": ["API121"]}) as s:
        assert set(by_code(await s.open(MODEL))) == {"API121"}
        n = s.count(s.uri(MODEL))
        s.client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(
            settings={"trainlint": {"ignore": ["API121"]}}))
        assert set(by_code(await s.published(s.uri(MODEL), n))) == {"API101", "API111"}


async def test_suppressions_and_the_baseline_are_honoured(tmp_path) -> None:
    root = copy_examples(tmp_path)
    subprocess.run([sys.executable, "-m", "linter", "check", "--no-cache", "--write-baseline", "baseline.json",
                    "mindspore_port"], cwd=root, capture_output=True, check=False)
    with open(os.path.join(root, "pyproject.toml"), "w") as fh:
        fh.write('[tool.trainlint]\nbaseline = "baseline.json"\n')
    async with served(root) as s:
        assert await s.open(MODEL) == []                     # every finding is in the baseline
        text = s.texts[s.uri(MODEL)].replace("self.fc = nn.Dense(256, num_classes)",
                                             "self.fc = nn.Dense(256, num_classes)\n        self.d2 = nn.Dropout(0.3)")
        diags = await s.change(MODEL, text)
        assert [d.code for d in diags] == ["API101"] and diags[0].range.start.line == 40   # only the new one


async def test_notebook_cells_get_their_own_diagnostics(tmp_path) -> None:
    root = str(tmp_path / "nb")
    os.makedirs(root)
    async with served(root) as s:
        nb_uri = s.uri("explore.ipynb")
        cells = ["import mindspore\nfrom mindspore import nn\n", "# notes\n", "drop = nn.Dropout(0.2)\n"]
        cell_uris = [f"vscode-notebook-cell:{nb_uri[5:]}#c{k}" for k in range(3)]
        s.client.notebook_document_did_open(lsp.DidOpenNotebookDocumentParams(
            notebook_document=lsp.NotebookDocument(nb_uri, "jupyter-notebook", 1, cells=[
                lsp.NotebookCell(lsp.NotebookCellKind.Code, u) for u in cell_uris]),
            cell_text_documents=[lsp.TextDocumentItem(u, "python", 1, t) for u, t in zip(cell_uris, cells)]))
        diags = await s.published(cell_uris[2])
        assert [d.code for d in diags] == ["API101"] and diags[0].range.start == lsp.Position(0, 7)
        assert list(s.client.diagnostics.get(cell_uris[0], [])) == []
        # typing in a cell: a syntax error is shown in that cell, at its place
        n = s.count(cell_uris[2])
        s.client.notebook_document_did_change(lsp.DidChangeNotebookDocumentParams(
            notebook_document=lsp.VersionedNotebookDocumentIdentifier(2, nb_uri),
            change=lsp.NotebookDocumentChangeEvent(cells=lsp.NotebookDocumentCellChanges(text_content=[
                lsp.NotebookDocumentCellContentChanges(
                    document=lsp.VersionedTextDocumentIdentifier(2, cell_uris[2]),
                    changes=[lsp.TextDocumentContentChangeWholeDocument(text="drop = nn.Dropout(0.2\n")])]))))
        diags = await s.published(cell_uris[2], n)
        assert [d.code for d in diags] == ["syntax-error"] and diags[0].range.start.line == 0


async def test_several_workspace_folders_each_with_its_own_config(tmp_path) -> None:
    a, b = copy_examples(tmp_path / "a"), copy_examples(tmp_path / "b")
    with open(os.path.join(b, "pyproject.toml"), "w") as fh:
        fh.write('[tool.trainlint]\nignore = ["API101"]\n')
    async with served(a, folders=[a, b]) as s:
        assert "API101" in by_code(await s.open(MODEL))
        s.root = b   # the same client opens the other folder's copy
        assert "API101" not in by_code(await s.open(MODEL)) and "API121" in by_code(s.client.diagnostics[s.uri(MODEL)])


async def test_a_failing_or_cancelled_request_does_not_kill_the_server(tmp_path) -> None:
    root = copy_examples(tmp_path)
    async with served(root) as s:
        await s.open(AMP)
        # a request the server cannot even read (a number where a URI goes), sent raw
        s.client.protocol._send_data({"jsonrpc": "2.0", "id": "bad-1", "method": lsp.TEXT_DOCUMENT_HOVER,
                                      "params": {"textDocument": {"uri": 42}, "position": {"line": 0, "character": 0}}})
        req = s.client.protocol.send_request_async(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(s.uri(AMP)), lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
            lsp.CodeActionContext(diagnostics=[], only=["source.fixAll.trainlint"])), msg_id="fix-all-1")
        s.client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id="fix-all-1"))
        try:
            await asyncio.wait_for(req, 30)
        except Exception:
            pass   # cancelled, or answered before the cancellation arrived: both leave the server serving
        assert "MP301" in by_code(await s.change(AMP, s.texts[s.uri(AMP)] + "\n"))


async def test_shutdown_and_exit(tmp_path) -> None:
    root = copy_examples(tmp_path)
    s = await start(root)
    await s.open(MODEL)
    proc = s.client._server
    await s.client.shutdown_session()
    assert proc.returncode == 0


PROBE_RULE = """\
id: API198
name: dense-probe
checklist: api.01
framework: mindspore
severity: warning
title: {en: t, zh: 标题}
message: {en: "a Dense layer", zh: "一个 Dense 层"}
docs: {what: {en: w, zh: 内容}, why: {en: w, zh: 原因}, fix: {en: f, zh: 修复}}
match:
  call:
    name: [mindspore.nn.Dense]
examples:
  invalid: ["from mindspore import nn\\nnn.Dense(1, 2)  # expect: API198\\n"]
  valid: ["from mindspore import nn\\nnn.ReLU()\\n"]
"""


async def test_a_rule_file_is_reloaded_and_a_broken_one_is_shown(tmp_path) -> None:
    root = copy_examples(tmp_path)
    rules = os.path.join(root, "myrules")
    os.makedirs(rules)
    rule_file = os.path.join(rules, "dense-probe.yaml")
    with open(rule_file, "w") as fh:
        fh.write(PROBE_RULE)
    with open(os.path.join(root, "pyproject.toml"), "w") as fh:
        fh.write('[tool.trainlint]\nrules = ["myrules"]\nextend-select = ["API198"]\n')
    async with served(root) as s:
        assert "API198" in by_code(await s.open(MODEL))
        with open(rule_file, "w") as fh:
            fh.write(PROBE_RULE.replace("severity: warning", "severity: loud"))
        s.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(
            [lsp.FileEvent(from_fs_path(rule_file), lsp.FileChangeType.Changed)]))
        diags = await s.published(from_fs_path(rule_file))
        assert diags and diags[0].code == "config-error" and "loud" in diags[0].message
        assert diags[0].range.start.line == 4                 # the `severity:` line
        assert any("dense-probe.yaml" in m.message for m in s.client.messages)
        with open(rule_file, "w") as fh:
            fh.write(PROBE_RULE.replace("a Dense layer", "a Dense layer, reloaded"))
        n = s.count(s.uri(MODEL))
        s.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(
            [lsp.FileEvent(from_fs_path(rule_file), lsp.FileChangeType.Changed)]))
        diags = await s.published(s.uri(MODEL), n)
        assert by_code(diags)["API198"].message == "a Dense layer, reloaded"
        assert list(await s.published(from_fs_path(rule_file), 1)) == []   # the problem's diagnostic is cleared


async def test_closing_a_file_clears_it_and_its_disk_text_is_the_context_again(tmp_path) -> None:
    root = copy_examples(tmp_path)
    async with served(root) as s:
        await momentum_edited_unsaved(s)
        n_model, n_config = s.count(s.uri(MODEL)), s.count(s.uri(CONFIG))
        s.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(s.uri(CONFIG))))
        assert list(await s.published(s.uri(CONFIG), n_config)) == []      # its diagnostics are cleared
        assert "API121" in by_code(await s.published(s.uri(MODEL), n_model))   # the file on disk says 0.1
