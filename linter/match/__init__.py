"""Stage 5: run every compiled rule over the project; a crashing rule is reported, not fatal."""
from __future__ import annotations

import gc
import importlib
import sys
import time
import traceback
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from linter.compiler.build import CompiledRule
from linter.core.model import Diagnostic, ErrorKind, Finding
from linter.core.observer import Observer
from linter.core.workers import fork_map
from linter.core.versions import parse_version, version_in
from linter.index.values import Cls, Func
from linter.match.context import MatchContext


def run_rule(rule: CompiledRule, mc: MatchContext, files: Sequence[int], lang: str) -> List[Finding]:
    if rule.versions:

        version = mc.version_of(rule.framework)
        if version and not version_in(parse_version(version), rule.versions):
            return []
    return _runner(rule.kind)(rule, mc, files, lang)


_RUNNERS = {"call": ("linter.match.calls", "run_call_rule"), "absent": ("linter.match.absent", "run_absent_rule"),
            "flow": ("linter.match.flow", "run_flow_rule"), "sequence": ("linter.match.sequence", "run_sequence_rule")}
"""Rule kind → (module, function); a module is imported when a rule of its kind first runs."""


def _runner(kind: str) -> Any:

    module, name = _RUNNERS.get(kind, _RUNNERS["sequence"])
    return getattr(importlib.import_module(module), name)


def load_runners(kinds: Iterable[str]) -> None:
    """Import the matchers of these rule kinds now (for a process that would otherwise wait
    idle, see :mod:`linter.facts.ahead`)."""
    for kind in set(kinds):
        _runner(kind)


def _guarded(rule: CompiledRule, mc: MatchContext, files: Sequence[int],
             lang: str) -> Tuple[List[Finding], List[Diagnostic]]:
    """One rule; a crash is reported, never fatal. When the rule crashes on the whole set, it
    is re-run file by file so that only the files it crashes on lose its findings."""
    try:
        return _dedupe(run_rule(rule, mc, files, lang)), _site_crashes(rule, mc)
    except Exception as exc:  # a rule bug must not stop the other rules
        if len(files) <= 1 or not _file_local(rule):
            # A project-wide rule does the whole project's work for any one file: re-running it
            # file by file would cost files × project (a run that never ends on a large tree).
            return [], _site_crashes(rule, mc) + [_crash(rule, mc, files, exc)]
    findings: List[Finding] = []
    errors: List[Diagnostic] = _site_crashes(rule, mc)
    for fi in files:
        try:
            findings += run_rule(rule, mc, [fi], lang)
        except Exception as exc:
            errors.append(_crash(rule, mc, [fi], exc))
        errors += _site_crashes(rule, mc)
    return _dedupe(findings), errors


def _file_local(rule: CompiledRule) -> bool:
    """Whether checking one file costs about that file (call and sequence rules, file-scoped
    absence rules), so that a file-by-file re-run costs about one whole run."""
    if rule.kind in ("call", "sequence"):
        return True
    return rule.kind == "absent" and getattr(rule.spec, "scope", "entry") != "entry"


def _site_crashes(rule: CompiledRule, mc: MatchContext) -> List[Diagnostic]:
    """One diagnostic per file where the rule could not evaluate a site (:meth:`MatchContext.isolated`)."""
    out: List[Diagnostic] = []
    seen = set()
    for fi, exc in mc.site_crashes:
        if fi not in seen:
            seen.add(fi)
            out.append(_crash(rule, mc, [fi], exc))
    mc.site_crashes.clear()
    return out


def _crash(rule: CompiledRule, mc: MatchContext, files: Sequence[int], exc: BaseException) -> Diagnostic:
    # A crash over many files belongs to none of them: it is reported at the rule's own file, and
    # the message says how many files lost the rule's findings.
    where = mc.p.files[files[0]].path if len(files) == 1 else rule.path
    if isinstance(exc, RecursionError):
        return Diagnostic(ErrorKind.INTERNAL, where, f"rule {rule.id} hit the recursion limit here; its findings "
                          "in this file are incomplete", rule=rule.id)
    tb = traceback.extract_tb(exc.__traceback__)[-1]
    return Diagnostic(
        ErrorKind.INTERNAL, where,
        f"rule {rule.id} crashed: {type(exc).__name__}: {exc} ({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno}); "
        f"its findings {'here' if len(files) == 1 else f'in the {len(files)} files checked with it'} are missing "
        "— please report this", rule=rule.id)


def _dedupe(findings: List[Finding]) -> List[Finding]:
    seen = set()
    out = []
    for f in findings:
        key = (f.path, f.span.line, f.span.column, f.rule)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


# Costlier kinds first, so that parallel workers finish together.
_COST = {"sequence": 0, "flow": 1, "absent": 2, "call": 3}
PARALLEL_MIN_CALLS = 20_000
"""Below this many calls in the project, matching in one process is faster than forking."""

# Why rules run in isolation
# --------------------------
# The project index answers questions lazily and memoises the answers. A question that meets
# itself (a recursive definition) is cut short, so an answer may depend on what an earlier
# question left in the memo tables — and the findings of a rule on which rules ran before it
# in the same process, that is, on --jobs. Every rule therefore starts from the same state:
# the linked project, the callee resolution of every call (in file order) and the program
# model (_warm_up), all computed here in one fixed order — then each rule runs in a forked
# worker of its own on large projects, after restoring a snapshot on small ones.


def release(mc: MatchContext) -> None:
    """Drop the project index and everything memoised on it. The index, the program model and
    their memo tables refer to each other (reference cycles): left to the cyclic collector
    they would outlive the run — on a many-project tree until the next project's facts are
    frozen with them (:func:`linter.facts.batch.collector_paused`), that is, forever."""
    mc.program.store.release()
    for o in (mc, mc.program, mc.roles, mc.program.paths, mc.p):
        vars(o).clear()


def _snapshot(mc: MatchContext) -> Dict[str, Dict[Any, Any]]:
    """Every memo table (one store owns them all: :mod:`linter.core.memo`)."""
    return mc.program.store.snapshot()


def _restore(mc: MatchContext, snap: Dict[str, Dict[Any, Any]]) -> None:
    mc.program.store.restore(snap)


def _warm_up(mc: MatchContext) -> None:
    """The program model every rule asks about, built once, in a fixed order, before the rules
    fork: the index of what runs each function, the entries and their roles, the references
    to classes and functions. Deterministic (one order, from the resolved state), so it may be
    shared; without it each rule's worker would rebuild it."""
    p, roles = mc.p, mc.roles
    mc.index_names()   # the callee names of every call, in file order: what every rule starts by asking
    if p.files:
        p.resolved_callers(Func(0, 0))
        p.name_sites("")
        p.subclasses(Cls(0, 0))
        roles.references(Func(0, 0))
    for e in roles.entries():
        roles.program_evidence(e)


Result = Tuple[List[Finding], List[Diagnostic], float]
"""A rule's findings, the problems it met, and the seconds it took."""


def _timed(rule: CompiledRule, mc: MatchContext, files: Sequence[int], lang: str) -> Result:
    start = time.perf_counter()
    findings, errors = _guarded(rule, mc, files, lang)
    return findings, errors, time.perf_counter() - start


def run_rules(rules: Sequence[CompiledRule], mc: MatchContext, files: Sequence[int],
              lang: str, jobs: int = 1, observer: Optional[Observer] = None,
              workers: bool = True) -> Tuple[List[Finding], List[Diagnostic]]:
    """Every rule over ``files``, each from the same resolved state (see above): on a large
    project in forked workers (``jobs`` at a time) that share the index copy-on-write, on a
    small one in this process, restoring a snapshot between rules. Either way the findings
    are the same for every ``jobs``. ``workers=False`` keeps every rule in this process (the
    caller is a worker already). Stage and rule times go to ``observer``."""
    obs = observer if observer is not None else Observer()
    findings: List[Finding] = []
    errors: List[Diagnostic] = []
    rules = _applicable(rules, mc)
    order = sorted(range(len(rules)), key=lambda i: (_COST.get(rules[i].kind, 9), i))
    calls = sum(len(mc.p.files[fi].calls) for fi in range(len(mc.p.files)))
    results: List[Result] = []
    if workers and len(rules) > 1 and calls >= PARALLEL_MIN_CALLS and sys.platform.startswith("linux"):
        results = _forked(rules, mc, files, lang, jobs, order, obs)
    elif len(rules) > 1:
        results = _in_process(rules, mc, files, lang, order, obs)
    else:
        with obs.stage("rules", f"{len(rules)} rule{'s' if len(rules) != 1 else ''}"):
            results = [_timed(rules[i], mc, files, lang) for i in order]
    for i, (f, e, seconds) in zip(order, results):
        findings += f
        errors += e
        obs.rules[rules[i].id] = seconds
    return findings, errors


def _in_process(rules: Sequence[CompiledRule], mc: MatchContext, files: Sequence[int], lang: str,
                order: Sequence[int], obs: Observer) -> List[Result]:
    with obs.stage("program model"):
        obs.tick("model", 0, 1)
        _warm_up(mc)
        start = _snapshot(mc)
    out = []
    with obs.stage("rules", f"{len(rules)} rules"):
        for n, i in enumerate(order):
            obs.tick("rules", n, len(order))
            _restore(mc, start)
            out.append(_timed(rules[i], mc, files, lang))
        obs.tick("rules", len(order), len(order))
    _restore(mc, start)
    return out


def _applicable(rules: Sequence[CompiledRule], mc: MatchContext) -> List[CompiledRule]:
    """Rules whose framework the project uses. A framework's names are resolved only through
    imports of its modules (or of adapters and factories mapped to it in the API tables), and
    untyped receivers (``?.train``) count only in files that import it; so where no file
    imports the framework, its rules cannot match and are not run. This matters on large trees
    without it (a standard library, a web backend), where flow rules would otherwise inspect
    every call."""
    used: Set[str] = set()
    for fi in range(len(mc.p.files)):
        used |= mc.file_frameworks(fi)
    return [r for r in rules if not r.framework or r.framework in used]


def _forked(rules: Sequence[CompiledRule], mc: MatchContext, files: Sequence[int], lang: str, jobs: int,
            order: Sequence[int], obs: Observer) -> List[Result]:
    """The rules over ``jobs`` forked workers (:func:`linter.core.workers.fork_map`), which
    inherit the warmed-up model copy-on-write. A worker runs several rules, restoring the memo
    store's snapshot before each but its first, so every rule starts from the state forked here
    (a fresh fork per rule cost as much as the rules on a mid-sized project); a rule whose worker
    died runs here, from the same state."""
    with obs.stage("program model"):
        obs.tick("model", 0, 1)
        _warm_up(mc)
        start = _snapshot(mc)
    workers = max(1, min(jobs, len(rules)))
    obs.workers = workers
    ran = [False]   # in each process (inherited False by each worker): whether a rule ran since the fork

    def fresh(i: int) -> Result:
        if ran[0]:
            _restore(mc, start)
        ran[0] = True
        # a worker lives for its rules: its collections would rescan the memo tables they fill
        gc.disable()
        try:
            return _timed(rules[i], mc, files, lang)
        finally:
            gc.enable()

    done = [0]

    def arrived(_n: int, _r: Result) -> None:
        done[0] += 1
        obs.tick("rules", done[0], len(order))

    with obs.stage("rules", f"{len(rules)} rules in {workers} worker{'s' if workers != 1 else ''}"):
        obs.tick("rules", 0, len(order))
        out = fork_map(fresh, list(order), workers, on_result=arrived)
    _restore(mc, start)
    return out
