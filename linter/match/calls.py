"""Stage 5d: call rules — one finding per call that matches the pattern and its predicates."""
from __future__ import annotations

from typing import Dict, Iterable, List, Tuple

from linter.compiler.build import CallPattern, CompiledRule
from linter.core.model import Finding
from linter.match.context import CallSite, MatchContext
from linter.match.findings import make_finding
from linter.match.predicates import CAUSE, evaluate
from linter.match.severity import adjust


def call_span(site: CallSite, at: str = "call") -> tuple:
    c = site.call
    if at.startswith("arg:"):
        a = site.arg(at[4:])
        if a is not None:
            return (a.line, a.column, a.end_line, a.end_column)
    return (c.line, c.column, c.end_line, c.end_column)


def site_data(mc: MatchContext, site: CallSite) -> dict:
    data = dict(site.data)
    data.setdefault("callee", site.call.dotted or site.qual.rsplit(".", 1)[-1])
    data.setdefault("qualname", site.qual)
    if site.version:
        data.setdefault("framework_version", site.version)
        data.setdefault("assumed_version", mc.version_label(site.framework))
    return data


FIX_VARIANTS = "fix.variants"
"""Finding data: the indices of the rule's fix variants whose ``when`` holds ("0,2")."""


def fix_variants(rule: CompiledRule, site: CallSite, mc: MatchContext) -> str:

    return ",".join(str(i) for i, f in enumerate(rule.fixes) if f.when is None or evaluate(f.when, site, mc))


def _once_per(mc: MatchContext, sites: List[CallSite], unit: str) -> List[Tuple[CallSite, List[CallSite]]]:
    """The first match of each group — the set of entry scripts that run it (``program``) or
    its function (``function``: one op list of one pipeline) — with the others, which are named
    in ``{more}`` and become its related places. Under ``program``, matches no entry runs stay
    one finding each."""
    def group(site: CallSite) -> tuple:
        if unit == "function":
            return ("function", site.fi, site.call.scope)
        entries = tuple(mc.entries_reaching(site.fi, site.cid))
        return entries or ("site", site.fi, site.cid)

    groups: Dict[tuple, List[CallSite]] = {}
    for site in sites:
        groups.setdefault(group(site), []).append(site)
    out: List[Tuple[CallSite, List[CallSite]]] = []
    for first, *rest in groups.values():
        if rest:
            places = ", ".join(f"{mc.p.files[s.fi].path}:{s.call.line}" for s in rest[:3])
            first.data["more"] = places + (f" and {len(rest) - 3} more" if len(rest) > 3 else "")
        out.append((first, rest))
    return out


def run_call_rule(rule: CompiledRule, mc: MatchContext, files: Iterable[int], lang: str) -> List[Finding]:
    pattern: CallPattern = rule.spec
    out: List[Finding] = []
    kept: List[Tuple[int, int]] = []
    sites = []
    for fi, cid in mc.candidates(pattern, files):
        site = mc.match(pattern, fi, cid, framework=rule.framework)
        if site is None:
            continue
        if any(mc.branch_twins(fi, other, cid) for ofi, other in kept if ofi == fi):
            continue   # the same call in the other branch of an `if` (GPU/CPU): one problem, one finding
        kept.append((fi, cid))
        sites.append(site)
    if rule.group_by_cause[:1] == ("pipeline",):
        for site in sites:
            joined = mc.joined_at(site.fi, site.cid)
            if joined is not None:   # datasets joined into one pipeline: one cause (linter.match.group)
                site.data[f"{CAUSE}pipeline"] = f"{mc.p.files[joined[0]].path}:{mc.p.files[joined[0]].calls[joined[1]].line}"
    grouped = _once_per(mc, sites, rule.once_per) if rule.once_per else [(site, []) for site in sites]
    for site, rest in grouped:
        fi, cid = site.fi, site.cid
        severity, note = None, ""
        if rule.severity_if:

            severity, note = adjust(rule, mc, lang, fi, mc.p.callee_values(fi, cid), site)
        variants = fix_variants(rule, site, mc) if rule.fixes else None   # may record more argument values
        data = site_data(mc, site)
        if variants is not None:
            data[FIX_VARIANTS] = variants
        out.append(make_finding(rule, mc.p.files[fi].path, call_span(site, rule.report_at),
                                data, lang, severity=severity, note=note,
                                related=[(mc.p.files[pfi].path, line, note) for pfi, line, note in site.places] +
                                [(mc.p.files[r.fi].path, r.call.line, f"`{r.call.dotted or r.qual.rsplit('.', 1)[-1]}(...)`")
                                 for r in rest]))
    return out
