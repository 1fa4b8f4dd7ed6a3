"""How many CPUs this process may use. Light enough for the console entry point, which asks
before it imports anything heavier."""
from __future__ import annotations

import os


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity where the platform tells it). Here rather than
    in ``parse``: the entry point asks before it imports anything heavier than this module."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
