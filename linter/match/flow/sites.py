"""What both flow analyses share: how they name a function (a site: file, function) and a
call (file, call), and how a call is shown in a finding's message."""
from __future__ import annotations

from typing import Tuple

from linter.match.context import MatchContext

Site = Tuple[int, int]
CallKey = Tuple[int, int]


def _label(mc: MatchContext, fi: int, cid: int) -> str:
    call = mc.p.files[fi].calls[cid]
    args = ", ".join(a.text if len(a.text) <= 24 else a.text[:21] + "..." for a in call.args)
    head = call.dotted or "(...)"
    return f"`{head}({args})` ({mc.p.files[fi].path}:{call.line})"
