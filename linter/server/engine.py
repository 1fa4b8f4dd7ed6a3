"""The language server's engine, free of the protocol: one :class:`Folder` per workspace folder
keeps its settings and a warm project index, and lints the open documents as the CLI would.

What stays warm between edits:
- the facts of every open document, keyed by its text (an edit re-parses that document only);
- the facts of the project files the open documents import and of the entry scripts beside
  them (read from disk once, dropped when their modification time or size changes);
- the settings (``[tool.trainlint]``, rule packs), reloaded when the config file or a rule file
  changes on disk.

Every run lints all open documents of the folder together (they are each other's context, so
a seed set in one open helper counts for the open entry script), through the same pipeline,
suppressions and baseline as ``trainlint check``. A document whose new text does not parse
gets its syntax diagnostic, and the project keeps using its last good facts, so the other
documents' findings do not flicker while the user types.
"""
from __future__ import annotations

import dataclasses
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from linter.api import _root
from linter.core.model import Diagnostic, ErrorKind, Finding
from linter.engine.probes import Probes
from linter.engine.run import run_project
from linter.facts.batch import collector_paused
from linter.facts.parse_file import Unit, parse_unit, too_large
from linter.fix.apply import plan
from linter.report.run import Report
from linter.settings.config import ConfigError
from linter.settings.resolve import CliOverrides, RuleErrors, resolve_settings
from linter.source.discover import display_path

CONFIG_NAMES = ("pyproject.toml", "trainlint.toml")


@dataclass
class Overrides:
    """What the client says (``initializationOptions`` / ``workspace/didChangeConfiguration``);
    None or empty = the folder's config file decides."""
    lang: Optional[str] = None
    select: Optional[List[str]] = None
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    target_version: List[str] = field(default_factory=list)
    rules: List[str] = field(default_factory=list)
    """Extra rule pack directories (absolute, or relative to the folder)."""
    info_severity: str = "information"
    """How ``info`` findings are shown: ``information`` (the default) or ``hint`` (most editors
    show hints only as faint dots, out of the problems list)."""
    @classmethod
    def from_json(cls, data: Any) -> "Overrides":
        """From the client's JSON (snake_case, kebab-case or an editor's camelCase keys; empty
        values mean "not set"); unknown keys are ignored, wrong types are an error (the message
        names the key)."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError("trainlint settings must be an object")
        data = data.get("trainlint", data) if isinstance(data.get("trainlint"), dict) else data
        out = cls()
        lang = data.get("lang")
        if lang:   # '' = not set (an editor's empty setting)
            if lang not in ("en", "zh"):
                raise ValueError(f"lang: expected 'en' or 'zh', got {lang!r}")
            out.lang = lang
        info = next((data[k] for k in ("info_severity", "info-severity", "infoSeverity") if k in data), None)
        if info:   # '' = not set
            if info not in ("information", "hint"):
                raise ValueError(f"infoSeverity: expected 'information' or 'hint', got {info!r}")
            out.info_severity = info
        for key in ("select", "extend_select", "ignore", "target_version", "rules"):
            camel = key.split("_")[0] + "".join(w.title() for w in key.split("_")[1:])
            value = next((data[k] for k in (key, key.replace("_", "-"), camel) if k in data), None)
            if value is None or value == [] or value == "":
                continue   # empty = the folder's config decides (editors send every setting)
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            if isinstance(value, dict) and key == "target_version":
                value = [f"{k}={v}" for k, v in value.items()]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"{key}: expected a list of strings, got {value!r}")
            setattr(out, key, list(value))
        return out


@dataclass
class Problem:
    """A configuration or rule-file problem: shown to the user, never a dead server."""
    path: str
    """Absolute path of the file at fault (the config file, a rule file), or the folder."""
    line: Optional[int]
    message: str


@dataclass
class Outcome:
    """One run's answer, by absolute path of each open document."""
    findings: Dict[str, List[Finding]]
    errors: Dict[str, List[Diagnostic]]


@dataclass
class _Parsed:
    data: bytes
    unit: Unit
    errors: List[Diagnostic]


class Folder:
    """A workspace folder: settings, warm facts, and the lint of its open documents."""
    def __init__(self, root: str, overrides: Optional[Overrides] = None) -> None:
        self.root = os.path.abspath(root)
        self.overrides = overrides or Overrides()
        self.settings: Any = None
        self.problem: Optional[Problem] = None
        self._stamps: Dict[str, Tuple[int, int]] = {}
        """Config and rule files the settings were read from, with (mtime_ns, size)."""
        self._context: Dict[str, Unit] = {}
        self._context_stamps: Dict[str, Tuple[int, int]] = {}
        self._parsed: Dict[str, _Parsed] = {}
        self._good: Dict[str, Unit] = {}
        """Last document text of each open file that parsed, for the others' context."""
        self.lock = threading.Lock()
        self.load_settings()

    # ------------------------------------------------------------------ settings
    def load_settings(self) -> Optional[Problem]:
        """(Re)read the config file and rule packs; on a problem keep the last good settings
        (or none) and return the problem."""
        o = self.overrides
        cli = CliOverrides(select=o.select, extend_select=list(o.extend_select), ignore=list(o.ignore),
                           rules=[os.path.join(self.root, r) for r in o.rules], target_version=list(o.target_version),
                           lang=o.lang, jobs=1)
        self.problem = None
        try:
            st = resolve_settings([self.root], self.root, cli)
        except RuleErrors as exc:
            first = exc.errors[0] if exc.errors else None
            path = getattr(first, "path", None) or self.root
            self.problem = Problem(os.path.abspath(os.path.join(self.root, path)), getattr(first, "line", None),
                                   "; ".join(str(e) for e in exc.errors))
        except ConfigError as exc:
            path = exc.path if os.path.isabs(exc.path) or os.path.exists(os.path.join(self.root, exc.path)) else self.root
            self.problem = Problem(os.path.abspath(os.path.join(self.root, path)), exc.line, str(exc))
        if self.problem is None:
            st.options = dataclasses.replace(st.options, jobs=1, rule_workers=False, freeze_facts=False, observer=None)
            self.settings = st
            self._context.clear()   # rules, versions and selection decide nothing about facts, but the
            self._context_stamps.clear()   # packs' API tables shape them: start afresh
        self._stamps = self._watch_list()   # of the settings now in use (and the file at fault)
        return self.problem

    def _watch_list(self) -> Dict[str, Tuple[int, int]]:
        paths = [os.path.join(self.root, n) for n in CONFIG_NAMES]
        st = self.settings
        if st is not None:
            if st.config.path:
                paths.append(st.config.path)
            paths += [r.path for r in st.packs.rules if getattr(r, "path", None)]
            paths += list(st.config.rules)   # a directory's time changes when a rule file is added
        paths += [os.path.join(self.root, r) for r in self.overrides.rules]
        if self.problem is not None:
            paths.append(self.problem.path)
        return {p: _stamp(p) for p in dict.fromkeys(os.path.abspath(p) for p in paths)}

    def settings_changed(self) -> bool:
        """A config or rule file changed on disk since the settings were read."""
        return any(_stamp(p) != s for p, s in self._stamps.items())

    def owns(self, abspath: str) -> bool:
        return abspath == self.root or abspath.startswith(self.root + os.sep)

    # ------------------------------------------------------------------ lint
    def lint(self, docs: Dict[str, bytes]) -> Outcome:
        """Lint the open documents (absolute path → current bytes) together."""
        with self.lock:
            if self.settings_changed():
                self.load_settings()
            if self.settings is None:
                return Outcome({}, {})

            cwd = os.getcwd()
            os.chdir(self.root)   # reports show paths relative to the working directory
            try:
                # A lint allocates a program model that refcounting frees; collections during it
                # would only rescan the warm facts (the p95 of an edit: 71 ms → 43 ms). The
                # server collects when idle (app.py).
                with collector_paused(freeze=False):
                    return self._lint(docs)
            finally:
                os.chdir(cwd)

    def _lint(self, docs: Dict[str, bytes]) -> Outcome:

        st = self.settings
        for gone in [p for p in self._parsed if p not in docs]:
            del self._parsed[gone]
            self._good.pop(gone, None)
        self._drop_stale_context()
        units: List[Unit] = []
        errors: Dict[str, List[Diagnostic]] = {}
        by_path: Dict[str, str] = {}
        for abspath, data in sorted(docs.items()):
            parsed = self._parse(abspath, data, display_path(abspath, self.root), _root(abspath, [self.root]))
            by_path[parsed.unit.path] = abspath
            errors[abspath] = list(parsed.errors)
            if parsed.unit.facts is not None:
                self._good[abspath] = parsed.unit
                units.append(dataclasses.replace(parsed.unit))
            elif abspath in self._good:   # mid-typing: the last text that parsed stays the others' context
                units.append(dataclasses.replace(self._good[abspath], linted=False))
        result = run_project(units, st.packs, st.options, True, Probes(), False, shared=self._context)
        for u in units:
            if not u.linted and u.facts is not None and os.path.normpath(u.abspath) not in docs:
                key = os.path.normpath(u.abspath)
                if key not in self._context:
                    self._context[key] = u
                    self._context_stamps[key] = _stamp(key)
        used = {os.path.normpath(u.abspath) for u in units}
        for key in [k for k in self._context if k not in used]:   # bounded by what the open files need
            del self._context[key]
            self._context_stamps.pop(key, None)
        report = Report(result, st, self.root)
        try:
            report.apply_baseline()
        except Exception as exc:   # a broken baseline file: say so, report everything
            errors.setdefault(next(iter(docs), self.root), []).append(
                Diagnostic(ErrorKind.CONFIG, st.baseline or "", f"baseline not applied: {exc}", fatal=False))
        findings: Dict[str, List[Finding]] = {p: [] for p in docs}
        for f in report.findings:
            target = by_path.get(f.path)
            if target is not None:
                findings[target].append(f)
        for d in result.errors:
            target = by_path.get(d.path)
            if target is not None:
                errors.setdefault(target, []).append(d)
            elif d.kind in (ErrorKind.CONFIG, ErrorKind.RULE, ErrorKind.INTERNAL):
                errors.setdefault(next(iter(sorted(docs)), self.root), []).append(d)
        return Outcome(findings, errors)

    def _parse(self, abspath: str, data: bytes, path: str, root: str) -> _Parsed:
        hit = self._parsed.get(abspath)
        if hit is not None and hit.data == data and hit.unit.path == path:
            return hit
        unit = Unit(path, abspath, root, linted=True)
        limit = self.settings.options.max_file_size
        errs = parse_unit(unit, data) if len(data) <= limit else [too_large(path, len(data), limit)]
        unit.data = None
        parsed = _Parsed(data, unit, errs)
        self._parsed[abspath] = parsed
        return parsed

    def _drop_stale_context(self) -> None:
        for key, stamp in list(self._context_stamps.items()):
            if _stamp(key) != stamp:
                self._context.pop(key, None)
                del self._context_stamps[key]

    def forget(self, abspath: str) -> None:
        """A file changed on disk (a watched-files notification): read it afresh next run."""
        key = os.path.normpath(abspath)
        self._context.pop(key, None)
        self._context_stamps.pop(key, None)

    def context_size(self) -> int:
        return len(self._context)


def _stamp(path: str) -> Tuple[int, int]:
    try:
        s = os.stat(path)
    except OSError:
        return (-1, -1)
    return (s.st_mtime_ns, s.st_size)


def rule_of(folder: Folder, rule_id: str) -> Any:
    st = folder.settings
    if st is None:
        return None
    return next((r for r in st.packs.rules if r.id == rule_id), None)


def fixes_for(folder: Folder, findings: Sequence[Finding], text: str) -> List[Any]:
    """The planned fix of each finding that has one (verified: the result compiles)."""
    st = folder.settings
    if st is None:
        return []
    by_id = {r.id: r for r in st.packs.rules if r.fixes}
    fixes, _ = plan([f for f in findings if f.rule in by_id], text, by_id)
    return fixes
