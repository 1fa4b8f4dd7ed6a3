"""Audit as one self-contained HTML file: inline CSS, no scripts, no network resources (it is
opened from CI artifacts and mail attachments). An index of the projects, then per project the
checklist with every finding, evidence as ``file:line``, facts and the migration risks."""
from __future__ import annotations

import html
from typing import List, TextIO

from linter.audit.labels import label, summary_line
from linter.audit.model import FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE, AuditResult, ProjectResult
from linter.audit.render_markdown import summary

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1f2328;line-height:1.45}
h1{font-size:1.6rem}h2{margin-top:2.5rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}
table{border-collapse:collapse;width:100%;margin:.8rem 0}th,td{border:1px solid #d0d7de;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;background:#f6f8fa;padding:0 .2em;border-radius:3px}
.status{font-weight:600;white-space:nowrap;border-radius:1em;padding:.05rem .6rem;display:inline-block}
.found{background:#ffebe9;color:#a40e26}.manual{background:#fff8c5;color:#7d4e00}.no-issue{background:#dafbe1;color:#116329}
.not-applicable{background:#eaeef2;color:#57606a}details{margin:.2rem 0}summary{cursor:pointer}
ul{margin:.2rem 0 .2rem 1.2rem;padding:0}td code{word-break:break-word}.muted{color:#57606a}.counts span{margin-right:1rem}
"""
_ORDER = (FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE)


def e(text: object) -> str:
    return html.escape(str(text), quote=True)


def anchor(path: str) -> str:
    return "p-" + "".join(c if c.isalnum() else "-" for c in path.lower()).strip("-")


def badge(status: str, lang: str) -> str:
    return f'<span class="status {status}">{e(label(status, lang))}</span>'


def write_html(out: TextIO, result: AuditResult, lang: str) -> None:
    w = out.write
    title = f"{label('title', lang)}: {result.root}"
    w(f'<!DOCTYPE html>\n<html lang="{"zh-CN" if lang == "zh" else "en"}">\n<head>\n<meta charset="utf-8">\n'
      f'<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>{e(title)}</title>\n'
      f"<style>{_CSS}</style>\n</head>\n<body>\n<h1>{e(title)}</h1>\n")
    w(f'<p class="counts">{e(summary_line(result, lang))}</p>\n')
    if not result.projects:
        w(f"<p>{e(label('no_projects', lang))}</p>\n")
    w(f'<nav id="index"><h2>{e(label("index", lang))}</h2>\n<table>\n<thead><tr><th>{e(label("project", lang))}</th>'
      f'<th>{e(label("frameworks", lang))}</th>' + "".join(f"<th>{badge(s, lang)}</th>" for s in _ORDER) + "</tr></thead>\n<tbody>\n")
    for p in result.projects:
        w(f'<tr><td><a href="#{anchor(p.path)}">{e(p.path)}</a></td><td>{e(", ".join(p.frameworks))}</td>'
          + "".join(f"<td>{p.count(s)}</td>" for s in _ORDER) + "</tr>\n")
    w("</tbody>\n</table>\n</nav>\n")
    for p in result.projects:
        _project(out, p, lang)
    if result.errors:
        w(f"<h2>{e(label('errors', lang))}</h2>\n<ul>\n")
        for d in result.errors:
            w(f"<li><code>{e(d.location)}</code> ({e(d.kind.value)}): {e(d.message)}</li>\n")
        w("</ul>\n")
    w("</body>\n</html>\n")


def _project(out: TextIO, p: ProjectResult, lang: str) -> None:
    w = out.write
    w(f'<section class="project" id="{anchor(p.path)}">\n<h2>{e(label("project", lang))} <code>{e(p.path)}</code></h2>\n')
    entries = ", ".join(f"<code>{e(x)}</code>" for x in p.entries) or e(label("none", lang))
    w(f"<p>{e(label('entries', lang))}: {entries}<br>{e(label('frameworks', lang))}: {e(', '.join(p.frameworks) or label('none', lang))}"
      f"<br>{e(label('files', lang))}: {len(p.files)}</p>\n")
    w('<p class="counts">' + "".join(f"<span>{badge(s, lang)} {p.count(s)}</span>" for s in _ORDER) + "</p>\n")
    w(f'<table class="checklist">\n<thead><tr><th>{e(label("item", lang))}</th><th>{e(label("status", lang))}</th>'
      f'<th>{e(label("details", lang))}</th></tr></thead>\n<tbody>\n')
    for it in p.items:
        parts: List[str] = []
        for f in it.findings:
            parts.append(f"<li><code>{e(f.path)}:{f.span.line}</code> <b>{e(f.rule)}</b> ({e(f.severity.value)}): {e(f.message)}</li>")
        for ev in it.evidence:
            parts.append(f"<li><code>{e(ev.path)}:{ev.line}</code> {e(ev.note)}: <code>{e(ev.text)}</code></li>")
        for fv in it.facts:
            d = f" {e(label('default', lang))}" if fv.defaulted else ""
            parts.append(f"<li>{e(fv.name)} = <code>{e(fv.value)}</code>{d} <span class=\"muted\">({e(fv.path)}:{fv.line})</span></li>")
        body = f"<ul>{''.join(parts)}</ul>" if parts else ""
        extra = ""
        if it.status in (MANUAL, FOUND):
            extra += f"<p><b>{e(label('how_to_check', lang))}:</b> {e(it.how_to_check)}</p>"
        if it.reason and it.status != NOT_APPLICABLE:
            extra += f'<p class="muted">{e(it.reason)}</p>'
        detail = e(summary(it, lang))
        if body or extra:
            detail = f"<details{' open' if it.status == FOUND else ''}><summary>{detail}</summary>{body}{extra}</details>"
        w(f'<tr class="item {it.status}" id="{anchor(p.path)}-{e(it.id)}"><td><b>{e(it.id)}</b> {e(it.title)}</td>'
          f"<td>{badge(it.status, lang)}</td><td>{detail}</td></tr>\n")
    w("</tbody>\n</table>\n")
    if p.migration_target:
        w(f"<h3>{e(label('risks', lang))} → {e(p.migration_target)}</h3>\n")
        if not p.risks:
            w(f"<p>{e(label('no_risks', lang))}</p>\n")
        else:
            w(f"<p>{e(label('risks_intro', lang, target=p.migration_target))}</p>\n<table class=\"risks\">\n<thead><tr>"
              + "".join(f"<th>{e(label(k, lang))}</th>" for k in ("location", "api", "parameter", "value", "counterpart", "write"))
              + "</tr></thead>\n<tbody>\n")
            for r in p.risks:
                write = f"<code>{e(r.write)}</code>" if r.write else e(r.note)
                w(f"<tr><td><code>{e(r.path)}:{r.line}</code></td><td><code>{e(r.api)}</code></td><td>{e(r.parameter)}</td>"
                  f"<td><code>{e(r.value)}</code></td><td><code>{e(r.target_api)}</code> ({e(r.target_default)})</td>"
                  f"<td>{write} <span class=\"muted\">({e(label('kind_' + r.kind, lang))})</span></td></tr>\n")
            w("</tbody>\n</table>\n")
    if p.notes:
        w(f"<h3>{e(label('notes', lang))}</h3>\n<ul>" + "".join(f"<li>{e(n)}</li>" for n in p.notes) + "</ul>\n")
    w("</section>\n")
