"""Compare, stage 4: rows → a rich side-by-side table, Markdown, or JSON for tools.

The rich table is plain text (no escape codes) when the output is not a terminal or
``NO_COLOR`` is set, as ``trainlint check`` does. JSON values: numbers, strings, booleans and
lists as written; ``{"one_of": [...]}`` for a value that depends on the call site,
``{"value": v, "unit": u}`` for a period, ``{"unresolved": "<expression>"}`` when the value could
not be resolved statically, and ``null`` when the setting is absent from that side.
"""
from __future__ import annotations

import json
import math
import os
from typing import Any, Dict, List, Optional, TextIO

from linter import __version__
from linter.compare.mapping import Tables
from linter.compare.model import (
    MATCH,
    MISMATCH,
    ONLY_NEW,
    ONLY_REFERENCE,
    UNKNOWN,
    Comparison,
    Fact,
    Row,
    Symbol,
    Unit,
    Val,
    fmt,
)
from linter.compare.normalize import as_written as _in_convention

_STYLE = {MATCH: "green", MISMATCH: "bold red", ONLY_REFERENCE: "yellow", ONLY_NEW: "yellow", UNKNOWN: "cyan"}


def encode(value: Any) -> Any:
    """A canonical value as JSON."""
    if isinstance(value, Unit):
        return {"value": encode(value.value), "unit": value.unit}
    if isinstance(value, Symbol):
        return value.qual
    if isinstance(value, frozenset):
        return {"one_of": sorted((encode(v) for v in value), key=lambda x: json.dumps(x, sort_keys=True))}
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)   # JSON has no inf/nan
    return value


def _json_value(f: Optional[Fact]) -> Any:
    if f is None:
        return None
    if not f.val.known:
        out: Dict[str, Any] = {"unresolved": f.val.text}
        if f.val.parts:
            out["known"] = {name: encode(v) for name, v in f.val.parts}
        if f.val.by:
            out["computed_by"] = list(f.val.by)
        return out
    return encode(f.val.value)


def unresolved_text(val: Val, tables: Tables, lang: str) -> str:
    """``unresolved: config.epoch_size - config.start_epoch, where config.epoch_size = 90``: the
    expression, never shown as if it were the value, with its parts that are known."""
    text = val.text or "?"
    if val.by:
        text = tables.text("headings", "computed_by", lang).format(text=text, funcs=", ".join(val.by))
    if not val.parts:
        return tables.text("headings", "unresolved", lang).format(text=text)
    parts = "; ".join(f"{name} = {fmt(v)}" for name, v in val.parts)
    return tables.text("headings", "unresolved_parts", lang).format(text=text, parts=parts)


def to_json(c: Comparison) -> Dict[str, Any]:
    """The JSON document (the contract: docs/compare.md)."""
    summary = {v: c.count(v) for v in (MATCH, MISMATCH, UNKNOWN, ONLY_REFERENCE, ONLY_NEW)}
    return {
        "version": __version__,
        "reference": c.reference.path,
        "new": c.new.path,
        "rows": [{
            "key": r.key,
            "reference": _json_value(r.reference),
            "new": _json_value(r.new),
            "verdict": r.verdict,
            "reference_as_written": encode(as_written(r.reference)) if r.reference else None,
            "new_as_written": encode(as_written(r.new)) if r.new else None,
            "reference_location": r.reference.location if r.reference else None,
            "new_location": r.new.location if r.new else None,
            "advice": r.advice,
        } for r in c.rows],
        "summary": summary,
        "warnings": c.reference.notes + c.new.notes,
    }


def write_json(out: TextIO, c: Comparison) -> None:
    json.dump(to_json(c), out, indent=2, ensure_ascii=False)
    out.write("\n")


def _cell(f: Optional[Fact], tables: Tables, lang: str, with_location: bool = True) -> str:
    if f is None:
        return "—"
    if f.val.known:
        text = fmt(f.val.value)
        written = as_written(f)
        if written is not None:
            # 1 - m conventions (BatchNorm momentum, keep_prob) are torch's; other conversions are
            # compare's own units (pixels in [0, 1], named initializers, precision levels)
            heading = "as_written_torch" if f.write[1].get("transform") == "one_minus" else "as_written"  # type: ignore[index]
            text = tables.text("headings", heading, lang).format(written=fmt(written), canonical=text)
        if f.val.defaulted:
            text += f" ({tables.text('headings', 'default', lang)})"
    else:
        text = unresolved_text(f.val, tables, lang)
    if not with_location:
        return text
    where = f.location
    if f.val.via:
        where += f" · {f.val.via}"
    return f"{text}\n{where}"


def as_written(f: Fact) -> Any:
    """The value in the convention of the API that set it (MindSpore's BatchNorm `momentum=0.1`
    is torch's 0.9), when that differs from the canonical value; None otherwise."""
    if f.write is None or not f.val.known or f.val.defaulted:
        return None   # (a default was not written: there is no spelling to show)
    return _in_convention(f.write[1], f.val.value)


def _visible(c: Comparison, hide_matches: bool) -> List[Row]:
    return [r for r in c.rows if not (hide_matches and r.verdict == MATCH)]


def _summary(c: Comparison, tables: Tables, lang: str) -> str:
    text = tables.text("headings", "summary", lang).format(
        rows=len(c.rows), mismatch=c.count(MISMATCH), only=c.count(ONLY_REFERENCE) + c.count(ONLY_NEW),
        unknown=c.count(UNKNOWN), match=c.count(MATCH))
    if not c.mismatches:
        text += " " + tables.text("headings", "clean", lang)
    return text


def write_rich(out: TextIO, c: Comparison, tables: Tables, lang: str = "en", hide_matches: bool = False,
               color: Optional[bool] = None) -> None:
    # imported where it is used: rich is slow to import (start-up time)
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    if color is None and os.environ.get("NO_COLOR"):
        color = False
    tty = out.isatty() if hasattr(out, "isatty") else False
    console = Console(file=out, force_terminal=color, no_color=(color is False) or None, highlight=False,
                      width=None if (color or tty) else 200)
    h = lambda k: tables.text("headings", k, lang)  # noqa: E731
    table = Table(title=h("title").format(reference=c.reference.path, new=c.new.path), show_lines=True,
                  title_justify="left")
    table.add_column(h("key"), overflow="fold", max_width=44)
    table.add_column(h("reference"), overflow="fold", max_width=40)
    table.add_column(h("new"), overflow="fold", max_width=40)
    table.add_column(h("verdict"), overflow="fold")
    table.add_column(h("advice"), overflow="fold", max_width=60)
    rows = _visible(c, hide_matches)
    for r in rows:
        table.add_row(r.key, _cell(r.reference, tables, lang), _cell(r.new, tables, lang),
                      Text(tables.text("verdicts", r.verdict, lang), style=_STYLE[r.verdict]), r.advice)
    if rows:
        console.print(table)
    for note in c.reference.notes + c.new.notes:
        console.print(Text(f"{h('warnings')}: {note}", style="yellow"))
    console.print(Text(_summary(c, tables, lang), style="bold"))


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def write_markdown(out: TextIO, c: Comparison, tables: Tables, lang: str = "en", hide_matches: bool = False) -> None:
    h = lambda k: tables.text("headings", k, lang)  # noqa: E731
    out.write(f"### {h('title').format(reference=c.reference.path, new=c.new.path)}\n\n")
    out.write(f"| {h('key')} | {h('reference')} | {h('new')} | {h('verdict')} | {h('advice')} |\n")
    out.write("|---|---|---|---|---|\n")
    for r in _visible(c, hide_matches):
        cells = [f"`{r.key}`", _cell_md(r.reference, tables, lang), _cell_md(r.new, tables, lang),
                 f"**{tables.text('verdicts', r.verdict, lang)}**" if r.verdict != MATCH
                 else tables.text("verdicts", r.verdict, lang), r.advice]
        out.write("| " + " | ".join(_md(x) for x in cells) + " |\n")
    out.write("\n")
    for note in c.reference.notes + c.new.notes:
        out.write(f"- {h('warnings')}: {_md(note)}\n")
    out.write(_summary(c, tables, lang) + "\n")


def _cell_md(f: Optional[Fact], tables: Tables, lang: str) -> str:
    if f is None:
        return "—"
    value = _cell(f, tables, lang, with_location=False)
    where = f.location + (f" · {f.val.via}" if f.val.via else "")
    return f"`{value}` ({where})"
