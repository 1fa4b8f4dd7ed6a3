"""``trainlint server``: the Language Server Protocol over stdio, on pygls.

The protocol side only: documents in, diagnostics, code actions and hovers out. What a
document's findings are is :mod:`linter.server.engine`'s answer, the same as the CLI's.

Scheduling: an edit marks its folder dirty; one lint per folder runs at a time, in a worker
thread (the event loop keeps answering hovers and code actions), and edits that arrive during a
lint are coalesced into the next one — a burst of keystrokes costs one lint after the one in
flight, and an edit after a pause is linted at once (no fixed delay to wait out).
"""
from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import traceback
from typing import Any, Dict, List, Optional, Tuple

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from linter import __version__
from linter.index.modules import project_root
from linter.server import actions, convert, handlers
from linter.server.engine import CONFIG_NAMES, Folder, Outcome
from linter.server.state import PYTHON_SUFFIXES, Shown, State, fs_path

log = logging.getLogger("trainlint.server")

IDLE_COLLECT_S = 2.0


class TrainlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "trainlint", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            notebook_document_sync=lsp.NotebookDocumentSyncOptions(
                notebook_selector=[lsp.NotebookDocumentFilterWithCells(
                    notebook="jupyter-notebook", cells=[lsp.NotebookCellLanguage(language="python")])],
                save=True),
        )
        self.state = State()

    # ------------------------------------------------------------------ folders and documents
    def folder_for(self, path: str) -> Folder:
        """The workspace folder holding ``path`` (the innermost), else one made for the file's
        project (a file opened from outside every folder)."""
        best = None
        for root, f in self.state.folders.items():
            if f.owns(path) and (best is None or len(root) > len(best.root)):
                best = f
        if best is not None:
            return best

        root = project_root(path) or os.path.dirname(path)
        return self.add_folder(root)

    def add_folder(self, root: str) -> Folder:
        root = os.path.abspath(root)
        f = self.state.folders.get(root)
        if f is None:
            f = self.state.folders[root] = Folder(root, self.state.overrides)
            self.report_problem(f)
        return f

    def report_problem(self, f: Folder) -> None:
        if f.problem is None:
            return
        key = (f.root, f.problem.message)
        if key in self.state.reported:
            return
        self.state.reported.add(key)
        self.window_show_message(lsp.ShowMessageParams(
            type=lsp.MessageType.Error, message=f"trainlint: configuration not used: {f.problem.message}"))

    def open_documents(self, folder: Folder) -> Dict[str, Tuple[str, Optional[int], bytes, Any]]:
        """Absolute path → (uri, version, bytes, notebook cells or None) of the folder's open
        Python files and notebooks."""
        out: Dict[str, Tuple[str, Optional[int], bytes, Any]] = {}
        ws = self.workspace
        in_notebooks = set()
        for nb in list(ws.notebook_documents.values()):
            path = fs_path(nb.uri)
            if path is None or not folder.owns(path) or self.folder_for(path) is not folder:
                continue
            cells = [c.document for c in nb.cells if c.kind == lsp.NotebookCellKind.Code]
            in_notebooks.update(cells)
            texts = [ws.get_text_document(c).source for c in cells]
            out[path] = (nb.uri, nb.version, _notebook_json(texts), cells)
        for uri, doc in list(ws.text_documents.items()):
            if uri in in_notebooks:
                continue
            path = fs_path(uri)
            if path is None or not path.endswith(PYTHON_SUFFIXES) or self.folder_for(path) is not folder:
                continue
            out[path] = (uri, doc.version, doc.source.encode("utf-8", "surrogatepass"), None)
        return out

    # ------------------------------------------------------------------ linting
    def schedule(self, path: Optional[str], uri: Optional[str] = None) -> None:
        if path is not None:
            self.state.dirty.add(self.folder_for(path).root)
        if uri is not None:
            self.state.touched.add(uri)
        self._start()

    def schedule_all(self) -> None:
        self.state.dirty.update(self.state.folders)
        self._start()

    def _start(self) -> None:
        """The lint loop, unless it runs already (it picks up what is dirty when it gets there)."""
        if self.state.running is None or self.state.running.done():
            self.state.running = asyncio.ensure_future(self._lint_loop())

    async def _lint_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while self.state.dirty:
            if self.state.debounce:
                await asyncio.sleep(self.state.debounce)
            else:
                await asyncio.sleep(0)   # let queued edits land first: one lint for the burst
            root = min(self.state.dirty)
            self.state.dirty.discard(root)
            folder = self.state.folders.get(root)
            if folder is None:
                continue
            docs = self.open_documents(folder)
            if not docs:
                self._publish_config_problem(folder)
                continue
            try:
                outcome = await loop.run_in_executor(None, folder.lint, {p: d[2] for p, d in docs.items()})
            except Exception as exc:   # one failing lint never stops the server
                log.error("lint failed: %s", traceback.format_exc())
                self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error, traceback.format_exc()))
                self.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, f"trainlint: internal error: {exc}"))
                continue
            self.report_problem(folder)
            self.publish(folder, docs, outcome)
        loop.call_later(IDLE_COLLECT_S, self._collect_if_idle)

    def _collect_if_idle(self) -> None:
        """The garbage cycles of the lints (paused during them), collected once the user pauses."""

        if (self.state.running is None or self.state.running.done()) and not self.state.dirty:
            gc.collect()

    def publish(self, folder: Folder, docs: Dict[str, Tuple[str, Optional[int], bytes, Any]], outcome: Outcome) -> None:
        enc = convert.encoding_of(self.workspace.position_encoding)
        for path, (uri, version, data, cells) in docs.items():
            findings = outcome.findings.get(path, [])
            errors = outcome.errors.get(path, [])
            if cells is None:
                text = data.decode("utf-8", "surrogatepass")
                self._publish_one(uri, Shown(path, version, text, findings, []), errors, enc, folder.root)
                continue
            for k, cell_uri in enumerate(cells, start=1):
                try:
                    text = self.workspace.get_text_document(cell_uri).source
                except Exception:
                    continue
                mine = [f for f in findings if f.cell is not None and f.cell.cell == k]
                # a problem without a cell (the notebook as a whole) is shown on the first cell
                errs = [e for e in errors if (e.cell.cell == k if e.cell is not None else k == 1)]
                self._publish_one(cell_uri, Shown(path, version, text, mine, [], cell=k), errs, enc, folder.root)
        self._publish_config_problem(folder)

    def _publish_one(self, uri: str, shown: Shown, errors: List[Any], enc: str, root: str) -> None:
        lines = convert.Lines(shown.text, enc)

        def uri_of(path: str) -> Optional[str]:   # reports print paths relative to the folder
            full = os.path.normpath(os.path.join(root, path))
            return from_fs_path(full) if os.path.exists(full) else None

        info = self.state.overrides.info_severity
        diags = [convert.diagnostic(f, lines, uri_of, info_severity=info) for f in shown.findings]
        diags += [convert.problem_diagnostic(e, lines) for e in errors]
        shown.diagnostics = diags
        before = self.state.shown.get(uri)
        self.state.shown[uri] = shown
        if before is not None and convert.same(before.diagnostics, diags) and uri not in self.state.touched:
            return
        self.state.touched.discard(uri)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags,
                                                                            version=shown.version))

    def _publish_config_problem(self, folder: Folder) -> None:
        """A bad config or rule file gets a diagnostic of its own (at the line when known)."""
        targets = {os.path.join(folder.root, n) for n in CONFIG_NAMES}
        # and every file that had a problem shown: a fixed rule file gets its diagnostic cleared
        targets.update(shown.path for shown in self.state.shown.values() if shown.config_problem == folder.root)
        if folder.problem is not None:
            targets.add(folder.problem.path)
        for path in sorted(targets):
            uri = from_fs_path(path)
            if uri is None:
                continue
            diags = []
            if folder.problem is not None and os.path.abspath(folder.problem.path) == path and os.path.isfile(path):
                line = max(0, (folder.problem.line or 1) - 1)
                diags.append(lsp.Diagnostic(range=lsp.Range(lsp.Position(line, 0), lsp.Position(line, 1000)),
                                            message=folder.problem.message, severity=lsp.DiagnosticSeverity.Error,
                                            source=convert.SOURCE, code="config-error"))
            before = self.state.shown.get(uri)
            if not diags and before is None:
                continue
            if before is not None and convert.same(before.diagnostics, diags):
                continue
            self.state.shown[uri] = Shown(path, None, "", [], diags, config_problem=folder.root)
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags))

    def clear(self, uri: str) -> None:
        if self.state.shown.pop(uri, None) is not None:
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def reload(self) -> None:
        """New client settings: every folder re-reads its configuration."""
        for f in self.state.folders.values():
            f.overrides = self.state.overrides
            f.load_settings()
            self.report_problem(f)
        self.schedule_all()


def _notebook_json(texts: List[str]) -> bytes:
    """An ``.ipynb`` of the synced code cells, in order (the engine reads notebooks as files)."""

    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": t, "outputs": [], "execution_count": None}
                    for t in texts],
          "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb).encode("utf-8")


def build_server() -> TrainlintServer:
    """A server with every handler registered (a fresh one each call)."""
    server = TrainlintServer()
    handlers.register(server)
    actions.register(server)
    return server


def serve() -> int:
    """Run the server on stdin/stdout until the client says exit."""
    logging.basicConfig(level=logging.WARNING, format="trainlint-server %(levelname)s: %(message)s")
    build_server().start_io()
    return 0
