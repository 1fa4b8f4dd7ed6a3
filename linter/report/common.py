"""Words the text formats share: the line standing for the ``info`` findings left out, and
the related places of a finding."""
from __future__ import annotations

from typing import List

from linter.core.model import Finding


def hidden_info_line(n: int, lang: str) -> str:
    """The one line that stands for the ``info`` findings the text formats leave out."""
    if lang == "zh":
        return f"另有 {n} 个 info 级问题未显示（影响较小；--show-info 可显示）。"
    return f"{n} info finding{'s' if n != 1 else ''} not shown (true but minor; --show-info shows them)."


def related_lines(f: Finding, lang: str) -> List[str]:
    """``path:line: note`` for every place a finding names as related (the uses of one cause)."""
    return [f"{path}:{line}: {note}" if note else f"{path}:{line}" for path, line, note in f.related]
