"""Command line: ``trainlint check|rules|explain|schema|validate-rules|test-rules|compare|audit``.

No logic lives here: each subcommand parses its options and calls :mod:`linter.api`,
:mod:`linter.testing` or a report module. Exit codes: 0 clean, 1 findings, 2 usage,
configuration or rule-file errors, or files that could not be checked.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import TYPE_CHECKING, List, Optional, Sequence, TextIO

from linter import __version__
from linter.settings.config import FORMATS

if TYPE_CHECKING:
    from linter.facts.ahead import ParseAhead
    from linter.report.run import Report
    from linter.settings.resolve import CliOverrides

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

_EPILOG = """exit codes: 0 no finding at or above --fail-on (default warning), 1 such findings (or a file checked
with a caveat), 2 usage/configuration/rule-file error or a file that could not be checked. Docs: README.md and docs/; rule docs: `trainlint explain ID`."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="trainlint",
        description="Find accuracy bugs in MindSpore, PyTorch and TensorFlow/Keras training scripts, statically.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"trainlint {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("check", help="lint files, directories and notebooks", description="Lint Python training/inference scripts and notebooks.",
                       epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("paths", nargs="*", help="files or directories (default: .)")
    g = c.add_argument_group("rule selection")
    g.add_argument("--select", action="append", metavar="SEL", help="only these rules: id, id prefix, name, checklist id (dp.03), framework, tag or ALL; repeatable or comma-separated (replaces the config's select)")
    g.add_argument("--extend-select", action="append", metavar="SEL", default=[], help="add rules to the selection")
    g.add_argument("--ignore", action="append", metavar="SEL", default=[], help="skip these rules")
    g.add_argument("--rules", action="append", metavar="DIR", default=[], help="add a rule pack directory (repeatable)")
    g.add_argument("--no-default-rules", action="store_true", help="do not load the built-in rules")
    g.add_argument("--target-version", action="append", metavar="FW=VER", default=[],
                   help="framework version whose semantics to assume, e.g. mindspore=2.3 (default: the config's, else the installed one, else the rule tables' version)")
    o = c.add_argument_group("output")
    o.add_argument("--format", choices=list(FORMATS), default=None,
                   help="output format (default: the config's, else rich; rich is plain text when not a terminal or NO_COLOR is set)")
    o.add_argument("--lang", choices=["en", "zh"], default=None, help="message language (default: the config's, else en)")
    o.add_argument("--statistics", action="store_true", help="print the number of findings per rule instead of the findings")
    o.add_argument("--quiet", "-q", action="store_true", help="print only findings and errors, no summary")
    o.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    o.add_argument("--fail-on", choices=["error", "warning", "info"], default=None,
                   help="exit 1 when a finding of this severity or a higher one is reported (default: the config's, else "
                        "warning: `info` findings never fail a run)")
    o.add_argument("--show-info", action="store_true",
                   help="show `info` findings in the text formats (rich, concise); by default they are counted in one "
                        "line and left out. The machine formats always carry every finding with its level")
    i = c.add_argument_group("input")
    i.add_argument("--stdin-filename", metavar="NAME", help="read the source from standard input and report it as NAME (editors); the project around NAME gives context")
    i.add_argument("--force-exclude", action="store_true", help="apply the config's excludes and .gitignore to files named explicitly (pre-commit)")
    i.add_argument("--config", metavar="FILE", help="use this trainlint.toml / pyproject.toml instead of searching for one")
    i.add_argument("--isolated", action="store_true", help="ignore configuration files")
    pf = c.add_argument_group("performance")
    pf.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes for parsing and matching (default: the number of CPUs; 1 = everything in this process)")
    pf.add_argument("--profile", action="store_true",
                    help="after the report, print on stderr where the time went: each stage (discover, parse, context, "
                         "index, program model, rules, ...) and each rule, slowest first, and the peak memory")
    pf.add_argument("--max-file-size", type=float, metavar="MB",
                    help="files larger than this are reported (kind 'limit') instead of parsed (default: 2)")
    pf.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    pf.add_argument("--cache-dir", metavar="DIR", help="cache directory (default: $TRAINLINT_CACHE_DIR, else the user cache directory ~/.cache/trainlint)")
    fx = c.add_argument_group("fixes")
    fx.add_argument("--fix", action="store_true", help="apply the safe fixes to the files (then report what remains)")
    fx.add_argument("--unsafe-fixes", action="store_true", help="with --fix/--diff: apply the unsafe fixes too (they change behaviour; review them)")
    fx.add_argument("--diff", action="store_true", help="print the changes --fix would make as a unified diff; write nothing (exit 1 if there are changes)")
    b = c.add_argument_group("suppressions and baseline")
    b.add_argument("--strict-suppressions", action="store_true", help="report bare `# trainlint: ignore` comments and fail on unused or unknown ones")
    b.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in this baseline file")
    b.add_argument("--write-baseline", metavar="FILE", help="record the current findings in FILE (exit 0) and report nothing")

    r = sub.add_parser("rules", help="list the rules", description="List every loaded rule (built-in, the config's rule directories and --rules).")
    r.add_argument("--format", choices=["table", "json"], default="table", help="output format (default: table)")
    r.add_argument("--lang", choices=["en", "zh"], default="en", help="title language")
    r.add_argument("--rules", action="append", metavar="DIR", default=[], help="add a rule pack directory (repeatable)")
    r.add_argument("--no-default-rules", action="store_true", help="do not load the built-in rules")
    r.add_argument("--config", metavar="FILE", help="configuration file (default: searched from the current directory)")
    r.add_argument("--isolated", action="store_true", help="ignore configuration files")

    e = sub.add_parser("explain", help="explain a rule", description="What a rule finds, why it hurts accuracy, how to fix it, with examples.")
    e.add_argument("rule", help="rule id or name")
    e.add_argument("--lang", choices=["en", "zh"], default="en", help="language")
    e.add_argument("--rules", action="append", metavar="DIR", default=[], help="add a rule pack directory (repeatable)")
    e.add_argument("--config", metavar="FILE", help="configuration file (default: searched from the current directory)")
    e.add_argument("--isolated", action="store_true", help="ignore configuration files")

    sub.add_parser("schema", help="print the rule-file JSON Schema", description="Print the JSON Schema of rule files.")

    v = sub.add_parser("validate-rules", help="check rule files", description="Validate rule files (schema and semantics).")
    v.add_argument("files", nargs="+", help="rule files or directories")

    t = sub.add_parser("test-rules", help="run the inline examples of rule files",
                       description="Run the valid/invalid examples of every rule in the built-in packs, or in DIR.")
    t.add_argument("dirs", nargs="*", help="rule pack directories (default: the built-in rules)")
    t.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the messages checked (default: en)")

    sub.add_parser("server", help="run the language server (LSP over stdio; needs trainlint[server])",
                   description="The Language Server Protocol over standard input/output, for editors: diagnostics as "
                               "you type, quick fixes, rule docs on hover. Install with pip install 'trainlint[server]'. "
                               "Configuration: the workspace's pyproject.toml/trainlint.toml, plus the client's "
                               "initializationOptions (docs/editors.md).")

    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.compare.command import add_parser as add_compare_parser

    add_compare_parser(sub, argparse.RawDescriptionHelpFormatter)
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.audit.command import add_parser as add_audit_parser

    add_audit_parser(sub, argparse.RawDescriptionHelpFormatter)
    return p


def _split(values: Optional[Sequence[str]]) -> List[str]:
    out: List[str] = []
    for v in values or ():
        out += [x.strip() for x in v.split(",") if x.strip()]
    return out


def _print_rule_errors(errors: Sequence[object], err: TextIO) -> None:
    for e in errors:
        err.write(f"trainlint: rule error: {e}\n")


def _cli_overrides(args: argparse.Namespace) -> "CliOverrides":
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.settings.resolve import CliOverrides

    return CliOverrides(
        select=_split(args.select) if args.select else None, extend_select=_split(args.extend_select),
        ignore=_split(args.ignore), rules=list(args.rules), no_default_rules=args.no_default_rules,
        target_version=list(args.target_version), format=args.format, lang=args.lang, config=args.config,
        isolated=args.isolated, force_exclude=args.force_exclude, strict_suppressions=args.strict_suppressions,
        baseline=args.baseline, jobs=args.jobs, no_cache=args.no_cache, cache_dir=args.cache_dir,
        max_file_size=args.max_file_size, fail_on=args.fail_on, show_info=args.show_info,
    )


def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.settings.config import ConfigError
    from linter.settings.resolve import RuleErrors, resolve_settings

    cwd = os.getcwd()
    stdin_name = args.stdin_filename
    if stdin_name is not None and args.paths and args.paths != ["-"]:
        err.write("trainlint: give either paths or --stdin-filename, not both\n")
        return EXIT_ERROR
    paths = [stdin_name] if stdin_name is not None else (args.paths or ["."])
    if args.jobs is not None and args.jobs < 1:
        err.write("trainlint: --jobs must be at least 1\n")
        return EXIT_ERROR
    if args.max_file_size is not None and not args.max_file_size > 0:
        err.write("trainlint: --max-file-size must be a positive number of megabytes\n")
        return EXIT_ERROR
    started = time.perf_counter()
    try:
        st = resolve_settings(paths, cwd, _cli_overrides(args))
    except RuleErrors as exc:
        _print_rule_errors(exc.errors, err)
        return EXIT_ERROR
    except ConfigError as exc:
        err.write(f"trainlint: configuration error: {exc}\n")
        return EXIT_ERROR
    st.options.parse_ahead = ahead = args.parse_ahead
    if ahead is not None:
        ahead.meanwhile["report"] = _load_report
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.core.observer import Stage
    from linter.report.progress import observer_for, write_profile

    # no bar for fix rounds (several runs, then a diff) or an editor's buffer
    obs, stop_bar = observer_for(err, st.format, args.quiet or args.fix or args.diff or stdin_name is not None, st.lang)
    obs.stages.append(Stage("settings", time.perf_counter() - started, "configuration and compiled rule packs"))
    st.options.observer = obs
    try:
        code = _check(args, st, paths, stdin_name, cwd, out, err, stop_bar)
    finally:
        stop_bar()
    if args.profile:
        write_profile(err, obs, time.perf_counter() - started)
    return code


def _load_report() -> None:
    """The report's imports (fingerprints), made while the parse-ahead process parses."""
    import linter.baseline  # noqa: F401


def _check(args: argparse.Namespace, st, paths: List[str], stdin_name: Optional[str], cwd: str,
           out: TextIO, err: TextIO, stop_bar) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.api import check_paths, check_stdin
    from linter.report.run import Report
    from linter.source.discover import is_excluded

    if (args.fix or args.diff) and args.write_baseline:
        err.write("trainlint: --fix/--diff cannot be combined with --write-baseline\n")
        return EXIT_ERROR
    if stdin_name is not None:
        if st.walk.force_exclude and is_excluded(stdin_name, cwd, st.walk):
            if args.fix:
                out.write(sys.stdin.read())   # as Ruff: an excluded buffer is passed through unchanged
            return EXIT_CLEAN  # as Ruff: an excluded buffer gets no diagnostics
        data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode("utf-8")
        if args.fix or args.diff:
            args._stdin_data = data
            return _fix(args, st, paths, stdin_name, cwd, out, err)
        result = check_stdin(stdin_name, data, st.packs, st.options, cwd)
    else:
        if args.fix or args.diff:
            return _fix(args, st, paths, stdin_name, cwd, out, err)
        result = check_paths(paths, st.packs, st.options, cwd, st.walk, run_key=st.run_key)

    stop_bar()   # the report takes the terminal
    _encoding(out, st.format)
    obs = st.options.observer
    with obs.stage("report"):
        report = Report(result, st, cwd)
        if st.format in ANNOTATED_FORMATS and not args.statistics:
            # imported when this runs, not at start-up (a cached one-file check does not need it)
            from linter.fix.run import annotate

            report.fixable = annotate(result, st.packs.rules, st.lang, st.options.cache, st.packs.digest, st.options.jobs)
        return _finish_check(args, report, cwd, out, err)


def _finish_check(args: argparse.Namespace, report: "Report", cwd: str, out: TextIO, err: TextIO) -> int:
    if args.write_baseline:
        try:
            n = report.write_baseline(os.path.join(cwd, args.write_baseline))
        except OSError as exc:
            err.write(f"trainlint: cannot write baseline {args.write_baseline}: {exc.strerror or exc}\n")
            return EXIT_ERROR
        report.write_errors(err)
        err.write(f"trainlint: recorded {n} finding{'s' if n != 1 else ''} in {args.write_baseline}\n")
        return EXIT_ERROR if report.fatal else EXIT_CLEAN
    if _emit(report, args, out, err):
        return EXIT_ERROR
    if report.fatal:
        return EXIT_ERROR
    if report.failing and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


ANNOTATED_FORMATS = ("json", "sarif", "rich")
"""Formats that show the available fixes (finding ``fix`` objects, ``[*]`` marks); the others
(pre-commit's concise, GitHub annotations, JUnit) skip the extra parse of flagged files."""


def _fix(args: argparse.Namespace, st, paths: List[str], stdin_name: Optional[str], cwd: str,
         out: TextIO, err: TextIO) -> int:
    """``--fix`` / ``--diff``: fix rounds in memory, then write (atomically) or print the diff,
    then report what remains. Exit codes as Ruff: ``--diff`` exits 1 when there are changes;
    ``--fix`` exits 1 when findings remain."""
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.api import check_paths, check_stdin
    from linter.core.atomic import write_atomic
    from linter.fix.apply import unified_diff
    from linter.fix.run import annotate, fix_loop
    from linter.report.run import Report

    originals: dict = {}
    if stdin_name is not None:
        data = args._stdin_data

        def lint(overlay):
            text = overlay.get(next(iter(overlay), None)) if overlay else None
            return check_stdin(stdin_name, text.encode("utf-8") if text is not None else data, st.packs, st.options, cwd)

        def can_fix(path: str, text: str) -> Optional[str]:
            return None
    else:
        def lint(overlay):
            return check_paths(paths, st.packs, st.options, cwd, st.walk, run_key=st.run_key,
                               overlay={os.path.join(cwd, p): t.encode("utf-8") for p, t in overlay.items()})

        def can_fix(path: str, text: str) -> Optional[str]:
            try:
                with open(os.path.join(cwd, path), "rb") as fh:
                    raw = fh.read()
            except OSError as exc:
                return f"cannot read it again: {exc.strerror or exc}"
            try:
                if raw.decode("utf-8") != text or raw.startswith(b"\xef\xbb\xbf"):
                    raise UnicodeDecodeError("utf-8", raw, 0, 1, "mismatch")
            except UnicodeDecodeError:
                return "not plain UTF-8 (another encoding or a BOM): not rewritten"
            originals[path] = raw
            return None

    outcome = fix_loop(lint, st.packs.rules, args.unsafe_fixes, can_fix)
    result = outcome.result
    for r in outcome.refusals:
        err.write(f"trainlint: {r}\n")
    for path, why in sorted(outcome.skipped.items()):
        err.write(f"trainlint: {path}: fixes not applied: {why}\n")
    if not outcome.converged:
        err.write("trainlint: fixes did not converge (a fix keeps changing the code); please report this\n")
    if args.diff:
        for path in sorted(outcome.fixed):
            out.write(unified_diff(path, outcome.originals[path], outcome.fixed[path]))
        n = outcome.count
        err.write(f"trainlint: would fix {n} finding{'s' if n != 1 else ''} in {len(outcome.fixed)} "
                  f"file{'s' if len(outcome.fixed) != 1 else ''}\n")
        if any(e.fatal for e in result.errors):
            return EXIT_ERROR
        return EXIT_FINDINGS if outcome.fixed else EXIT_CLEAN
    if stdin_name is not None:
        fixed = next(iter(outcome.fixed.values()), None)
        out.write(fixed if fixed is not None else data.decode("utf-8", "replace"))
        report_out = err
    else:
        for path, text in sorted(outcome.fixed.items()):
            target = os.path.join(cwd, path)
            try:
                with open(target, "rb") as fh:
                    if fh.read() != originals.get(path):
                        err.write(f"trainlint: {path} changed while it was being fixed; not written\n")
                        continue
                write_atomic(target, text)
            except OSError as exc:
                err.write(f"trainlint: cannot write {path}: {exc.strerror or exc}\n")
                return EXIT_ERROR
        report_out = out
    fixable = annotate(result, st.packs.rules, st.lang, st.options.cache, st.packs.digest, st.options.jobs)
    _encoding(report_out, st.format)
    report = Report(result, st, cwd)
    report.fixable = fixable
    report.fixed = outcome.count
    if _emit(report, args, report_out, err):
        return EXIT_ERROR
    summary = fix_summary(outcome.count, len(report.findings), fixable, args.unsafe_fixes)
    (err if st.format in ("json", "sarif", "junit", "github") or report_out is err else out).write(summary + "\n")
    if report.fatal:
        return EXIT_ERROR
    if report.failing and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def fix_summary(fixed: int, remaining: int, fixable: tuple, unsafe_applied: bool) -> str:
    """``N fixed, M remaining (K fixable with --unsafe-fixes)``."""
    text = f"{fixed} fixed, {remaining} remaining"
    safe_left, unsafe_left = fixable
    notes = []
    if safe_left:
        notes.append(f"{safe_left} fixable with --fix")
    if unsafe_left and not unsafe_applied:
        notes.append(f"{unsafe_left} fixable with --unsafe-fixes")
    return text + (f" ({', '.join(notes)})" if notes else "")


def _emit(report: "Report", args: argparse.Namespace, out: TextIO, err: TextIO) -> bool:
    """Apply the baseline and print the findings (or the statistics); True on a baseline error."""
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.baseline import BaselineError

    try:
        report.apply_baseline()
    except BaselineError as exc:
        err.write(f"trainlint: baseline error: {exc}\n")
        return True
    if args.statistics:
        report.statistics(out)
    else:
        report.write(out, quiet=args.quiet)
    return False


def _packs_with_config(args: argparse.Namespace, err: TextIO, no_default: bool = False):
    """Rule packs for ``rules``/``explain``: built-in, the config's ``rules`` and ``--rules``."""
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.engine.packs import load_packs
    from linter.settings.config import ConfigError
    from linter.settings.resolve import config_for

    try:
        config = config_for([], os.getcwd(), args.config, args.isolated)
    except ConfigError as exc:
        err.write(f"trainlint: configuration error: {exc}\n")
        return None
    packs = load_packs(list(config.rules) + list(args.rules), builtin=not (no_default or config.no_default_rules))
    if packs.errors:
        _print_rule_errors(packs.errors, err)
        return None
    return packs


def _encoding(out: TextIO, fmt: str) -> None:
    """Machine formats are UTF-8 whatever the locale (SARIF/JUnit declare it); text formats
    degrade to escapes instead of crashing on a non-UTF-8 console (Chinese messages)."""
    if out is not sys.stdout or not hasattr(out, "reconfigure"):
        return
    try:
        if fmt in ("json", "sarif", "junit"):
            out.reconfigure(encoding="utf-8")
        else:
            out.reconfigure(errors="backslashreplace")
    except (ValueError, OSError):  # already written to, or not reconfigurable
        pass


def cmd_rules(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    packs = _packs_with_config(args, err, args.no_default_rules)
    if packs is None:
        return EXIT_ERROR
    if args.format == "json":
        json.dump([{"id": r.id, "name": r.name, "checklist": r.checklist, "framework": r.framework,
                    "severity": r.severity, "tags": list(r.tags), "title": r.title, "path": r.path}
                   for r in packs.rules], out, indent=2, ensure_ascii=False)
        out.write("\n")
        return EXIT_CLEAN
    # imported where it is used: rich is slow to import (start-up time)
    from rich.console import Console
    from rich.table import Table

    table = Table(title=None, show_lines=False)
    for col in ("id", "name", "checklist", "framework", "severity", "title"):
        table.add_column(col, overflow="fold")
    for r in packs.rules:
        table.add_row(r.id, r.name, r.checklist, r.framework, r.severity, r.title.get(args.lang) or r.title["en"])
    Console(file=out, width=None if out.isatty() else 160).print(table)
    return EXIT_CLEAN


def cmd_explain(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.report.explain import render_rule

    packs = _packs_with_config(args, err)
    if packs is None:
        return EXIT_ERROR
    key = args.rule
    rule = next((r for r in packs.rules if key in (r.id, r.name) or r.id == key.upper()), None)
    if rule is None:
        err.write(f"trainlint: no rule {key!r} (see `trainlint rules`)\n")
        return EXIT_ERROR
    out.write(render_rule(rule, packs, args.lang))
    return EXIT_CLEAN


def cmd_schema(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.compiler.spec import rule_schema

    json.dump(rule_schema(), out, indent=2, ensure_ascii=False)
    out.write("\n")
    return EXIT_CLEAN


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.compiler.build import build_rule
    from linter.compiler.load import RuleFileError, read_yaml, rule_files

    paths: List[str] = []
    for f in args.files:
        if os.path.isdir(f):
            paths += rule_files(f)
        else:
            paths.append(f)
    bad = 0
    for path in paths:
        try:
            build_rule(read_yaml(path))
            out.write(f"{path}: ok\n")
        except RuleFileError as exc:
            err.write(f"{exc}\n")
            bad += 1
    if not paths:
        err.write("trainlint: no rule files found\n")
        return EXIT_ERROR
    return EXIT_ERROR if bad else EXIT_CLEAN


def cmd_test_rules(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.engine.packs import load_packs
    from linter.testing import run_examples

    packs = load_packs(args.dirs, builtin=True)
    if packs.errors:
        _print_rule_errors(packs.errors, err)
        return EXIT_ERROR
    chosen = packs.rules
    if args.dirs:
        dirs = [os.path.abspath(d) for d in args.dirs]
        chosen = [r for r in packs.rules if any(os.path.abspath(r.path).startswith(d + os.sep) for d in dirs)]
    results = run_examples(packs, chosen, args.lang)
    failed = [r for r in results if not r.ok]
    for r in failed:
        out.write(r.explain() + "\n")
    todo = sum(1 for r in results if r.example.kind == "todo_invalid")
    out.write(f"{len(results) - len(failed)} of {len(results)} examples passed ({len(chosen)} rules"
              f"{f', {todo} known misses documented' if todo else ''})\n")
    return EXIT_ERROR if failed or not results else EXIT_CLEAN


def cmd_audit(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.audit.command import run

    return run(args, out, err)


def cmd_compare(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.compare.command import run

    _encoding(out, args.format)
    return run(args, out, err)


def cmd_server(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        err.write("trainlint: the language server needs pygls and lsprotocol: pip install 'trainlint[server]'\n")
        return EXIT_ERROR
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.server.app import serve

    return serve()


def main(argv: Optional[Sequence[str]] = None, out: Optional[TextIO] = None, err: Optional[TextIO] = None,
         parse_ahead: Optional["ParseAhead"] = None) -> int:
    """Run one command. ``parse_ahead``: a parser process the console entry point started
    before this module was imported (:mod:`linter.entry`); used by ``check``, stopped otherwise."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        wanted = args.command == "check" and args.jobs != 1     # -j 1: one process, as asked
        args.parse_ahead = parse_ahead if wanted else None
        if parse_ahead is not None and not wanted:
            parse_ahead.close()
        return _run(parser, args, out, err)
    finally:
        if parse_ahead is not None:
            parse_ahead.close()


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.command is None:
        parser.print_help(out)
        return EXIT_ERROR
    handler = {
        "check": cmd_check, "rules": cmd_rules, "explain": cmd_explain, "schema": cmd_schema,
        "validate-rules": cmd_validate, "test-rules": cmd_test_rules, "compare": cmd_compare, "audit": cmd_audit,
        "server": cmd_server,
    }[args.command]
    try:
        return handler(args, out, err)
    except BrokenPipeError:
        return EXIT_CLEAN
    except KeyboardInterrupt:
        err.write("trainlint: interrupted\n")
        return 130
