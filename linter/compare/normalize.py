"""Compare: framework values → canonical values, as the mapping tables say, and back (advice).

Each transform is a small pure function of the source values; the tables pick them and give
their arguments. Conventions are therefore explicit and testable one by one: MindSpore
``keep_prob`` k is drop probability 1 − k, its BatchNorm momentum m is torch's 1 − m, ``pad_mode
'same'`` with stride 1 and an odd kernel is torch's symmetric ``padding=(k−1)/2``, Keras
``epsilon`` is ``eps``… The inverse of a transform is what the advice tells the user to write.

Inputs may be unknown (the result is unknown, with the expression shown), defaults (the result
is marked as a default when every input is one) or sets of possible values (the result is the
set of the transform over every combination).
"""
from __future__ import annotations

import itertools
import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from linter.compare.model import Symbol, Unit, Val, fmt

Spec = Dict[str, Any]
_MISSING = object()


class Skip(Exception):
    """The API cannot express this canonical parameter: no row for it."""


# ---------------------------------------------------------------------------------- transforms
def _ntuple(x: Any, n: int) -> Any:
    if isinstance(x, bool) or x is None or isinstance(x, str):
        return x
    if isinstance(x, (int, float)):
        return (x,) * n
    if isinstance(x, (tuple, list)):
        if len(x) == 1 and n > 1:
            return tuple(x) * n
        return tuple(x)
    return x


def _same_or_explicit(kernel: Any, stride: Any, dilation: Any, n: int) -> Any:
    """``'same'`` padding as explicit symmetric padding when that is exactly what it does:
    stride 1 with odd (dilated) kernels pads (k−1)·d/2 on both sides; a 1×1 kernel never pads.
    Otherwise 'same' pads asymmetrically (TF rule) and stays 'same'."""
    k = _ntuple(kernel, n)
    s = _ntuple(stride if stride is not None else 1, n)
    d = _ntuple(dilation if dilation is not None else 1, n)
    if not all(isinstance(t, tuple) and len(t) == n for t in (k, s, d)):
        return "same"
    out = []
    for ki, si, di in zip(k, s, d):
        if ki == 1:
            out.append(0)
        elif si == 1 and (di * (ki - 1)) % 2 == 0:
            out.append(di * (ki - 1) // 2)
        else:
            return "same"
    return tuple(out)


def _torch_padding(padding: Any, kernel: Any, stride: Any, dilation: Any, *, n: int = 2) -> Any:
    if padding == "same":
        return _same_or_explicit(kernel, stride, dilation, n)
    if padding == "valid":
        return (0,) * n
    return _ntuple(padding, n)


def _ms_padding(pad_mode: Any, padding: Any, kernel: Any, stride: Any, dilation: Any = 1, *, n: int = 2,
                transpose: bool = False) -> Any:
    mode = str(pad_mode).lower() if pad_mode is not None else "valid"
    if mode == "same":
        return "same" if transpose else _same_or_explicit(kernel, stride, dilation, n)
    if mode == "valid":
        return (0,) * n
    if mode == "pad":
        p = _ntuple(padding, n)
        if isinstance(padding, (tuple, list)) and len(padding) == 2 * n:
            # MindSpore gives (top, bottom, left, right): symmetric ones compare as (h, w)
            pairs = [tuple(padding[2 * i:2 * i + 2]) for i in range(n)]
            if all(a == b for a, b in pairs):
                return tuple(a for a, _ in pairs)
            return tuple(padding)
        return p
    raise ValueError(pad_mode)


def _keras_padding(padding: Any, kernel: Any, strides: Any, dilation: Any = 1, *, n: int = 2) -> Any:
    if str(padding).lower() == "valid":
        return (0,) * n
    if str(padding).lower() == "same":
        return _same_or_explicit(kernel, strides, dilation, n)
    raise ValueError(padding)


def _stride_or_kernel(stride: Any, kernel: Any, *, n: int = 2) -> Any:
    return _ntuple(kernel if stride is None else stride, n)


def _pad4(p: Any) -> Any:
    """RandomCrop padding as (left, top, right, bottom) (torchvision and MindSpore agree)."""
    if p is None:
        return (0, 0, 0, 0)
    if isinstance(p, (int, float)) and not isinstance(p, bool):
        return (p,) * 4
    if isinstance(p, (tuple, list)):
        if len(p) == 1:
            return (p[0],) * 4
        if len(p) == 2:
            return (p[0], p[1], p[0], p[1])
        return tuple(p)
    return p


def _map(x: Any, *, values: Dict[Any, Any]) -> Any:
    key = x.last if isinstance(x, Symbol) else x
    for k, v in values.items():
        if k == key and type(k) is type(key) or (k is None and key is None):
            return v
        if isinstance(k, str) and isinstance(key, str) and k.lower() == key.lower():
            return v
    return x


def _dtype_name(x: Any, *, none: Any = None) -> Any:
    if x is None:
        return none
    if isinstance(x, Symbol):
        return x.last
    if isinstance(x, str):
        return x.rsplit(".", 1)[-1]
    return x


def _p_or_one_minus(p: Any, keep: Any) -> Any:
    return p if p is not None else _one_minus(keep)


def _one_minus(x: Any) -> Any:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(x)
    return _round(1 - x)


def _round(x: float) -> float:
    return float(f"{x:.12g}")


def _torch_shuffle(shuffle: Any, sampler: Any) -> Any:
    if sampler is not None:
        if isinstance(sampler, Symbol):
            name = sampler.last
            if name in ("RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "DistributedSampler"):
                return True
            if name == "SequentialSampler":
                return False
        raise ValueError(sampler)
    return bool(shuffle)


TRANSFORMS: Dict[str, Callable[..., Any]] = {
    "one_minus": _one_minus,
    "ntuple": lambda x, *, n=2: _ntuple(x, n),
    "map": _map,
    "sqrt": lambda x: tuple(_round(math.sqrt(v)) for v in x) if isinstance(x, (tuple, list)) else _round(math.sqrt(x)),
    "product": lambda a, b: _round(a * b),
    "pair": lambda a, b: (a, b),
    "pad4": _pad4,
    "p_or_one_minus": _p_or_one_minus,
    "torch_padding": _torch_padding,
    "ms_padding": _ms_padding,
    "keras_padding": _keras_padding,
    "stride_or_kernel": _stride_or_kernel,
    "truthy": lambda x: bool(x),
    "all": lambda *xs: all(bool(x) for x in xs),
    "dtype_name": _dtype_name,
    "suffix": lambda x, *, text="": f"{fmt(x)}{text}",
    "unit": lambda x, *, unit="": Unit(x, unit),
    "scheduler_steps": lambda x, *, unit="": Unit(x, unit) if unit else _unknown_unit(),
    "torch_shuffle": _torch_shuffle,
    "scale": lambda x, *, factor=1.0: (tuple(_round(v * factor) for v in x) if isinstance(x, (tuple, list))
                                       else _round(x * factor)),
}
_ARGS = {"n", "values", "unit", "text", "none", "transpose", "factor"}


def _unknown_unit() -> Any:
    raise ValueError("unit")


def apply(spec: Spec, inputs: Sequence[Val], text: str, extra: Optional[Dict[str, Any]] = None) -> Val:
    """Run ``spec['transform']`` over the inputs (every combination of possible values)."""
    name = spec.get("transform")
    if name is None:
        return inputs[0]
    fn = TRANSFORMS[name]
    kwargs = {k: v for k, v in spec.items() if k in _ARGS}
    kwargs.update(extra or {})
    for v in inputs:
        if not v.known:   # keep what is known about it (its parts, the functions computing it)
            return Val(None, False, v.text or text, parts=v.parts, by=v.by)
    choices = [sorted(v.value, key=repr) if isinstance(v.value, frozenset) else [v.value] for v in inputs]
    out = []
    try:
        for combo in itertools.product(*choices):
            out.append(fn(*combo, **kwargs))
    except (ValueError, TypeError, ArithmeticError):
        return Val.unknown(", ".join(v.text for v in inputs if v.text) or text)
    distinct = []
    for o in out:
        if o not in distinct:
            distinct.append(o)
    value = distinct[0] if len(distinct) == 1 else frozenset(distinct)
    return Val(value, True, text, defaulted=all(v.defaulted for v in inputs),
               via=next((v.via for v in inputs if v.via), ""))


# ------------------------------------------------------------------------------------ reading
ArgFn = Callable[[str], Optional[Val]]
"""Source parameter name → its value at the call (None: the API has no such parameter)."""


def canonical_params(spec: Spec, params: Sequence[str]) -> List[str]:
    """The canonical parameters an API entry yields: the kind's, then its map's and facts'."""
    out = list(params)
    for k in list((spec.get("map") or {})) + list((spec.get("facts") or {})):
        if k not in out:
            out.append(k)
    return out


def read(name: str, spec: Spec, post: Spec, arg: ArgFn, call_text: str,
         extra: Optional[Dict[str, Any]] = None) -> Tuple[Val, Optional[Spec]]:
    """The canonical value of parameter ``name`` at a call (raise :class:`Skip` when the API
    cannot express it), and the spec used (for the advice)."""
    mapping = spec.get("map") or {}
    facts = spec.get("facts") or {}
    src = mapping.get(name, _MISSING)
    used: Optional[Spec]
    if src is _MISSING:
        if name in facts:
            return Val(facts[name], True, "", defaulted=True), None
        src = name
    if isinstance(src, str):
        v = arg(src)
        if v is None:
            raise Skip(name)
        used = {"from": src}
    elif "const" in src:
        v, used = Val(src["const"], True, "", defaulted=True), None
        p = post.get(name)
        return (apply(p, [v], "") if p is not None else v), used
    else:
        froms = src["from"] if isinstance(src["from"], list) else [src["from"]]
        got = [arg(f) for f in froms]
        if all(g is None for g in got):
            raise Skip(name)
        inputs = [g if g is not None else Val(None, True, "", defaulted=True) for g in got]
        v = apply(src, inputs, call_text, (extra or {}).get(src.get("transform", "")))
        used = src
    p = post.get(name)
    if p is not None and v.known:
        v = apply(p, [v], v.text)
    return v, used


# ------------------------------------------------------------------------------------ writing
def inverse(spec: Spec, value: Any) -> Any:
    """``value`` (canonical) converted back to the API's convention; ``_MISSING`` if not invertible."""
    name = spec.get("transform")
    if name is None or name in ("ntuple", "unit", "scheduler_steps", "truthy", "dtype_name", "suffix", "p_or_one_minus",
                                "stride_or_kernel", "torch_padding"):
        if isinstance(value, Unit):
            return value.value
        return _squeeze(value)
    if name == "one_minus":
        return _one_minus(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else _MISSING
    if name == "map":
        for k, v in spec.get("values", {}).items():
            if v == value and type(v) is type(value):
                return k
        # unlisted numbers mean the same in both conventions; unlisted words may not
        return value if isinstance(value, (int, float)) else _MISSING
    if name == "sqrt":
        return tuple(_round(x * x) for x in value) if isinstance(value, tuple) else _round(value * value)
    if name == "scale":
        f = spec.get("factor") or 1.0
        return tuple(_round(x / f) for x in value) if isinstance(value, tuple) else _round(value / f)
    if name == "ms_padding":
        return _Raw(_ms_padding_snippet(value))
    if name == "keras_padding":
        if value == "same" or (isinstance(value, tuple) and not any(value)):
            return _Raw("padding='same'" if value == "same" else "padding='valid'")
        return _MISSING
    return _MISSING


_CONVERTED = ("one_minus", "map", "sqrt", "scale")
"""Transforms that change the number: the script's own spelling differs from the canonical one."""


def as_written(spec: Spec, value: Any) -> Any:
    """Canonical ``value`` in the convention of the API ``spec`` reads (torch's BatchNorm momentum
    0.9 is MindSpore's ``momentum=0.1``), when a transform changes it; None when it reads the same."""
    if spec.get("transform") not in _CONVERTED or isinstance(value, frozenset):
        return None
    inv = _tidy(inverse(spec, value))
    if inv is _MISSING or isinstance(inv, _Raw) or inv == value:
        return None
    return inv


def _tidy(v: Any) -> Any:
    """Float noise of a round trip removed (0.4822 / 255 * 255 is 0.482200000001)."""
    if isinstance(v, float):
        return float(f"{v:.10g}")
    if isinstance(v, tuple):
        return tuple(_tidy(x) for x in v)
    if isinstance(v, list):
        return [_tidy(x) for x in v]
    return v


class _Raw(str):
    """A ready-made snippet (not a value to format)."""


def _squeeze(value: Any) -> Any:
    if isinstance(value, tuple) and value and all(v == value[0] for v in value):
        return value[0]
    return value


def _ms_padding_snippet(value: Any) -> str:
    if value == "same":
        return "pad_mode='same'"
    if isinstance(value, tuple) and not any(value):
        return "pad_mode='valid'"
    v = _squeeze(value)
    if isinstance(v, tuple) and len(v) == 2:
        v = (v[0], v[0], v[1], v[1])   # MindSpore: (top, bottom, left, right)
    return f"pad_mode='pad', padding={fmt(v, code=True)}"


def write(spec: Optional[Spec], value: Any) -> Optional[str]:
    """What to type in an API to get canonical ``value`` (None when it cannot be written)."""
    if spec is None or isinstance(value, frozenset):
        return None
    inv = inverse(spec, value)
    template = spec.get("write")
    if template:
        first, second = (value + (None, None))[:2] if isinstance(value, tuple) else (None, None)
        return template.format(value=fmt(_squeeze(value), code=True), inverse=fmt(inv, code=True) if inv is not _MISSING else "?",
                               first=fmt(first, code=True), second=fmt(second, code=True))
    if inv is _MISSING:
        return None
    if isinstance(inv, _Raw):
        return str(inv)
    src = spec.get("from")
    if isinstance(src, list):
        src = src[0]
    if not src:
        return None
    return f"{src}={fmt(inv, code=True)}"
