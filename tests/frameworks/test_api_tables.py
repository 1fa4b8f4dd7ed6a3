"""Optional: the API tables and the facts the rules rely on, against the installed frameworks.

Run with `python -m pytest -m frameworks tests/frameworks` in an environment with MindSpore,
PyTorch and/or TensorFlow installed (see docs/rule-language.md); each framework is skipped when absent.
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


def test_mindspore_facts_of_the_api01_and_mp02_additions() -> None:
    ms = _installed("mindspore")
    nn = importlib.import_module("mindspore.nn")
    ops = importlib.import_module("mindspore.ops")
    np = importlib.import_module("numpy")
    assert _default(nn.GELU, "approximate") is True                                   # API161: tanh form
    assert _default(ops.gelu, "approximate") == "none"                                # API161: exact form
    assert _default(nn.LayerNorm, "epsilon") == pytest.approx(1e-7)                   # API162
    assert _default(importlib.import_module("mindspore.mint").nn.LayerNorm, "eps") == pytest.approx(1e-5)

    class NetWithLoss(nn.Cell):                                                       # MP204
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)
            self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

        def construct(self, x, y):
            return self.loss(ops.cast(self.fc(x), ms.float32), y)

    x, y = ms.Tensor(np.ones((2, 4), np.float32)), ms.Tensor(np.array([0, 1], np.int32))
    for level in ("O2", "O3"):
        net = NetWithLoss()
        ms.amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.1, 0.9), level=level,
                                   loss_scale_manager=None)
        assert net(x, y).dtype == ms.float16, level      # loss inside: float16 despite the cast
        backbone = nn.Dense(4, 3)
        train = ms.amp.build_train_network(backbone, nn.Momentum(backbone.trainable_params(), 0.1, 0.9),
                                           nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                                           level=level, loss_scale_manager=None)
        assert train.network(x, y).dtype == ms.float32, level   # loss_fn given: cast back first


def test_keras_compile_wraps_the_optimizer_under_mixed_float16() -> None:
    _installed("tensorflow")
    keras = importlib.import_module("keras")
    keras.mixed_precision.set_global_policy("mixed_float16")                          # MP205's trap
    try:
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, dtype="float32")])
        model.compile(optimizer="sgd", loss="mse")
        assert isinstance(model.optimizer, keras.mixed_precision.LossScaleOptimizer)
    finally:
        keras.mixed_precision.set_global_policy("float32")
