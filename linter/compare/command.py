"""``trainlint compare REFERENCE NEW``: options → comparison → report, with the exit codes
0 (compared, no mismatches), 1 (mismatches or settings present on one side only) and
2 (usage error, missing path, broken mapping table, nothing to compare)."""
from __future__ import annotations

import argparse
from typing import Any, TextIO

EXIT_CLEAN, EXIT_MISMATCH, EXIT_ERROR = 0, 1, 2
FORMATS = ("rich", "markdown", "json")


def add_parser(sub: "argparse._SubParsersAction", epilog_format: Any) -> None:
    """The ``compare`` subcommand's options (registered by :mod:`linter.cli`)."""
    c = sub.add_parser(
        "compare", help="compare a migrated training script with its reference",
        description="Compare the training profile of a migrated script with its reference (benchmark) script: "
                    "hyper-parameters, data pipeline, network layers, seeds, mixed precision and clipping, with "
                    "framework defaults filled in and conventions normalised (keep_prob vs p, BatchNorm momentum, ...). "
                    "Each side is a script or a project folder (its train*.py/main.py entry and the files it imports).",
        epilog="exit codes: 0 compared, no mismatches; 1 mismatches (or settings on one side only); 2 usage error, "
               "a path that does not exist, or nothing to compare. Docs: docs/compare.md.",
        formatter_class=epilog_format)
    c.add_argument("reference", help="the reference (benchmark) script, or its project folder")
    c.add_argument("new", help="the migrated script, or its project folder")
    c.add_argument("--format", choices=list(FORMATS), default="rich",
                   help="output format (default: rich; plain text when not a terminal or NO_COLOR is set)")
    c.add_argument("--lang", choices=["en", "zh"], default="en", help="language of verdicts, headings and advice")
    c.add_argument("--hide-matches", action="store_true",
                   help="list only the settings that differ or are unknown (rich, markdown)")
    c.add_argument("--no-cache", action="store_true", help="do not read or write the facts cache")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.compare import compare_paths
    from linter.compare.load import SideError
    from linter.compare.mapping import MappingError, builtin_tables
    from linter.compare.render import write_json, write_markdown, write_rich

    try:
        tables = builtin_tables()
        c = compare_paths(args.reference, args.new, lang=args.lang, use_cache=not args.no_cache)
    except (SideError, MappingError) as exc:
        err.write(f"trainlint compare: {exc}\n")
        return EXIT_ERROR
    empty = [p.path for p in (c.reference, c.new) if not any(k != "amp.enabled" for k in p.facts)]
    if empty:
        err.write(f"trainlint compare: nothing to compare: no training settings found in {', '.join(empty)}\n")
        return EXIT_ERROR
    if args.format == "json":
        write_json(out, c)
    elif args.format == "markdown":
        write_markdown(out, c, tables, args.lang, args.hide_matches)
    else:
        write_rich(out, c, tables, args.lang, args.hide_matches)
    return EXIT_MISMATCH if c.mismatches else EXIT_CLEAN
