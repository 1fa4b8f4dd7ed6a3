"""The engine's table of contents: the stages, in order.

    1 discover   paths → source files                            (source/)
    2 facts      source → FileFacts, one libcst pass each         (facts/; engine/load.py, context_files.py)
    3 index      FileFacts → Project, then the program model      (index/, program/)
    4 compile    rule packs → CompiledRules                       (compiler/; engine/packs.py)
    5 match      CompiledRules × Project × program → findings     (match/)
    6 suppress   one finding per cause, `# trainlint: ignore`     (engine/finish.py, suppress.py)
    7 report     findings → text/json/...                         (report/)

Every failure is isolated and reported: an unreadable file, a syntax error or a rule that
crashes becomes a :class:`Diagnostic` and the rest of the run goes on.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from linter.core.model import Diagnostic
from linter.core.observer import Observer
from linter.engine.context_files import add_context
from linter.engine.finish import finish
from linter.engine.load import load_units
from linter.engine.probes import Probes
from linter.engine.projects import run_projects
from linter.engine.units import Options, RunResult
from linter.facts.parse_file import Unit
from linter.program import projects

# The later stages' modules (the project index, the program model, the matcher) are imported by
# the functions that run them, for start-up time: a run answered from the result cache never
# loads them (an unchanged file checked again costs the start-up only).
if TYPE_CHECKING:
    from linter.engine.packs import RulePacks
    from linter.index.project import Project


def run(units: List[Unit], packs: RulePacks, options: Options, read_context: bool = True,
        probes: Optional[Probes] = None, keep_context: bool = False) -> RunResult:
    """Stages 2–7 over prepared units (paths already discovered): the whole set as one project,
    or, on a tree of many projects (:mod:`linter.engine.projects`), project by project."""
    if read_context and not keep_context:
        groups = projects.partition(units, packs.roles)
        if len(groups) > 1:
            if options.parse_ahead is not None:
                # projects parse in their own (worker) processes; the early parser is for one batch
                options.parse_ahead.close()
            return run_projects(units, groups, packs, dataclasses.replace(options, parse_ahead=None),
                                probes or Probes(), run_project)
    return run_project(units, packs, options, read_context, probes, keep_context)


def run_project(units: List[Unit], packs: RulePacks, options: Options, read_context: bool = True,
                probes: Optional[Probes] = None, keep_context: bool = False,
                shared: Optional[Dict[str, Unit]] = None) -> RunResult:
    """Stages 2–7 with ``units`` as one project (``units`` grows by its context files)."""
    # imported here, for start-up time: a run answered from the result cache never loads them
    from linter.match import release, run_rules
    from linter.match.pattern import new_context
    from linter.program.model import ProgramModel

    obs = options.observer if options.observer is not None else Observer()
    ahead = options.parse_ahead
    if ahead is not None and ahead.available:
        ahead.meanwhile["later stages"] = lambda: _load_later_stages(packs)
    present, project, errors = link(units, packs, options, probes, read_context, shared)
    with obs.stage("index"):
        mc = new_context(ProgramModel(project, packs.roles), options.versions)
        mc.version_sources = dict(options.version_sources)
    linted = [i for i, u in enumerate(present) if u.linted]
    rules = [r for r in packs.rules if (r.default_on if options.select is None else options.select(r.id))]
    findings, rule_errors = run_rules(rules, mc, linted, options.lang, options.jobs, obs, options.rule_workers)
    errors += rule_errors
    with obs.stage("suppressions"):
        result = finish(units, present, packs, options, mc, rules, findings, errors, keep_context)
    if not keep_context:
        release(mc)
    return result


def _load_later_stages(packs: RulePacks) -> None:
    """Import the modules the stages after parsing load as they run (the path conditions of the
    program model, the matchers of the rule kinds, suppressions): work for this process while
    the parse-ahead process parses."""
    import linter.program.paths  # noqa: F401
    import linter.suppress  # noqa: F401
    # work for this process while the parse-ahead process parses (start-up time)
    from linter.match import load_runners

    load_runners(r.kind for r in packs.rules)


def link(units: List[Unit], packs: RulePacks, options: Options, probes: Optional[Probes] = None,
         read_context: bool = True, shared: Optional[Dict[str, Unit]] = None) -> Tuple[List[Unit], Project, List[Diagnostic]]:
    """Stages 2–3: facts for every unit (``units`` grows by the project files they import,
    read for context; ``shared`` holds context files already read, by normalised path) and
    the project index over those that parsed."""
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.index.project import Project

    probes = probes or Probes()
    obs = options.observer if options.observer is not None else Observer()
    todo = sum(1 for u in units if u.facts is None and u.source is None)
    with obs.stage("parse", f"{todo:,} file{'s' if todo != 1 else ''}"):
        errors = load_units(units, options)
    if read_context:
        before = len(units)
        with obs.stage("context") as st:
            errors += add_context(units, options, probes, packs.roles, shared)
            st.detail = f"{len(units) - before:,} imported or entry file{'s' if len(units) - before != 1 else ''}"
    present = [u for u in units if u.facts is not None]
    with obs.stage("index"):
        project = Project([u.facts for u in present if u.facts is not None], [u.abspath for u in present], [u.root for u in present],
                          packs.apis, exists=probes.isfile if read_context or probes._memory is not None else None,
                          read=probes.read, listdir=probes.listdir)
    return present, project, errors


