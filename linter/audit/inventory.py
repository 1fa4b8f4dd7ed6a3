"""Audit, stage 4: the migration risk inventory of a project.

For a PyTorch or TensorFlow project about to be ported to MindSpore (or a MindSpore project
ported back to PyTorch), every API use whose counterpart has a different default or meaning,
with what to write explicitly on the other side. Built from ``compare``'s mapping tables, so
the two commands agree: the project's training profile gives each setting's canonical value
(written or defaulted); the counterpart API is the first of the target framework implementing
the same kind (``mindspore.nn`` before ``mindspore.mint``: ``nn`` is what the migration guides
map to and where the defaults differ); its canonical value when the argument is NOT written is
computed from its signature. Two kinds of risk:

- ``default``: the counterpart's default differs (torch ``Dropout()`` drops 0.5; MindSpore
  ``nn.Dropout()`` keeps 0.5 — same; torch ``Conv2d`` has a bias, MindSpore ``nn.Conv2d`` has none).
- ``meaning``: the value is written and the counterpart reads it in another convention, so
  copying it literally is wrong (``BatchNorm2d(momentum=0.1)`` → MindSpore ``momentum=0.9``).

Settings whose value depends on the call site, or is unknown, are left out (nothing is guessed).
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from linter.audit.model import Risk
from linter.compare import normalize
from linter.compare.diff import hint, same
from linter.compare.model import Val, fmt
from linter.compare.profile import signature_of
from linter.index.apis import NO_DEFAULT, Expression

_TARGET = {"pytorch": "mindspore", "tensorflow": "mindspore", "mindspore": "pytorch"}
_SECTIONS = {"optimizer": "optimizers", "loss": "losses", "clip": "clipping", "loss_scale": "loss_scalers",
             "lr_schedule": "schedules"}
_ROOTS = {"pytorch": ("torch.", "torchvision."), "mindspore": ("mindspore.",), "tensorflow": ("keras.", "tensorflow.")}
_CONVERTING = {"one_minus", "p_or_one_minus", "scale", "sqrt", "map"}
_ALWAYS_CONVERTS = {"p_or_one_minus"}
"""A literal positional copy is wrong whatever the value (0.5 aside): keep_prob vs p."""
_PREFERRED = {"mindspore": "mindspore.nn.", "pytorch": "torch.nn.", "tensorflow": "keras.layers."}
_KEY = re.compile(r"^(?:layers\.(?P<kind>[A-Za-z0-9_]+)\[\d+\]|dropout\[\d+\]|(?P<sec>[a-z_]+))\.(?P<param>[a-z_]+)$")


def migration_risks(prof: Any, apis: Any, lang: str = "en") -> Tuple[Optional[str], List[Risk]]:
    """(target framework, risks) for a project's (profile, mapping tables); ``apis``: the API
    signature tables the target defaults are read from. (None, []) without a clear source."""
    profile, tables = prof
    source = profile.framework
    target = _TARGET.get(source)
    if target is None:
        return None, []

    groups: Dict[str, Dict[str, Any]] = {}
    for key, fact in profile.facts.items():
        m = _KEY.match(key)
        if m is None or fact.framework != source or not fact.api:
            continue
        groups.setdefault(key.rsplit(".", 1)[0], {})[m.group("param")] = fact
    risks: List[Risk] = []
    for prefix, facts in groups.items():
        any_fact = next(iter(facts.values()))
        section = "layers" if prefix.startswith("layers.") else "dropout" if prefix.startswith("dropout[") else _SECTIONS.get(prefix)
        if section is None:
            continue
        entry = next((e for e in tables.by_api.get(any_fact.api, ()) if e.section == section), None)
        if entry is None:
            continue
        tqual = _target_api(tables, section, entry.kind, target, any_fact.api)
        if tqual is None:
            continue
        tentry = next((e for e in tables.by_api.get(tqual, ()) if e.section == section and e.kind == entry.kind), None)
        if tentry is None:
            continue
        values = {p: f.val for p, f in facts.items()}
        key_of = {p: f.key for p, f in facts.items()}
        for param, fact in facts.items():
            if param in ("kind", "count") or not fact.val.known or isinstance(fact.val.value, frozenset):
                continue
            default = _target_default(tables, apis, tentry, param, values)
            if default is None:
                continue
            dval, used = default
            if not dval.known or isinstance(dval.value, frozenset):
                continue
            v = fact.val.value
            written = _written(fact, entry, param)
            target_raw = normalize.inverse(used, v) if used is not None else v
            source_raw = normalize.inverse(fact.write[1], v) if fact.write is not None else v
            transform = (used or {}).get("transform")
            if not written and not same(v, dval.value):
                kind = "default"      # not written in the source; the target's default differs
            elif written and transform in _CONVERTING and (transform in _ALWAYS_CONVERTS or target_raw != source_raw):
                kind = "meaning"      # written; copying it literally means something else there
            else:
                continue
            snippet = normalize.write(used, v) if used is not None else None
            risks.append(Risk(fact.path, fact.line, fact.api, param, fmt(v), tqual, fmt(dval.value),
                              snippet or "", kind, hint(tables, key_of[param], lang)))
    risks.sort(key=lambda r: (r.path, r.line, r.parameter))
    return target, risks


def _written(fact: Any, entry: Any, param: str) -> bool:
    """Whether the user chose the value: one of the arguments it is read from is written —
    not counting arguments that are other settings' own (``kernel_size`` for a pool's stride)."""
    if fact.write is None:
        return not fact.val.defaulted
    spec = fact.write[1]
    froms = spec.get("from")
    froms = list(froms) if isinstance(froms, list) else [froms] if froms else []
    if len(froms) <= 1:
        # one source argument: the value's own provenance says it (also values set through
        # parameter groups or configuration, which are not arguments of the call)
        return not fact.val.defaulted

    mapping = entry.spec.get("map") or {}
    others = set()
    for c in normalize.canonical_params(entry.spec, entry.params):
        if c == param:
            continue
        src = mapping.get(c, c)
        if isinstance(src, str):
            others.add(src)
        elif isinstance(src, dict) and src.get("from"):
            f = src["from"]
            others.add(f[0] if isinstance(f, list) else f)
    primary = [f for f in froms if f not in others] or froms[:1]
    return any(f in fact.written for f in primary)


def _target_api(tables: Any, section: str, kind: str, framework: str, source_api: str) -> Optional[str]:
    """The counterpart: same class name (``BatchNorm2d``) or dimensionality first, the framework's
    main layer namespace before the others, ``mint`` last; table order otherwise."""
    if kind not in tables.data.get(section, {}):
        return None
    last = source_api.rsplit(".", 1)[-1].lower()
    dim = re.search(r"[123]d$", last)
    quals = [q for q in tables.apis_of(section, kind) if q.startswith(_ROOTS[framework])]
    quals.sort(key=lambda q: (q.rsplit(".", 1)[-1].lower() != last,
                              dim is not None and not q.lower().endswith(dim.group(0)),
                              not q.startswith(_PREFERRED[framework]), ".mint." in q))
    return quals[0] if quals else None


def _target_default(tables: Any, apis: Any, tentry: Any, param: str, source: Dict[str, Any]) -> Optional[Tuple[Any, Optional[Dict[str, Any]]]]:
    """The canonical value of ``param`` at a counterpart call that writes only what it must:
    defaults from the target signature; required arguments (sizes) taken from the source."""
    sig = signature_of(tables, apis, [tentry.qual], apis.framework_of(tentry.qual) or "")
    if sig is None:
        return None
    params = {p.name: p for p in sig}
    mapping = tentry.spec.get("map") or {}

    def arg(name: str) -> Optional[Val]:
        p = params.get(name)
        if p is None:
            return None
        if p.default is not NO_DEFAULT:
            d = p.default
            return Val(str(d) if isinstance(d, Expression) else d, True, "", defaulted=True)
        for canon, src in list(mapping.items()) + [(name, name)]:
            if (src == name or canon == name and canon not in mapping) and canon in source:
                v = source[canon]
                if not v.known or isinstance(v.value, frozenset):
                    return Val.unknown(name)
                inv = normalize.inverse(src if isinstance(src, dict) else {}, v.value)
                return Val(v.value if inv is normalize._MISSING else inv, True, "")
        return Val.unknown(name)

    try:
        return normalize.read(param, tentry.spec, tentry.post, arg, tentry.qual)
    except normalize.Skip:
        return None
    except Exception:   # a table the normaliser cannot apply here: no row rather than a wrong one
        return None
