"""Stage 5: run every compiled rule over the project; a crashing rule is reported, not fatal."""
from __future__ import annotations

import sys
import traceback
from typing import List, Optional, Sequence, Tuple

from linter.compiler.build import CompiledRule
from linter.match.context import MatchContext
from linter.model import Diagnostic, ErrorKind, Finding


def run_rule(rule: CompiledRule, mc: MatchContext, files: Sequence[int], lang: str) -> List[Finding]:
    if rule.versions:
        from linter.index.apis import parse_version, version_in

        version = mc.version_of(rule.framework)
        if version and not version_in(parse_version(version), rule.versions):
            return []
    if rule.kind == "call":
        from linter.match.calls import run_call_rule

        return run_call_rule(rule, mc, files, lang)
    if rule.kind == "absent":
        from linter.match.absent import run_absent_rule

        return run_absent_rule(rule, mc, files, lang)
    if rule.kind == "flow":
        from linter.match.flow import run_flow_rule

        return run_flow_rule(rule, mc, files, lang)
    from linter.match.sequence import run_sequence_rule

    return run_sequence_rule(rule, mc, files, lang)


def _guarded(rule: CompiledRule, mc: MatchContext, files: Sequence[int],
             lang: str) -> Tuple[List[Finding], List[Diagnostic]]:
    """One rule; a crash is reported, never fatal. When the rule crashes on the whole set, it
    is re-run file by file so that only the files it crashes on lose its findings."""
    try:
        return _dedupe(run_rule(rule, mc, files, lang)), []
    except Exception as exc:  # a rule bug must not stop the other rules
        if len(files) <= 1:
            return [], [_crash(rule, mc, files, exc)]
    findings: List[Finding] = []
    errors: List[Diagnostic] = []
    for fi in files:
        try:
            findings += run_rule(rule, mc, [fi], lang)
        except Exception as exc:
            errors.append(_crash(rule, mc, [fi], exc))
    return _dedupe(findings), errors


def _crash(rule: CompiledRule, mc: MatchContext, files: Sequence[int], exc: BaseException) -> Diagnostic:
    where = mc.p.files[files[0]].path if len(files) == 1 else rule.path
    if isinstance(exc, RecursionError):
        return Diagnostic(ErrorKind.INTERNAL, where, f"rule {rule.id} hit the recursion limit here; its findings "
                          "in this file are incomplete", rule=rule.id)
    tb = traceback.extract_tb(exc.__traceback__)[-1]
    return Diagnostic(
        ErrorKind.INTERNAL, where,
        f"rule {rule.id} crashed: {type(exc).__name__}: {exc} ({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno}); "
        "its findings here are missing — please report this", rule=rule.id)


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
_STATE: Optional[Tuple[Sequence[CompiledRule], MatchContext, Sequence[int], str]] = None
PARALLEL_MIN_CALLS = 20_000
"""Below this many calls in the project, matching in one process is faster than forking."""


def _chunks(mc: MatchContext, n: int) -> List[List[int]]:
    """Files split into ``n`` runs of about equal call counts."""
    sizes = [len(f.calls) for f in mc.p.files]
    total = sum(sizes) or 1
    out: List[List[int]] = [[]]
    acc = 0
    for fi, size in enumerate(sizes):
        if acc >= total * len(out) / n and len(out) < n:
            out.append([])
        out[-1].append(fi)
        acc += size
    return [c for c in out if c]


def _resolve_calls(files: Sequence[int]) -> Tuple[dict, dict]:
    assert _STATE is not None
    p = _STATE[1].p
    names, callees = {}, {}
    for fi in files:
        for cid in range(len(p.files[fi].calls)):
            names[(fi, cid)] = p.call_names(fi, cid)
            callees[(fi, cid)] = p.callee_values(fi, cid)
    return names, callees


def _run_one(index: int) -> Tuple[List[Finding], List[Diagnostic]]:
    assert _STATE is not None
    rules, mc, files, lang = _STATE
    return _guarded(rules[index], mc, files, lang)


def run_rules(rules: Sequence[CompiledRule], mc: MatchContext, files: Sequence[int],
              lang: str, jobs: int = 1) -> Tuple[List[Finding], List[Diagnostic]]:
    """Every rule over ``files``. With ``jobs > 1`` on a large project, rules are handed out
    one at a time to forked workers that share the built project index (copy-on-write);
    each worker keeps its lazily computed facts across the rules it runs."""
    findings: List[Finding] = []
    errors: List[Diagnostic] = []
    rules = _applicable(rules, mc)
    order = sorted(range(len(rules)), key=lambda i: (_COST.get(rules[i].kind, 9), i))
    calls = sum(len(mc.p.files[fi].calls) for fi in range(len(mc.p.files)))
    results: List[Tuple[List[Finding], List[Diagnostic]]] = []
    if jobs > 1 and len(rules) > 1 and calls >= PARALLEL_MIN_CALLS and sys.platform.startswith("linux"):
        results = _parallel(rules, mc, files, lang, jobs, order)
    else:
        results = [_guarded(rules[i], mc, files, lang) for i in order]
    for f, e in results:
        findings += f
        errors += e
    return findings, errors


def _applicable(rules: Sequence[CompiledRule], mc: MatchContext) -> List[CompiledRule]:
    """Rules whose framework the project uses. A framework's names are resolved only through
    imports of its modules (or of adapters and factories mapped to it in the API tables), and
    untyped receivers (``?.train``) count only in files that import it; so where no file
    imports the framework, its rules cannot match and are not run. This matters on large trees
    without it (a standard library, a web backend), where flow rules would otherwise inspect
    every call."""
    used = set()
    for fi in range(len(mc.p.files)):
        used |= mc.file_frameworks(fi)
    return [r for r in rules if not r.framework or r.framework in used]


def _parallel(rules: Sequence[CompiledRule], mc: MatchContext, files: Sequence[int], lang: str, jobs: int,
              order: Sequence[int]) -> List[Tuple[List[Finding], List[Diagnostic]]]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _STATE
    _STATE = (rules, mc, files, lang)
    try:
        ctx = multiprocessing.get_context("fork")
        # Every rule starts by resolving the callees of its candidate calls; done once per
        # rule worker that would be repeated work, so it is done first, split by files, and
        # the answers are merged here before the rule workers are forked.
        chunks = _chunks(mc, jobs * 2)
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            for names, callees in pool.map(_resolve_calls, chunks):
                mc.p._names.update(names)
                mc.p._callees.update(callees)
        with ProcessPoolExecutor(max_workers=min(jobs, len(rules)), mp_context=ctx) as pool:
            futures = [(i, pool.submit(_run_one, i)) for i in order]
            out = []
            for i, fut in futures:
                try:
                    out.append(fut.result())
                except Exception:  # the worker died: run the rule here
                    out.append(_guarded(rules[i], mc, files, lang))
            return out
    finally:
        _STATE = None
