"""The engine's table of contents: the stages, in order.

    1 discover   paths → source files                       (discover.py)
    2 facts      source → FileFacts, one libcst pass each    (sources.py, facts/)
    3 index      FileFacts → Project (+ imported context)    (index/)
    4 compile    rule packs → CompiledRules                  (compiler/)
    5 match      CompiledRules × Project → findings          (match/)
    6 suppress   `# trainlint: ignore[...]`                  (suppress.py)
    7 report     findings → text/json/...                    (report/)

Every failure is isolated and reported: an unreadable file, a syntax error or a rule that
crashes becomes a :class:`Diagnostic` and the rest of the run goes on.
"""
from __future__ import annotations

import dataclasses
import os
import re
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from linter.core.model import CellSpan, Diagnostic, ErrorKind, Finding, Severity, Span
from linter.source.decode import decode, source_lines
from linter.core.observer import Observer

# The stages' modules (libcst, the extractor, the program model, the matcher) are imported by the
# functions that run them: a run answered from the result cache never loads them (an unchanged
# file checked again costs the start-up only).
if TYPE_CHECKING:
    import libcst as cst

    from linter.core.cache import Cache
    from linter.engine.packs import RulePacks
    from linter.facts.model import FileFacts
    from linter.index.project import Project
    from linter.match.context import MatchContext
    from linter.source.notebooks import Notebook
    from linter.facts.ahead import ParseAhead

MAX_CONTEXT_FILES = 5000
DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024
"""Bytes. Hand-written source stays far below this; bigger files are generated (protobuf
messages, data tables), and libcst needs up to ~1.2 GB of memory and ~12 s per MB of such
literal-dense code, so parsing them by default would cost gigabytes for nothing a rule checks."""
"""Imported project files read for context (not reported on); a bound for huge trees."""


@dataclass
class Options:
    lang: str = "en"
    versions: Dict[str, str] = field(default_factory=dict)
    version_sources: Dict[str, str] = field(default_factory=dict)
    select: Optional[Callable[[str], bool]] = None
    """Rule filter (by id); None = every loaded rule."""
    per_file_ignores: Optional[Callable[[str], FrozenSet[str]]] = None
    """Rule ids not reported in a file (by absolute path), from the config."""
    severity: Dict[str, Severity] = field(default_factory=dict)
    """Rule id → the severity its findings are reported with (config overrides)."""
    strict_suppressions: bool = False
    jobs: int = 1
    """Worker processes for parsing and matching (1 = all in this process)."""
    cache: Optional["Cache"] = None
    """Facts cache (None = parse everything)."""
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    """Bytes; larger files are reported (kind ``limit``) and not parsed."""
    observer: Optional[Observer] = None
    """Receives stage and rule timings and progress ticks (``--profile``, the progress bar)."""
    freeze_facts: bool = True
    """Freeze parsed facts out of the garbage collector's reach (one project per run); off
    when a many-project tree is checked project by project and each project is freed."""
    rule_workers: bool = True
    """Run each rule in a forked worker on a large project (see :mod:`linter.match`); off for
    the projects of a many-project tree, which are small and may run in workers themselves."""
    parse_ahead: Optional["ParseAhead"] = None
    """A parser process the command line started early, for the first files to parse."""


@dataclass
class Unit:
    """One file taking part in the run."""

    path: str
    abspath: str
    root: str
    linted: bool
    facts: Optional[FileFacts] = None
    source: Optional[str] = None
    notebook: Optional[Notebook] = None
    """For ``.ipynb`` files: the joined code cells (``source``) and the map back to cells."""
    data: Optional[bytes] = None
    """The file's bytes, when read before parsing (to key the caches); dropped once parsed."""


@dataclass
class RunResult:
    findings: List[Finding]
    errors: List[Diagnostic]
    files: int
    """Files linted (context files excluded)."""
    context_files: int = 0
    suppressed: int = 0
    sources: Dict[str, str] = field(default_factory=dict)
    """Text of the linted files that have findings (for reports that show source lines)."""

    notebooks: Dict[str, Notebook] = field(default_factory=dict)
    """Notebooks that have findings (for showing the cell's lines)."""
    context: Optional[MatchContext] = field(default=None, repr=False)
    """The project index and roles the rules ran on, when the caller asked to keep them
    (``audit`` asks more questions of it); never cached."""
    _lines: Dict[Any, List[str]] = field(default_factory=dict, repr=False)

    def lines_for(self, f: Finding) -> Tuple[List[str], Span]:
        """The lines of the file (of the cell, for notebooks) a finding is in, and its span
        in them; ``([], span)`` when the text is not kept."""
        nb = self.notebooks.get(f.path)
        if nb is not None and f.cell is not None:
            key = (f.path, f.cell.cell)
            lines = self._lines.get(key)
            if lines is None:
                lines = self._lines[key] = source_lines(nb.cell_source(f.cell.cell))
            return lines, f.cell.span
        src = self.sources.get(f.path)
        if src is None:
            return [], f.span
        lines = self._lines.get(f.path)
        if lines is None:
            lines = self._lines[f.path] = source_lines(src)
        return lines, f.span

    def flagged_text(self, f: Finding) -> str:
        """The full source lines a finding spans (baseline fingerprints)."""
        lines, span = self.lines_for(f)
        return "\n".join(lines[span.line - 1:span.end_line])


def read_source(path: str, abspath: str, limit: int = DEFAULT_MAX_FILE_SIZE) -> Tuple[Optional[bytes], Optional[Diagnostic]]:
    """A file's bytes, or the diagnostic saying why they are not available. The size is
    checked before reading, so a huge file never enters memory."""
    try:
        with open(abspath, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                return None, too_large(path, size, limit)
            return fh.read(limit + 1), None
    except OSError as exc:
        return None, Diagnostic(ErrorKind.IO, path, f"cannot read file: {exc.strerror or exc}")


def too_large(path: str, size: int, limit: int) -> Diagnostic:
    return Diagnostic(ErrorKind.LIMIT, path, f"file is {_human(size)}, larger than the {_human(limit)} limit; "
                                             "not checked (raise it with --max-file-size or `max-file-size`)")


def _human(n: int) -> str:
    mb = n / (1024 * 1024)
    if n >= 100 * 1024:
        return f"{mb:g} MB" if mb == int(mb) else f"{mb:.1f} MB"
    return f"{n / 1024:.1f} KB"


def parse_unit(unit: Unit, data: bytes) -> List[Diagnostic]:
    """Decode and extract one file's bytes; return the diagnostics (the unit gets its facts).
    Reading, with its size limit, is :func:`read_source`'s job."""
    errors: List[Diagnostic] = []
    decoded = decode(unit.path, data)
    errors += decoded.diagnostics
    if decoded.text is None:
        return errors
    text = decoded.text
    if unit.path.endswith(".ipynb"):
        from linter.source.notebooks import NotebookError, read_notebook

        try:
            unit.notebook = read_notebook(text)
        except NotebookError as exc:
            errors.append(Diagnostic(ErrorKind.NOTEBOOK, unit.path, exc.message, line=exc.line, column=exc.column))
            return errors
        text = unit.notebook.text
    import libcst as cst

    from linter.facts.depth import nesting_problem
    from linter.facts.extract import extract

    unit.source = text
    deep = nesting_problem(text)
    if deep is not None:
        errors.append(_located(Diagnostic(ErrorKind.LIMIT, unit.path, deep[2], line=deep[0], column=deep[1]), unit.notebook))
        return errors
    try:
        try:
            unit.facts = extract(unit.path, text)
        except RecursionError:
            unit.facts = with_deep_stack(extract, unit.path, text)
    except cst.ParserSyntaxError as exc:
        line, column, message = syntax_error_details(text, exc)
        errors.append(_located(Diagnostic(ErrorKind.SYNTAX, unit.path, message, line=line, column=column), unit.notebook))
    except RecursionError:
        errors.append(Diagnostic(ErrorKind.LIMIT, unit.path, "statements nested too deeply to analyse (the recursion limit was reached); file not checked"))
    return errors


DEEP_RECURSION = 30_000
DEEP_STACK = 512 * 1024 * 1024


def with_deep_stack(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a thread with a large stack and recursion limit.

    Long but legitimate structures (an ``elif`` chain of thousands of branches, a generated
    file of thousands of adjacent string literals) nest libcst's trees deeper than Python's
    default limit of 1,000 frames, in libcst's own code as well as ours. Raising the limit on
    the normal stack could overflow it; a fresh thread gets a stack sized for the limit. Only
    files that failed at the default limit take this path; pathological expression depth is
    refused earlier (``facts/depth.py``)."""
    import threading

    out: Dict[str, Any] = {}

    def target() -> None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, DEEP_RECURSION))   # the calling thread waits meanwhile
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # re-raised in the caller
            out["error"] = exc
        finally:
            sys.setrecursionlimit(old)

    old_size = threading.stack_size(DEEP_STACK)
    try:
        thread = threading.Thread(target=target, name="trainlint-deep")
        thread.start()
        thread.join()
    finally:
        threading.stack_size(old_size)
    if "error" in out:
        raise out["error"]
    return out["value"]


def _located(d: Diagnostic, nb: Optional[Notebook]) -> Diagnostic:
    """A diagnostic at a position of a notebook's joined text, moved to the file and cell."""
    if nb is None or d.line is None:
        return d
    loc = nb.locate(d.line, d.column or 1)
    if loc is None:
        return d
    return dataclasses.replace(d, line=loc.file_line, column=loc.file_column,
                               cell=CellSpan(loc.cell, Span(loc.cell_line, loc.cell_column, loc.cell_line, loc.cell_column)))


def _in_notebook(f: Finding, nb: Notebook) -> Finding:
    """A finding at a position of a notebook's joined text, moved to the file and cell."""
    start = nb.locate(f.span.line, f.span.column)
    if start is None:
        return f
    end = nb.locate(f.span.end_line, f.span.end_column)
    if end is None or end.cell != start.cell:
        end = start
    related = []
    for path, line, note in f.related:
        loc = nb.locate(line, 1) if path == f.path else None
        related.append((path, loc.file_line, note) if loc is not None else (path, line, note))
    return dataclasses.replace(
        f, span=Span(start.file_line, start.file_column, end.file_line, end.file_column),
        cell=CellSpan(start.cell, Span(start.cell_line, start.cell_column, end.cell_line, end.cell_column)),
        related=tuple(related))


_LIBCST_AT = re.compile(r"error at (\d+):(\d+)")
_PY2_HINTS = ("Missing parentheses in call to", "print ", "exec ")


def syntax_error_details(source: str, exc: "cst.ParserSyntaxError") -> Tuple[int, int, str]:
    """Position and message of a syntax error, as precise as possible.

    libcst's native parser reports where it gave up; Python's own parser usually names the
    offending token and recognises Python 2 code, so it is asked first.
    """
    import ast
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # SyntaxWarnings of the linted code are not ours to print
            ast.parse(source)
    except SyntaxError as err:
        msg = err.msg or "invalid syntax"
        if any(h in msg for h in _PY2_HINTS) or (err.text or "").lstrip().startswith(("print ", "exec ")):
            msg += " (this looks like Python 2 code, which cannot be linted; port it to Python 3)"
        return err.lineno or 1, max(err.offset or 1, 1), msg
    except (ValueError, RecursionError, MemoryError):
        pass
    m = _LIBCST_AT.search(exc.message)
    if m:
        return int(m.group(1)), int(m.group(2)) + 1, exc.message.split(": ", 1)[-1]
    return exc.raw_line, exc.raw_column + 1, exc.message


class Probes:
    """Every file-system question asked while linking files (does this module file exist?
    which configuration files sit in this folder? what does this one hold?), with its answer,
    so a cached result can be re-validated exactly."""

    def __init__(self, files: Optional[Dict[str, bytes]] = None) -> None:
        self.answers: Dict[str, bool] = {}
        self.listings: Dict[str, Tuple[str, ...]] = {}
        self.reads: Dict[str, Optional[str]] = {}
        """Configuration file → digest of what was read (None: not readable)."""
        self._memory = files
        """In-memory files (``check_sources``): nothing is read from disk."""

    def merge(self, other: "Probes") -> None:
        """Another run's answers added (the projects of a tree, checked apart)."""
        if other is self:
            return
        self.answers.update(other.answers)
        self.listings.update(other.listings)
        self.reads.update(other.reads)

    def isfile(self, path: str) -> bool:
        hit = self.answers.get(path)
        if hit is None:
            hit = self.answers[path] = (path in self._memory) if self._memory is not None else os.path.isfile(path)
        return hit

    def listdir(self, path: str) -> Tuple[str, ...]:
        hit = self.listings.get(path)
        if hit is None:
            hit = self.listings[path] = listing(path, self._memory)
        return hit

    def read(self, path: str) -> Optional[bytes]:
        from linter.core.cache import Cache
        from linter.index.configs import MAX_CONFIG_BYTES

        if self._memory is not None:
            data = self._memory.get(path)
        else:
            data, _problem = read_source(path, path, MAX_CONFIG_BYTES)
        self.reads[path] = Cache.file_key(path, data) if data is not None else None
        return data


def listing(path: str, memory: Optional[Dict[str, bytes]] = None) -> Tuple[str, ...]:
    """Sorted names of the files directly in ``path`` (from ``memory`` when given)."""
    if memory is not None:
        return tuple(sorted(os.path.basename(p) for p in memory if os.path.dirname(p) == path))
    try:
        return tuple(sorted(e.name for e in os.scandir(path) if e.is_file()))
    except OSError:
        return ()


def load_units(units: Sequence[Unit], options: Options, phase: str = "parse") -> List[Diagnostic]:
    """Stage 2: facts for every unit that has none yet (cache, else parsed, in parallel);
    ``phase`` names the progress ticks (files done of total)."""
    from linter.facts import batch as parse

    errors: List[Diagnostic] = []
    todo: List[Unit] = []
    items: List[Tuple[str, bytes]] = []
    for u in units:
        if u.facts is not None or u.source is not None:
            continue
        if u.data is None:
            u.data, problem = read_source(u.path, u.abspath, options.max_file_size)
            if problem is not None:
                errors.append(problem)
                continue
        elif len(u.data) > options.max_file_size:
            errors.append(too_large(u.path, len(u.data), options.max_file_size))
            u.data = None
            continue
        todo.append(u)
        items.append((u.path, u.data))
    obs = options.observer
    tick = (lambda done: obs.tick(phase, done, len(items))) if obs is not None and obs.progress is not None \
        and items else None
    for u, (facts, source, notebook, diags) in zip(todo, parse.load(items, options.jobs, options.cache, tick, options.freeze_facts, options.parse_ahead)):
        if facts is not None and facts.path != u.path:
            facts = facts._replace(path=u.path)   # cached facts are keyed by content, not path
        u.facts, u.source, u.notebook, u.data = facts, source, notebook, None
        errors += [d if d.path == u.path else dataclasses.replace(d, path=u.path) for d in diags]
    return errors


def run(units: List[Unit], packs: RulePacks, options: Options, read_context: bool = True,
        probes: Optional[Probes] = None, keep_context: bool = False) -> RunResult:
    """Stages 2–7 over prepared units (paths already discovered): the whole set as one project,
    or, on a tree of many projects (:mod:`linter.engine.projects`), project by project."""
    if read_context and not keep_context:
        from linter.engine.projects import partition, run_projects

        groups = partition(units, packs.roles)
        if len(groups) > 1:
            if options.parse_ahead is not None:
                # projects parse in their own (worker) processes; the early parser is for one batch
                options.parse_ahead.close()
            return run_projects(units, groups, packs, dataclasses.replace(options, parse_ahead=None),
                                probes or Probes())
    return run_project(units, packs, options, read_context, probes, keep_context)


def run_project(units: List[Unit], packs: RulePacks, options: Options, read_context: bool = True,
                probes: Optional[Probes] = None, keep_context: bool = False,
                shared: Optional[Dict[str, Unit]] = None) -> RunResult:
    """Stages 2–7 with ``units`` as one project (``units`` grows by its context files)."""
    from linter.program.roles import Roles
    from linter.match import release, run_rules
    from linter.match.context import MatchContext

    obs = options.observer if options.observer is not None else Observer()
    ahead = options.parse_ahead
    if ahead is not None and ahead.available:
        ahead.meanwhile["later stages"] = lambda: _load_later_stages(packs)
    present, project, errors = link(units, packs, options, probes, read_context, shared)
    with obs.stage("index"):
        roles = Roles(project, packs.roles)
        mc = MatchContext(project, roles, options.versions)
        mc.version_sources = dict(options.version_sources)
    linted = [i for i, u in enumerate(present) if u.linted]
    rules = [r for r in packs.rules if (r.default_on if options.select is None else options.select(r.id))]
    findings, rule_errors = run_rules(rules, mc, linted, options.lang, options.jobs, obs, options.rule_workers)
    errors += rule_errors
    with obs.stage("suppressions"):
        result = _finish(units, present, packs, options, mc, rules, findings, errors, keep_context)
    if not keep_context:
        release(mc)
    return result


def _load_later_stages(packs: RulePacks) -> None:
    """Import the modules the stages after parsing load as they run (the path conditions of the
    program model, the matchers of the rule kinds, suppressions): work for this process while
    the parse-ahead process parses."""
    import linter.program.paths  # noqa: F401
    import linter.suppress  # noqa: F401
    from linter.match import load_runners

    load_runners(r.kind for r in packs.rules)


def _finish(units: List[Unit], present: List[Unit], packs: RulePacks, options: Options, mc: MatchContext,
            rules: List[Any], findings: List[Finding], errors: List[Diagnostic], keep_context: bool) -> RunResult:
    """Stages 5e–7: suppressions and configuration applied to each match, the matches of one
    cause made one finding (a comment at that cause then silences it), findings sorted."""
    from linter.suppress import apply_suppressions, suppression_problems

    sources = {u.path: u.source for u in present if u.linted}
    findings, suppressed, comments = apply_suppressions(findings, {u.path: u.facts for u in present if u.linted}, sources)
    abspaths = {u.path: u.abspath for u in present if u.linted}
    findings = _configured(findings, abspaths, options)
    findings, moved = _one_per_cause(findings, rules, sources, abspaths, options, comments)
    suppressed += moved
    names = {r.id: r.id for r in packs.rules}
    names.update({r.name: r.id for r in packs.rules})
    ran = {r.id for r in rules}
    # a bare ignore is "unused" only when every rule that runs by default ran (opt-in rules aside)
    errors += suppression_problems(comments, names, ran, ran >= {r.id for r in packs.rules if r.default_on},
                                   options.strict_suppressions, options.lang)
    notebooks = {u.path: u.notebook for u in present if u.linted and u.notebook is not None}
    if notebooks:
        findings = [_in_notebook(f, notebooks[f.path]) if f.path in notebooks else f for f in findings]
        errors = [_located(e, notebooks[e.path]) if e.path in notebooks and e.kind is ErrorKind.SUPPRESSION else e
                  for e in errors]
    findings.sort(key=Finding.sort_key)
    errors.sort(key=Diagnostic.sort_key)
    flagged = {f.path for f in findings}
    return RunResult(findings, errors, files=sum(1 for u in units if u.linted),
                     context_files=sum(1 for u in units if not u.linted and u.facts is not None),
                     suppressed=suppressed,
                     sources={p: s for p, s in sources.items() if p in flagged and s is not None},
                     notebooks={p: nb for p, nb in notebooks.items() if p in flagged},
                     context=mc if keep_context else None)


def link(units: List[Unit], packs: RulePacks, options: Options, probes: Optional[Probes] = None,
         read_context: bool = True, shared: Optional[Dict[str, Unit]] = None) -> Tuple[List[Unit], Project, List[Diagnostic]]:
    """Stages 2–3: facts for every unit (``units`` grows by the project files they import,
    read for context; ``shared`` holds context files already read, by normalised path) and
    the project index over those that parsed."""
    from linter.index.project import Project

    probes = probes or Probes()
    obs = options.observer if options.observer is not None else Observer()
    todo = sum(1 for u in units if u.facts is None and u.source is None)
    with obs.stage("parse", f"{todo:,} file{'s' if todo != 1 else ''}"):
        errors = load_units(units, options)
    if read_context:
        before = len(units)
        with obs.stage("context") as st:
            errors += _add_context(units, options, probes, packs.roles, shared)
            st.detail = f"{len(units) - before:,} imported or entry file{'s' if len(units) - before != 1 else ''}"
    present = [u for u in units if u.facts is not None]
    with obs.stage("index"):
        project = Project([u.facts for u in present], [u.abspath for u in present], [u.root for u in present],
                          packs.apis, exists=probes.isfile if read_context or probes._memory is not None else None,
                          read=probes.read, listdir=probes.listdir)
    return present, project, errors


def _one_per_cause(findings: List[Finding], rules: List[Any], sources: Dict[str, Optional[str]],
                   abspaths: Dict[str, str], options: Options, comments: Dict[str, Any]) -> Tuple[List[Finding], int]:
    """Stage 5e (:mod:`linter.match.group`): the matches of one cause as one finding, after each
    use's own suppressions and per-file ignores; a comment at the shared definition then
    silences the whole group. Returns the findings and how many more were suppressed."""
    grouping = {r.id: r.group_by_cause for r in rules if r.group_by_cause}
    if not grouping or not any(f.rule in grouping for f in findings):
        return findings, 0
    from linter.match.group import group_by_cause
    from linter.suppress import suppress_with

    ignored = options.per_file_ignores

    def may_report(path: str, rule: str) -> bool:
        return ignored is None or path not in abspaths or rule not in ignored(abspaths[path])

    grouped = group_by_cause(findings, grouping, sources, may_report, options.lang)
    moved = [f for f in grouped if f.members]
    if not moved or not comments:
        return grouped, 0
    kept, dropped = suppress_with(moved, comments)
    gone = {id(f) for f in moved} - {id(f) for f in kept}
    return [f for f in grouped if id(f) not in gone], dropped


def _configured(findings: List[Finding], abspaths: Dict[str, str], options: Options) -> List[Finding]:
    """Per-file ignores and severity overrides from the configuration."""
    if options.per_file_ignores is None and not options.severity:
        return findings
    out: List[Finding] = []
    ignored: Dict[str, FrozenSet[str]] = {}
    for f in findings:
        if options.per_file_ignores is not None:
            if f.path not in ignored:
                ignored[f.path] = options.per_file_ignores(abspaths.get(f.path, f.path))
            if f.rule in ignored[f.path]:
                continue
        sev = options.severity.get(f.rule)
        out.append(f if sev is None or sev == f.severity else dataclasses.replace(f, severity=sev))
    return out


def _context_unit(path: str, root: str, shared: Optional[Dict[str, Unit]]) -> Unit:
    """The unit of a context file: the one already read by an earlier project, else a new one."""
    if shared is not None and path in shared:
        return shared[path]
    rel = os.path.relpath(path)
    return Unit(rel if not rel.startswith("..") else path, path, root, linted=False)


def _nearby_scripts(units: List[Unit], known: Set[str], probes: Probes, roles: Any,
                    shared: Optional[Dict[str, Unit]] = None) -> List[Unit]:
    """Entry-named scripts in the folders of the linted files and above, up to their roots."""
    if roles is None or not roles.file_names:
        return []
    folders: Dict[str, str] = {}
    for u in units:
        if not u.linted:
            continue
        d = os.path.dirname(os.path.normpath(u.abspath))
        root = os.path.normpath(u.root)
        while d not in folders:
            folders[d] = u.root
            parent = os.path.dirname(d)
            if d == root or parent == d or not d.startswith(root):
                break
            d = parent
    out: List[Unit] = []
    for d in sorted(folders):
        for name in probes.listdir(d):
            stem, ext = os.path.splitext(name)
            path = os.path.join(d, name)
            if ext != ".py" or path in known or not any(rx.search(stem) for rx in roles.file_names.values()):
                continue
            known.add(path)
            out.append(_context_unit(path, folders[d], shared))
    return out


def _add_context(units: List[Unit], options: Options, probes: Probes, roles: Any = None,
                 shared: Optional[Dict[str, Unit]] = None) -> List[Diagnostic]:
    """Read project files that linted files import, so cross-file facts are complete even when
    only some files are linted (pre-commit passes just the changed ones). Breadth first, one
    import level at a time, each level loaded like the linted files (cache, workers). The entry
    scripts beside and above the linted files are read too (by their names: train*.py,
    eval*.py, ...), so the programs that run a file are known when it is checked alone."""
    from linter.index.modules import ModuleMap

    errors: List[Diagnostic] = []
    known: Set[str] = {os.path.normpath(u.abspath) for u in units}
    modmap = ModuleMap(known, {os.path.normpath(u.abspath): u.root for u in units})
    scripts = _nearby_scripts(units, known, probes, roles, shared)
    errors += [Diagnostic(e.kind, e.path, f"entry script not analysed: {e.message}", e.line, e.column, fatal=False)
               for e in load_units(scripts, options, "context")]
    units.extend(scripts)
    level = [u for u in units if u.facts is not None]
    added = len(scripts)
    while level and added < MAX_CONTEXT_FILES:
        new: List[Unit] = []
        for u in level:
            assert u.facts is not None
            for imp in u.facts.imports:
                candidates = [(imp.module, imp.level)]
                if imp.name and imp.name != "*":
                    candidates.append(((imp.module + "." if imp.module else "") + imp.name, imp.level))
                for module, lvl in candidates:
                    target = modmap.resolve(os.path.normpath(u.abspath), module, lvl, probes.isfile)
                    if target is None or target in known or added + len(new) >= MAX_CONTEXT_FILES:
                        continue
                    known.add(target)
                    modmap.add(target, u.root)
                    new.append(_context_unit(target, u.root, shared))
        for e in load_units(new, options, "context"):
            # Not a file the user asked about, but its facts are now missing from cross-file
            # rules: say so, as a warning.
            errors.append(Diagnostic(e.kind, e.path, f"imported module not analysed: {e.message}",
                                     e.line, e.column, fatal=False))
        units.extend(new)
        added += len(new)
        level = [u for u in new if u.facts is not None]
    return errors
