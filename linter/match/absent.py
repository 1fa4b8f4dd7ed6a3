"""Stage 5e: absence rules — something required never happens in a scope.

``entry`` scope: for each entry script of the given role, the requirement must be met by
a call reachable from it: in its module code, in any function its code calls (in any file),
or in the module code of a project module it imports. Reachability is answered backwards
from the few calls that could satisfy the rule, so helpers in other files count without
resolving the whole project.
"""
from __future__ import annotations

from typing import AbstractSet, Any, Dict, List, Optional, Sequence, Set, Tuple

from linter.compiler.build import AbsentSpec, CompiledRule
from linter.core.model import Finding
from linter.index.values import Cls, Func
from linter.match.context import MatchContext
from linter.match.findings import make_finding, render
from linter.program.reach import reaches


def _satisfied_by(mc: MatchContext, spec: AbsentSpec, rule: CompiledRule) -> List[Tuple[int, int]]:
    """Every call in the project that meets one of the requirements."""
    out: List[Tuple[int, int]] = []
    allfiles = range(len(mc.p.files))
    for pattern in spec.require:
        for fi, cid in mc.candidates(pattern, allfiles):
            if mc.match(pattern, fi, cid, framework=rule.framework) is not None:
                out.append((fi, cid))
    return out


def _near_misses(mc: MatchContext, closure: AbstractSet[int], good: Set[Tuple[int, int]]) -> str:
    """Seed-like calls that were seen but do not count (for the message)."""
    seen: List[str] = []
    for fi in sorted(closure):
        facts = mc.p.files[fi]
        for key, ids in facts.callee_index.items():
            if "seed" not in key.lower():
                continue
            for cid in ids:
                if (fi, cid) in good or _unresolved(mc, fi, cid):
                    continue  # only calls known not to satisfy the rule are named
                text = _call_text(mc, fi, cid, key)
                if text not in seen:
                    seen.append(text)
    return ", ".join(seen[:3])


def run_absent_rule(rule: CompiledRule, mc: MatchContext, files: Sequence[int], lang: str) -> List[Finding]:
    spec: AbsentSpec = rule.spec
    if spec.scope != "entry":
        return _run_local(rule, mc, files, lang)
    role = spec.entry_role or "training"
    sites = _satisfied_by(mc, spec, rule)
    good = set(sites)
    served = _first_served(mc, sites)
    lowered = _partly_met(rule, mc)
    unmet = _reaches_none(rule, mc)
    out: List[Finding] = []
    linted = set(files)
    for e in mc.roles.entries():
        if e in linted and e not in served:
            finding = mc.isolated(e, lambda: _entry_finding(rule, mc, spec, role, good, e, lang, lowered, unmet), None)
            if finding is not None:
                out.append(finding)
    return out


def _first_served(mc: MatchContext, sites: Sequence[Tuple[int, int]]) -> Dict[int, Tuple[int, int]]:
    """Entry script → the first of ``sites`` (file/call order) it runs, in one pass over the
    sites (asking per entry would cost entries × calls on a tree of many projects)."""
    first: Dict[int, Tuple[int, int]] = {}
    for fi, cid in sorted(sites):
        for e in mc.program.running_entries(fi, cid):
            first.setdefault(e, (fi, cid))
    return first


Lowered = List[Tuple[Dict[str, Any], Dict[int, Tuple[int, int]]]]


def _partly_met(rule: CompiledRule, mc: MatchContext) -> Lowered:
    """For each ``severity_if: {when: {entry_reaches: [...]}}``: the entry scripts that run a
    call meeting part of the requirement (numpy seeded, MindSpore not), each with its first such
    call."""
    return [(adj, _first_served(mc, _satisfied_by(mc, AbsentSpec("entry", adj["reaches"]), rule)))
            for adj in rule.severity_if if "reaches" in adj]


def _reaches_none(rule: CompiledRule, mc: MatchContext) -> List[Tuple[Dict[str, Any], Set[int]]]:
    """For each ``severity_if: {when: {entry_reaches_none: [...]}}``: the entry scripts that run
    one of the calls (those the condition does not hold for)."""
    return [(adj, set(_first_served(mc, _satisfied_by(mc, AbsentSpec("entry", adj["reaches_none"]), rule))))
            for adj in rule.severity_if if "reaches_none" in adj]


def _call_text(mc: MatchContext, fi: int, cid: int, name: str = "call") -> str:
    """How a message names a call: `` `np.random.seed(...)` (train.py:12)``."""
    facts = mc.p.files[fi]
    call = facts.calls[cid]
    return f"`{call.dotted or name}(...)` ({facts.path}:{call.line})"


def _entry_finding(rule: CompiledRule, mc: MatchContext, spec: AbsentSpec, role: str,
                   good: Set[Tuple[int, int]], e: int, lang: str, lowered: Optional[Lowered] = None,
                   unmet: Sequence[Tuple[Dict[str, Any], Set[int]]] = ()) -> Optional[Finding]:
    """The finding of one entry script that reaches no satisfying call, if it has the role."""
    if role not in mc.roles.entry_roles(e):
        return None
    if spec.framework:
        fws = mc.roles.entry_step_frameworks(e, role)
        if not fws:
            fws = set(mc.file_frameworks(e))
        if spec.framework not in fws:
            return None
    closure = mc.program.import_closure(e)
    if spec.unknown_may_satisfy is not None and _unverifiable(mc, spec, e, closure):
        return None  # an unresolvable helper (e.g. `seed_everything` from a package we cannot see) may do it
    line, col = mc.roles.main_path_line(e, role)
    data: Dict[str, str] = {"entry": mc.p.files[e].path}
    misses = _near_misses(mc, closure, good)
    if misses:
        data["seed_calls"] = misses
    severity, note = None, ""
    adj, first = next(((a, f) for a, f in lowered or () if e in f), (None, {}))
    if adj is not None:
        severity = adj["severity"]
        note = render(adj["note"].get(lang) or adj["note"]["en"], {"call": _call_text(mc, *first[e])})
    else:
        path = mc.p.files[e].path.replace("\\", "/")
        # first the entry's own path (a test, an example), then what its program provably never does
        cond = next((c for c in rule.severity_if if "entry_path" in c and c["entry_path"].search(path)), None) \
            or next((c for c, running in unmet
                     if e not in running and not _may_reach_unknown(mc, c["unknown_rx"], e, closure)), None)
        if cond is not None:
            severity = cond["severity"]
            note = render(cond["note"].get(lang) or cond["note"]["en"], {"entry": path})
    return make_finding(rule, mc.p.files[e].path, (line, col, line, col), data, lang, severity=severity, note=note)


_KNOWN_ROOTS = frozenset({"numpy", "random", "builtins", "os", "time", "math", "sys", "secrets"})


def _unresolved(mc: MatchContext, fi: int, cid: int) -> bool:
    """A call whose callee is outside everything trainlint can see (not project code, not a
    framework, not the standard library)."""
    names = mc.p.call_names(fi, cid)
    if not names or names[0].startswith("?."):
        return True
    head = names[0]
    if mc.p.apis.framework_of(head) is not None or head.split(".", 1)[0] in _KNOWN_ROOTS:
        return False
    return all(not isinstance(v, (Func, Cls)) for v in mc.p.callee_values(fi, cid))


def _unverifiable(mc: MatchContext, spec: AbsentSpec, entry: int, closure: AbstractSet[int]) -> bool:
    rx = spec.unknown_may_satisfy
    assert rx is not None
    return _may_reach_unknown(mc, rx, entry, closure)


def _may_reach_unknown(mc: MatchContext, rx: Any, entry: int, closure: AbstractSet[int]) -> bool:
    """The entry reaches a call trainlint cannot resolve whose name matches ``rx``."""
    for fi in sorted(closure | {entry}):
        facts = mc.p.files[fi]
        for key, ids in facts.callee_index.items():
            if not rx.search(key):
                continue
            for cid in ids:
                if _unresolved(mc, fi, cid) and reaches(mc.roles, entry, closure, fi, cid):
                    return True
    return False


def _run_local(rule: CompiledRule, mc: MatchContext, files: Sequence[int], lang: str) -> List[Finding]:
    """``file`` / ``function`` scope: each trigger needs a requirement in the same file/function
    (directly or in a project function it calls)."""
    spec: AbsentSpec = rule.spec
    assert spec.trigger is not None
    out: List[Finding] = []
    for fi, cid in mc.candidates(spec.trigger, files):
        if mc.match(spec.trigger, fi, cid, framework=rule.framework) is None:
            continue
        call = mc.p.files[fi].calls[cid]
        scopes = range(len(mc.p.files[fi].funcs)) if spec.scope == "file" else [call.scope]
        if any(_scope_has(mc, spec, rule, fi, s, set()) for s in scopes):
            continue
        out.append(make_finding(rule, mc.p.files[fi].path, (call.line, call.column, call.end_line, call.end_column),
                                {"callee": call.dotted or ""}, lang))
    return out


def _scope_has(mc: MatchContext, spec: AbsentSpec, rule: CompiledRule, fi: int, scope: int,
               seen: Set[Tuple[int, int]]) -> bool:
    if (fi, scope) in seen or len(seen) > 200:
        return False
    seen.add((fi, scope))
    facts = mc.p.files[fi]
    for cid, c in enumerate(facts.calls):
        if c.scope != scope:
            continue
        for pattern in spec.require:
            if mc.match(pattern, fi, cid, framework=rule.framework) is not None:
                return True
        for t, _ in mc.p.call_targets(fi, cid):
            if _scope_has(mc, spec, rule, t.file, t.index, seen):
                return True
    return False
