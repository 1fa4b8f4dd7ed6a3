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
import logging
import os
import traceback
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from linter import __version__
from linter.model import Finding
from linter.server import convert
from linter.server.engine import CONFIG_NAMES, Folder, Outcome, Overrides, fixes_for, rule_of

log = logging.getLogger("trainlint.server")

FIX_ALL_KIND = "source.fixAll.trainlint"
PYTHON_SUFFIXES = (".py", ".pyi")
IDLE_COLLECT_S = 2.0


@dataclass
class Shown:
    """What was last published for one URI (a file, or a notebook cell)."""

    path: str
    version: Optional[int]
    text: str
    """The text the positions refer to."""
    findings: List[Finding]
    diagnostics: List[lsp.Diagnostic]
    cell: Optional[int] = None
    """For a notebook cell: its 1-based index among the notebook's synced cells."""


@dataclass
class State:
    folders: Dict[str, Folder] = field(default_factory=dict)
    overrides: Overrides = field(default_factory=Overrides)
    shown: Dict[str, Shown] = field(default_factory=dict)
    dirty: Set[str] = field(default_factory=set)
    """Folder roots with a change not linted yet."""
    touched: Set[str] = field(default_factory=set)
    """URIs edited since their last publish: published even when nothing changed."""
    running: Optional[asyncio.Task] = None
    debounce: float = 0.0
    reported: Set[Tuple[str, str]] = field(default_factory=set)
    """Problems already shown with window/showMessage (shown once, not on every keystroke)."""


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
        from linter.index.modules import project_root

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
            path = _path(nb.uri)
            if path is None or not folder.owns(path) or self.folder_for(path) is not folder:
                continue
            cells = [c.document for c in nb.cells if c.kind == lsp.NotebookCellKind.Code]
            in_notebooks.update(cells)
            texts = [ws.get_text_document(c).source for c in cells]
            out[path] = (nb.uri, nb.version, _notebook_json(texts), cells)
        for uri, doc in list(ws.text_documents.items()):
            if uri in in_notebooks:
                continue
            path = _path(uri)
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
        if self.state.running is None or self.state.running.done():
            self.state.running = asyncio.ensure_future(self._lint_loop())

    def schedule_all(self) -> None:
        self.state.dirty.update(self.state.folders)
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
        import gc

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

        diags = [convert.diagnostic(f, lines, uri_of) for f in shown.findings]
        diags += [convert.problem_diagnostic(e, lines) for e in errors]
        shown.diagnostics = diags
        before = self.state.shown.get(uri)
        self.state.shown[uri] = shown
        same = before is not None and [convert.key_of(d) for d in before.diagnostics] == [convert.key_of(d) for d in diags]
        if same and uri not in self.state.touched:
            return
        self.state.touched.discard(uri)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags,
                                                                            version=shown.version))

    def _publish_config_problem(self, folder: Folder) -> None:
        """A bad config or rule file gets a diagnostic of its own (at the line when known)."""
        targets = {os.path.join(folder.root, n) for n in CONFIG_NAMES}
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
            if before is not None and [convert.key_of(d) for d in before.diagnostics] == [convert.key_of(d) for d in diags]:
                continue
            self.state.shown[uri] = Shown(path, None, "", [], diags)
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


def _path(uri: str) -> Optional[str]:
    if not uri.startswith("file:"):
        return None
    p = to_fs_path(uri)
    return os.path.abspath(p) if p else None


def _notebook_json(texts: List[str]) -> bytes:
    """An ``.ipynb`` of the synced code cells, in order (the engine reads notebooks as files)."""
    import json

    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": t, "outputs": [], "execution_count": None}
                    for t in texts],
          "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb).encode("utf-8")


server = TrainlintServer()


# ---------------------------------------------------------------------- lifecycle and settings
@server.feature(lsp.INITIALIZE)
def initialize(ls: TrainlintServer, params: lsp.InitializeParams) -> None:
    opts = params.initialization_options
    try:
        ls.state.overrides = Overrides.from_json(opts)
    except ValueError as exc:
        ls.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, f"trainlint: initializationOptions: {exc}"))
    if isinstance(opts, dict) and isinstance(opts.get("debounce_ms"), (int, float)):
        ls.state.debounce = max(0.0, float(opts["debounce_ms"]) / 1000)
    folders = [f.uri for f in params.workspace_folders or []] or ([params.root_uri] if params.root_uri else [])
    for uri in folders:
        path = _path(uri)
        if path is not None:
            ls.add_folder(path)


@server.feature(lsp.INITIALIZED)
async def initialized(ls: TrainlintServer, params: lsp.InitializedParams) -> None:
    caps = ls.client_capabilities.workspace
    watch = caps is not None and caps.did_change_watched_files is not None and \
        caps.did_change_watched_files.dynamic_registration
    if watch:
        globs = ["**/pyproject.toml", "**/trainlint.toml", "**/*.yaml", "**/*.yml", "**/*.json", "**/*.py"]
        try:
            await ls.client_register_capability_async(lsp.RegistrationParams(registrations=[lsp.Registration(
                id="trainlint-watch", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=lsp.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[lsp.FileSystemWatcher(glob_pattern=g) for g in globs]))]))
        except Exception as exc:   # a client that refuses: the stamps still catch changes at the next lint
            log.info("file watching not registered: %s", exc)


@server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: TrainlintServer, params: lsp.DidChangeConfigurationParams) -> None:
    settings = params.settings
    if not (isinstance(settings, dict) and settings):
        caps = ls.client_capabilities.workspace
        if caps is not None and caps.configuration:
            got = await ls.workspace_configuration_async(lsp.ConfigurationParams(
                items=[lsp.ConfigurationItem(section="trainlint")]))
            settings = got[0] if got else None
    try:
        ls.state.overrides = Overrides.from_json(settings)
    except ValueError as exc:
        ls.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, f"trainlint: settings: {exc}"))
        return
    ls.state.reported.clear()
    ls.reload()


@server.feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_folders(ls: TrainlintServer, params: lsp.DidChangeWorkspaceFoldersParams) -> None:
    for f in params.event.removed or []:
        path = _path(f.uri)
        if path is not None:
            ls.state.folders.pop(os.path.abspath(path), None)
    for f in params.event.added or []:
        path = _path(f.uri)
        if path is not None:
            ls.add_folder(path)
    ls.schedule_all()


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched(ls: TrainlintServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = _path(change.uri)
        if path is None:
            continue
        for f in ls.state.folders.values():
            if f.owns(path):
                f.forget(path)
    ls.schedule_all()   # each folder's stamps decide whether its settings reload


# ---------------------------------------------------------------------- documents
@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: TrainlintServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.schedule(_path(params.text_document.uri), params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: TrainlintServer, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    nb = ls.workspace.get_notebook_document(cell_uri=uri)
    ls.schedule(_path(nb.uri if nb is not None else uri), uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: TrainlintServer, params: lsp.DidSaveTextDocumentParams) -> None:
    path = _path(params.text_document.uri)
    if path is not None and (os.path.basename(path) in CONFIG_NAMES or path.endswith((".yaml", ".yml"))):
        ls.schedule_all()   # a config or rule file saved: the stamps reload what changed
    else:
        ls.schedule(path)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: TrainlintServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.clear(uri)
    path = _path(uri)
    if path is not None and path.endswith(PYTHON_SUFFIXES):
        ls.schedule(path)   # its text on disk is now the others' context


@server.feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
def nb_open(ls: TrainlintServer, params: lsp.DidOpenNotebookDocumentParams) -> None:
    for c in params.notebook_document.cells:
        ls.state.touched.add(c.document)
    ls.schedule(_path(params.notebook_document.uri))


@server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
def nb_change(ls: TrainlintServer, params: lsp.DidChangeNotebookDocumentParams) -> None:
    ch = params.change.cells
    if ch is not None:
        for t in ch.text_content or []:
            ls.state.touched.add(t.document.uri)
        if ch.structure is not None:
            for c in ch.structure.did_close or []:
                ls.clear(c.uri)
    ls.schedule(_path(params.notebook_document.uri))


@server.feature(lsp.NOTEBOOK_DOCUMENT_DID_SAVE)
def nb_save(ls: TrainlintServer, params: lsp.DidSaveNotebookDocumentParams) -> None:
    ls.schedule(_path(params.notebook_document.uri))


@server.feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
def nb_close(ls: TrainlintServer, params: lsp.DidCloseNotebookDocumentParams) -> None:
    for c in params.cell_text_documents:
        ls.clear(c.uri)
    ls.schedule(_path(params.notebook_document.uri))


# ---------------------------------------------------------------------- hover and code actions
@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: TrainlintServer, params: lsp.HoverParams) -> Optional[lsp.Hover]:
    shown = ls.state.shown.get(params.text_document.uri)
    if shown is None:
        return None
    p = params.position
    for f, d in zip(shown.findings, shown.diagnostics):
        r = d.range
        if (r.start.line, r.start.character) <= (p.line, p.character) <= (r.end.line, r.end.character):
            folder = ls.folder_for(shown.path)
            rule = rule_of(folder, f.rule)
            if rule is None or folder.settings is None:
                return None
            text = convert.hover_markdown(rule, folder.settings.packs, folder.settings.lang, f.message)
            return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text), range=r)
    return None


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
    code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.SourceFixAll, FIX_ALL_KIND],
    resolve_provider=True))
async def code_action(ls: TrainlintServer, params: lsp.CodeActionParams) -> List[lsp.CodeAction]:
    uri = params.text_document.uri
    shown = ls.state.shown.get(uri)
    if shown is None:
        return []
    try:
        current = ls.workspace.get_text_document(uri).source
    except Exception:
        return []
    if current != shown.text:
        return []   # positions are from an older text; the next publish brings fresh ones
    only = params.context.only
    want_quick = not only or any(str(k).startswith(lsp.CodeActionKind.QuickFix) for k in only)
    want_all = not only or any(FIX_ALL_KIND.startswith(str(k)) or str(k) == FIX_ALL_KIND for k in only)
    folder = ls.folder_for(shown.path)
    enc = convert.encoding_of(ls.workspace.position_encoding)
    lines = convert.Lines(shown.text, enc)
    actions: List[lsp.CodeAction] = []
    loop = asyncio.get_running_loop()
    picked = [(f, d) for f, d in zip(shown.findings, shown.diagnostics) if convert.overlaps(d.range, params.range)]
    safe_here = False
    if want_quick and picked and shown.cell is None:
        fixes = await loop.run_in_executor(None, fixes_for, folder, [f for f, _ in picked], shown.text)
        safe_here = any(fx.safe for fx in fixes)
        by_finding = {id(fx.finding): fx for fx in fixes}
        lang = folder.settings.lang if folder.settings is not None else "en"
        for f, d in picked:
            fx = by_finding.get(id(f))
            if fx is None:
                continue
            title = fx.spec.text("title", lang) or f"Fix {f.rule}"
            actions.append(lsp.CodeAction(
                title=f"{title} ({f.rule})" if fx.safe else f"{title} ({f.rule}, unsafe: review the change)",
                kind=lsp.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=fx.safe,
                edit=_edit(uri, shown.version, convert.text_edits(fx.edits, lines))))
    if want_quick and picked:
        for f, d in picked:
            line = f.cell.span.line if f.cell is not None else f.span.line
            actions.append(lsp.CodeAction(
                title=f"Suppress {f.rule} on this line (# trainlint: ignore[{f.rule}])", kind=lsp.CodeActionKind.QuickFix,
                diagnostics=[d], edit=_edit(uri, shown.version, [convert.suppression_edit(lines, line, f.rule)])))
    if want_all and shown.cell is None and shown.findings:
        title = "trainlint: fix all safe fixes in this file"
        if only:   # asked for (fix on save, the Source Action menu): computed now
            edit = await _fix_all_edit(ls, folder, shown, uri, lines)
            if edit is not None:
                actions.append(lsp.CodeAction(title=title, kind=FIX_ALL_KIND, edit=edit))
        elif safe_here:
            # offered beside a safe quick fix; the fix rounds (several lints) run only when chosen,
            # through codeAction/resolve where the client has it
            action = lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix,
                                    data={"fix_all": uri, "version": shown.version})
            if not _resolves_edits(ls):
                action.edit = await _fix_all_edit(ls, folder, shown, uri, lines)
            if action.edit is not None or _resolves_edits(ls):
                actions.append(action)
    return actions


@server.feature(lsp.CODE_ACTION_RESOLVE)
async def resolve_code_action(ls: TrainlintServer, action: lsp.CodeAction) -> lsp.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    uri = data.get("fix_all")
    shown = ls.state.shown.get(uri) if isinstance(uri, str) else None
    if shown is None or shown.version != data.get("version") or action.edit is not None:
        return action   # the file changed since: no edit (the client asks again)
    lines = convert.Lines(shown.text, convert.encoding_of(ls.workspace.position_encoding))
    action.edit = await _fix_all_edit(ls, ls.folder_for(shown.path), shown, uri, lines)
    return action


def _resolves_edits(ls: TrainlintServer) -> bool:
    caps = ls.client_capabilities.text_document
    ca = caps.code_action if caps is not None else None
    support = ca.resolve_support if ca is not None else None
    return bool(support and "edit" in (support.properties or []))


async def _fix_all_edit(ls: TrainlintServer, folder: Folder, shown: "Shown", uri: str,
                        lines: convert.Lines) -> Optional[lsp.WorkspaceEdit]:
    others = {p: d[2] for p, d in ls.open_documents(folder).items() if p != shown.path}
    fixed = await asyncio.get_running_loop().run_in_executor(None, _fix_all, folder, shown, others)
    if fixed is None or fixed == shown.text:
        return None
    return _edit(uri, shown.version, [convert.whole_text_edit(lines, fixed)])


def _edit(uri: str, version: Optional[int], edits: List[lsp.TextEdit]) -> lsp.WorkspaceEdit:
    if version is None:
        return lsp.WorkspaceEdit(changes={uri: edits})
    return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits)])


def _fix_all(folder: Folder, shown: Shown, others: Dict[str, bytes]) -> Optional[str]:
    """Every safe fix of the file, in rounds as ``check --fix`` applies them (each round lints
    the file again with the project around it); the other open files are context, not fixed."""
    from linter.discover import display_path
    from linter.fix.run import fix_loop
    from linter.pipeline import RunResult

    if folder.settings is None:
        return None
    rel = display_path(shown.path, folder.root)   # the findings' own path

    def lint(overlay: Dict[str, str]) -> RunResult:
        text = overlay.get(rel, shown.text)
        out = folder.lint({**others, shown.path: text.encode("utf-8", "surrogatepass")})
        return RunResult(out.findings.get(shown.path, []), [], 1, sources={rel: text})

    outcome = fix_loop(lint, folder.settings.packs.rules, False, lambda p, t: None if p == rel else "not this file")
    return outcome.fixed.get(rel, shown.text)


def serve() -> int:
    """Run the server on stdin/stdout until the client says exit."""
    logging.basicConfig(level=logging.WARNING, format="trainlint-server %(levelname)s: %(message)s")
    server.start_io()
    return 0
