"""Severity adjustments declared by rules (``severity_if``), shared by every matcher.

``network-without-dropout-or-batchnorm``: train/eval mode only changes results through
layers such as Dropout, BatchNorm, noise and random augmentation. When the network a finding
is about is known to have none, the finding is kept (the code is still fragile) but lowered,
with a note. The network is inspected where it can be (a ``Sequential`` list, the layers a
project class builds, the networks a wrapper is constructed with); otherwise the modules of
the script are (the file, what it imports and what imports it). A network from an external
factory is unknown and never lowers anything.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional, Set, Tuple

from linter.compiler.build import CompiledRule, GlobSet
from linter.index.values import Cls, Ext, Obj
from linter.match.context import MatchContext

_FACTORIES = ("create_model", "get_model", "build_model", "from_pretrained", "load_model", "load")


def adjust(rule: CompiledRule, mc: MatchContext, lang: str, fi: int,
           network: Iterable[Any] = (), site: Any = None) -> Tuple[Optional[str], str]:
    """(severity or None, note) for a finding in file ``fi`` about ``network`` (callee values);
    the first ``severity_if`` entry that holds decides. Predicate entries are tested on the
    matched call ``site`` (call rules)."""
    for adj in rule.severity_if:
        if "pred" in adj:
            from linter.match.predicates import evaluate

            if site is not None and evaluate(adj["pred"], site, mc):
                return adj["severity"], adj["note"].get(lang) or adj["note"]["en"]
        elif adj["when"] == "network-without-dropout-or-batchnorm":
            has = _network_has(mc, rule.framework, list(network), set())
            if has is None:
                has = _modules_have(mc, rule.framework, fi)
            if not has:
                return adj["severity"], adj["note"].get(lang) or adj["note"]["en"]
    return None, ""


def mode_layer_globs(mc: MatchContext, framework: str) -> GlobSet:
    """Layers whose behaviour depends on train/eval mode (``mode_dependent`` in rules/apis)."""
    return GlobSet(mc.p.apis.mode_dependent.get(framework, ()))


def _network_has(mc: MatchContext, framework: str, values: list, seen: Set[Any]) -> Optional[bool]:
    """True/False when the layers of the network objects are known, None when they are not."""
    objs = [v for v in values if isinstance(v, Obj)]
    if not objs:
        return None
    globs = mode_layer_globs(mc, framework)
    verdict: Optional[bool] = False
    for o in objs:
        if o in seen:
            continue
        seen.add(o)
        r = _object_has(mc, globs, framework, o, seen)
        if r:
            return True
        if r is None:
            verdict = None
    return verdict


def _object_has(mc: MatchContext, globs: GlobSet, framework: str, o: Obj, seen: Set[Any]) -> Optional[bool]:
    p = mc.p
    if isinstance(o.type, Cls):
        unknown = False
        for k in p.project_mro(o.type):
            facts = p.files[k.file]
            cls = facts.classes[k.index]
            scopes = set(cls.methods.values()) | {cls.body}
            for cid, c in enumerate(facts.calls):
                if c.scope not in scopes:
                    continue
                names = p.call_names(k.file, cid)
                if globs.any(names):
                    return True
                for v in p.call_values(k.file, cid):
                    if isinstance(v, Obj) and isinstance(v.type, Cls) and v not in seen:
                        seen.add(v)
                        r = _object_has(mc, globs, framework, v, seen)
                        if r:
                            return True
                        unknown = unknown or r is None
                if names and names[0].rsplit(".", 1)[-1] in _FACTORIES:
                    unknown = True
        return None if unknown else False
    if o.file < 0 or o.call < 0:
        return None
    call = p.files[o.file].calls[o.call]
    if globs.any(p.call_names(o.file, o.call)):
        return True
    # a container or a wrapper: look at what it was built from
    parts = []
    for a in call.args:
        vals = p.values(o.file, call.scope, a.value)
        parts += list(vals)
        if a.value[0] == "seq":
            for e in a.value[2]:
                parts += list(p.values(o.file, call.scope, e))
    objs = [v for v in parts if isinstance(v, Obj)]
    if not objs:
        return None if p.apis.callable_kind(p.call_names(o.file, o.call)) != "sequential" else False
    return _network_has(mc, framework, objs, seen)


def _modules_have(mc: MatchContext, framework: str, fi: int) -> bool:
    """Whether the script's modules build a mode-dependent layer (or an external network)."""
    from linter.match.absent import import_closure

    globs = mode_layer_globs(mc, framework)
    if not globs:
        return True
    files = set(import_closure(mc, fi))
    for other in range(len(mc.p.files)):
        if fi in import_closure(mc, other):
            files |= import_closure(mc, other)
    for gfi in sorted(files):
        facts = mc.p.files[gfi]
        for key in globs.keys_in(facts.callee_index):
            for cid in facts.callee_index[key]:
                if globs.any(mc.p.call_names(gfi, cid)):
                    return True
        for key in _FACTORIES:
            for cid in facts.callee_index.get(key, ()):
                if any(isinstance(v, Ext) for v in mc.p.callee_values(gfi, cid)):
                    return True  # a network from an external model zoo: its layers are unknown
    return False
