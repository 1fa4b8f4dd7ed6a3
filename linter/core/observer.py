"""Where a run spends its time: stage and rule timings (``--profile``) and the progress
callback that draws the terminal's progress bar. The pipeline reports to an observer; it
never prints, so library callers and editors get the numbers without the display."""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterator, List, Optional

Progress = Callable[[str, int, int], None]
"""(phase, done, total): ``parse`` (files), ``context`` (imported files), ``model``, ``rules``
(rules run), ``projects`` (audit), ``checking`` (the projects of a many-project tree)."""


@dataclass
class Stage:
    name: str
    seconds: float
    detail: str = ""
    summed: bool = False
    """``seconds`` add up the time of several worker processes (not wall time)."""


@dataclass
class Observer:
    """Collects stage and rule timings of one run and forwards progress ticks."""

    progress: Optional[Progress] = None
    stages: List[Stage] = field(default_factory=list)
    rules: Dict[str, float] = field(default_factory=dict)
    """Rule id → seconds (wall time of the rule in the process that ran it)."""
    workers: int = 1
    """Processes the rules ran in (their times then add up to more than the stage's)."""

    @contextmanager
    def stage(self, name: str, detail: str = "") -> Iterator[Stage]:
        st = Stage(name, 0.0, detail)
        start = time.perf_counter()
        try:
            yield st
        finally:
            st.seconds = time.perf_counter() - start
            self.stages.append(st)

    def tick(self, phase: str, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(phase, done, total)

    def to_json(self) -> Dict[str, object]:
        return {"stages": [{"name": s.name, "seconds": round(s.seconds, 4), "detail": s.detail} for s in self.stages],
                "rules": {rid: round(t, 4) for rid, t in sorted(self.rules.items())},
                "workers": self.workers}

