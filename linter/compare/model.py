"""Compare: the data that crosses its stages — resolved values, profile facts and result rows.

A value is either known (a canonical Python value: number, string, bool, tuple, a frozenset for
"one of these, depending on the call site", a dict for a transform's parameters) or unknown, in
which case it carries the expression text the user will see. Nothing is ever guessed: an
unknown input makes every value computed from it unknown.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

MATCH, MISMATCH, UNKNOWN, ONLY_REFERENCE, ONLY_NEW = "match", "mismatch", "unknown", "only-reference", "only-new"
VERDICTS = (MISMATCH, ONLY_REFERENCE, ONLY_NEW, UNKNOWN, MATCH)
"""In the order rows are listed: what needs fixing first."""


@dataclass(frozen=True)
class Unit:
    """A number with a unit (a schedule's period: 30 epochs, 5000 steps)."""

    value: Any
    unit: str

    def __str__(self) -> str:
        return f"{fmt(self.value)} {self.unit}"


@dataclass(frozen=True)
class Symbol:
    """A name that is not a literal: a framework constant (``torch.float16``) or the class of an
    object passed as an argument (a sampler)."""

    qual: str

    @property
    def last(self) -> str:
        return self.qual.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Val:
    """A resolved (or unresolvable) value."""

    value: Any = None
    known: bool = True
    text: str = ""
    """Source text of the expression (shown when unknown)."""
    defaulted: bool = False
    """Not written in the script: the API's default."""
    via: str = ""
    """Where it came from when not a literal at the call: ``argparse default``, ``config.yaml``."""
    parts: Tuple[Tuple[str, Any], ...] = ()
    """Unknown values: the named parts of the expression that are known, (name, value) —
    ``config.epoch_size`` of ``config.epoch_size - config.start_epoch``."""
    by: Tuple[str, ...] = ()
    """Unknown values: the project functions that compute it (``init_lr()``)."""

    @staticmethod
    def unknown(text: str) -> "Val":
        return Val(None, False, text)


@dataclass
class Fact:
    """One setting of one side: a canonical key and its normalised value, with where it was
    found and how to write it in the API that set it (for advice)."""

    key: str
    val: Val
    path: str
    line: int
    api: str = ""
    """Qualified API the value was read from ('' when derived from several calls)."""
    framework: str = ""
    write: Optional[Tuple[str, Dict[str, Any]]] = None
    """(canonical parameter, its mapping spec) in ``api``: lets the advice invert the normalisation."""
    order: int = 0
    written: FrozenSet[str] = frozenset()
    """Source arguments written at the call the value was read from (positional ones bound to
    their names): tells a default from a choice (the migration inventory needs it)."""

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass
class Profile:
    """The training profile of one side."""

    path: str
    entry: str
    framework: str
    facts: Dict[str, Fact] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    """Warnings: files of the closure that could not be read, ambiguous settings."""

    def add(self, fact: Fact) -> None:
        if fact.key not in self.facts:
            fact.order = len(self.facts)
            self.facts[fact.key] = fact


@dataclass
class Row:
    key: str
    reference: Optional[Fact]
    new: Optional[Fact]
    verdict: str
    advice: str = ""


@dataclass
class Comparison:
    reference: Profile
    new: Profile
    rows: List[Row]

    def count(self, verdict: str) -> int:
        return sum(1 for r in self.rows if r.verdict == verdict)

    @property
    def mismatches(self) -> int:
        """Rows that make the exit code 1: values that differ or exist on one side only."""
        return sum(1 for r in self.rows if r.verdict in (MISMATCH, ONLY_REFERENCE, ONLY_NEW))


def fmt(v: Any, code: bool = False) -> str:
    """A canonical value as the user reads it; ``code``: as Python source (strings quoted)."""
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, float):
        if math.isfinite(v) and v == int(v) and abs(v) < 1e15:
            return f"{v:.1f}"
        return f"{v:.6g}"
    if isinstance(v, Unit):
        return str(v)
    if isinstance(v, Symbol):
        return v.qual
    if isinstance(v, tuple):
        inner = ", ".join(fmt(x, code) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x, code) for x in v) + "]"
    if isinstance(v, frozenset):
        return "{" + ", ".join(sorted(fmt(x, code) for x in v)) + "}"
    if isinstance(v, dict):
        return ", ".join(f"{k}={fmt(x, code)}" for k, x in v.items())
    if isinstance(v, str):
        return repr(v) if code else v
    return str(v)
