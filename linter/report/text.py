"""The default, human-oriented report: findings grouped by file with the flagged source
lines, then a summary by checklist item. Rendered with rich; plain text (no colour) when the
output is not a terminal or ``NO_COLOR`` is set."""
from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING, Any, Dict, List, Optional, TextIO, Tuple

from linter.core.model import Diagnostic, Finding, Severity
from linter.report.common import hidden_info_line, related_lines

if TYPE_CHECKING:
    from linter.engine.units import RunResult

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
_ZH = {
    "findings": "个问题", "in": "涉及", "files": "个文件", "checked": "已检查", "no_findings": "未发现问题",
    "errors": "个文件无法检查", "by_item": "按检查项汇总", "warnings": "条警告",
}


def write(out: TextIO, findings: List[Finding], errors: List[Diagnostic], files: int,
          result: Optional["RunResult"], checklist: Dict[str, Dict[str, Dict[str, str]]], lang: str = "en",
          color: Optional[bool] = None, quiet: bool = False, baseline: Optional[Dict[str, Any]] = None,
          fixable: Optional[Tuple[int, int]] = None, hidden_info: int = 0) -> None:
    """``result`` supplies the source lines shown under each finding (None: no source);
    ``fixable`` (findings with a safe fix, with an unsafe fix) adds the hint to use ``--fix``;
    ``hidden_info`` is the number of ``info`` findings left out, said in one line."""
    # imported where it is used: rich is slow to import (start-up time)
    from rich.console import Console
    from rich.text import Text

    if color is None and os.environ.get("NO_COLOR"):
        color = False  # https://no-color.org: no escape codes at all, not even bold
    console = Console(file=out, force_terminal=color, no_color=(color is False) or None, highlight=False,
                      soft_wrap=True, width=120 if not (color or out.isatty()) else None)
    zh = lang == "zh"
    current = None
    for f in findings:
        if f.path != current:
            current = f.path
            console.print(Text(f.path, style="bold underline"))
        head = Text()
        pos = f.cell.span if f.cell is not None else f.span
        head.append(f"  {'cell ' + str(f.cell.cell) + ':' if f.cell is not None else ''}{pos.line}:{pos.column} ", style="dim")
        head.append(f"{f.rule} ", style="bold")
        head.append(f"[{f.checklist}] ", style="magenta")
        head.append(f.severity.value, style=_STYLE[f.severity])
        head.append(f" {f.name}", style="dim")
        fix = f.data.get("fix")
        if isinstance(fix, dict):
            safe = fix.get("applicability") == "safe"
            head.append((" [*] 可自动修复" if safe else " [*] 可自动修复（不安全）") if zh else
                        (" [*] fixable" if safe else " [*] fixable with --unsafe-fixes"), style="cyan")
        console.print(head)
        console.print(Text("    " + f.message))
        lines, span = result.lines_for(f) if result is not None else ([], f.span)
        if lines:
            last = min(span.end_line, span.line + 2)
            for ln in range(span.line, last + 1):
                if 0 < ln <= len(lines):
                    code = lines[ln - 1].rstrip()
                    row = Text(f"    {ln:>5} | ", style="dim")
                    start = span.column - 1 if ln == span.line else len(code) - len(code.lstrip())
                    end = span.end_column - 1 if ln == span.end_line else len(code)
                    row.append(code[:start])
                    row.append(code[start:end], style=_STYLE[f.severity] + " underline")
                    row.append(code[end:])
                    console.print(row)
        if f.related:
            console.print(Text(f"    {'相关位置' if zh else 'related'} ({len(f.related)}):", style="dim"))
            for place in related_lines(f, lang):
                console.print(Text(f"      {place}", style="dim"))
        console.print()
    for e in errors:
        where = e.path + (f":cell {e.cell.cell}:{e.cell.span.line}" if e.cell is not None
                          else f":{e.line}" if e.line else "")
        style = "bold red" if e.fatal else "yellow"
        console.print(Text(f"{where}: ", style="bold") + Text(f"{e.kind.value} {'error' if e.fatal else 'warning'}: ", style=style)
                      + Text(e.message))
    fatal = sum(1 for e in errors if e.fatal)
    if quiet:
        return
    if baseline is not None:
        note = (f"基线 {baseline['path']} 中已记录 {baseline['matched']} 个问题，未显示" if zh else
                f"{baseline['matched']} finding{'s' if baseline['matched'] != 1 else ''} recorded in the baseline "
                f"{baseline['path']} not shown")
        if baseline["stale"]:
            note += (f"；基线中有 {baseline['stale']} 条已不再出现（可用 --write-baseline 更新）" if zh else
                     f"; {baseline['stale']} baseline entr{'ies' if baseline['stale'] != 1 else 'y'} no longer "
                     "occur (refresh with --write-baseline)")
        console.print(Text(note + ("。" if zh else "."), style="dim"))
    if findings:
        n_files = len({f.path for f in findings})
        summary = (f"{len(findings)} {_ZH['findings']}，{_ZH['in']} {n_files} {_ZH['files']}（{_ZH['checked']} {files} {_ZH['files']}）"
                   if zh else f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''} in {n_files} "
                   f"file{'s' if n_files != 1 else ''} ({files} checked).")
        console.print(Text(summary, style="bold"))
        console.print(Text(_ZH["by_item"] if zh else "By checklist item:", style="bold"))
        by_item = Counter(f.checklist for f in findings)
        for item, n in sorted(by_item.items()):
            title = (checklist.get(item, {}).get("title", {}) or {}).get(lang) or ""
            console.print(Text(f"  {item:<7} {n:>4}  {title}"))
        if fixable is not None and hidden_info:
            fixable = _fixable(findings)   # the hint counts what is shown
        if fixable is not None and any(fixable):
            safe_n, unsafe_n = fixable
            parts = []
            if safe_n:
                parts.append(f"{safe_n} 个可用 `trainlint check --fix` 修复" if zh else f"{safe_n} fixable with `trainlint check --fix`")
            if unsafe_n:
                parts.append(f"{unsafe_n} 个可用 `--fix --unsafe-fixes` 修复" if zh else f"{unsafe_n} fixable with `--fix --unsafe-fixes`")
            console.print(Text(("，" if zh else ", ").join(parts) + ("。" if zh else "."), style="cyan"))
    elif hidden_info:
        console.print(Text(f"未发现 warning 或 error 级问题（{_ZH['checked']} {files} {_ZH['files']}）" if zh
                           else f"No warnings or errors ({files} file{'s' if files != 1 else ''} checked).",
                           style="bold green"))
    else:
        console.print(Text(f"{_ZH['no_findings']}（{_ZH['checked']} {files} {_ZH['files']}）" if zh
                           else f"No findings ({files} file{'s' if files != 1 else ''} checked).", style="bold green"))
    if hidden_info:
        console.print(Text(hidden_info_line(hidden_info, lang), style="dim"))
    if fatal:
        console.print(Text(f"{fatal} {_ZH['errors']}" if zh else
                           f"{fatal} problem{'s' if fatal != 1 else ''} prevented checking (see above).", style="bold red"))


def _fixable(findings: List[Finding]) -> Tuple[int, int]:
    """(findings with a safe fix, with an unsafe fix) among ``findings``."""
    kinds = [f.data["fix"].get("applicability") for f in findings if isinstance(f.data.get("fix"), dict)]
    return sum(1 for k in kinds if k == "safe"), sum(1 for k in kinds if k != "safe")
