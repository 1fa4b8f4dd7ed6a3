"""Findings, problems and fixes in the protocol's terms.

trainlint's positions are 1-based lines and columns counted in code points, end exclusive;
the protocol's are 0-based, with columns in the client's position encoding (UTF-16 code
units unless the client negotiated another). Lines are split as Python splits them
(``\\n``, ``\\r\\n``, ``\\r``; a form feed is not a line break), like the findings' own.
"""
from __future__ import annotations

import bisect
import re
from typing import Any, List, Optional, Sequence, Tuple

from lsprotocol import types as lsp

from linter.core.model import Diagnostic, ErrorKind, Finding, Severity, Span
from linter.report.explain import HEADINGS, localized
from linter.report.sarif import INFORMATION_URI
from linter.source.decode import line_starts, source_lines

SOURCE = "trainlint"
DOCS_URL = INFORMATION_URI + "/blob/main/docs/rules/{id}.md"
"""Where each rule's page lives (``codeDescription``); generated from the rule YAML."""

_SEVERITY = {Severity.ERROR: lsp.DiagnosticSeverity.Error, Severity.WARNING: lsp.DiagnosticSeverity.Warning,
             Severity.INFO: lsp.DiagnosticSeverity.Information}


class Lines:
    """A text's lines (as Python and the findings count them: :mod:`linter.source.decode`), for
    converting positions both ways."""
    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text = text
        self.starts = line_starts(text)
        self.bodies = source_lines(text)
        """Each line without its line break."""
        self.encoding = encoding

    def _units(self, s: str) -> int:
        if self.encoding == "utf-32":
            return len(s)
        if self.encoding == "utf-8":
            return len(s.encode("utf-8", "surrogatepass"))
        return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)

    def position(self, line: int, column: int) -> lsp.Position:
        """1-based line/column in code points → protocol position."""
        i = line - 1
        if i < 0:
            return lsp.Position(0, 0)
        if i >= len(self.bodies):
            return lsp.Position(len(self.bodies), 0)
        return lsp.Position(i, self._units(self.bodies[i][:max(0, column - 1)]))

    def span_range(self, s: Span) -> lsp.Range:
        return lsp.Range(self.position(s.line, s.column), self.position(s.end_line, s.end_column))

    def offset(self, pos: lsp.Position) -> int:
        """Protocol position → offset (code points) into the text."""
        if pos.line >= len(self.bodies):
            return len(self.text)
        body = self.bodies[pos.line]
        units = 0
        for k, ch in enumerate(body):
            if units >= pos.character:
                return self.starts[pos.line] + k
            units += self._units(ch)
        return self.starts[pos.line] + len(body)

    def at_offset(self, offset: int) -> lsp.Position:
        """Offset (code points) into the text → protocol position."""
        i = max(0, bisect.bisect_right(self.starts, offset) - 1)
        if i >= len(self.bodies):   # the end of a text ending with a line break
            return lsp.Position(len(self.bodies), 0)
        return lsp.Position(i, self._units(self.text[self.starts[i]:offset]))

    def line_text(self, line: int) -> str:
        """1-based line without its line break ('' past the end)."""
        return self.bodies[line - 1] if 0 < line <= len(self.bodies) else ""


# A place a message cites: `config.py:7`, `src/train.py:32` (paths as reports print them).
_CITED = re.compile(r"((?:[\w.~-]+[/\\])*[\w.-]+\.(?:py|pyi|ipynb|yaml|yml|json|toml|sh|md|txt|cfg|ini)):(\d+)")


def cited(message: str) -> List[Tuple[str, int, str]]:
    """The locations a message cites, each with the words that name it: ``(0.1 at src/config.py:7)``
    → ``("src/config.py", 7, "0.1 at src/config.py:7")``."""
    out: List[Tuple[str, int, str]] = []
    for m in _CITED.finditer(message):
        before = message[:m.start()]
        if before.endswith("("):   # `loss_scaler.scale(loss)` (train.py:32): the code it names
            head = before[:-1].rstrip()
            tick = head.rfind("`", 0, len(head) - 1) if head.endswith("`") else -1
            note = head[tick:] if tick >= 0 else head[-60:].split(" ", 1)[-1]
        else:                      # (0.1 at config.py:7): the words before it
            start = max(before.rfind("("), before.rfind("; "), before.rfind(": "))
            note = before[start:].lstrip("(;: ") if 0 <= start and len(before) - start <= 120 else ""
            note = (note + m.group(0)).strip()
        out.append((m.group(1), int(m.group(2)), note.strip() or m.group(0)))
    return out


def diagnostic(f: Finding, lines: Lines, uri_of: Any, docs_url: str = DOCS_URL,
               info_severity: str = "information") -> lsp.Diagnostic:
    """``uri_of(path)`` gives the URI of a path a finding cites (None: not shown). The related
    information is the finding's own evidence (the other uses of its cause) and every place its
    message cites. ``info`` findings are Information, or Hint with ``info_severity="hint"``."""
    related = []
    seen = {(f.path, f.span.line)}   # a message citing its own place (a shared value's definition) adds nothing
    for path, line, note in list(f.related) + cited(f.message):
        if (path, line) in seen:
            continue
        seen.add((path, line))
        uri = uri_of(path)
        if uri is None:
            continue
        pos = lsp.Position(max(0, line - 1), 0)
        related.append(lsp.DiagnosticRelatedInformation(lsp.Location(uri, lsp.Range(pos, pos)), note or f.rule))
    span = f.cell.span if f.cell is not None else f.span
    return lsp.Diagnostic(
        range=lines.span_range(span), message=f.message, code=f.rule,
        severity=lsp.DiagnosticSeverity.Hint if f.severity is Severity.INFO and info_severity == "hint"
        else _SEVERITY[f.severity],
        code_description=lsp.CodeDescription(href=docs_url.format(id=f.rule)), source=SOURCE,
        related_information=related or None,
        data={"rule": f.rule, "line": f.span.line, "column": f.span.column},
    )


def problem_diagnostic(d: Diagnostic, lines: Lines) -> lsp.Diagnostic:
    """A file that could not be (fully) checked: a syntax error at its place, the rest at the top."""
    line = (d.cell.span.line if d.cell is not None else d.line) or 1
    column = (d.cell.span.column if d.cell is not None else d.column) or 1
    start = lines.position(line, column)
    end = lines.position(line, len(lines.line_text(line)) + 1) if d.kind is not ErrorKind.SYNTAX else \
        lsp.Position(start.line, start.character + 1)
    severity = lsp.DiagnosticSeverity.Error if d.fatal and d.kind is not ErrorKind.SUPPRESSION \
        else lsp.DiagnosticSeverity.Warning
    return lsp.Diagnostic(range=lsp.Range(start, end), message=d.message, severity=severity,
                          code=f"{d.kind.value}-error" if d.kind is not ErrorKind.SUPPRESSION else "suppression",
                          source=SOURCE)


def text_edits(edits: Sequence[Any], lines: Lines) -> List[lsp.TextEdit]:
    """trainlint's edits (code-point offsets into the text) → protocol edits."""
    return [lsp.TextEdit(lsp.Range(lines.at_offset(e.start), lines.at_offset(e.end)), e.content) for e in edits]


_IGNORE = re.compile(r"#\s*trainlint\s*:\s*ignore\s*\[([^\]]*)\]")


def suppression_edit(lines: Lines, line: int, rule: str) -> lsp.TextEdit:
    """``# trainlint: ignore[ID]`` at the end of ``line``, or ``ID`` added to the one there."""
    text = lines.line_text(line)
    m = _IGNORE.search(text)
    if m:
        ids = [x.strip() for x in m.group(1).split(",") if x.strip()]
        new = ", ".join(ids + [rule])
        start = lines.position(line, m.start(1) + 1)
        end = lines.position(line, m.end(1) + 1)
        return lsp.TextEdit(lsp.Range(start, end), new)
    end = lines.position(line, len(text) + 1)
    sep = "  " if text.strip() else ""
    return lsp.TextEdit(lsp.Range(end, end), f"{sep}# trainlint: ignore[{rule}]")


def whole_text_edit(old: Lines, new_text: str) -> lsp.TextEdit:
    """One edit replacing the changed middle of the text (common prefix and suffix kept)."""
    a, b = old.text, new_text
    p = 0
    n = min(len(a), len(b))
    while p < n and a[p] == b[p]:
        p += 1
    s = 0
    while s < n - p and a[len(a) - 1 - s] == b[len(b) - 1 - s]:
        s += 1
    return lsp.TextEdit(lsp.Range(old.at_offset(p), old.at_offset(len(a) - s)), b[p:len(b) - s])


def overlaps(r: lsp.Range, other: lsp.Range) -> bool:
    a = (r.start.line, r.start.character), (r.end.line, r.end.character)
    b = (other.start.line, other.start.character), (other.end.line, other.end.character)
    return a[0] <= b[1] and b[0] <= a[1]


def hover_markdown(rule: Any, packs: Any, lang: str, message: str) -> str:
    """The rule's explain text (what, why, fix) under the finding's message."""
    h = HEADINGS.get(lang, HEADINGS["en"])
    out = [f"**{rule.id}** `{rule.name}`: {localized(rule.title, lang)}", "", message, ""]
    item = packs.checklist.get(rule.checklist, {})
    out.append(f"*{h['checklist']}*: {rule.checklist} {localized(item.get('title'), lang)}")
    out.append("")
    for key in ("what", "why", "fix"):
        if key in rule.docs:
            out += [f"#### {h[key]}", localized(rule.docs[key], lang).strip(), ""]
    return "\n".join(out).rstrip() + "\n"


def same(a: Sequence[lsp.Diagnostic], b: Sequence[lsp.Diagnostic]) -> bool:
    """Whether two lists of diagnostics would show the same (publish only what changed)."""
    return [key_of(d) for d in a] == [key_of(d) for d in b]


def key_of(d: lsp.Diagnostic) -> Tuple[Any, ...]:
    """What makes two published diagnostics the same."""
    r = d.range
    rel = tuple((x.location.uri, x.location.range.start.line, x.message) for x in d.related_information or ())
    return (r.start.line, r.start.character, r.end.line, r.end.character, d.code, d.message,
            int(d.severity or 0), rel)


def encoding_of(kind: Optional[str]) -> str:
    return {"utf-8": "utf-8", "utf-32": "utf-32"}.get(str(kind or "utf-16"), "utf-16")
