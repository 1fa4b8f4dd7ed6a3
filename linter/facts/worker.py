"""One parse, as a worker process does it: bytes in, a pickled entry out. Shared by the batch
parser's workers (:mod:`linter.facts.batch`) and the parse-ahead process (:mod:`linter.facts.ahead`)."""
from __future__ import annotations

import gc
import pickle
from typing import Any, List, Optional, Sequence, Tuple

from linter.core.model import Diagnostic, ErrorKind
from linter.facts.parse_file import Unit, parse_unit

Entry = Tuple[Any, Optional[str], Any, List[Diagnostic]]
"""(facts or None, decoded source or None, notebook or None, diagnostics)."""


def parse_bytes(path: str, data: bytes) -> Entry:
    """Decode and extract one file (pure: no I/O), for the main process and the workers."""
    u = Unit(path, path, "", linted=True)
    errors = parse_unit(u, data)
    return (u.facts, u.source, u.notebook, errors)


def worker(batch: Sequence[Tuple[str, bytes]]) -> List[bytes]:
    gc.disable()
    out = []
    for path, data in batch:
        try:
            entry = parse_bytes(path, data)
        except Exception as exc:  # a crash on one file must not lose the batch
            entry = (None, None, None, [Diagnostic(ErrorKind.INTERNAL, path, f"crashed while parsing: {type(exc).__name__}: {exc}")])
        out.append(pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL))
    return out
