"""What the client tells the server: the lifecycle, settings, workspace folders, watched files,
and the open documents (text files and notebooks). Each document notification schedules a lint
(:meth:`linter.server.app.TrainlintServer.schedule`); nothing is linted here."""
from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, List

from lsprotocol import types as lsp

from linter.server.engine import CONFIG_NAMES, Overrides
from linter.server.state import PYTHON_SUFFIXES, Feature, collector, fs_path
from linter.server.state import register as _register

if TYPE_CHECKING:
    from linter.server.app import TrainlintServer

_FEATURES: List[Feature] = []
feature = collector(_FEATURES)


def register(server: "TrainlintServer") -> None:
    """Register this module's handlers on ``server``."""
    _register(server, _FEATURES)


log = logging.getLogger("trainlint.server")


# ---------------------------------------------------------------------- lifecycle and settings
@feature(lsp.INITIALIZE)
def initialize(ls: "TrainlintServer", params: lsp.InitializeParams) -> None:
    opts = params.initialization_options
    try:
        ls.state.overrides = Overrides.from_json(opts)
    except ValueError as exc:
        ls.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, f"trainlint: initializationOptions: {exc}"))
    if isinstance(opts, dict) and isinstance(opts.get("debounce_ms"), (int, float)):
        ls.state.debounce = max(0.0, float(opts["debounce_ms"]) / 1000)
    folders = [f.uri for f in params.workspace_folders or []] or ([params.root_uri] if params.root_uri else [])
    for uri in folders:
        path = fs_path(uri)
        if path is not None:
            ls.add_folder(path)


@feature(lsp.INITIALIZED)
async def initialized(ls: "TrainlintServer", params: lsp.InitializedParams) -> None:
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


@feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: "TrainlintServer", params: lsp.DidChangeConfigurationParams) -> None:
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


@feature(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_folders(ls: "TrainlintServer", params: lsp.DidChangeWorkspaceFoldersParams) -> None:
    for f in params.event.removed or []:
        path = fs_path(f.uri)
        if path is not None:
            ls.state.folders.pop(os.path.abspath(path), None)
    for f in params.event.added or []:
        path = fs_path(f.uri)
        if path is not None:
            ls.add_folder(path)
    ls.schedule_all()


@feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched(ls: "TrainlintServer", params: lsp.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = fs_path(change.uri)
        if path is None:
            continue
        for f in ls.state.folders.values():
            if f.owns(path):
                f.forget(path)
    ls.schedule_all()   # each folder's stamps decide whether its settings reload


# ---------------------------------------------------------------------- documents
@feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: "TrainlintServer", params: lsp.DidOpenTextDocumentParams) -> None:
    ls.schedule(fs_path(params.text_document.uri), params.text_document.uri)


@feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: "TrainlintServer", params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    nb = ls.workspace.get_notebook_document(cell_uri=uri)
    ls.schedule(fs_path(nb.uri if nb is not None else uri), uri)


@feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: "TrainlintServer", params: lsp.DidSaveTextDocumentParams) -> None:
    path = fs_path(params.text_document.uri)
    if path is not None and (os.path.basename(path) in CONFIG_NAMES or path.endswith((".yaml", ".yml"))):
        ls.schedule_all()   # a config or rule file saved: the stamps reload what changed
    else:
        ls.schedule(path)


@feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: "TrainlintServer", params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.clear(uri)
    path = fs_path(uri)
    if path is not None and path.endswith(PYTHON_SUFFIXES):
        ls.schedule(path)   # its text on disk is now the others' context


@feature(lsp.NOTEBOOK_DOCUMENT_DID_OPEN)
def nb_open(ls: "TrainlintServer", params: lsp.DidOpenNotebookDocumentParams) -> None:
    for c in params.notebook_document.cells:
        ls.state.touched.add(c.document)
    ls.schedule(fs_path(params.notebook_document.uri))


@feature(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE)
def nb_change(ls: "TrainlintServer", params: lsp.DidChangeNotebookDocumentParams) -> None:
    ch = params.change.cells
    if ch is not None:
        for t in ch.text_content or []:
            ls.state.touched.add(t.document.uri)
        if ch.structure is not None:
            for c in ch.structure.did_close or []:
                ls.clear(c.uri)
    ls.schedule(fs_path(params.notebook_document.uri))


@feature(lsp.NOTEBOOK_DOCUMENT_DID_SAVE)
def nb_save(ls: "TrainlintServer", params: lsp.DidSaveNotebookDocumentParams) -> None:
    ls.schedule(fs_path(params.notebook_document.uri))


@feature(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE)
def nb_close(ls: "TrainlintServer", params: lsp.DidCloseNotebookDocumentParams) -> None:
    for c in params.cell_text_documents:
        ls.clear(c.uri)
    ls.schedule(fs_path(params.notebook_document.uri))
