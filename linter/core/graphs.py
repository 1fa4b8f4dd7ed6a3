"""Strongly connected components of a directed graph given by a successor function (Tarjan's
algorithm, iterative: the graphs here — callers of a large library, imports of a package — are
deeper than Python's recursion limit)."""
from __future__ import annotations

from typing import Callable, Dict, Hashable, Iterable, Iterator, List, Optional, Set, Tuple, TypeVar

N = TypeVar("N", bound=Hashable)


def components(roots: Iterable[N], successors: Callable[[N], Iterable[N]],
               skip: Optional[Callable[[N], bool]] = None) -> Iterator[List[N]]:
    """Each strongly connected component reachable from ``roots``, in the order they complete:
    a component comes after every component it reaches. ``skip(node)`` (asked when a node is
    met) leaves a node out, e.g. one whose answer is already known — it is asked again after
    each component is handed out, so a caller that records answers then sees them."""
    index: Dict[N, int] = {}
    low: Dict[N, int] = {}
    stack: List[N] = []
    on_stack: Set[N] = set()
    counter = 0
    for root in roots:
        if root in index:
            continue
        work: List[Tuple[N, Iterator[N]]] = []

        def push(node: N) -> None:
            nonlocal counter
            index[node] = low[node] = counter
            counter += 1
            stack.append(node)
            on_stack.add(node)
            work.append((node, iter(successors(node))))

        push(root)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if skip is not None and skip(w):
                    continue
                if w not in index:
                    push(w)
                    advanced = True
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] != index[node]:
                continue
            group: List[N] = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == node:
                    break
            yield group
