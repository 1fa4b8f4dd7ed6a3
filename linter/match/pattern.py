"""Stage 5a: a call against a :class:`~linter.compiler.build.CallPattern` — its names, what it
creates, the ``with`` blocks around it, the pipeline it serves, and its ``where`` predicates.

Patterns nest (a predicate may ask whether another call matches a pattern), so the pattern
test sits above both the predicates and the match context; the context receives it as its
``match`` (:func:`new_context`).
"""
from __future__ import annotations

from typing import Dict, Optional

from linter.compiler.build import CallPattern, CallPred
from linter.match.context import CallSite, MatchContext
from linter.match.predicates import evaluate
from linter.program.model import ProgramModel


def new_context(program: ProgramModel, versions: Dict[str, str]) -> MatchContext:
    """A match context over ``program`` whose ``match`` is :func:`match_call` (looked up when
    called, so a test may replace it)."""
    return MatchContext(program, versions, lambda *args: match_call(*args))


def match_call(mc: MatchContext, pattern: CallPattern, fi: int, cid: int,
               framework: Optional[str] = None) -> Optional[CallSite]:
    """A :class:`CallSite` if call ``cid`` of file ``fi`` matches ``pattern``."""
    p = mc.p
    names = p.call_names(fi, cid)
    if not names:
        return None
    qual = ""
    if pattern.names is not None:
        hits = [n for n in names if pattern.names.match(n)]
        if not hits:
            return None
        qual = hits[0]
        if all(h.startswith("?.") for h in hits) and framework is not None \
                and framework not in mc.file_frameworks(fi):
            return None  # an untyped receiver only counts in files that use the framework
    if pattern.not_names is not None and pattern.not_names.any(names):
        return None
    where = pattern.where
    if type(where) is CallPred and where.callee_made_by is not None \
            and not mc.callee_made_by(where.callee_made_by, fi, cid):
        return None   # before binding: `name: ["*"]` patterns ask this of every call
    if pattern.creates is not None:
        made = mc.created_types(fi, cid)
        if not pattern.creates.any(made):
            return None
        qual = qual or names[0]
    site = mc.bind(fi, cid, names, qual or names[0])
    if pattern.inside_with is not None and not mc.inside_with(pattern.inside_with, fi, cid):
        return None
    if pattern.not_inside_with is not None and mc.inside_with(pattern.not_inside_with, fi, cid):
        return None
    saved = mc.assume
    try:
        if pattern.pipeline is not None:
            ctx = mc.roles.pipeline_context(fi, cid)
            if pattern.pipeline not in ctx:
                return None
            if pattern.pipeline_exclusive and any(role != pattern.pipeline for role in ctx):
                return None  # also serves the other role (e.g. a helper shared by train and eval)
            site.data["pipeline_reason"] = ctx[pattern.pipeline]
            mc.assume = mc.assumptions(pattern.pipeline)
        if pattern.where is not None and not evaluate(pattern.where, site, mc):
            return None
    finally:
        mc.assume = saved
    return site
