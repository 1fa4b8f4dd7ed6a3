"""Forked worker processes: the one pool utility behind every parallel stage (parsing, the
projects of a many-project tree, rules, fix planning).

Why fork: a worker inherits the parent's imported modules and, more importantly, its state —
the facts, the project index, the warmed-up program model — without pickling any of it; only
each task's (small) input and its result cross the process boundary. The state a task needs is
handed over through :func:`fork_map`'s ``task`` (a closure is fine: it is inherited, not
pickled) while the pool starts.

What it guarantees:

* results in the order of the items, whatever the scheduling;
* a worker that dies (killed, out of memory, a crash in native code) loses no item: the items
  it had, and any the broken pool did not run, get ``on_dead(item)`` — by default the task is
  run again in this process;
* where fork is not the platform's safe default (macOS, Windows) or ``jobs`` is 1, every item
  runs in this process, in order (same answers, one CPU);
* the parent's existing objects are frozen out of the garbage collector's reach while the
  workers run (``gc.freeze``), so the workers' collections do not touch (and copy) every page of
  the shared state.
"""
from __future__ import annotations

import gc
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_TASK: Optional[Callable[[Any], Any]] = None
_ITEMS: Sequence[Any] = ()


def fork_available() -> bool:
    """Whether worker processes are forked (Linux): elsewhere fork is unsafe or unavailable."""
    return sys.platform.startswith("linux")


def context() -> Any:
    """The multiprocessing context of the run's pools: fork where it is safe, else the default."""
    # imported when worker processes are started (start-up time)
    import multiprocessing

    return multiprocessing.get_context("fork") if fork_available() else multiprocessing.get_context()


def _run(index: int) -> Any:
    assert _TASK is not None
    return _TASK(_ITEMS[index])


def fork_map(task: Callable[[T], R], items: Sequence[T], jobs: int,
             on_result: Optional[Callable[[int, R], None]] = None,
             on_dead: Optional[Callable[[T], R]] = None, freeze: bool = True) -> List[R]:
    """``task(item)`` for every item, over up to ``jobs`` forked workers; the results in item
    order. ``on_result(i, result)`` is called as each arrives (progress). ``on_dead(item)``
    answers for an item whose worker died (default: ``task(item)`` here)."""
    global _TASK, _ITEMS
    n = len(items)
    results: Dict[int, R] = {}
    fallback = on_dead or task
    if jobs <= 1 or n <= 1 or not fork_available():
        out = []
        for i, item in enumerate(items):
            r = task(item)
            if on_result is not None:
                on_result(i, r)
            out.append(r)
        return out
    # imported when worker processes are started (start-up time)
    from concurrent.futures import ProcessPoolExecutor

    saved = _TASK, _ITEMS   # a task may run a pool of its own (nested parsing inside a project worker)
    _TASK, _ITEMS = task, items
    frozen = freeze and hasattr(gc, "freeze")
    if frozen:
        gc.freeze()
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, n), mp_context=context()) as pool:
            futures = [pool.submit(_run, i) for i in range(n)]
            for i, fut in enumerate(futures):
                try:
                    r = fut.result()
                except Exception:   # its worker died (or the pool broke): answered below
                    continue
                results[i] = r
                if on_result is not None:
                    on_result(i, r)
    except Exception:
        pass   # the pool itself broke: whatever is missing is answered below
    finally:
        _TASK, _ITEMS = saved
        if frozen:
            gc.unfreeze()
    for i in range(n):
        if i not in results:
            results[i] = fallback(items[i])
            if on_result is not None:
                on_result(i, results[i])
    return [results[i] for i in range(n)]
