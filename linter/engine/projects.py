"""A many-project tree (:mod:`linter.program.projects` finds its projects) checked project by
project, each on its own.

Checked as one project, a model zoo's facts and program model would sit in memory at once,
every question about names would be asked of every project (is ``self.conv4`` read anywhere?),
and the cost of a query would grow with the tree rather than with the project it is about. So
each project is linked, modelled and checked alone; the files it imports from elsewhere in the
tree are read for context exactly as when only some files are linted (pre-commit), so
cross-file facts still cross project lines where an import does. The files under no project
folder are checked last, with every project that imports one of them read for context, so
that what runs them (the importing projects' entry scripts) is known as in one big project.

The runner of one project is passed in (``runner``, :func:`linter.engine.run.run_project`):
this module schedules, it does not know how a project is checked.
"""
from __future__ import annotations

import dataclasses
import gc
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from linter.core.model import Diagnostic, Finding
from linter.core.observer import Observer, Stage
from linter.engine.probes import Probes
from linter.engine.units import Options, RunResult
from linter.core.workers import fork_map
from linter.facts.batch import collector_paused
from linter.facts.parse_file import Unit
from linter.program.projects import Group

if TYPE_CHECKING:
    from linter.engine.packs import RulePacks


# ---------------------------------------------------------------------------------------------
# Checking the groups

@dataclass
class Part:
    """What checking one group hands back (picklable: it may come from a worker process)."""

    result: RunResult
    context: List[Tuple[str, str, str, bool]]
    """The context files read: path, absolute path, root, whether they parsed."""
    observer: Observer
    probes: Probes


Extra = List[Tuple[str, str, str]]
"""Files read for context in addition to what the group imports: (path, absolute path, root)."""


Runner = Callable[..., RunResult]
"""Checks one project: ``runner(units, packs, options, read_context, probes, shared=...)``."""


def check_group(group: Group, packs: "RulePacks", options: Options, probes: Probes, runner: Runner,
                shared: Dict[str, Unit], extra: Optional[Extra] = None) -> Part:
    """One group checked as a project; the facts of its files (and of ``extra``) dropped
    afterwards, those of the context files it imported kept in ``shared`` for the next."""
    obs = Observer()
    mine = Probes(probes._memory)
    added = [Unit(p, a, r, linted=False) for p, a, r in extra or ()]
    units = list(group.units) + added
    result = runner(units, packs, dataclasses.replace(options, observer=obs), True, mine, shared=shared)
    dropped = {id(u) for u in added}
    context = []
    for u in units[len(group.units):]:
        context.append((u.path, u.abspath, u.root, u.facts is not None))
        if u.facts is not None and id(u) not in dropped:
            shared.setdefault(os.path.normpath(u.abspath), u)
    for u in list(group.units) + added:
        u.facts = u.source = u.notebook = None
    return Part(result, context, obs, mine)


def importers(rest: Group, groups: Sequence[Group], parts: Sequence[Optional[Part]]) -> Extra:
    """Every file of each project (same root) that read a file of ``rest`` for context."""
    mine = {os.path.normpath(u.abspath) for u in rest.units}
    out: Extra = []
    for g, part in zip(groups, parts):
        if g.rest or g.root != rest.root or part is None:
            continue
        if any(os.path.normpath(a) in mine for _, a, _, _ in part.context):
            out += [(u.path, u.abspath, u.root) for u in g.units]
    return out


def run_projects(units: List[Unit], groups: List[Group], packs: "RulePacks", options: Options,
                 probes: Probes, runner: Runner) -> RunResult:
    """Each group checked on its own (projects first, then the files of no project with the
    projects that import them), its facts dropped when it is done: memory is bounded by the
    largest project, not by the tree, and the answer for a project cannot depend on the others,
    on their order or on ``jobs`` (with ``jobs > 1`` groups are spread over worker processes,
    each checked exactly as here). ``units`` grows by the context files read, for the result
    cache."""
    obs = options.observer if options.observer is not None else Observer()
    inner = dataclasses.replace(options, observer=None, freeze_facts=False, rule_workers=False, jobs=1)
    parallel = options.jobs > 1 and sys.platform.startswith("linux")
    with _base_frozen():
        if parallel:
            # wall time of the whole; the stages inside are then sums over the workers
            with obs.stage("projects") as st:
                parts = _in_workers(groups, packs, inner, options.jobs, obs, runner)
                st.detail = f"{len(groups):,} projects in {obs.workers} worker processes"
        else:
            parts = _in_order(groups, packs, inner, probes, obs, runner)
    obs.tick("checking", len(groups), len(groups))
    return _merged(units, groups, parts, probes, obs, parallel)


@contextmanager
def _base_frozen() -> Iterator[None]:
    """What exists before the first project (modules, compiled rules) is frozen out of the
    collector's scans while the projects are checked (see :func:`_collected`)."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _collected(check: Callable[[], Part]) -> Part:
    """One group checked with the cyclic collector paused, then one collection of the
    youngest generation — which then holds exactly what the group allocated. Its objects die
    by reference counting when it is released (:func:`linter.match.release`); the few cycles
    left (recursive closures) are found by that one pass instead of by thousands of
    collections that rescan the live index while the rules run (a tenth of a zoo's run)."""
    try:
        with collector_paused(freeze=False):
            return check()
    finally:
        gc.collect(0)


def _in_order(groups: List[Group], packs: "RulePacks", options: Options, probes: Probes,
              obs: Observer, runner: Runner, parts: Optional[List[Optional[Part]]] = None) -> List[Part]:
    """Every group in this process, in :func:`_schedule` order; those already in ``parts``
    (checked by workers) are kept."""
    shared: Dict[str, Unit] = {}
    parts = parts if parts is not None else [None] * len(groups)
    for n, i in enumerate(_schedule(groups)):
        if parts[i] is not None:
            continue
        obs.tick("checking", n, len(groups))
        extra = importers(groups[i], groups, parts) if groups[i].rest else []
        parts[i] = _collected(lambda: check_group(groups[i], packs, options, probes, runner, shared, extra))
    return [p for p in parts if p is not None]


def _schedule(groups: Sequence[Group]) -> List[int]:
    """Projects largest first (parallel workers then finish together), the rest groups last."""
    return sorted(range(len(groups)), key=lambda i: (groups[i].rest, -len(groups[i].units), i))


_SHARED: Dict[str, Unit] = {}
"""A worker's context files read by the groups it checked before (inherited empty by each)."""


def _in_workers(groups: List[Group], packs: "RulePacks", options: Options, jobs: int,
                obs: Observer, runner: Runner) -> List[Part]:
    """The groups spread over ``jobs`` forked workers (:func:`linter.core.workers.fork_map`); the
    rest groups once the projects they need are done. A group whose worker died (out of memory,
    killed) is checked here instead, so none is lost."""
    parts: List[Optional[Part]] = [None] * len(groups)
    workers = min(jobs, len(groups))
    inner_jobs = _inner_jobs(groups, workers, jobs)
    done = [0]

    def task(item: Tuple[int, Extra]) -> Part:
        i, extra = item
        inner = dataclasses.replace(options, jobs=inner_jobs[i]) if inner_jobs[i] > 1 else options
        return _collected(lambda: check_group(groups[i], packs, inner, Probes(), runner, _SHARED, extra))

    def arrived(_n: int, _part: Part) -> None:
        obs.tick("checking", done[0], len(groups))
        done[0] += 1

    for wave in ([i for i in _schedule(groups) if not groups[i].rest],
                 [i for i in _schedule(groups) if groups[i].rest]):
        items = [(i, importers(groups[i], groups, parts) if groups[i].rest else []) for i in wave]
        # a dead worker's group is checked in this process (with its own context map)
        shared_here: Dict[str, Unit] = {}
        answers = fork_map(task, items, workers, on_result=arrived,
                           on_dead=lambda item: _collected(lambda: check_group(
                               groups[item[0]], packs, options, Probes(), runner, shared_here, item[1])),
                           freeze=False)
        for (i, _extra), part in zip(items, answers):
            parts[i] = part
    obs.workers = workers
    return [p for p in parts if p is not None]


def _inner_jobs(groups: Sequence[Group], workers: int, jobs: int) -> List[int]:
    """Parse workers of each group's own. A group larger than its share of the tree (a
    library's files of no project: 628 of the benchmark corpus's 767) would parse alone in one
    worker while the others idle; it parses with the run's ``jobs`` (its worker forks its own
    parse workers). The others parse in their worker."""
    total = sum(len(g.units) for g in groups)
    return [jobs if len(g.units) * workers > total else 1 for g in groups]


def _merged(units: List[Unit], groups: List[Group], parts: List[Part], probes: Probes,
            obs: Observer, parallel: bool) -> RunResult:
    """One result from the groups' (in the groups' order: the same for every ``jobs``)."""
    known = {os.path.normpath(u.abspath) for u in units}
    findings: List[Finding] = []
    errors: List[Diagnostic] = []
    seen_errors: Set[Tuple[Any, ...]] = set()
    out = RunResult([], [], files=0)
    for part in parts:
        _add_timings(obs, part.observer, parallel)
        probes.merge(part.probes)
        findings += part.result.findings
        for e in part.result.errors:
            key = (e.kind, e.path, e.line, e.column, e.message, e.rule)
            if key not in seen_errors:      # a context file's problem, met by several projects
                seen_errors.add(key)
                errors.append(e)
        out.files += part.result.files
        out.suppressed += part.result.suppressed
        out.sources.update(part.result.sources)
        out.notebooks.update(part.result.notebooks)
        for path, abspath, root, parsed in part.context:
            norm = os.path.normpath(abspath)
            if norm not in known:
                known.add(norm)
                units.append(Unit(path, abspath, root, linted=False))
                out.context_files += parsed
    for st in obs.stages:
        if st.name == "parse":
            st.detail = f"{out.files:,} files in {len(groups):,} projects"
    findings.sort(key=Finding.sort_key)
    errors.sort(key=Diagnostic.sort_key)
    out.findings, out.errors = findings, errors
    return out


def _add_timings(obs: Observer, inner: Observer, parallel: bool) -> None:
    """One group's stage and rule times added into the run's observer (one entry per stage;
    marked as sums when the groups ran in parallel)."""
    at = {st.name: st for st in obs.stages if st.name != "projects"}
    for st in inner.stages:
        if st.name in at:
            at[st.name].seconds += st.seconds
        else:
            at[st.name] = Stage(st.name, st.seconds, summed=parallel)
            obs.stages.append(at[st.name])
    for rid, seconds in inner.rules.items():
        obs.rules[rid] = obs.rules.get(rid, 0.0) + seconds
