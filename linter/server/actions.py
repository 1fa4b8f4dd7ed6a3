"""What the server answers on request: hover (a finding's rule docs) and code actions (the
declarative fixes, suppression, fix-all and ``source.fixAll.trainlint``, with
``codeAction/resolve``). Edits are returned as workspace edits; nothing is written here."""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Dict, List, Optional

from lsprotocol import types as lsp

from linter.engine.units import RunResult
from linter.fix.run import fix_loop
from linter.server import convert
from linter.server.engine import Folder, fixes_for, rule_of
from linter.server.state import Feature, Shown, collector
from linter.server.state import register as _register
from linter.source.discover import display_path

if TYPE_CHECKING:
    from linter.server.app import TrainlintServer

FIX_ALL_KIND = "source.fixAll.trainlint"


# ---------------------------------------------------------------------- hover and code actions
_FEATURES: List[Feature] = []
feature = collector(_FEATURES)


def register(server: "TrainlintServer") -> None:
    """Register this module's handlers on ``server``."""
    _register(server, _FEATURES)


@feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: "TrainlintServer", params: lsp.HoverParams) -> Optional[lsp.Hover]:
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


@feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
    code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.SourceFixAll, FIX_ALL_KIND],
    resolve_provider=True))
async def code_action(ls: "TrainlintServer", params: lsp.CodeActionParams) -> List[lsp.CodeAction]:
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
    want_all = not only or any(FIX_ALL_KIND.startswith(str(k)) for k in only)
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
            resolves = _resolves_edits(ls)
            if not resolves:
                action.edit = await _fix_all_edit(ls, folder, shown, uri, lines)
            if action.edit is not None or resolves:
                actions.append(action)
    return actions


@feature(lsp.CODE_ACTION_RESOLVE)
async def resolve_code_action(ls: "TrainlintServer", action: lsp.CodeAction) -> lsp.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    uri = data.get("fix_all")
    shown = ls.state.shown.get(uri) if isinstance(uri, str) else None
    if shown is None or not isinstance(uri, str) or shown.version != data.get("version") or action.edit is not None:
        return action   # the file changed since: no edit (the client asks again)
    lines = convert.Lines(shown.text, convert.encoding_of(ls.workspace.position_encoding))
    action.edit = await _fix_all_edit(ls, ls.folder_for(shown.path), shown, uri, lines)
    return action


def _resolves_edits(ls: "TrainlintServer") -> bool:
    caps = ls.client_capabilities.text_document
    ca = caps.code_action if caps is not None else None
    support = ca.resolve_support if ca is not None else None
    return bool(support and "edit" in (support.properties or []))


async def _fix_all_edit(ls: "TrainlintServer", folder: Folder, shown: "Shown", uri: str,
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
    """Every safe fix of the file, in rounds as ``check --fix`` applies them: the first from the
    findings already shown for this text, each later one after linting the fixed text with the
    project around it; the other open files are context, not fixed."""
    if folder.settings is None:
        return None
    rel = display_path(shown.path, folder.root)   # the findings' own path

    def lint(overlay: Dict[str, str]) -> RunResult:
        if rel not in overlay:   # the text as published: its findings are the ones shown
            return RunResult(list(shown.findings), [], 1, sources={rel: shown.text})
        text = overlay[rel]
        out = folder.lint({**others, shown.path: text.encode("utf-8", "surrogatepass")})
        return RunResult(out.findings.get(shown.path, []), [], 1, sources={rel: text})

    outcome = fix_loop(lint, folder.settings.packs.rules, False, lambda p, t: None if p == rel else "not this file")
    return outcome.fixed.get(rel, shown.text)
