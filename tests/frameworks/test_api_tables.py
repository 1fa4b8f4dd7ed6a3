"""Optional: the API tables and the facts the rules rely on, against the installed frameworks.

Run with `python -m pytest -m frameworks tests/frameworks` in an environment with MindSpore,
PyTorch and/or TensorFlow installed (see README); each framework is skipped when absent.
"""
from __future__ import annotations

import importlib
import inspect
import os

import pytest
import yaml

from tests.frameworks import gen_api_tables as gen

HERE = os.path.dirname(os.path.abspath(__file__))
APIS = os.path.join(HERE, "..", "..", "rules", "apis")
MODULE = {"mindspore": "mindspore", "pytorch": "torch", "tensorflow": "tensorflow"}


def _installed(framework: str):
    return pytest.importorskip(MODULE[framework])


@pytest.mark.parametrize("framework", sorted(MODULE))
def test_generated_tables_match_installed_library(framework: str) -> None:
    _installed(framework)
    with open(os.path.join(APIS, f"{framework}.signatures.yaml"), encoding="utf-8") as fh:
        committed = yaml.safe_load(fh)
    fresh = gen.generate(framework)
    if fresh["generated_from"] != committed["generated_from"]:
        pytest.skip(f"installed {fresh['generated_from']} differs from the tables' {committed['generated_from']}")
    assert fresh["missing"] == []
    assert fresh["apis"] == committed["apis"]


def _default(obj, name):
    return inspect.signature(obj).parameters[name].default


def test_mindspore_facts_the_rules_use() -> None:
    ms = _installed("mindspore")
    nn = importlib.import_module("mindspore.nn")
    assert list(inspect.signature(nn.Dropout).parameters)[0] == "keep_prob"          # API101
    assert _default(nn.Conv2d, "has_bias") is False                                   # API111
    assert _default(nn.BatchNorm2d, "momentum") == pytest.approx(0.9)                 # API121
    assert nn.Dense(2, 2).training is False                                           # API201
    assert list(inspect.signature(importlib.import_module("mindspore.ops").dropout).parameters)[1] == "p"  # API102
    assert ms.value_and_grad is importlib.import_module("mindspore.ops").value_and_grad


def test_pytorch_facts_the_rules_use() -> None:
    torch = _installed("pytorch")
    assert _default(torch.nn.BatchNorm2d, "momentum") == pytest.approx(0.1)           # API122
    assert torch.nn.Linear(2, 2).training is True                                     # API203/204
    assert _default(torch.utils.data.DataLoader, "shuffle") in (None, False)          # DP302


def test_tensorflow_facts_the_rules_use() -> None:
    _installed("tensorflow")
    keras = importlib.import_module("keras")
    tf = importlib.import_module("tensorflow")
    assert _default(keras.layers.BatchNormalization, "momentum") == pytest.approx(0.99)  # API124
    assert list(inspect.signature(tf.nn.dropout).parameters)[1] == "rate"                # API104
    assert list(inspect.signature(tf.compat.v1.nn.dropout).parameters)[1] == "keep_prob"
