"""``trainlint audit PATH``: options → audit → report. Exit codes: 0 no item found, 1 some item
found (a rule fired), 2 usage/configuration error or files that could not be checked."""
from __future__ import annotations

import argparse
import json
import os
from typing import Any, Callable, Optional, TextIO

FORMATS = ("rich", "markdown", "html", "json")


def add_parser(sub: "argparse._SubParsersAction", epilog_format: Any) -> None:
    a = sub.add_parser(
        "audit", help="fill in the accuracy checklist for every project of a repository",
        description="Find the projects in PATH (entry scripts train/eval/infer/predict/main and what they import) and "
                    "give every accuracy-checklist item a status per project: found (with the findings), no issue (with "
                    "the evidence), not applicable (why) or manual (what to check, with the values found); plus the "
                    "migration risks: API uses whose counterpart in the other framework has a different default or meaning.",
        epilog="exit codes: 0 nothing found; 1 some checklist item found; 2 usage or configuration error, or files that "
               "could not be checked. JSON contract: docs/audit.md.",
        formatter_class=epilog_format)
    a.add_argument("path", nargs="?", default=".", help="repository, folder or script (default: .)")
    a.add_argument("--format", choices=list(FORMATS), default="rich",
                   help="rich (terminal, default), markdown, html (one self-contained file) or json")
    a.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of standard output")
    a.add_argument("--lang", choices=["en", "zh"], default=None, help="report language (default: the config's, else en)")
    a.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes (default: the number of CPUs)")
    a.add_argument("--no-cache", action="store_true", help="do not read or write the facts cache")
    a.add_argument("--config", metavar="FILE", help="configuration file (default: searched from PATH)")
    a.add_argument("--isolated", action="store_true", help="ignore configuration files")
    a.add_argument("--exit-zero", action="store_true", help="exit 0 even when items are found")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter import __version__
    from linter.audit.model import FOUND
    from linter.audit.run import audit_path
    from linter.audit.spec import AuditSpecError, load_audit_spec
    from linter.settings.config import ConfigError
    from linter.settings.resolve import CliOverrides, RuleErrors, resolve_settings

    cwd = os.getcwd()
    if not os.path.exists(os.path.join(cwd, args.path)):
        err.write(f"trainlint audit: {args.path}: path does not exist\n")
        return 2
    if args.jobs is not None and args.jobs < 1:
        err.write("trainlint audit: --jobs must be at least 1\n")
        return 2
    try:
        st = resolve_settings([args.path], cwd, CliOverrides(lang=args.lang, config=args.config, isolated=args.isolated,
                                                             jobs=args.jobs, no_cache=args.no_cache))
        spec = load_audit_spec(st.packs.checklist)
    except RuleErrors as exc:
        for e in exc.errors:
            err.write(f"trainlint: {e}\n")
        return 2
    except (ConfigError, AuditSpecError) as exc:
        err.write(f"trainlint audit: {exc}\n")
        return 2
    lang = st.lang
    progress, done = _progress(err, lang)
    try:
        result = audit_path(args.path, st.packs, st.options, cwd, st.walk, spec, progress)
    finally:
        done()
    target: Any = out
    fh = None
    if args.output:
        try:
            fh = open(os.path.join(cwd, args.output), "w", encoding="utf-8", newline="\n")
        except OSError as exc:
            err.write(f"trainlint audit: cannot write {args.output}: {exc.strerror or exc}\n")
            return 2
        target = fh
    try:
        if args.format == "json":
            json.dump(result.to_json(__version__), target, ensure_ascii=False, indent=2)
            target.write("\n")
        elif args.format == "markdown":
            # the chosen output format only
            from linter.audit.render_markdown import write_markdown

            write_markdown(target, result, lang)
        elif args.format == "html":
            # the chosen output format only
            from linter.audit.render_html import write_html

            write_html(target, result, lang)
        else:
            # the chosen output format only
            from linter.audit.render_text import write_rich

            write_rich(target, result, lang, color=False if fh is not None else None)
    finally:
        if fh is not None:
            fh.close()
    if fh is not None:
        err.write(f"trainlint audit: wrote {args.output} ({len(result.projects)} project(s))\n")
    if any(d.fatal for d in result.errors):
        for d in result.errors:
            if args.format != "rich" or fh is not None:
                err.write(f"{d.location}: {d.kind.value}: {d.message}\n")
        return 2
    found = any(i.status == FOUND for p in result.projects for i in p.items)
    return 1 if found and not args.exit_zero else 0


def _progress(err: TextIO, lang: str) -> "tuple[Optional[Callable[[str, int, int], None]], Callable[[], None]]":
    """A progress bar on a terminal (stderr): the engine's phases, then the projects."""
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.report.progress import progress_bar, wants_progress

    if not wants_progress(err):
        return None, lambda: None
    return progress_bar(err, lang)
