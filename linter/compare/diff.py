"""Compare, stage 3: two profiles → rows with a verdict and advice.

Keys align by name (canonical, so ``optimizer.lr`` is the same row whatever each framework
calls it; layers by kind and source order). Numbers compare with a relative tolerance (converter
output such as 0.8999999761581421 is 0.9); a value that depends on the call site compares as a
set. Anything unresolved on either side is "unknown" — shown, never guessed.
"""
from __future__ import annotations

import fnmatch
import math
from typing import Any, List, Optional

from linter.compare import normalize
from linter.compare.mapping import SECTIONS, Tables
from linter.compare.model import (
    MATCH,
    MISMATCH,
    ONLY_NEW,
    ONLY_REFERENCE,
    UNKNOWN,
    VERDICTS,
    Comparison,
    Fact,
    Profile,
    Row,
    Unit,
    fmt,
)

_SECTION_ORDER = ("optimizer", "lr_schedule", "loss", "data", "train", "seed", "amp", "loss_scale", "clip",
                  "dropout", "layers")
_REL_TOL = 1e-6
GATED = {
    "optimizer.weight_decay_style": "optimizer.weight_decay",
    "optimizer.weight_decay_scope": "optimizer.weight_decay",
    "amp.dtype": "amp.enabled",
    "amp.casting": "amp.enabled",
    "clip.order": "loss_scale.kind",
}
"""Settings that only mean something while another one is on (how weight decay is applied
matters only when both sides decay); compared only when it is on — or unknown — on both sides,
otherwise the gating setting's own row says what differs."""


def _active(profile: Profile, key: str) -> bool:
    f = profile.facts.get(key)
    if f is None:
        return False
    if not f.val.known or isinstance(f.val.value, frozenset):
        return True
    return f.val.value not in (0, 0.0, False, None)


def same(a: Any, b: Any) -> bool:
    """Equality of canonical values: numbers with a tolerance, containers element-wise."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=_REL_TOL, abs_tol=1e-12)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, frozenset) and isinstance(b, frozenset):
        return len(a) == len(b) and all(any(same(x, y) for y in b) for x in a)
    if isinstance(a, Unit) and isinstance(b, Unit):
        return a.unit == b.unit and same(a.value, b.value)
    return bool(a == b)


def verdict(ref: Optional[Fact], new: Optional[Fact]) -> str:
    if ref is None:
        return ONLY_NEW
    if new is None:
        return ONLY_REFERENCE
    if not ref.val.known or not new.val.known:
        return UNKNOWN
    a, b = ref.val.value, new.val.value
    if isinstance(a, Unit) and isinstance(b, Unit) and a.unit != b.unit:
        return UNKNOWN
    return MATCH if same(a, b) else MISMATCH


def _sort_key(row: Row) -> tuple:
    section = row.key.split(".", 1)[0].split("[", 1)[0]
    order = _SECTION_ORDER.index(section) if section in _SECTION_ORDER else len(_SECTION_ORDER)
    fact = row.reference or row.new
    return (VERDICTS.index(row.verdict), order, fact.order if fact is not None else 0, row.key)


def compare_profiles(ref: Profile, new: Profile, tables: Tables, lang: str = "en") -> Comparison:
    rows: List[Row] = []
    for key in list(ref.facts) + [k for k in new.facts if k not in ref.facts]:
        gate = GATED.get(key)
        if gate is not None and not (_active(ref, gate) and _active(new, gate)):
            continue
        r, n = ref.facts.get(key), new.facts.get(key)
        row = Row(key, r, n, verdict(r, n))
        row.advice = advice(row, new, tables, lang)
        rows.append(row)
    # Layer and dropout rows keep source order within their section; the rest by verdict.
    rows.sort(key=_sort_key)
    return Comparison(ref, new, rows)


# ---------------------------------------------------------------------------------------- advice
def _write(row: Row, new: Profile, tables: Tables) -> Optional[str]:
    """What to type in the new script so that it gets the reference's value."""
    ref = row.reference
    if ref is None or not ref.val.known:
        return None
    value = ref.val.value
    target = row.new
    if target is not None and target.write is not None:
        name, spec = target.write
        if name == "kind":
            return _kind_api(tables, spec.get("section", ""), value, target.framework or new.framework)
        return normalize.write(spec, value)
    if target is None and row.key.startswith("seed."):
        suggest = tables.data["seeds"]["seed"].get("suggest", {}).get(row.key.split(".", 1)[1], {})
        template = suggest.get(new.framework)
        return template.format(value=fmt(value, code=True)) if template else None
    if target is not None and target.write is None and ref.write is not None and ref.write[0] == "kind":
        return _kind_api(tables, ref.write[1].get("section", ""), value, target.framework or new.framework)
    return None


def _kind_api(tables: Tables, section: str, kind: Any, framework: str) -> Optional[str]:
    """The first API of the new framework that implements ``kind`` (tables list the preferred first)."""
    if section not in SECTIONS or kind not in tables.data[section]:
        return None
    roots = {"pytorch": ("torch.", "torchvision."), "mindspore": ("mindspore.",), "tensorflow": ("keras.", "tensorflow.")}
    for qual in tables.apis_of(section, kind):
        if qual.startswith(roots.get(framework, ("",))):
            return qual
    return None


def advice(row: Row, new: Profile, tables: Tables, lang: str) -> str:
    if row.verdict == MATCH:
        return ""
    t = lambda k: tables.text("advice", k, lang)  # noqa: E731
    ref, cur = row.reference, row.new
    ref_at = ref.location if ref else ""
    new_at = cur.location if cur else ""
    out = ""
    if row.verdict == UNKNOWN:
        assert ref is not None and cur is not None
        if ref.val.known and cur.val.known:   # units differ
            out = t("unknown_units").format(value=fmt(ref.val.value), new_value=fmt(cur.val.value))
        else:
            texts = [f.val.text for f in (ref, cur) if not f.val.known and f.val.text]
            out = t("unknown").format(text="; ".join(texts) or "?")
    elif row.verdict == ONLY_NEW:
        out = t("only_new").format(new_at=new_at)
    else:
        w = _write(row, new, tables)
        value = fmt(ref.val.value) if ref and ref.val.known else (ref.val.text if ref else "")
        if row.verdict == ONLY_REFERENCE:
            out = (t("only_reference_write").format(ref_at=ref_at, write=w) if w
                   else t("only_reference").format(ref_at=ref_at, value=value))
        else:
            assert cur is not None
            new_value = fmt(cur.val.value) if cur.val.known else cur.val.text
            out = (t("mismatch_write").format(write=w, api=cur.api or "?", new_at=new_at, ref_at=ref_at) if w
                   else t("mismatch").format(value=value, ref_at=ref_at, new_value=new_value, new_at=new_at))
    h = hint(tables, row.key, lang)
    return f"{out} ({h})" if h else out


def hint(tables: Tables, key: str, lang: str) -> str:
    """The extra hint of a setting (glob on its key in compare.messages.yaml), or ''."""
    for pattern, text in (tables.messages.get("hints") or {}).items():
        if fnmatch.fnmatchcase(key, pattern):
            return str(text.get(lang) or text["en"])
    return ""
