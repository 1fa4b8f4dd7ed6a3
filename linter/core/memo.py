"""One owner for the answers the project index and the program model memoise.

Why it matters: the index answers questions lazily and memoises them, and a question that
meets itself (a recursive definition) is cut short, so an answer can depend on which question
came first. trainlint's findings are the same for every ``--jobs`` because every rule starts
from the same memoised state (:mod:`linter.match`): a snapshot restored between rules, or a
fork of the warmed-up process. That guarantee holds only if *every* memo table is in the
snapshot — so every table is created here, by name, and the snapshot is taken here. An object
keeps an alias of its tables for speed; :meth:`MemoStore.restore` refills them in place, so
the aliases stay valid. ``tests/unit/test_memo.py`` fails when an engine object keeps an answer
anywhere else.

Question-scoped assumptions — a parameter's value assumed while one pipeline is checked
(``do_train=True``), an expression pinned to the values of one ``if`` branch, the call sites a
branch decision may count — are one explicit value, :class:`Hypothesis`, set for the length of
a question with ``project.under(h)``. Tables whose answers may depend on it are
:meth:`MemoStore.scoped`: they key on the hypothesis in force.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, Optional, Tuple


@dataclass(frozen=True)
class Hypothesis:
    """What one question assumes. ``assume``: parameter name → value (sorted pairs);
    ``pinned``: ``id(expr)`` → the values that expression is taken to have (sorted pairs of
    tuples); ``site_filter``: the call sites whose arguments count for a parameter (a bound
    method of the branch decider), None for all."""

    assume: Tuple[Tuple[str, Any], ...] = ()
    pinned: Tuple[Tuple[int, Tuple[Any, ...]], ...] = ()
    site_filter: Optional[Callable[[int, int], bool]] = None

    def __bool__(self) -> bool:
        return bool(self.assume or self.pinned or self.site_filter is not None)

    @property
    def assumed(self) -> Dict[str, Any]:
        return dict(self.assume)

    def pin(self, key: int) -> Optional[Tuple[Any, ...]]:
        for k, v in self.pinned:
            if k == key:
                return v
        return None

    def with_assume(self, assume: Dict[str, Any]) -> "Hypothesis":
        return Hypothesis(tuple(sorted(assume.items(), key=lambda kv: kv[0])), self.pinned, self.site_filter)

    def with_pin(self, key: int, values: Tuple[Any, ...]) -> "Hypothesis":
        pins = dict(self.pinned)
        pins[key] = values
        return Hypothesis(self.assume, tuple(sorted(pins.items())), self.site_filter)


NO_HYPOTHESIS = Hypothesis()


class ScopedTable:
    """A memo table whose answers may depend on the hypothesis in force: its keys include it
    (when there is one; without one a key is the plain key, as in an ordinary table)."""

    __slots__ = ("_store", "data")

    def __init__(self, store: "MemoStore") -> None:
        self._store = store
        self.data: Dict[Any, Any] = {}

    def _key(self, key: Any) -> Any:
        h = self._store.hypothesis
        return (h, key) if h else key

    def get(self, key: Any, default: Any = None) -> Any:
        return self.data.get(self._key(key), default)

    def __contains__(self, key: Any) -> bool:
        return self._key(key) in self.data

    def __getitem__(self, key: Any) -> Any:
        return self.data[self._key(key)]

    def __setitem__(self, key: Any, value: Any) -> None:
        self.data[self._key(key)] = value

    def setdefault(self, key: Any, value: Any) -> Any:
        return self.data.setdefault(self._key(key), value)


class MemoStore:
    """Every memo table of one project's model, by name."""

    def __init__(self) -> None:
        self._tables: Dict[str, Any] = {}
        self.hypothesis: Hypothesis = NO_HYPOTHESIS
        """The assumptions of the question being answered (:meth:`linter.index.project.Project.under`)."""

    def table(self, name: str) -> Dict[Any, Any]:
        """The dict table ``name`` (created empty on first use). Its answers must not depend on
        the hypothesis: they are computed from the facts alone."""
        t = self._tables.get(name)
        if t is None:
            t = self._tables[name] = {}
        return t

    def scoped(self, name: str) -> ScopedTable:
        """The table ``name`` whose keys include the hypothesis in force."""
        t = self._tables.get(name)
        if t is None:
            t = self._tables[name] = ScopedTable(self)
        return t

    def owns(self, obj: Any) -> bool:
        """Whether ``obj`` is one of the tables (or a scoped table's data)."""
        return any(obj is t or (isinstance(t, ScopedTable) and obj is t.data) for t in self._tables.values())

    def names(self) -> Iterator[str]:
        return iter(sorted(self._tables))

    def snapshot(self) -> Dict[str, Dict[Any, Any]]:
        """A copy of every table (the answers themselves are immutable, or never changed once
        stored, so a shallow copy per table suffices)."""
        return {name: dict(_data(t)) for name, t in self._tables.items()}

    def restore(self, snap: Dict[str, Dict[Any, Any]]) -> None:
        """Every table back to the snapshot, in place (objects keep aliases to them); a table
        created after the snapshot is emptied."""
        for name, t in self._tables.items():
            d = _data(t)
            d.clear()
            d.update(snap.get(name, ()))

    def release(self) -> None:
        """Drop every answer (the tables refer to the index, which refers to them: cycles the
        collector would otherwise have to find)."""
        for t in self._tables.values():
            _data(t).clear()


def _data(t: Any) -> Dict[Any, Any]:
    return t.data if isinstance(t, ScopedTable) else t
