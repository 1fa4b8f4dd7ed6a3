"""Which rules run: ``--select``/``--ignore``/``--extend-select`` selectors, Ruff-style.

A selector matches a rule by id (``API101``), id prefix (``API1``, ``MP``), slug
(``mindspore-dropout-keep-prob``), checklist id (``api.01``), framework (``mindspore``) or
tag (``dropout``). ``ALL`` matches everything.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, FrozenSet, Iterable, Optional, Sequence

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


@dataclass(frozen=True)
class Layer:
    """One source of selection settings (the config file, then the command line)."""

    select: Optional[Sequence[str]] = None
    extend_select: Sequence[str] = ()
    ignore: Sequence[str] = ()


def selected_ids(rules: Sequence[CompiledRule], layers: Sequence[Layer]) -> FrozenSet[str]:
    """Ruff's layering: a layer's ``select`` replaces the selection so far, then its
    ``extend_select`` adds and its ``ignore`` removes. Default: every rule except the opt-in ones
    (``default: false``), which run only when a selector names them."""
    chosen = {r.id for r in rules if r.default_on}
    for layer in layers:
        if layer.select is not None:
            chosen = {r.id for r in rules if any(matches(s, r) for s in layer.select)}
        chosen |= {r.id for r in rules if any(matches(s, r) for s in layer.extend_select)}
        chosen -= {r.id for r in rules if any(matches(s, r) for s in layer.ignore)}
    return frozenset(chosen)


def build_filter(rules: Sequence[CompiledRule], select: Optional[Sequence[str]], ignore: Sequence[str] = (),
                 extend_select: Sequence[str] = ()) -> Callable[[str], bool]:
    """A one-layer filter (library convenience)."""
    ids = selected_ids(rules, [Layer(select, extend_select, ignore)])
    return ids.__contains__


def ids_matching(selectors: Iterable[str], rules: Sequence[CompiledRule]) -> FrozenSet[str]:
    return frozenset(r.id for r in rules if any(matches(s, r) for s in selectors))
