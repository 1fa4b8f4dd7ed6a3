"""The conventions `compare` normalises before comparing (api-defaults.md), one by one, on small
reference/port pairs — and the transforms themselves."""
from __future__ import annotations

import textwrap
from typing import Dict

import pytest

from linter.compare import compare_paths
from linter.compare.model import MATCH, MISMATCH, UNKNOWN, Row, Unit
from linter.compare.normalize import _same_or_explicit, write


def compare(tmp_path, ref: str, new: str) -> Dict[str, Row]:
    (tmp_path / "ref").mkdir()
    (tmp_path / "new").mkdir()
    (tmp_path / "ref" / "train.py").write_text(textwrap.dedent(ref))
    (tmp_path / "new" / "train.py").write_text(textwrap.dedent(new))
    c = compare_paths(str(tmp_path / "ref"), str(tmp_path / "new"), cwd=str(tmp_path), use_cache=False)
    return {r.key: r for r in c.rows}


TORCH_BLOCK = """
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(64)
            self.act = nn.GELU()
            self.pool = nn.AvgPool2d(2)
            self.drop = nn.Dropout(0.1)
            self.conv = nn.Conv2d(16, 16, 3, stride=2, padding=1)

    model = Block()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98))
"""


def test_literal_mindspore_port_of_the_defaults(tmp_path) -> None:
    rows = compare(tmp_path, TORCH_BLOCK, """
        from mindspore import nn

        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.norm = nn.LayerNorm((64,))
                self.act = nn.GELU()
                self.pool = nn.AvgPool2d(kernel_size=2)
                self.drop = nn.Dropout(0.1)
                self.conv = nn.Conv2d(16, 16, 3, stride=2, has_bias=True)

        net = Block()
        optimizer = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-3, beta2=0.98)
    """)
    expected = {
        # key: (verdict, reference, new, advice)
        "layers.LayerNorm[0].eps": (MISMATCH, 1e-5, 1e-7, "epsilon=1e-05"),
        "layers.LayerNorm[0].normalized_shape": (MATCH, (64,), (64,), ""),
        "layers.GELU[0].approximate": (MISMATCH, "none", "tanh", "approximate=False"),
        "layers.AvgPool2d[0].stride": (MISMATCH, (2, 2), (1, 1), "stride=2"),
        "dropout[0].drop_probability": (MISMATCH, 0.1, 0.9, "p=0.1"),
        # stride 2 'same' pads asymmetrically: not torch's padding=1
        "layers.Conv2d[0].padding": (MISMATCH, (1, 1), "same", "pad_mode='pad', padding=1"),
        "optimizer.kind": (MATCH, "adamw", "adamw", ""),
        "optimizer.betas": (MATCH, (0.9, 0.98), (0.9, 0.98), ""),
        "optimizer.eps": (MISMATCH, 1e-8, 1e-6, "eps=1e-08"),
        "optimizer.weight_decay": (MISMATCH, 0.01, 0.0, "weight_decay=0.01"),
        "optimizer.bias_correction": (MISMATCH, True, False, "mint.optim.AdamW"),
    }
    for key, (verdict, ref, new, advice) in expected.items():
        r = rows[key]
        assert (r.verdict, r.reference.val.value, r.new.val.value) == (verdict, ref, new), key
        assert advice in r.advice, (key, r.advice)
    # decoupled-vs-coupled and the decay scope are only compared when both sides decay
    assert "optimizer.weight_decay_style" not in rows and "optimizer.weight_decay_scope" not in rows


def test_faithful_mindspore_port_of_the_defaults(tmp_path) -> None:
    rows = compare(tmp_path, TORCH_BLOCK, """
        import mindspore
        from mindspore import mint, nn

        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.norm = nn.LayerNorm((64,), epsilon=1e-5)
                self.act = nn.GELU(approximate=False)
                self.pool = nn.AvgPool2d(kernel_size=2, stride=2)
                self.drop = nn.Dropout(p=0.1)
                self.conv = nn.Conv2d(16, 16, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)

        net = Block()
        optimizer = mint.optim.AdamW(net.trainable_params(), lr=1e-3, betas=(0.9, 0.98))
    """)
    assert [(k, r.verdict) for k, r in rows.items() if r.verdict != MATCH] == []


def test_keras_epsilon_is_eps_and_momentum_is_inverted(tmp_path) -> None:
    rows = compare(tmp_path, """
        from torch import nn
        norm = nn.LayerNorm(32)
        bn = nn.BatchNorm2d(32, momentum=0.01)
    """, """
        import keras
        norm = keras.layers.LayerNormalization(epsilon=1e-5)
        bn = keras.layers.BatchNormalization()
    """)
    assert rows["layers.LayerNorm[0].eps"].verdict == MATCH
    bn = rows["layers.BatchNorm[0].momentum"]
    assert bn.verdict == MATCH and bn.new.val.value == pytest.approx(0.01) and bn.new.val.defaulted
    assert rows["layers.BatchNorm[0].eps"].verdict == MISMATCH   # Keras 1e-3


def test_optimizer_kind_mismatch_names_the_equivalent_api(tmp_path) -> None:
    rows = compare(tmp_path, """
        import torch
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    """, """
        from mindspore import nn
        net = nn.Dense(4, 2)
        opt = nn.Adam(net.trainable_params(), learning_rate=0.1)
    """)
    kind = rows["optimizer.kind"]
    assert (kind.verdict, kind.reference.val.value, kind.new.val.value) == (MISMATCH, "sgd", "adam")
    assert "`mindspore.nn.SGD`" in kind.advice
    assert rows["optimizer.momentum"].verdict == "only-reference"
    assert rows["optimizer.betas"].verdict == "only-new"
    assert rows["layers.Linear[0].out_features"].verdict == MATCH   # nn.Dense(4, 2) == nn.Linear(4, 2)


def test_scheduler_stepped_per_batch_counts_steps(tmp_path) -> None:
    rows = compare(tmp_path, """
        import torch
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=1000)
        for epoch in range(10):
            for x in range(100):
                opt.step()
                sched.step()
    """, """
        from mindspore import nn
        net = nn.Dense(4, 2)
        lr = nn.cosine_decay_lr(0.0, 0.1, 1000, 100, 10)
        opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.0)
    """)
    period = rows["lr_schedule.period"]
    assert period.reference.val.value == Unit(1000, "steps") and period.new.val.value == Unit(10, "epochs")
    assert period.verdict == UNKNOWN and "different units" in period.advice
    assert rows["optimizer.lr"].verdict == MATCH   # the schedule's max_lr is the port's learning rate
    assert rows["train.epochs"].verdict == "only-reference"


def test_scheduler_without_a_visible_step_has_an_unknown_period(tmp_path) -> None:
    rows = compare(tmp_path, """
        import torch
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    """, """
        import torch
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    """)
    assert rows["lr_schedule.period"].verdict == UNKNOWN   # never "match" on a guess


# ------------------------------------------------------------------------------- transforms
@pytest.mark.parametrize("kernel, stride, dilation, expected", [
    (3, 1, 1, (1, 1)),          # 'same' with stride 1 and an odd kernel: symmetric (k-1)/2
    (5, 1, 1, (2, 2)),
    (3, 1, 2, (2, 2)),          # dilated
    (1, 2, 1, (0, 0)),          # a 1x1 kernel never pads
    (3, 2, 1, "same"),          # stride 2: TF-style asymmetric padding, not expressible in torch
    (2, 1, 1, "same"),          # even kernel: asymmetric
    ((3, 1), 1, 1, (1, 0)),
])
def test_same_padding(kernel, stride, dilation, expected) -> None:
    assert _same_or_explicit(kernel, stride, dilation, 2) == expected


@pytest.mark.parametrize("spec, value, expected", [
    ({"from": "momentum", "transform": "one_minus"}, 0.1, "momentum=0.9"),
    ({"from": ["p", "keep_prob"], "transform": "p_or_one_minus", "write": "p={value}"}, 0.2, "p=0.2"),
    ({"from": ["pad_mode", "padding"], "transform": "ms_padding"}, (2, 1), "pad_mode='pad', padding=(2, 2, 1, 1)"),
    ({"from": ["pad_mode", "padding"], "transform": "ms_padding"}, (0, 0), "pad_mode='valid'"),
    ({"from": "approximate", "transform": "map", "values": {True: "tanh", False: "none"}}, "none", "approximate=False"),
    ({"from": "variance", "transform": "sqrt"}, (0.5,), "variance=(0.25,)"),
    ({"from": "mean", "transform": "scale", "factor": 1 / 255}, (0.5, 0.25), "mean=(127.5, 63.75)"),
    ({"from": "kernel_initializer", "transform": "map", "values": {"glorot_uniform": "glorot_uniform"}},
     "kaiming_uniform(a=sqrt(5))", None),   # no Keras spelling: no advice to write
])
def test_write_inverts_the_normalisation(spec, value, expected) -> None:
    assert write(spec, value) == expected


def test_a_keras_schedule_passed_as_the_learning_rate(tmp_path) -> None:
    rows = compare(tmp_path, """
        import torch
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3000, eta_min=0.001)
    """, """
        import keras
        decay = keras.optimizers.schedules.CosineDecay(0.1, decay_steps=3000, alpha=0.01)
        other = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=3000, decay_rate=0.9)
        opt = keras.optimizers.SGD(learning_rate=decay, momentum=0.9)
        opt2 = keras.optimizers.SGD(learning_rate=other, momentum=0.9)
    """)
    assert rows["optimizer.lr"].verdict == MATCH                 # CosineDecay's initial learning rate
    assert rows["lr_schedule.min_lr"].verdict == MATCH           # alpha * initial == eta_min
    assert rows["lr_schedule.period"].new.val.value == Unit(3000, "steps")


def test_an_unknown_schedule_object_is_not_a_learning_rate(tmp_path) -> None:
    rows = compare(tmp_path, """
        import torch
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
    """, """
        import keras
        other = keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=3000, decay_rate=0.9)
        opt = keras.optimizers.SGD(learning_rate=other)
    """)
    lr = rows["optimizer.lr"]
    assert lr.verdict == UNKNOWN and lr.new.val.text == "other"
