"""``trainlint compare``: a migrated training script against its reference, setting by setting.

The stages, in order (each its own module):

    load       side (script or project folder) → entry script + import closure → Project
    profile    Project → training profile: canonical key → normalised value (mapping tables)
    normalize  framework conventions → canonical ones, and back for the advice
    diff       two profiles → rows (match / mismatch / unknown / only-reference / only-new)
    render     rows → rich table, Markdown or JSON

Only the engine's fact model and project index are used: nothing is imported or executed, and
configuration files are read as data (``yaml.safe_load``/``json``).
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    # annotation only; the comparison's modules load when it runs (start-up time)
    from linter.compare.model import Comparison

__all__ = ["compare_paths", "Comparison"]


def __getattr__(name: str) -> Any:
    # `trainlint check` builds the compare subcommand's options from this package; the model is
    # imported when a comparison is made, not on every command line
    if name == "Comparison":
        from linter.compare.model import Comparison  # on first use (start-up time)

        return Comparison
    raise AttributeError(name)


def compare_paths(reference: str, new: str, lang: str = "en", cwd: Optional[str] = None,
                  use_cache: bool = True) -> "Comparison":
    """Compare two sides (scripts or project folders). Raises :class:`~linter.compare.load.SideError`
    for a side that cannot be compared and :class:`~linter.compare.mapping.MappingError` for a
    broken mapping table."""
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.compare.diff import compare_profiles
    from linter.compare.load import load_side
    from linter.compare.mapping import builtin_tables
    from linter.compare.profile import extract_profile
    from linter.engine.packs import load_packs_cached
    from linter.engine.units import Options

    cwd = cwd or os.getcwd()
    cache = None
    if use_cache:
        # only when caching is on
        from linter.core.cache import Cache

        cache = Cache()
    packs = load_packs_cached(cache=cache)
    tables = builtin_tables()
    options = Options(lang=lang, cache=cache)
    profiles = [extract_profile(load_side(p, packs, options, cwd), tables, packs) for p in (reference, new)]
    return compare_profiles(profiles[0], profiles[1], tables, lang)
