"""Stage 2 for many files: cached facts where the content is unchanged, the rest parsed in
worker processes.

Per file: read the bytes, key them (path + content hash), take the facts from the cache or
parse them. Parsing is the dominant cost (libcst), and it is independent per file, so misses
are spread over ``jobs`` worker processes (forked where the platform allows, so start-up and
imports are not repeated). A worker sends back the pickled entry, which is also what the cache
stores, so each file is pickled once.

The extractor allocates no reference cycles (see ``facts/extract.py`` and
``facts/expressions.py``), so the cyclic garbage collector is switched off while parsing — it
would otherwise rescan the growing set of kept facts again and again (a third of the parse time
on a large tree) — and the kept facts are frozen afterwards so the matching stage's collections
skip them (not when the tree is checked project by project: each project's facts are freed when
it is done).
"""
from __future__ import annotations

import gc
import pickle
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from linter.core.cpus import usable_cpus
from linter.core.model import Diagnostic, ErrorKind
from linter.core.workers import context, fork_map
from linter.facts.ahead import ParseAhead
from linter.facts.worker import Entry, parse_bytes, worker

if TYPE_CHECKING:
    from linter.core.cache import Cache


PARALLEL_MIN_BYTES = 256 * 1024
"""Below this much source to parse, worker start-up costs more than it saves."""


@contextmanager
def collector_paused(freeze: bool = True) -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        if freeze and hasattr(gc, "freeze"):
            gc.freeze()


def default_jobs() -> int:
    return usable_cpus()


def _batches(items: List[Tuple[int, str, bytes]], jobs: int) -> List[List[Tuple[int, str, bytes]]]:
    """Largest files first, dealt round-robin into ~4 batches per worker (balance without
    per-file overhead)."""
    items = sorted(items, key=lambda t: -len(t[2]))
    # ~4 per worker balance the load; more on large runs, so the progress bar moves
    n = max(1, min(len(items), max(jobs * 4, min(len(items) // 50, jobs * 32))))
    out: List[List[Tuple[int, str, bytes]]] = [[] for _ in range(n)]
    for i, item in enumerate(items):
        out[i % n].append(item)
    return [b for b in out if b]


def load(items: Sequence[Tuple[str, bytes]], jobs: int = 1, cache: Optional[Cache] = None,
         tick: Optional[Callable[[int], None]] = None, freeze: bool = True,
         ahead: Optional[ParseAhead] = None) -> List[Entry]:
    """Entries for ``(path, bytes)`` items, in order; ``tick(done)`` as files complete.
    ``freeze=False`` leaves the collector's generations alone: a run that checks one project
    after another frees each project's objects, and whatever is frozen is never freed.
    ``ahead``: a parser process started early (see :mod:`linter.facts.ahead`), asked to parse
    a small batch; stopped otherwise."""
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.core.cache import Cache

    results: List[Optional[Entry]] = [None] * len(items)
    keys: List[Optional[str]] = [None] * len(items)
    use_cache = cache is not None and cache.enabled
    todo: List[Tuple[int, str, bytes]] = []
    with collector_paused(freeze):
        for i, (path, data) in enumerate(items):
            if use_cache:
                keys[i] = key = Cache.file_key(path, data)
                hit = cache.get("facts", cache.facts_ns, key)  # type: ignore[union-attr]
                if hit is not None:
                    results[i] = hit
                    continue
            todo.append((i, path, data))
        done = len(items) - len(todo)
        if tick is not None:
            tick(done)
        size = sum(len(d) for _, _, d in todo)
        parallel = jobs > 1 and len(todo) > 1 and size >= PARALLEL_MIN_BYTES
        blobs: Optional[Dict[int, bytes]] = None
        if ahead is not None and ahead.available:
            if todo and not parallel:
                blobs = _ahead(ahead, todo, tick, done)
            ahead.close()   # answered, or not needed: stop it (and free its CPU) now
        loaded: Dict[int, Entry] = {}
        if blobs is None and parallel:
            blobs = _parallel(todo, jobs, tick, done, loaded)
        if blobs is not None:
            for i, blob in blobs.items():
                entry = results[i] = loaded[i] if i in loaded else pickle.loads(blob)
                if use_cache and not _has_io_error(entry):
                    cache.put_bytes("facts", cache.facts_ns, keys[i], blob)  # type: ignore[union-attr,arg-type]
        else:
            for i, path, data in todo:
                entry = results[i] = parse_bytes(path, data)
                if use_cache and not _has_io_error(entry):
                    cache.put("facts", cache.facts_ns, keys[i], entry)  # type: ignore[union-attr,arg-type]
                done += 1
                if tick is not None:
                    tick(done)
    return results  # type: ignore[return-value]


def _has_io_error(entry: Optional[Entry]) -> bool:
    return entry is not None and any(d.kind in (ErrorKind.IO, ErrorKind.INTERNAL, ErrorKind.LIMIT) for d in entry[3])


def _parallel(todo: List[Tuple[int, str, bytes]], jobs: int, tick: Optional[Callable[[int], None]] = None,
              done: int = 0, loaded: Optional[Dict[int, Entry]] = None) -> Dict[int, bytes]:
    """The pickled facts of every file, parsed in worker processes; ``loaded`` receives the
    unpickled entries of each batch as it arrives, while the workers go on parsing the others
    (unpickling them all at the end made it serial work after the parallel part)."""
    batches = _batches(todo, jobs)
    out: Dict[int, bytes] = {}
    finished = [done]

    def arrived(_i: int, _blobs: List[bytes]) -> None:
        finished[0] += len(batches[_i])
        if loaded is not None:
            for (i, _, _), blob in zip(batches[_i], _blobs):
                loaded[i] = pickle.loads(blob)
        if tick is not None:
            tick(finished[0])

    # a dead worker's batch (killed, out of memory, a crash in the parser): one file per process
    answers = fork_map(lambda batch: worker([(p, d) for _, p, d in batch]), batches, jobs, on_result=arrived,
                       on_dead=lambda batch: _in_order(batch, _isolated(batch)), freeze=False)
    for batch, blobs in zip(batches, answers):
        for (i, _, _), blob in zip(batch, blobs):
            out[i] = blob
    return out


def _in_order(batch: List[Tuple[int, str, bytes]], blobs: Dict[int, bytes]) -> List[bytes]:
    return [blobs[i] for i, _, _ in batch]


def _ahead(ahead: ParseAhead, todo: List[Tuple[int, str, bytes]], tick: Optional[Callable[[int], None]],
           done: int) -> Dict[int, bytes]:
    got = ahead.parse([(p, d) for _, p, d in todo])
    # It died (or answered short): the same per-file isolation as a dead pool worker's batch,
    # so a file that kills the parser is reported instead of killing this process.
    out = dict(zip((i for i, _, _ in todo), got)) if got is not None else _isolated(todo)
    if tick is not None:
        tick(done + len(todo))
    return out


def _isolated(batch: List[Tuple[int, str, bytes]]) -> Dict[int, bytes]:
    """Re-parse a dead worker's batch one file per fresh process: the file that kills its
    process is reported, and neither the others nor this process go down with it."""
    # imported when worker processes are started (start-up time)
    from concurrent.futures import ProcessPoolExecutor

    out: Dict[int, bytes] = {}
    for i, path, data in batch:
        try:
            with ProcessPoolExecutor(max_workers=1, mp_context=context()) as pool:
                out[i] = pool.submit(worker, [(path, data)]).result()[0]
        except Exception as exc:
            why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            entry = (None, None, None, [Diagnostic(ErrorKind.INTERNAL, path, f"the parser process died on this file ({why}); "
                                                                            "file not checked")])
            out[i] = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
    return out
