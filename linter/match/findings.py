"""Stage 5c: a match → a :class:`Finding` (position, severity, message in the chosen language).

Message templates fill ``{placeholder}`` from what the match recorded. A segment in
``[[ ... ]]`` is kept only when every placeholder inside it has a value, so one template
reads well whether or not, say, a value's provenance is known.
"""
from __future__ import annotations

import re
from typing import Dict, Iterable, Optional, Tuple

from linter.compiler.build import CompiledRule
from linter.core.model import Finding, Severity, Span

_OPTIONAL = re.compile(r"\[\[((?:(?!\[\[|\]\]).)*)\]\]", re.S)
"""An innermost ``[[ ... ]]`` segment (segments may nest)."""
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")


def render(template: str, data: Dict[str, str]) -> str:
    def optional(m: "re.Match[str]") -> str:
        inner = m.group(1)
        keys = _PLACEHOLDER.findall(inner)
        if any(not data.get(k) for k in keys):
            return ""
        return inner

    text = template
    for _ in range(8):  # innermost segments first; each pass removes one nesting level
        new = _OPTIONAL.sub(optional, text)
        if new == text:
            break
        text = new
    return _PLACEHOLDER.sub(lambda m: data.get(m.group(1), ""), text)


def make_finding(rule: CompiledRule, path: str, span: Tuple[int, int, int, int], data: Dict[str, str],
                 lang: str, severity: Optional[str] = None, note: str = "",
                 related: Iterable[Tuple[str, int, str]] = ()) -> Finding:
    message = render(rule.message.get(lang) or rule.message["en"], data).strip()
    if note:
        message = f"{message} {note}"
    return Finding(
        path=path,
        span=Span(*span),
        rule=rule.id,
        name=rule.name,
        checklist=rule.checklist,
        framework=rule.framework,
        severity=Severity(severity or rule.severity),
        message=message,
        related=tuple(related),
        data=dict(data),
    )
