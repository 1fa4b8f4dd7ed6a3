"""Audit as Markdown: a summary table per project, then every item's findings, evidence, facts
and what to check by hand, then the migration risk inventory. Paste-able into an issue or PR."""
from __future__ import annotations

from typing import List, TextIO

from linter.audit.labels import label, summary_line
from linter.audit.model import FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE, AuditResult, ItemResult, ProjectResult

_ICON = {FOUND: "❌", MANUAL: "🔍", NO_ISSUE: "✅", NOT_APPLICABLE: "➖"}


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def code(text: str) -> str:
    text = text.replace("`", "'")
    return f"`{text}`" if text else ""


def summary(item: ItemResult, lang: str) -> str:
    """One line: what decided the status."""
    if item.findings:
        f = item.findings[0]
        more = f" (+{len(item.findings) - 1})" if len(item.findings) > 1 else ""
        return f"{f.rule} {f.path}:{f.span.line}{more}"
    if item.status == NOT_APPLICABLE:
        return item.reason
    if item.status == NO_ISSUE and item.evidence:
        e = item.evidence[0]
        return f"{e.note}: {e.path}:{e.line}"
    if item.facts:
        return ", ".join(f"{f.name}={f.value}" for f in item.facts[:3])
    return item.how_to_check


def counts_line(p: ProjectResult, lang: str) -> str:
    return " · ".join(f"{_ICON[s]} {label(s, lang)} {p.count(s)}" for s in (FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE))


def write_markdown(out: TextIO, result: AuditResult, lang: str) -> None:
    w = out.write
    w(f"# {label('title', lang)}: `{result.root}`\n\n")
    if not result.projects:
        w(label("no_projects", lang) + "\n")
    w(summary_line(result, lang) + "\n\n")
    if len(result.projects) > 1:
        w(f"| {label('project', lang)} | {label('frameworks', lang)} | " + " | ".join(label(s, lang) for s in (FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE)) + " |\n")
        w("|---|---|---:|---:|---:|---:|\n")
        for p in result.projects:
            w(f"| [{cell(p.path)}](#{_anchor(p.path)}) | {', '.join(p.frameworks)} | "
              + " | ".join(str(p.count(s)) for s in (FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE)) + " |\n")
        w("\n")
    for p in result.projects:
        _project(out, p, lang)
    if result.errors:
        w(f"## {label('errors', lang)}\n\n")
        for e in result.errors:
            w(f"- `{e.location}` ({e.kind.value}): {e.message}\n")


def _anchor(path: str) -> str:
    return "project-" + "".join(c if c.isalnum() else "-" for c in path.lower()).strip("-")


def _project(out: TextIO, p: ProjectResult, lang: str) -> None:
    w = out.write
    w(f"<a id=\"{_anchor(p.path)}\"></a>\n\n## {label('project', lang)} `{p.path}`\n\n")
    w(f"- {label('entries', lang)}: {', '.join(code(e) for e in p.entries) or label('none', lang)}\n")
    w(f"- {label('frameworks', lang)}: {', '.join(p.frameworks) or label('none', lang)}\n")
    w(f"- {label('files', lang)}: {len(p.files)}\n- {counts_line(p, lang)}\n\n")
    w(f"| {label('item', lang)} | {label('status', lang)} | {label('details', lang)} |\n|---|---|---|\n")
    for it in p.items:
        w(f"| {it.id} {cell(it.title)} | {_ICON[it.status]} {label(it.status, lang)} | {cell(summary(it, lang))} |\n")
    w("\n")
    for it in p.items:
        if it.status == NOT_APPLICABLE:
            continue
        lines: List[str] = []
        for f in it.findings:
            lines.append(f"- ❌ `{f.path}:{f.span.line}` {f.rule} ({f.severity.value}): {cell(f.message)}")
        for e in it.evidence:
            lines.append(f"- `{e.path}:{e.line}` {e.note}: {code(e.text)}")
        for fact in it.facts:
            d = f" {label('default', lang)}" if fact.defaulted else ""
            lines.append(f"- {fact.name} = `{fact.value}`{d} (`{fact.path}:{fact.line}`)")
        if it.status == MANUAL or (it.status == FOUND and not it.findings):
            lines.append(f"- {label('how_to_check', lang)}: {it.how_to_check}")
        if it.reason and it.status != NOT_APPLICABLE:
            lines.append(f"- {it.reason}")
        if lines:
            w(f"### {it.id} {it.title} — {label(it.status, lang)}\n\n" + "\n".join(lines) + "\n\n")
    if p.migration_target:
        w(f"### {label('risks', lang)} → {p.migration_target}\n\n")
        if not p.risks:
            w(label("no_risks", lang) + "\n\n")
        else:
            w(label("risks_intro", lang, target=p.migration_target) + "\n\n")
            w(f"| {label('location', lang)} | {label('api', lang)} | {label('parameter', lang)} | {label('value', lang)} | "
              f"{label('counterpart', lang)} | {label('write', lang)} |\n|---|---|---|---|---|---|\n")
            for r in p.risks:
                write = code(r.write) if r.write else cell(r.note)
                w(f"| `{r.path}:{r.line}` | `{r.api}` | {r.parameter} | `{cell(r.value)}` | `{r.target_api}` ({cell(r.target_default)}) "
                  f"| {write} ({label('kind_' + r.kind, lang)}) |\n")
            w("\n")
    if p.notes:
        w(f"### {label('notes', lang)}\n\n" + "".join(f"- {cell(n)}\n" for n in p.notes) + "\n")
