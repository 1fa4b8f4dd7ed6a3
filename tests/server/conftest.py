"""A real LSP client (pytest-lsp) driving ``python -m linter server`` over stdio."""
from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from typing import Any, Dict, List, Optional

import pytest

pytest.importorskip("pytest_lsp", reason="pytest-lsp needs Python 3.10+")
pytest.importorskip("pygls", reason="the server extra (pygls) is not installed")

from lsprotocol import types as lsp  # noqa: E402
from pygls.uris import from_fs_path  # noqa: E402
from pygls.protocol import default_converter  # noqa: E402
from pytest_lsp import LanguageClient, client_capabilities  # noqa: E402
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features  # noqa: E402

from tests.conftest import ROOT  # noqa: E402

TIMEOUT = 30.0


class Session:
    """One server process and its client, with helpers that wait for what the server sends."""

    def __init__(self, client: Any, root: str) -> None:
        self.client = client
        self.root = root
        self.versions: Dict[str, int] = {}
        self.texts: Dict[str, str] = {}

    def uri(self, rel: str) -> str:
        return from_fs_path(os.path.join(self.root, rel))

    async def published(self, uri: str, after: int = 0) -> List[lsp.Diagnostic]:
        """Wait until ``uri`` gets a publish (the count of publishes to it exceeds ``after``)."""
        async def wait() -> None:
            while self.client.publish_counts.get(uri, 0) <= after:
                await asyncio.sleep(0.005)
        await asyncio.wait_for(wait(), TIMEOUT)
        return list(self.client.diagnostics[uri])

    def count(self, uri: str) -> int:
        return self.client.publish_counts.get(uri, 0)

    async def open(self, rel: str, text: Optional[str] = None) -> List[lsp.Diagnostic]:
        uri = self.uri(rel)
        if text is None:
            with open(os.path.join(self.root, rel), encoding="utf-8") as fh:
                text = fh.read()
        before = self.count(uri)
        self.versions[uri] = 1
        self.texts[uri] = text
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, text)))
        return await self.published(uri, before)

    async def change(self, rel: str, text: str, wait_for: Optional[str] = None) -> List[lsp.Diagnostic]:
        """Replace the whole text (a full-text change event); wait for ``wait_for``'s publish
        (default: the changed file's)."""
        uri = self.uri(rel)
        target = self.uri(wait_for) if wait_for else uri
        before = self.count(target)
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(self.versions[uri], uri),
            [lsp.TextDocumentContentChangeWholeDocument(text=text)]))
        return await self.published(target, before)

    async def actions(self, rel: str, rng: lsp.Range, diags: List[lsp.Diagnostic],
                      only: Optional[List[str]] = None) -> List[lsp.CodeAction]:
        return await self.client.text_document_code_action_async(lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(self.uri(rel)), rng, lsp.CodeActionContext(diagnostics=diags, only=only)))


def apply_edits(text: str, edits: List[lsp.TextEdit]) -> str:
    """Apply protocol edits (UTF-16 positions) to ``text``, as an editor does."""
    lines = text.splitlines(keepends=True)

    def offset(p: lsp.Position) -> int:
        base = sum(len(ln) for ln in lines[:p.line])
        line = lines[p.line] if p.line < len(lines) else ""
        units = 0
        for k, ch in enumerate(line):
            if units >= p.character:
                return base + k
            units += 2 if ord(ch) > 0xFFFF else 1
        return base + len(line.rstrip("\r\n"))

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
        lines = text.splitlines(keepends=True)
    return text


def edits_of(action: lsp.CodeAction, uri: str) -> List[lsp.TextEdit]:
    ed = action.edit
    assert ed is not None
    if ed.document_changes:
        return [e for dc in ed.document_changes if dc.text_document.uri == uri for e in dc.edits]
    return list((ed.changes or {}).get(uri, []))


def copy_examples(tmp_path) -> str:
    root = str(tmp_path / "ws")
    shutil.copytree(os.path.join(ROOT, "examples"), root)
    return root


async def start(root: str, init: Optional[Dict[str, Any]] = None, folders: Optional[List[str]] = None,
                client_spec: str = "visual-studio-code") -> Session:
    client = LanguageClient(converter_factory=default_converter)
    client.publish_counts = {}
    client.versions = {}
    client.registrations = []

    def published(client: LanguageClient, params: lsp.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        client.publish_counts[params.uri] = client.publish_counts.get(params.uri, 0) + 1
        client.versions[params.uri] = params.version

    def register(client: LanguageClient, params: lsp.RegistrationParams) -> None:
        client.registrations += list(params.registrations)

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: published,
                                   lsp.CLIENT_REGISTER_CAPABILITY: register})

    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TRAINLINT_CACHE_DIR=os.path.join(os.path.dirname(root), "cache"))
    await client.start_io(sys.executable, "-m", "linter", "server", env=env, cwd=ROOT)
    folders = folders or [root]
    await client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities(client_spec), root_uri=from_fs_path(folders[0]),
        workspace_folders=[lsp.WorkspaceFolder(from_fs_path(f), os.path.basename(f)) for f in folders],
        initialization_options=init))
    return Session(client, root)


@contextlib.asynccontextmanager
async def served(root: str, **kwargs: Any) -> Any:
    """A started session, shut down (shutdown, exit) however the test ends."""
    s = await start(root, **kwargs)
    try:
        yield s
    finally:
        await s.client.shutdown_session()
