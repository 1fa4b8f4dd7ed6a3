"""Stage 5: run every compiled rule over the project; a crashing rule is reported, not fatal."""
from __future__ import annotations

import traceback
from typing import List, Sequence, Tuple

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


def run_rules(rules: Sequence[CompiledRule], mc: MatchContext, files: Sequence[int],
              lang: str) -> Tuple[List[Finding], List[Diagnostic]]:
    findings: List[Finding] = []
    errors: List[Diagnostic] = []
    seen = set()
    for rule in rules:
        try:
            for f in run_rule(rule, mc, files, lang):
                key = (f.path, f.span.line, f.span.column, f.rule)
                if key not in seen:
                    seen.add(key)
                    findings.append(f)
        except RecursionError:
            errors.append(Diagnostic(ErrorKind.INTERNAL, rule.path, f"rule {rule.id} hit the recursion limit; its findings are incomplete", rule=rule.id))
        except Exception as exc:  # a rule bug must not stop the other rules
            tb = traceback.extract_tb(exc.__traceback__)[-1]
            errors.append(Diagnostic(
                ErrorKind.INTERNAL, rule.path,
                f"rule {rule.id} crashed: {type(exc).__name__}: {exc} ({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno}); "
                "its findings are missing — please report this", rule=rule.id))
    return findings, errors
