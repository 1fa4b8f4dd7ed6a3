"""Command line: ``trainlint check|rules|explain|schema|validate-rules|test-rules``.

No logic lives here: each subcommand parses its options and calls :mod:`linter.api`,
:mod:`linter.testing` or a report module. Exit codes: 0 clean, 1 findings, 2 usage,
configuration or rule-file errors, or files that could not be checked.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Optional, Sequence, TextIO

from linter import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

_EPILOG = """exit codes: 0 no findings, 1 findings, 2 usage/configuration/rule-file error or a file that
could not be checked. Docs: README.md; rule docs: `trainlint explain ID`."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="trainlint",
        description="Find accuracy bugs in MindSpore, PyTorch and TensorFlow/Keras training scripts, statically.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"trainlint {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("check", help="lint files or directories", description="Lint Python training/inference scripts.",
                       epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("paths", nargs="*", default=["."], help="files or directories (default: .)")
    c.add_argument("--format", choices=["rich", "concise", "json"], default=None,
                   help="output format (default: rich; plain text when not a terminal)")
    c.add_argument("--lang", choices=["en", "zh"], default="en", help="message language")
    c.add_argument("--select", action="append", metavar="SEL", help="only these rules: id, id prefix, name, checklist id (dp.03), framework or tag; repeatable or comma-separated")
    c.add_argument("--extend-select", action="append", metavar="SEL", default=[], help="add rules to the selection")
    c.add_argument("--ignore", action="append", metavar="SEL", default=[], help="skip these rules")
    c.add_argument("--rules", action="append", metavar="DIR", default=[], help="add a rule pack directory (repeatable)")
    c.add_argument("--no-default-rules", action="store_true", help="do not load the built-in rules")
    c.add_argument("--target-version", action="append", metavar="FW=VER", default=[],
                   help="framework version whose semantics to assume, e.g. mindspore=2.3 (default: installed, else the tables' version)")
    c.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    c.add_argument("--quiet", "-q", action="store_true", help="print only findings and errors, no summary")

    r = sub.add_parser("rules", help="list the rules", description="List every loaded rule.")
    r.add_argument("--format", choices=["table", "json"], default="table")
    r.add_argument("--lang", choices=["en", "zh"], default="en")
    r.add_argument("--rules", action="append", metavar="DIR", default=[])
    r.add_argument("--no-default-rules", action="store_true")

    e = sub.add_parser("explain", help="explain a rule", description="What a rule finds, why it hurts accuracy, how to fix it, with examples.")
    e.add_argument("rule", help="rule id or name")
    e.add_argument("--lang", choices=["en", "zh"], default="en")
    e.add_argument("--rules", action="append", metavar="DIR", default=[])

    sub.add_parser("schema", help="print the rule-file JSON Schema", description="Print the JSON Schema of rule files.")

    v = sub.add_parser("validate-rules", help="check rule files", description="Validate rule files (schema and semantics).")
    v.add_argument("files", nargs="+", help="rule files or directories")

    t = sub.add_parser("test-rules", help="run the inline examples of rule files",
                       description="Run the valid/invalid examples of every rule in the built-in packs, or in DIR.")
    t.add_argument("dirs", nargs="*", help="rule pack directories (default: the built-in rules)")
    t.add_argument("--lang", choices=["en", "zh"], default="en")
    return p


def _split(values: Optional[Sequence[str]]) -> List[str]:
    out: List[str] = []
    for v in values or ():
        out += [x.strip() for x in v.split(",") if x.strip()]
    return out


def _print_rule_errors(errors: Sequence[object], err: TextIO) -> None:
    for e in errors:
        err.write(f"trainlint: rule error: {e}\n")


def _versions(args: argparse.Namespace, err: TextIO):
    versions, sources = {}, {}
    for item in args.target_version:
        fw, sep, ver = item.partition("=")
        if not sep or fw not in ("mindspore", "pytorch", "tensorflow") or not ver:
            err.write(f"trainlint: --target-version expects FRAMEWORK=VERSION with FRAMEWORK one of mindspore, pytorch, tensorflow; got {item!r}\n")
            return None
        versions[fw] = ver
        sources[fw] = "--target-version"
    return versions, sources


def cmd_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from linter.api import check_paths
    from linter.compiler.packs import load_packs
    from linter.pipeline import Options
    from linter.selection import build_filter, known_selector

    packs = load_packs(args.rules, builtin=not args.no_default_rules)
    if packs.errors:
        _print_rule_errors(packs.errors, err)
        return EXIT_ERROR
    select = _split(args.select)
    ignore = _split(args.ignore)
    extend = _split(args.extend_select)
    for s in select + ignore + extend:
        if s.upper() != "ALL" and not known_selector(s, packs.rules):
            err.write(f"trainlint: unknown rule selector {s!r} (use an id, id prefix, name, checklist id, framework or tag; see `trainlint rules`)\n")
            return EXIT_ERROR
    vs = _versions(args, err)
    if vs is None:
        return EXIT_ERROR
    options = Options(lang=args.lang, versions=vs[0], version_sources=vs[1],
                      select=build_filter(packs.rules, select or None, ignore, extend))
    result = check_paths(args.paths, packs, options)
    fmt = args.format or "rich"
    if fmt == "json":
        from linter.report import json_format

        json_format.write(out, result.findings, result.errors, result.files,
                          {"suppressed": result.suppressed, "context_files": result.context_files})
    elif fmt == "concise":
        from linter.report import concise

        concise.write(out, result.findings, result.errors)
    else:
        from linter.report import text

        text.write(out, result.findings, result.errors, result.files, result.sources, packs.checklist, args.lang)
    if any(e.fatal for e in result.errors):
        return EXIT_ERROR
    if result.findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def cmd_rules(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from linter.compiler.packs import load_packs

    packs = load_packs(args.rules, builtin=not args.no_default_rules)
    if packs.errors:
        _print_rule_errors(packs.errors, err)
        return EXIT_ERROR
    if args.format == "json":
        json.dump([{"id": r.id, "name": r.name, "checklist": r.checklist, "framework": r.framework,
                    "severity": r.severity, "tags": list(r.tags), "title": r.title, "path": r.path}
                   for r in packs.rules], out, indent=2, ensure_ascii=False)
        out.write("\n")
        return EXIT_CLEAN
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
    from linter.compiler.packs import load_packs
    from linter.explain import render_rule

    packs = load_packs(args.rules)
    if packs.errors:
        _print_rule_errors(packs.errors, err)
        return EXIT_ERROR
    key = args.rule
    rule = next((r for r in packs.rules if key in (r.id, r.name) or r.id == key.upper()), None)
    if rule is None:
        err.write(f"trainlint: no rule {key!r} (see `trainlint rules`)\n")
        return EXIT_ERROR
    out.write(render_rule(rule, packs, args.lang))
    return EXIT_CLEAN


def cmd_schema(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from linter.compiler.spec import rule_schema

    json.dump(rule_schema(), out, indent=2, ensure_ascii=False)
    out.write("\n")
    return EXIT_CLEAN


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
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
    from linter.compiler.packs import load_packs
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


def main(argv: Optional[Sequence[str]] = None, out: Optional[TextIO] = None, err: Optional[TextIO] = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(out)
        return EXIT_ERROR
    handler = {
        "check": cmd_check, "rules": cmd_rules, "explain": cmd_explain, "schema": cmd_schema,
        "validate-rules": cmd_validate, "test-rules": cmd_test_rules,
    }[args.command]
    try:
        return handler(args, out, err)
    except BrokenPipeError:
        return EXIT_CLEAN
    except KeyboardInterrupt:
        err.write("trainlint: interrupted\n")
        return 130
