"""Configuration: ``[tool.trainlint]`` in ``pyproject.toml`` or a ``trainlint.toml``.

Found by walking up from the linted paths (``trainlint.toml`` wins over ``pyproject.toml`` in
the same directory; a ``pyproject.toml`` without ``[tool.trainlint]`` is passed over, as Ruff
does). Paths in the file are relative to the file's directory. The keys are validated by a
JSON Schema: an unknown key or a wrong type is an error naming the file, the line and the
key, with a suggestion for near misses (``per_file_ignores`` → ``per-file-ignores``).
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

FRAMEWORKS = ("mindspore", "pytorch", "tensorflow")
FORMATS = ("rich", "concise", "json", "sarif", "github", "junit")
LANGS = ("en", "zh")
SEVERITIES = ("error", "warning", "info")

_STR_LIST = {"type": "array", "items": {"type": "string"}}
SCHEMA: Dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "select": {**_STR_LIST, "description": "Rules to run (ids, id prefixes, names, checklist ids, frameworks, tags; ALL)."},
        "extend-select": {**_STR_LIST, "description": "Rules to add to the selection."},
        "ignore": {**_STR_LIST, "description": "Rules not to run."},
        "per-file-ignores": {"type": "object", "additionalProperties": _STR_LIST,
                             "description": "Glob (relative to this file) → rules ignored in matching files."},
        "severity": {"type": "object", "additionalProperties": {"enum": list(SEVERITIES)},
                     "description": "Rule selector → severity reported for its findings."},
        "rules": {**_STR_LIST, "description": "Extra rule pack directories (relative to this file)."},
        "no-default-rules": {"type": "boolean", "description": "Do not load the built-in rules."},
        "target-version": {"type": "object", "propertyNames": {"enum": list(FRAMEWORKS)},
                           "additionalProperties": {"type": "string", "pattern": r"^\d+(\.\d+){0,2}"},
                           "description": "Framework versions whose semantics to assume."},
        "include": {**_STR_LIST, "description": "File name globs linted when walking directories."},
        "extend-include": {**_STR_LIST, "description": "Globs added to `include`."},
        "exclude": {**_STR_LIST, "description": "gitignore-style patterns skipped when walking (replaces the defaults)."},
        "extend-exclude": {**_STR_LIST, "description": "Patterns added to `exclude`."},
        "respect-gitignore": {"type": "boolean", "description": "Skip what .gitignore files exclude (default true)."},
        "force-exclude": {"type": "boolean", "description": "Apply excludes to explicitly named files too."},
        "format": {"enum": list(FORMATS), "description": "Default output format."},
        "lang": {"enum": list(LANGS), "description": "Default message language."},
        "fail-on": {"enum": list(SEVERITIES),
                    "description": "Lowest severity whose findings fail the run (exit 1); default warning."},
        "show-info": {"type": "boolean", "description": "Show `info` findings in the text formats (default false)."},
        "strict-suppressions": {"type": "boolean", "description": "Fail on bare and unused `# trainlint: ignore` comments."},
        "baseline": {"type": "string", "description": "Baseline file (relative to this file) whose findings are not reported."},
        "cache-dir": {"type": "string", "description": "Cache directory (relative to this file); default: the user cache directory."},
        "jobs": {"type": "integer", "minimum": 1, "description": "Worker processes (default: the number of CPUs)."},
        "max-file-size": {"type": "number", "exclusiveMinimum": 0,
                          "description": "Largest file checked, in MB (default 2); larger files are reported, not parsed."},
    },
}


class ConfigError(Exception):
    """A configuration problem, with the file and line when known."""

    def __init__(self, path: str, message: str, line: Optional[int] = None) -> None:
        self.path, self.message, self.line = path, message, line
        super().__init__(f"{path}{f':{line}' if line else ''}: {message}")


@dataclass
class Config:
    """Settings from a config file (all optional); CLI options are merged on top by the CLI."""

    path: Optional[str] = None
    root: str = "."
    """Directory that relative paths and globs in the file are resolved against."""
    select: Optional[List[str]] = None
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    per_file_ignores: List[Tuple[str, List[str]]] = field(default_factory=list)
    severity: Dict[str, str] = field(default_factory=dict)
    rules: List[str] = field(default_factory=list)
    no_default_rules: bool = False
    target_version: Dict[str, str] = field(default_factory=dict)
    include: Optional[List[str]] = None
    extend_include: List[str] = field(default_factory=list)
    exclude: Optional[List[str]] = None
    extend_exclude: List[str] = field(default_factory=list)
    respect_gitignore: bool = True
    force_exclude: bool = False
    format: Optional[str] = None
    lang: Optional[str] = None
    strict_suppressions: bool = False
    fail_on: Optional[str] = None
    show_info: bool = False
    baseline: Optional[str] = None
    cache_dir: Optional[str] = None
    jobs: Optional[int] = None
    max_file_size: Optional[float] = None


def find_config(paths: Sequence[str], cwd: str) -> Optional[Tuple[str, str]]:
    """(file, "trainlint.toml" | "pyproject.toml") of the nearest config above the linted paths."""
    starts = [os.path.abspath(os.path.join(cwd, p)) for p in paths] or [os.path.abspath(cwd)]
    dirs = [s if os.path.isdir(s) else os.path.dirname(s) for s in starts]
    try:
        d = os.path.commonpath(dirs)
    except ValueError:  # different drives on Windows
        d = dirs[0]
    while True:
        candidate = os.path.join(d, "trainlint.toml")
        if os.path.isfile(candidate):
            return candidate, "trainlint.toml"
        candidate = os.path.join(d, "pyproject.toml")
        if os.path.isfile(candidate) and _has_tool_table(candidate):
            return candidate, "pyproject.toml"
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _has_tool_table(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    # Cheap test first; a malformed pyproject.toml that mentions us is still reported.
    return b"tool.trainlint" in data


def load_config(path: str) -> Config:
    """Read and validate one config file (raises :class:`ConfigError`)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise ConfigError(path, f"cannot read configuration: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(path, f"not UTF-8 (byte {exc.start}); TOML files must be UTF-8") from None
    if sys.version_info >= (3, 11):
        # the standard library's TOML reader from Python 3.11, else tomli
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.9/3.10 only
        import tomli as tomllib
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"at line (\d+)", str(exc))
        raise ConfigError(path, f"invalid TOML: {exc}", int(m.group(1)) if m else None) from None
    is_pyproject = os.path.basename(path) == "pyproject.toml"
    table: Any = doc.get("tool", {}).get("trainlint", {}) if is_pyproject else doc
    if is_pyproject and "trainlint" not in doc.get("tool", {}):
        raise ConfigError(path, "no [tool.trainlint] table")
    if not is_pyproject and "tool" in doc and "trainlint" in doc.get("tool", {}) and len(doc) == 1:
        table = doc["tool"]["trainlint"]  # a trainlint.toml written like a pyproject section
    section = "[tool.trainlint]" if is_pyproject or table is not doc else None
    _validate(path, text, table, section)
    root = os.path.dirname(os.path.abspath(path))

    def rel(p: str) -> str:
        return os.path.normpath(os.path.join(root, os.path.expanduser(p)))

    return Config(
        path=path,
        root=root,
        select=table.get("select"),
        extend_select=list(table.get("extend-select", [])),
        ignore=list(table.get("ignore", [])),
        per_file_ignores=[(k, list(v)) for k, v in table.get("per-file-ignores", {}).items()],
        severity=dict(table.get("severity", {})),
        rules=[rel(p) for p in table.get("rules", [])],
        no_default_rules=bool(table.get("no-default-rules", False)),
        target_version=dict(table.get("target-version", {})),
        include=table.get("include"),
        extend_include=list(table.get("extend-include", [])),
        exclude=table.get("exclude"),
        extend_exclude=list(table.get("extend-exclude", [])),
        respect_gitignore=bool(table.get("respect-gitignore", True)),
        force_exclude=bool(table.get("force-exclude", False)),
        format=table.get("format"),
        lang=table.get("lang"),
        strict_suppressions=bool(table.get("strict-suppressions", False)),
        fail_on=table.get("fail-on"),
        show_info=bool(table.get("show-info", False)),
        baseline=rel(table["baseline"]) if "baseline" in table else None,
        cache_dir=rel(table["cache-dir"]) if "cache-dir" in table else None,
        jobs=table.get("jobs"),
        max_file_size=table.get("max-file-size"),
    )


def _validate(path: str, text: str, table: Any, section: Optional[str]) -> None:
    # imported where it is used: jsonschema is slow to import (start-up time)
    import jsonschema

    where = section or "configuration"
    if not isinstance(table, dict):
        raise ConfigError(path, f"{where} must be a table")
    known = list(SCHEMA["properties"])
    for key in table:
        if key not in SCHEMA["properties"]:
            # only to suggest a key for a misspelt one
            import difflib

            guess = difflib.get_close_matches(key.replace("_", "-"), known, n=1, cutoff=0.6)
            hint = f" (did you mean {guess[0]!r}?)" if guess else f"; known keys: {', '.join(known)}"
            raise ConfigError(path, f"{where}: unknown key {key!r}{hint}", _line_of(text, [key]))
    validator = jsonschema.Draft202012Validator(SCHEMA)
    errors = sorted(validator.iter_errors(table), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        keys = [str(k) for k in e.absolute_path]
        dotted = ".".join(keys) or "(table)"
        raise ConfigError(path, f"{where}: {dotted}: {_describe(e)}", _line_of(text, keys[:2]))


def _describe(e: Any) -> str:
    if e.validator == "enum":
        return f"{e.instance!r} is not one of {', '.join(map(str, e.validator_value))}"
    if e.validator == "type":
        return f"expected {e.validator_value}, got {type(e.instance).__name__} {e.instance!r}"
    if e.validator == "pattern":
        return f"{e.instance!r} is not a version like 2.3 or 2.3.1"
    return e.message


def _line_of(text: str, keys: Sequence[str]) -> Optional[int]:
    """Best-effort line of a key (TOML parsers give no positions): the first line that
    assigns the innermost key, or a table header naming it."""
    for key in reversed(keys):
        pat = re.compile(r'^\s*(?:"?' + re.escape(key) + r'"?|\'' + re.escape(key) + r'\')\s*=|\[[^\]]*\b' + re.escape(key) + r'\b[^\]]*\]')
        for i, line in enumerate(text.splitlines(), 1):
            if pat.search(line):
                return i
    return None
