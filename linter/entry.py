"""The console command's entry point (``trainlint``, ``python -m linter``).

Before anything else is imported it starts the parse-ahead process for ``check`` (see
:mod:`linter.facts.ahead`): every millisecond the command line spends importing and reading
options first would be added to libcst's import in that process, which is the longest part
of checking one changed file. The arguments are only peeked at here; :mod:`linter.cli`
parses them and stops the process when the command turns out not to need it.
"""
from __future__ import annotations

import os
import sys
from typing import List, Optional


def main() -> int:
    argv = sys.argv[1:]
    ahead = None
    if argv[:1] == ["check"] and _jobs(argv) != 1:
        # only where the parse-ahead process can start (start-up time)
        from linter.facts.ahead import ParseAhead

        ahead = ParseAhead.start()
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.cli import main as cli_main

    code = cli_main(parse_ahead=ahead)
    if argv[:1] == ["check"]:
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """End the process without tearing down its objects (as mypy does): a one-file check would
    spend ~5 ms freeing what the system frees anyway. Safe for ``check``: it registers no exit
    handlers, closes every file it writes, and its output streams are flushed here."""

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass          # a closed pipe: the reader left, as `check | head` does
    os._exit(code)


def _jobs(argv: List[str]) -> Optional[int]:
    """The ``--jobs``/``-j`` value as given (None when absent or not a number)."""
    value = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg in ("-j", "--jobs") and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--jobs="):
            value = arg[len("--jobs="):]
        elif arg.startswith("-j") and not arg.startswith("--"):
            value = arg[2:].lstrip("=")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
