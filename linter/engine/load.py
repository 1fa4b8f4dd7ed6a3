"""Stage 2 for a set of units: facts from the cache, else parsed (in parallel)."""
from __future__ import annotations

import dataclasses
from typing import List, Sequence, Tuple

from linter.core.model import Diagnostic
from linter.engine.units import Options
from linter.facts import batch
from linter.facts.parse_file import Unit, read_source, too_large


def load_units(units: Sequence[Unit], options: Options, phase: str = "parse") -> List[Diagnostic]:
    """Stage 2: facts for every unit that has none yet (cache, else parsed, in parallel);
    ``phase`` names the progress ticks (files done of total)."""

    errors: List[Diagnostic] = []
    todo: List[Unit] = []
    items: List[Tuple[str, bytes]] = []
    for u in units:
        if u.facts is not None or u.source is not None:
            continue
        if u.data is None:
            u.data, problem = read_source(u.path, u.abspath, options.max_file_size)
            if problem is not None:
                errors.append(problem)
                continue
        elif len(u.data) > options.max_file_size:
            errors.append(too_large(u.path, len(u.data), options.max_file_size))
            u.data = None
            continue
        todo.append(u)
        items.append((u.path, u.data or b""))
    obs = options.observer
    tick = (lambda done: obs.tick(phase, done, len(items))) if obs is not None and obs.progress is not None \
        and items else None
    for u, (facts, source, notebook, diags) in zip(todo, batch.load(items, options.jobs, options.cache, tick, options.freeze_facts, options.parse_ahead)):
        if facts is not None and facts.path != u.path:
            facts = facts._replace(path=u.path)   # cached facts are keyed by content, not path
        u.facts, u.source, u.notebook, u.data = facts, source, notebook, None
        errors += [d if d.path == u.path else dataclasses.replace(d, path=u.path) for d in diags]
    return errors
