"""Run an audit: one engine run, then projects, decisions and the inventory (see the package docstring)."""
from __future__ import annotations

import dataclasses
import os
from typing import Dict, List, Optional, Sequence, Set, Tuple

from linter.api import discover_units
from linter.audit.decide import decide_item
from linter.audit.inventory import migration_risks
from linter.audit.model import AuditResult, FactValue, ProjectResult
from linter.audit.projects import FoundProject, find_projects
from linter.audit.spec import AuditSpec, load_audit_spec
from linter.compare.load import Side
from linter.compare.mapping import MappingError, builtin_tables
from linter.compare.model import fmt
from linter.compare.profile import extract_profile
from linter.compare.render import unresolved_text
from linter.compiler.build import CallPattern
from linter.core.model import Diagnostic, ErrorKind, Finding
from linter.core.observer import Observer, Progress
from linter.engine.packs import RulePacks
from linter.engine.run import run
from linter.engine.units import Options, RunResult
from linter.match.context import MatchContext
from linter.program.roles import TRAINING
from linter.source.discover import Walk, display_path


def audit_path(path: str, packs: RulePacks, options: Options, cwd: Optional[str] = None, walk: Optional[Walk] = None,
               spec: Optional[AuditSpec] = None, progress: Optional[Progress] = None) -> AuditResult:
    cwd = cwd or os.getcwd()
    spec = spec or load_audit_spec(packs.checklist)
    root = os.path.abspath(os.path.join(cwd, path))

    units, errors = discover_units([path], cwd, walk)
    if progress and options.observer is None:
        # the engine's phases (files parsed, rules run) on the same bar
        options = dataclasses.replace(options, observer=Observer(progress=progress))
    result = run(units, packs, options, keep_context=True)
    errors = sorted(errors + result.errors, key=Diagnostic.sort_key)
    mc = result.context
    if mc is None:   # nothing parsed
        return AuditResult(display_path(root, cwd), [], errors, 0)
    p = mc.p
    linted_paths = {u.path for u in units if u.linted}
    linted = {fi for fi in range(len(p.files)) if p.files[fi].path in linted_paths}
    folder = root if os.path.isdir(root) else os.path.dirname(root)
    found = find_projects(p, mc.roles, spec, linted, folder)
    auditor = _Auditor(mc, result, spec, packs, options.lang, cwd, errors)
    projects = []
    for i, fp in enumerate(found):
        if progress:
            progress("projects", i, len(found))
        projects.append(auditor.project(fp))
    if progress:
        progress("projects", len(found), len(found))
    return AuditResult(display_path(root, cwd), projects, errors, result.files)


class _Auditor:
    def __init__(self, mc: MatchContext, result: RunResult, spec: AuditSpec, packs: RulePacks, lang: str, cwd: str,
                 errors: List[Diagnostic]) -> None:
        self.mc, self.p, self.result, self.spec, self.packs, self.lang, self.cwd = mc, mc.p, result, spec, packs, lang, cwd
        self.by_path: Dict[str, List[Finding]] = {}
        for f in result.findings:
            self.by_path.setdefault(f.path, []).append(f)
        self.errors_by_path: Dict[str, List[Diagnostic]] = {}
        for e in errors:
            self.errors_by_path.setdefault(e.path, []).append(e)
        self._sites: Dict[Tuple[int, int], List[Tuple[str, int]]] = {}
        self._lines: Dict[str, List[str]] = {}
        self._file_of = {f.path: fi for fi, f in enumerate(self.p.files)}

    # ------------------------------------------------------------------ helpers
    def sites_in(self, pattern: CallPattern, files: Sequence[int]) -> List[Tuple[str, int]]:
        """Calls matching ``pattern`` in ``files`` (memoised per file: projects share files)."""
        out: List[Tuple[str, int]] = []
        for fi in files:
            key = (id(pattern), fi)
            hit = self._sites.get(key)
            if hit is None:
                hit = []
                for _fi, cid in self.mc.candidates(pattern, [fi]):
                    try:
                        site = self.mc.match(pattern, fi, cid)
                    except RecursionError:
                        site = None
                    if site is not None:
                        hit.append((self.p.files[fi].path, site.call.line))
                self._sites[key] = hit
            out += hit
        return out

    def line_text(self, path: str, line: int) -> str:
        lines = self._lines.get(path)
        if lines is None:
            fi = self._file_of.get(path)
            lines = []
            if fi is not None:
                try:
                    with open(self.p.abspaths[fi], "rb") as fh:
                        lines = fh.read().decode("utf-8", errors="replace").splitlines()
                except OSError:
                    lines = []
            self._lines[path] = lines
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""

    def trains(self, fp: FoundProject) -> bool:
        roles = self.mc.roles
        if fp.entries:
            return any(TRAINING in roles.entry_roles(fi) for fi in fp.entries)
        files = set(fp.files)
        return any(fi in files for fi, _cid in roles.step_sites(TRAINING))

    def frameworks(self, files: Sequence[int]) -> List[str]:
        out: Set[str] = set()
        for fi in files:
            out |= self.mc.file_frameworks(fi)
        return sorted(out)

    def facts(self, fp: FoundProject, notes: List[str], findings: List[Finding]) -> Tuple[List[FactValue], object]:
        """The training profile of the project (compare's extractor), as facts."""
        if not fp.files:
            return [], None
        try:
            tables = builtin_tables()
        except MappingError as exc:
            notes.append(f"facts not extracted: {exc}")
            return [], None
        entry = fp.entries[0] if fp.entries else fp.files[0]
        side = Side(display_path(fp.folder, self.cwd), entry, self.p, self.mc.program, list(fp.files), fp.folder, self.cwd,
                    findings=findings)
        try:
            profile = extract_profile(side, tables, self.packs)
        except RecursionError:
            notes.append("facts not extracted: nesting too deep")
            return [], None
        notes += profile.notes
        # a value that is not known statically is shown as such, never as if its expression were
        # the value (`optimizer.lr=unresolved: lr`, not `optimizer.lr=lr`)
        out = [FactValue(k, fmt(f.val.value) if f.val.known else unresolved_text(f.val, tables, self.lang), f.path, f.line,
                         f.val.defaulted) for k, f in profile.facts.items()]
        return out, (profile, tables)

    # ------------------------------------------------------------------ one project
    def project(self, fp: FoundProject) -> ProjectResult:

        paths = [self.p.files[fi].path for fi in fp.files]
        findings = [f for path in paths for f in self.by_path.get(path, ())]
        trains = self.trains(fp)
        notes: List[str] = []
        facts, prof = self.facts(fp, notes, findings)
        for path in paths:
            for e in self.errors_by_path.get(path, ()):
                if e.fatal and e.kind is not ErrorKind.SUPPRESSION:
                    notes.append(f"{e.path}: {e.message}")

        def sites(pattern: CallPattern) -> List[Tuple[str, int]]:
            return self.sites_in(pattern, fp.files)

        items = [decide_item(s, findings, sites, trains, facts, self.line_text, self.lang) for s in self.spec.items]
        frameworks = self.frameworks(fp.files)
        target, risks = migration_risks(prof, self.p.apis, self.lang) if prof is not None else (None, [])
        return ProjectResult(display_path(fp.folder, self.cwd), [self.p.files[fi].path for fi in fp.entries], frameworks,
                             paths, items, trains=trains, migration_target=target, risks=risks, notes=notes)
