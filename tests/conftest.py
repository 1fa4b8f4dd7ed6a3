"""Shared fixtures; tests are grouped by folder: rules/ (the shipped packs), unit/ (one
engine module each), integration/ (CLI and whole projects), frameworks/ (optional checks
against the installed MindSpore/PyTorch/TensorFlow, marker `frameworks`)."""
from __future__ import annotations

import os
import sys
from typing import Dict

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The CLI caches by default: keep the tests' caches (and the per-user HMAC secret) out of the
# developer's real cache directory.
if "TRAINLINT_TEST_KEEP_CACHE" not in os.environ:
    import tempfile

    _tmp_cache = tempfile.mkdtemp(prefix="trainlint-test-cache-")
    os.environ["XDG_CACHE_HOME"] = _tmp_cache
    os.environ["TRAINLINT_CACHE_DIR"] = os.path.join(_tmp_cache, "trainlint")
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from linter.api import check_sources  # noqa: E402
from linter.engine.packs import RulePacks, load_packs  # noqa: E402
from linter.engine.run import RunResult  # noqa: E402
from linter.engine.units import Options

_PACKS = None


def builtin_packs() -> RulePacks:
    global _PACKS
    if _PACKS is None:
        _PACKS = load_packs()
        assert not _PACKS.errors, [str(e) for e in _PACKS.errors]
    return _PACKS


@pytest.fixture(scope="session")
def packs() -> RulePacks:
    return builtin_packs()


def lint(sources: Dict[str, str], select: str = "", lang: str = "en") -> RunResult:
    """Lint in-memory files with the built-in rules (optionally one rule id/prefix)."""
    opts = Options(lang=lang, select=(lambda rid: rid.startswith(select)) if select else None)
    return check_sources(sources, builtin_packs(), opts)


def pytest_collection_modifyitems(config: pytest.Config, items) -> None:  # type: ignore[no-untyped-def]
    for item in items:
        if "/frameworks/" in str(item.fspath) or "\\frameworks\\" in str(item.fspath):
            item.add_marker(pytest.mark.frameworks)
