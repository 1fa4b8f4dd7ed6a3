"""Which rules run: ``--select``/``--ignore``/``--extend-select`` selectors, Ruff-style.

A selector matches a rule by id (``API101``), id prefix (``API1``, ``MP``), slug
(``mindspore-dropout-keep-prob``), checklist id (``api.01``), framework (``mindspore``) or
tag (``dropout``). ``ALL`` matches everything.
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional, Sequence

from linter.compiler.build import CompiledRule


def matches(selector: str, rule: CompiledRule) -> bool:
    s = selector.strip()
    if not s:
        return False
    if s.upper() == "ALL":
        return True
    if s == rule.name or s == rule.checklist or s == rule.framework or s in rule.tags:
        return True
    return s[:1].isalpha() and rule.id.startswith(s.upper())


def known_selector(selector: str, rules: Iterable[CompiledRule]) -> bool:
    return any(matches(selector, r) for r in rules)


def build_filter(rules: Sequence[CompiledRule], select: Optional[Sequence[str]], ignore: Sequence[str] = (),
                 extend_select: Sequence[str] = ()) -> Callable[[str], bool]:
    by_id = {r.id: r for r in rules}
    chosen = list(select) if select else ["ALL"]
    chosen += list(extend_select)

    def keep(rule_id: str) -> bool:
        r = by_id.get(rule_id)
        if r is None:
            return False
        if not any(matches(s, r) for s in chosen):
            return False
        return not any(matches(s, r) for s in ignore)

    return keep
