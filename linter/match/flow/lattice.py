"""The abstract states of a state-machine rule: whose state an entry is (:data:`Key`: one
object, or :data:`ANY` for every object not tracked separately), the entries with the origin of
their state, how a state set is looked up per object, and the join of two paths' states.

Separate from the interpreter (:mod:`linter.match.flow.state`): the objects a transition acts
on (:mod:`linter.match.flow.objects`) are named by the same keys.
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Tuple

Key = Tuple[Any, ...]
"""Whose state: ``ANY`` (every object not tracked separately), ``("o", file, call)`` an object
created at that call, or ``("p", file, function, name)`` a parameter of a summarised helper."""
ANY: Key = ("*",)
Entry = Tuple[Key, Any, Any]
"""(key, state or None for "whatever the caller had", origin)."""
State = FrozenSet[Entry]

_ENTRY = ("E",)
_INITIAL = ("I",)

_BY_KEY: Dict[State, Dict[Key, List[Tuple[Any, Any]]]] = {}
"""Each state set grouped by object once (states are immutable and asked about many times)."""


def _grouped(S: State) -> Dict[Key, List[Tuple[Any, Any]]]:
    by_key = _BY_KEY.get(S)
    if by_key is None:
        if len(_BY_KEY) > 2_000:
            _BY_KEY.clear()   # bounded: a rule's states are few at a time
        by_key = {}
        for kk, s, o in S:
            by_key.setdefault(kk, []).append((s, o))
        _BY_KEY[S] = by_key
    return by_key


def _lookup(S: State, k: Key) -> List[Tuple[Any, Any]]:
    """The possible (state, origin) of object ``k``: its own entries, else the ``ANY`` ones."""
    by_key = _grouped(S)
    own = by_key.get(k)
    return list(own) if own else list(by_key.get(ANY, ()))


def _join(a: State, b: State) -> State:
    """Union of two paths' states; an object tracked on one path only gets the other path's
    ``ANY`` entries, so no possibility is lost. (Every entry of either side is in the union; what
    is added is the other side's ``ANY`` entries for the objects it does not track — computed by
    set operations, as joins run at every branch and loop of every function.)"""
    if a == b or not b:
        return a
    if not a:
        return b
    ga, gb = _grouped(a), _grouped(b)
    any_a, any_b = ga.get(ANY), gb.get(ANY)
    extra: List[Entry] = []
    if any_a:
        extra += [(k, s, o) for k in gb.keys() - ga.keys() for s, o in any_a]
    if any_b:
        extra += [(k, s, o) for k in ga.keys() - gb.keys() for s, o in any_b]
    return a | b | frozenset(extra) if extra else a | b
