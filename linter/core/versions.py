"""Framework version numbers and ranges (``>=2.0,<2.3``), shared by the API tables and the
rule compiler."""
from __future__ import annotations

import re
from typing import Tuple

_VERSION = re.compile(r"^\s*(<=|>=|<|>|==)?\s*(\d+(?:\.\d+)*)\s*$")


def parse_version(text: str) -> Tuple[int, ...]:
    parts = []
    for p in text.split("."):
        digits = re.match(r"\d+", p)
        if not digits:
            break
        parts.append(int(digits.group(0)))
    return tuple(parts)


def version_in(version: Tuple[int, ...], spec: str) -> bool:
    """``spec`` is a comma-separated list of comparisons, e.g. ``">=2.0,<2.9"``."""
    for clause in spec.split(","):
        m = _VERSION.match(clause)
        if not m:
            raise ValueError(f"bad version range {spec!r}")
        op = m.group(1) or "=="
        v = parse_version(m.group(2))
        width = max(len(v), len(version))
        a = version + (0,) * (width - len(version))
        b = v + (0,) * (width - len(v))
        ok = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b}[op]
        if not ok:
            return False
    return True
