"""Stage 5f: flow rules — a state machine (``track: state``) or taint (``track: value``).

The two analyses share nothing but how they name call sites (:mod:`linter.match.flow.sites`):

* :mod:`linter.match.flow.state` — the state machines: events, summaries of helpers, the
  interpreter over the statement IR and where a finding goes; with
  :mod:`linter.match.flow.objects` (which objects a transition or a sink acts on) and
  :mod:`linter.match.flow.lattice` (the abstract states and the join of two paths);
* :mod:`linter.match.flow.taint` — taint through reaching definitions, summaries and registries.
"""
from __future__ import annotations

from typing import List, Sequence

from linter.compiler.build import CompiledRule
from linter.core.model import Finding
from linter.match.context import MatchContext
from linter.match.flow.lattice import ANY, _join
from linter.match.flow.state import StateFlow
from linter.match.flow.taint import TaintFlow

__all__ = ["ANY", "StateFlow", "TaintFlow", "_join", "run_flow_rule"]
"""The rule kind's entry point, and the names other modules take from here."""


def run_flow_rule(rule: CompiledRule, mc: MatchContext, files: Sequence[int], lang: str) -> List[Finding]:
    if rule.spec.track == "state":
        return StateFlow(rule, mc, lang).run(files)
    return TaintFlow(rule, mc, lang).run(files)
