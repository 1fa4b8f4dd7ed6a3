"""Abstract values the project index computes for expressions.

An expression evaluates to a small set of these (a *may* set: every value it can have on
some path). They are plain named tuples so sets of them hash and compare cheaply.
"""
from __future__ import annotations

from typing import Any, Collection, List, NamedTuple, Optional, Tuple, TypeVar, Union


class Const(NamedTuple):
    """A literal value; ``kind`` keeps ``1``, ``1.0`` and ``True`` apart in sets."""

    value: Any
    kind: str


def const(value: Any) -> Const:
    return Const(value, type(value).__name__)


class Ext(NamedTuple):
    """Something outside the project (framework module, function or class), canonical name."""

    qual: str


class Mod(NamedTuple):
    """A project module (file index)."""

    file: int


class Func(NamedTuple):
    """A project function or method."""

    file: int
    index: int  # type: ignore[assignment]  # shadows tuple.index on purpose: the function's index in its file


class Cls(NamedTuple):
    """A project class."""

    file: int
    index: int  # type: ignore[assignment]  # the class's index in its file (shadows tuple.index)
    tag: str = "class"
    """Tells a class from the function with the same numbers: named tuples compare as tuples,
    so ``Func(3, 1) == Cls(3, 1)`` would be true (and share a memoised value set)."""


class Obj(NamedTuple):
    """An instance created at a call site, or derived from one (``ds.batch(32)``).

    ``origin`` is the (file, call) where the object it derives from was created; lineage
    queries ("was any dataset derived from this source shuffled?") compare origins.
    """

    type: Union[Ext, Cls]
    file: int
    call: int
    origin: Tuple[int, int]


class Bound(NamedTuple):
    """A method looked up on a receiver: ``func`` is a :class:`Func` or :class:`Ext`."""

    func: Union[Func, Ext]
    recv: Any


class Param(NamedTuple):
    """The value a parameter receives; expanded through call sites on demand."""

    file: int
    func: int
    name: str


class Super(NamedTuple):
    """``super()`` inside a method of class ``cls``."""

    file: int
    cls: int
    recv: Any


class Record(NamedTuple):
    """A record-like object whose fields are known expressions (``EasyDict({...})``,
    ``SimpleNamespace(a=1)``, an argparse namespace): ``fields`` maps names to
    (file, scope, expr)."""

    fields: Tuple[Tuple[str, Tuple[int, int, Any]], ...]
    file: int
    call: int
    kind: str = ""
    """``argparse``: command-line defaults (a user may pass another value); ``config``: a
    shipped configuration file; ``""``: a record literal in the code."""


class Unknown(NamedTuple):
    why: str = ""


UNKNOWN = Unknown()

Value = Union[Const, Ext, Mod, Func, Cls, Obj, Bound, Param, Super, Record, Unknown]


class Valued(NamedTuple):
    """A constant found by constant propagation, with where it came from."""

    value: Any
    path: str
    line: int
    via: str
    """Human-readable provenance, e.g. ``default of parameter 'drop'``; empty when local."""


def type_of(v: Value) -> Optional[Union[Ext, Cls]]:
    if isinstance(v, Obj):
        return v.type
    return None


T = TypeVar("T")


def ordered(items: Collection[T]) -> List[T]:
    """``items`` in a deterministic order (by ``repr``, independent of hash seeds). Values are
    named tuples whose ``repr`` is slow Python code, and most sets asked about hold one item:
    those are not sorted at all."""
    if len(items) <= 1:
        return list(items)
    return sorted(items, key=repr)
