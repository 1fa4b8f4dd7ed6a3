"""Audit on the terminal (rich): per project one row per checklist item with a coloured status
and what decided it, the findings under the items that have them, the counts, and the
migration risks. Plain text when not a terminal or NO_COLOR is set."""
from __future__ import annotations

import os
from typing import Optional, TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from linter.audit.labels import label, summary_line
from linter.audit.model import FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE, AuditResult
from linter.audit.render_markdown import summary

_STYLE = {FOUND: "bold red", MANUAL: "yellow", NO_ISSUE: "green", NOT_APPLICABLE: "dim"}
_ORDER = (FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE)


def write_rich(out: TextIO, result: AuditResult, lang: str, color: Optional[bool] = None) -> None:
    if color is None and os.environ.get("NO_COLOR"):
        color = False
    tty = out.isatty() if hasattr(out, "isatty") else False
    console = Console(file=out, force_terminal=color, no_color=(color is False) or None, highlight=False,
                      width=None if (color or tty) else 160)
    if not result.projects:
        console.print(label("no_projects", lang))
    for p in result.projects:
        table = Table(title=f"{label('project', lang)} {p.path}  ({', '.join(p.frameworks) or '-'}; "
                            f"{label('entries', lang)}: {', '.join(os.path.basename(x) for x in p.entries) or '-'})",
                      title_justify="left", show_lines=False)
        table.add_column(label("item", lang), no_wrap=True)
        table.add_column(label("status", lang), no_wrap=True)
        table.add_column(label("details", lang), overflow="fold")
        for it in p.items:
            table.add_row(Text(f"{it.id} {it.title}"), Text(label(it.status, lang), style=_STYLE[it.status]),
                          Text(summary(it, lang)))
        console.print(table)
        for it in p.items:
            for f in it.findings:
                line = Text("  ")
                line.append(f"{f.path}:{f.span.line}:{f.span.column}", style="bold")
                line.append(f" {f.rule} [{it.id}] ", style="red")
                line.append(f.message)
                console.print(line)
        counts = Text("  ")
        for s in _ORDER:
            counts.append(f"{label(s, lang)} {p.count(s)}", style=_STYLE[s])
            counts.append("   ")
        console.print(counts)
        if p.migration_target and p.risks:
            console.print(Text(f"  {label('risks', lang)} → {p.migration_target}: {len(p.risks)}", style="bold"))
            for r in p.risks:
                advice = r.write or r.note
                console.print(Text(f"    {r.path}:{r.line} {r.api} {r.parameter}={r.value} → {r.target_api}: {advice} "
                                   f"({label('kind_' + r.kind, lang)})"))
        console.print()
    console.print(Text(summary_line(result, lang), style="bold"))
    for d in result.errors:
        console.print(Text(f"{d.location}: {d.kind.value}: {d.message}", style="red" if d.fatal else "yellow"))
