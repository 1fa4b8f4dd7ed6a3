"""Stage 5b: evaluate a rule's ``where`` predicate on a matched call.

Leaf tests record what they saw (source text, constant values, provenance) in
``CallSite.data`` so messages can say *which* value and *where it came from*.

Evaluation is spread over the modules of :mod:`linter.match` below this one:

* :mod:`linter.match.arg_predicates` — the tests on one argument;
* :mod:`linter.match.call_predicates` — the tests on the call as a whole;
* :mod:`linter.match.values` — argument values, value tests, and what the tests record;
* :mod:`linter.match.project_code` — the project code behind a value, the names an expression reads.
"""
from __future__ import annotations

from typing import Any

from linter.compiler.build import BoolPred, CallPred
from linter.match.arg_predicates import _arg_pred
from linter.match.call_predicates import _call_pred
from linter.match.context import CallSite, MatchContext
from linter.match.project_code import code_matches, code_scopes
from linter.match.values import CAUSE, arg_kind, arg_name, arg_values, value_passes

__all__ = ["CAUSE", "arg_kind", "arg_name", "arg_values", "code_matches", "code_scopes", "evaluate", "value_passes"]
"""``evaluate``, and the names other modules take from here (defined in the modules above)."""


def evaluate(pred: Any, site: CallSite, mc: MatchContext) -> bool:
    if isinstance(pred, BoolPred):
        if pred.op == "all":
            return all(evaluate(x, site, mc) for x in pred.items)
        if pred.op == "any":
            return any(evaluate(x, site, mc) for x in pred.items)
        return not evaluate(pred.items[0], site, mc)
    if isinstance(pred, CallPred):
        return _call_pred(pred, site, mc)
    return _arg_pred(pred, site, mc)
