"""Property-based tests: whatever the input, the engine never crashes, and every file is either
linted or reported.

Two generators: random but valid training-script-like programs (framework imports through
aliases and star imports, the APIs the rules look at with random arguments, nested control
flow, classes and helpers across several modules), and random byte mutations of the real
fixture scripts (truncation, deletion, insertion of hostile bytes, duplication), which
produce syntax errors, broken encodings and half-written statements.

Hypothesis keeps no example database here (``database=None``): the tests must not write into
the checkout.
"""
from __future__ import annotations

import glob
import os
from typing import Dict, List

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from linter.api import VIRTUAL_ROOT
from linter.engine.packs import load_packs
from linter.core.model import ErrorKind
from linter.engine.run import run
from linter.engine.units import Options
from linter.facts.parse_file import Unit, parse_unit

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETTINGS = dict(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def packs():
    return load_packs()


def lint_bytes(files: Dict[str, bytes], packs) -> None:
    """Lint in-memory files and check the invariants every run must keep."""
    units: List[Unit] = []
    errors = []
    for path, data in files.items():
        u = Unit(path, os.path.join(VIRTUAL_ROOT, path), VIRTUAL_ROOT, linted=True)
        errors += parse_unit(u, data)
        units.append(u)
    result = run(units, packs, Options(), read_context=False)
    errors += result.errors
    internal = [e for e in errors if e.kind is ErrorKind.INTERNAL]
    assert not internal, internal
    for u in units:
        # Linted (facts extracted) or reported with a reason that stopped checking.
        assert u.facts is not None or any(e.path == u.path and e.fatal for e in errors), u.path
    keys = [f.sort_key() for f in result.findings]
    assert keys == sorted(keys)
    for f in result.findings:
        assert f.path in files and f.span.line >= 1 and f.message


# ---------------------------------------------------------------------------- valid programs
IMPORTS = [
    "import mindspore as ms", "import mindspore.nn as nn", "from mindspore import nn, ops",
    "from mindspore.nn import *", "import mindspore.dataset as ds", "import torch",
    "from torch import nn", "import torch.nn as nn", "from torch.utils.data import DataLoader",
    "import tensorflow as tf", "from tensorflow import keras", "import numpy as np",
]
CALLEES = [
    "nn.Dropout", "nn.BatchNorm2d", "nn.Conv2d", "nn.Dense", "nn.Linear", "ops.dropout", "ms.set_seed",
    "torch.manual_seed", "torch.nn.utils.clip_grad_norm_", "ds.GeneratorDataset", "DataLoader",
    "tf.nn.dropout", "keras.layers.Dropout", "keras.layers.BatchNormalization", "model.set_train",
    "model.train", "model.eval", "scaler.scale", "scaler.unscale_", "opt.step", "ops.clip_by_global_norm",
    "helper", "Net", "np.random.seed", "print", "super().__init__",
]
KEYWORDS = ["p", "keep_prob", "momentum", "has_bias", "bias", "shuffle", "training", "rate", "max_norm",
            "num_features", "eps", "lr"]
NAMES = ["x", "y", "lr", "p", "rate", "keep_prob", "momentum", "model", "net", "opt", "loader", "data", "scaler",
         "DROPOUT", "BN_MOMENTUM"]

names = st.sampled_from(NAMES)
literals = st.one_of(
    st.sampled_from(["0.1", "0.9", "0.5", "0.99", "1e-5", "0", "1", "True", "False", "None", "'same'",
                     "0.8999999761581421", "-0.1", "3"]),
    st.integers(-5, 300).map(str),
    st.floats(0, 1, allow_nan=False).map(repr),
)


def _call_args(args: List[str]) -> List[str]:
    """Positional arguments first, each keyword once."""
    seen, out = set(), []
    for a in sorted(args, key=lambda s: "=" in s.split("(")[0]):
        key = a.split("=", 1)[0] if "=" in a.split("(")[0] else None
        if key is None or key not in seen:
            seen.add(key)
            out.append(a)
    return out


def _exprs() -> st.SearchStrategy[str]:
    def extend(inner):
        args = st.lists(st.one_of(inner, st.tuples(st.sampled_from(KEYWORDS), inner).map("{0[0]}={0[1]}".format)),
                        max_size=3)
        kwfirst = args.map(_call_args)
        return st.one_of(
            st.tuples(st.sampled_from(CALLEES), kwfirst).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
            st.tuples(inner, st.sampled_from(["+", "-", "*", "/"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda e: f"(1 - {e})"),
            st.tuples(inner, st.sampled_from(["p", "momentum", "weight", "net", "data"])).map("({0[0]}).{0[1]}".format),
            st.tuples(inner, inner, inner).map("({0[0]} if {0[1]} else {0[2]})".format),
            st.lists(inner, max_size=3).map(lambda xs: f"[{', '.join(xs)}]"),
            inner.map(lambda e: f"(lambda v: {e})"),
            st.tuples(inner, names).map("[{0[0]} for {0[1]} in range(3)]".format),
        )
    return st.recursive(st.one_of(literals, names), extend, max_leaves=8)


exprs = _exprs()


def _block(depth: int, in_func: bool, in_loop: bool) -> st.SearchStrategy[List[str]]:
    simple = [
        st.tuples(names, exprs).map(lambda t: [f"{t[0]} = {t[1]}"]),
        exprs.map(lambda e: [e]),
        st.tuples(names, exprs).map(lambda t: [f"self.{t[0]} = {t[1]}"]) if in_func else exprs.map(lambda e: [e]),
    ]
    if in_func:
        simple.append(exprs.map(lambda e: [f"return {e}"]))
    if in_loop:
        simple.append(st.sampled_from([["break"], ["continue"]]))
    if depth <= 0:
        return st.lists(st.one_of(*simple), min_size=1, max_size=3).map(lambda bs: [line for b in bs for line in b])
    inner = _block(depth - 1, in_func, in_loop)
    loop_inner = _block(depth - 1, in_func, True)
    func_inner = _block(depth - 1, True, False)

    def indent(lines):
        return ["    " + line for line in lines]

    compound = [
        st.tuples(exprs, inner, inner).map(lambda t: [f"if {t[0]}:"] + indent(t[1]) + ["else:"] + indent(t[2])),
        st.tuples(names, exprs, loop_inner).map(lambda t: [f"for {t[0]} in {t[1]}:"] + indent(t[2])),
        st.tuples(exprs, loop_inner).map(lambda t: [f"while {t[0]}:"] + indent(t[1])),
        st.tuples(exprs, names, inner).map(lambda t: [f"with {t[0]} as {t[1]}:"] + indent(t[2])),
        st.tuples(inner, inner).map(lambda t: ["try:"] + indent(t[0]) + ["except Exception:"] + indent(t[1])),
        st.tuples(st.sampled_from(["helper", "train", "main", "build"]), st.lists(names, max_size=3, unique=True),
                  func_inner).map(lambda t: [f"def {t[0]}({', '.join(t[1])}):"] + indent(t[2])),
        st.tuples(st.sampled_from(["nn.Cell", "nn.Module", "object", "keras.Model"]), func_inner, func_inner).map(
            lambda t: [f"class Net({t[0]}):", "    def __init__(self, p=0.1):"] + indent(indent(t[1]))
            + ["    def construct(self, x):"] + indent(indent(t[2]))),
    ]
    return st.lists(st.one_of(*simple, *compound), min_size=1, max_size=4).map(
        lambda bs: [line for b in bs for line in b])


@st.composite
def modules(draw) -> Dict[str, str]:
    count = draw(st.integers(1, 3))
    files: Dict[str, str] = {}
    for i in range(count):
        lines = draw(st.lists(st.sampled_from(IMPORTS), max_size=4))
        if i and draw(st.booleans()):
            lines.append(draw(st.sampled_from(["from mod0 import *", "import mod0", "from mod0 import helper"])))
        lines += draw(_block(2, False, False))
        if draw(st.booleans()):
            lines += ["if __name__ == '__main__':"] + ["    " + line for line in draw(_block(1, False, False))]
        files["train.py" if i == count - 1 else f"mod{i}.py"] = "\n".join(lines) + "\n"
    return files


def _valid(source: str) -> bool:
    try:
        compile(source, "<generated>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


@settings(max_examples=60, **SETTINGS)
@given(modules())
def test_valid_programs_are_linted_without_errors(packs, files) -> None:
    assume(all(_valid(src) for src in files.values()))
    lint_bytes({p: s.encode() for p, s in files.items()}, packs)


# ---------------------------------------------------------------------------- mutated real scripts
FIXTURES = sorted(glob.glob(os.path.join(HERE, "projects", "**", "*.py"), recursive=True))
HOSTILE = [b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"(", b")", b"[[[", b"\n    ", b"\t", b"'''", b'"', b"\\",
           b"\r", b"\r\n", b"# coding: latin-1\n", b"# -*- coding: gbk -*-\n", "训练".encode("gbk"),
           "é".encode("latin-1"), b"print 'x'\n", b"async ", b"lambda", b":=", b"@", b"\x1a"]


@st.composite
def mutations(draw) -> bytes:
    data = open(draw(st.sampled_from(FIXTURES)), "rb").read()
    for _ in range(draw(st.integers(1, 4))):
        n = len(data)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 200)))
        op = draw(st.sampled_from(["truncate", "delete", "insert", "replace", "duplicate", "flip"]))
        if op == "truncate":
            data = data[:i]
        elif op == "delete":
            data = data[:i] + data[j:]
        elif op == "insert":
            data = data[:i] + draw(st.one_of(st.sampled_from(HOSTILE), st.binary(max_size=8))) + data[i:]
        elif op == "replace":
            data = data[:i] + draw(st.sampled_from(HOSTILE)) + data[j:]
        elif op == "duplicate":
            data = data[:j] + data[i:j] + data[j:]
        elif n:
            k = min(i, n - 1)
            data = data[:k] + bytes([data[k] ^ draw(st.integers(1, 255))]) + data[k + 1:]
    return data


@settings(max_examples=120, **SETTINGS)
@given(st.lists(mutations(), min_size=1, max_size=2))
def test_mutated_scripts_are_linted_or_reported(packs, blobs) -> None:
    files = {f"m{i}.py": b for i, b in enumerate(blobs)}
    lint_bytes(files, packs)


def test_the_fixture_set_is_not_empty() -> None:
    assert len(FIXTURES) >= 10
