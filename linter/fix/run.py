"""Fix rounds over a whole project, and the fix information reports show.

Rules see the whole project (a fix in one file can change a finding in another), so a round
is: lint everything with the fixed texts overlaid in memory, apply the non-conflicting fixes
of every file, repeat until nothing changes (at most :data:`MAX_ROUNDS`). The last lint is
the run's result: what remains. Nothing is written here; the caller writes (``--fix``) or
prints a diff (``--diff``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple

from linter.compiler.build import CompiledRule
from linter.core.cache import Cache
from linter.core.model import Finding
from linter.engine.units import RunResult
from linter.core.workers import fork_map
from linter.facts.batch import collector_paused
from linter.fix.apply import Refusal, apply, plan

if TYPE_CHECKING:
    from linter.core.cache import Cache

MAX_ROUNDS = 10
FIX_KEY = "fix"
"""Finding data: the :class:`Fix` available for the finding (set by :func:`annotate`)."""


@dataclass
class FixOutcome:
    result: RunResult
    """The lint of the fixed sources: the findings that remain."""
    originals: Dict[str, str] = field(default_factory=dict)
    fixed: Dict[str, str] = field(default_factory=dict)
    """Path → text, for every file a fix changed."""
    applied: Counter = field(default_factory=Counter)
    """Rule id → fixes applied."""
    refusals: List[Refusal] = field(default_factory=list)
    skipped: Dict[str, str] = field(default_factory=dict)
    """Path → why its fixes were not applied (a notebook, a non-UTF-8 file)."""
    converged: bool = True

    @property
    def count(self) -> int:
        return sum(self.applied.values())


def fix_loop(lint: Callable[[Dict[str, str]], RunResult], rules: Sequence[CompiledRule], unsafe: bool,
             can_fix: Optional[Callable[[str, str], Optional[str]]] = None, max_rounds: int = MAX_ROUNDS) -> FixOutcome:
    """``lint(overlay)`` lints the project with ``overlay`` (path → text) replacing the files;
    ``can_fix(path, text)`` says why a file must not be rewritten (None: it may)."""
    by_id = {r.id: r for r in rules if r.fixes}
    overlay: Dict[str, str] = {}
    out = FixOutcome(result=lint(overlay))
    seen_refusals = set()
    for _ in range(max_rounds):
        changed = False
        for path, findings in _by_file(out.result.findings, by_id).items():
            text = out.result.sources.get(path)
            if text is None:
                continue
            if path.endswith(".ipynb"):
                out.skipped[path] = "notebooks are not fixed"
                continue
            reason = can_fix(path, out.originals.get(path, text)) if can_fix is not None and path not in out.originals else None
            if reason is not None:
                out.skipped[path] = reason
                continue
            fixes, refused = plan(findings, text, by_id)
            new, applied, refused2 = apply(text, fixes, unsafe)
            for r in refused + refused2:
                if (r.path, r.line, r.rule, r.message) not in seen_refusals:
                    seen_refusals.add((r.path, r.line, r.rule, r.message))
                    out.refusals.append(r)
            if applied and new != text:
                out.originals.setdefault(path, text)
                overlay[path] = new
                out.applied.update(fx.finding.rule for fx in applied)
                changed = True
        if not changed:
            break
        out.result = lint(overlay)
    else:
        out.converged = False
    out.fixed = {p: t for p, t in overlay.items() if t != out.originals.get(p)}
    out.originals = {p: t for p, t in out.originals.items() if p in out.fixed}
    return out


def _by_file(findings: Sequence[Finding], by_id: Dict[str, CompiledRule]) -> Dict[str, List[Finding]]:
    out: Dict[str, List[Finding]] = {}
    for f in findings:
        if f.rule in by_id:
            out.setdefault(f.path, []).append(f)
    return out


def annotate(result: RunResult, rules: Sequence[CompiledRule], lang: str = "en",
             cache: Optional["Cache"] = None, rules_key: str = "", jobs: int = 1) -> Tuple[int, int]:
    """Attach the available fix to each finding (``data["fix"]``, the JSON object reports
    show); returns (findings with a safe fix, findings with an unsafe one). Notebooks get none.

    Planning re-parses every file that has a fixable finding (libcst with positions), so with a
    ``cache`` the fixes of a file are kept under its text, its findings and ``rules_key`` (the
    digest of the rule packs), and the files still to plan are shared by ``jobs`` workers."""
    by_id = {r.id: r for r in rules if r.fixes}
    work: List[Tuple[str, List[Finding], str]] = []   # (text, findings, cache key) still to plan
    done: List[Tuple[List[Finding], list]] = []
    for path, findings in _by_file(result.findings, by_id).items():
        text = result.sources.get(path)
        if text is None or path.endswith(".ipynb"):
            continue
        key = _annotate_key(cache, rules_key, lang, path, text, findings)
        planned = cache.get("fixes", "v1", key) if key and cache is not None else None
        if isinstance(planned, list) and len(planned) == len(findings):
            done.append((findings, planned))
        else:
            work.append((text, findings, key))
    for (text, findings, key), planned in zip(work, _plan_all(work, by_id, lang, jobs)):
        if key:
            cache.put("fixes", "v1", key, planned)  # type: ignore[union-attr]
        done.append((findings, planned))
    safe = unsafe = 0
    for findings, planned in done:
        for f, got in zip(findings, planned):
            if got is None:
                continue
            f.data[FIX_KEY], is_safe = got
            if is_safe:
                safe += 1
            else:
                unsafe += 1
    return safe, unsafe


_PARALLEL_MIN_FILES = 16


def _plan_one(item: Tuple[str, List[Finding], str], by_id: Dict[str, CompiledRule], lang: str) -> list:
    """The fix objects of one file's findings (one per finding, None where there is none)."""
    text, findings, _ = item
    fixes, _ = plan(findings, text, by_id, quick=True)
    index = {id(fx.finding): fx for fx in fixes}
    return [(index[id(f)].to_json(text, lang), index[id(f)].safe) if id(f) in index else None for f in findings]


def _plan_all(work: List[Tuple[str, List[Finding], str]], by_id: Dict[str, CompiledRule], lang: str,
              jobs: int) -> List[list]:
    """Plans for every work item, in order, over forked workers (they inherit the findings and
    rules; only the plans come back) when there are enough files to be worth it."""
    # a plan's syntax trees hold no reference cycles: collections would only rescan them
    with collector_paused(freeze=False):
        return fork_map(lambda item: _plan_one(item, by_id, lang), work,
                        jobs if len(work) >= _PARALLEL_MIN_FILES else 1, freeze=False)


def _annotate_key(cache: Optional["Cache"], rules_key: str, lang: str, path: str, text: str,
                  findings: Sequence[Finding]) -> str:
    """Everything a file's fixes depend on (its path too: the edits name it, and copies of one
    file must not share them); empty (no caching) when something is not plainly printable (a
    value whose repr is an address would make every key unique anyway)."""
    if cache is None or not cache.enabled or not rules_key:
        return ""
    parts = [rules_key, lang, path, text]
    for f in findings:
        s = f.span
        part = repr((f.rule, s.line, s.column, s.end_line, s.end_column, sorted((k, v) for k, v in f.data.items() if k != FIX_KEY),
                     [(m.path, m.span, sorted((k, v) for k, v in m.data.items() if k != FIX_KEY)) for m in f.members]))
        if " at 0x" in part:
            return ""
        parts.append(part)

    return Cache.digest(parts)


def fix_json(f: Finding) -> Optional[Dict[str, object]]:
    fx = f.data.get(FIX_KEY)
    return fx if isinstance(fx, dict) else None
