"""What a long run shows on the terminal while it works (a progress bar on stderr) and, with
``--profile``, where its time went. Both go to stderr, so they never mix with a report on
stdout, and the bar is drawn only for a person watching a terminal."""
from __future__ import annotations

import os
import sys
from typing import Callable, Dict, Optional, TextIO, Tuple

from linter.core.observer import Observer, Progress

MACHINE_FORMATS = ("json", "sarif", "junit", "github")
"""Output read by programs: no bar, whatever stderr is."""

_PHASES: Dict[str, Dict[str, str]] = {
    "parse": {"en": "parsing files", "zh": "解析文件"},
    "context": {"en": "reading imported files", "zh": "读取被导入的文件"},
    "model": {"en": "building the program model", "zh": "构建程序模型"},
    "rules": {"en": "running rules", "zh": "运行规则"},
    "projects": {"en": "auditing projects", "zh": "审计项目"},
    "checking": {"en": "checking projects", "zh": "检查项目"},
}


def wants_progress(err: TextIO, fmt: str = "rich", quiet: bool = False) -> bool:
    """A bar only for a person at a terminal: stderr is a TTY, not CI, not a machine format."""
    if quiet or fmt in MACHINE_FORMATS:
        return False
    if os.environ.get("CI") or os.environ.get("TRAINLINT_NO_PROGRESS") or os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(err, "isatty", None) and err.isatty())


def progress_bar(err: TextIO, lang: str = "en") -> Tuple[Progress, Callable[[], None]]:
    """A transient rich progress display on ``err``: one line per phase, files or rules done
    of total. Returns the tick callback and the function that removes the display."""
    # imported where it is used: rich is slow to import (start-up time)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    bar = Bar(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
              TimeElapsedColumn(), console=Console(file=err), transient=True)
    bar.start()
    tasks: Dict[str, "TaskID"] = {}
    last = [None]  # type: list

    def update(phase: str, done: int, total: int) -> None:
        if phase not in tasks:
            if last[0] is not None:   # the previous phase is over
                prev = tasks[last[0]]
                bar.update(prev, completed=bar.tasks[prev].total or 1, total=bar.tasks[prev].total or 1)
            text = _PHASES.get(phase, {}).get(lang) or _PHASES.get(phase, {}).get("en") or phase
            tasks[phase] = bar.add_task(text, total=total or None)
            last[0] = phase
        bar.update(tasks[phase], completed=done, total=total or None)

    return update, bar.stop


def observer_for(err: TextIO, fmt: str, quiet: bool, lang: str) -> Tuple[Observer, Callable[[], None]]:
    """An observer for the CLI: with a bar where :func:`wants_progress`, else silent."""
    if wants_progress(err, fmt, quiet):
        tick, stop = progress_bar(err, lang)
        return Observer(progress=tick), stop
    return Observer(), lambda: None


def write_profile(err: TextIO, obs: Observer, total: float) -> None:
    """``--profile``: each stage's wall time and share, then every rule that ran, slowest
    first — what a report of a slow run needs."""
    merged: Dict[str, Tuple[float, str, bool]] = {}
    for st in obs.stages:
        seconds, detail, summed = merged.get(st.name, (0.0, "", False))
        merged[st.name] = (seconds + st.seconds, detail or st.detail, summed or st.summed)
    peak = _peak_mb()
    err.write(f"Where the time went: {total:.2f} s in all{peak}\n")
    for name, (seconds, detail, summed) in merged.items():
        share = "  sum " if summed else f"{100 * seconds / total:5.1f}%" if total > 0 else "     -"
        if summed:
            detail = (detail + " " if detail else "") + f"(added up over {obs.workers} worker processes)"
        err.write(f"  {name:<20} {seconds:8.2f} s {share}  {detail}\n".rstrip() + "\n")
    if obs.rules:
        note = f" (in {obs.workers} worker processes at once: the times add up to more than the stage)" \
            if obs.workers > 1 else ""
        err.write(f"Rules, slowest first{note}:\n")
        for rid, seconds in sorted(obs.rules.items(), key=lambda kv: (-kv[1], kv[0])):
            err.write(f"  {rid:<20} {seconds:8.2f} s\n")


def _peak_mb() -> str:
    own, kids = peak_memory_mb(), peak_memory_mb(children=True)
    if own is None:
        return ""
    out = f", peak memory {own:,.0f} MB"
    if kids:
        out += f" (largest worker {kids:,.0f} MB)"
    return out


def peak_memory_mb(children: bool = False) -> Optional[float]:
    """Peak resident memory of this process (or of its largest finished child) in MB; None
    where the platform does not say."""
    try:
        # POSIX only: imported where it is used
        import resource
    except ImportError:   # Windows
        return None
    rss = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF).ru_maxrss
    return rss / 2 ** 20 if sys.platform == "darwin" else rss / 1024   # bytes on macOS, KiB elsewhere
