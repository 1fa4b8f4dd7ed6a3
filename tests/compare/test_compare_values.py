"""Where compared values come from: argparse defaults, YAML/JSON configuration files (read as
data, never executed), call sites — and what stays unknown."""
from __future__ import annotations

import textwrap
from typing import Dict

from linter.compare import compare_paths
from linter.compare.model import MATCH, MISMATCH, UNKNOWN, Row

REF = """
    import torch
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
"""


def compare(tmp_path, new: str, files: Dict[str, str] = None, ref: str = REF) -> Dict[str, Row]:
    (tmp_path / "ref").mkdir()
    (tmp_path / "new").mkdir()
    (tmp_path / "ref" / "train.py").write_text(textwrap.dedent(ref))
    (tmp_path / "new" / "train.py").write_text(textwrap.dedent(new))
    for name, text in (files or {}).items():
        p = tmp_path / "new" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    c = compare_paths(str(tmp_path / "ref"), str(tmp_path / "new"), cwd=str(tmp_path), use_cache=False)
    return {r.key: r for r in c.rows}


def test_argparse_defaults_through_a_helper_and_store_true(tmp_path) -> None:
    rows = compare(tmp_path, """
        import argparse
        import torch

        def get_args():
            p = argparse.ArgumentParser()
            p.add_argument("--lr", type=float, default="0.1")
            p.add_argument("--nesterov", action="store_true")
            return p.parse_args()

        def build(model, args):
            return torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=args.nesterov)

        args = get_args()
        opt = build(torch.nn.Linear(4, 2), args)
    """)
    lr = rows["optimizer.lr"]
    assert lr.verdict == MATCH and lr.new.val.value == 0.1 and lr.new.val.via == "argparse default of --lr"
    nesterov = rows["optimizer.nesterov"]
    assert nesterov.verdict == MATCH and nesterov.new.val.value is False   # store_true: False, not None


def test_yaml_config_next_to_the_script(tmp_path) -> None:
    rows = compare(tmp_path, """
        import yaml
        from easydict import EasyDict
        from mindspore import nn

        with open("config.yaml") as fh:
            cfg = EasyDict(yaml.safe_load(fh))
        net = nn.Dense(4, 2)
        opt = nn.Momentum(net.trainable_params(), learning_rate=cfg.optim.lr, momentum=cfg["optim"]["momentum"])
    """, {"config.yaml": "optim:\n  lr: 0.05\n  momentum: 0.9\n"})
    lr = rows["optimizer.lr"]
    assert (lr.verdict, lr.new.val.value, lr.new.val.via) == (MISMATCH, 0.05, "config.yaml: lr")
    assert "learning_rate=0.1" in lr.advice
    assert rows["optimizer.momentum"].verdict == MATCH


def test_json_config_and_get_with_a_default(tmp_path) -> None:
    rows = compare(tmp_path, """
        import json
        import torch
        cfg = json.load(open("configs/train.json"))
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=cfg.get("lr", 0.3), momentum=cfg.get("momentum", 0.9))
    """, {"configs/train.json": '{"lr": 0.1}'})
    assert rows["optimizer.lr"].verdict == MATCH            # from the file
    assert rows["optimizer.momentum"].verdict == MATCH      # the .get() default: the key is absent


def test_config_files_are_data_only(tmp_path) -> None:
    marker = tmp_path / "pwned"
    rows = compare(tmp_path, """
        import yaml
        import torch
        cfg = yaml.load(open("config.yaml"), Loader=yaml.Loader)
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    """, {"config.yaml": f"lr: !!python/object/apply:os.system ['touch {marker}']\n"})
    assert rows["optimizer.lr"].verdict == UNKNOWN
    assert not marker.exists()


def test_config_outside_the_project_is_not_read(tmp_path) -> None:
    (tmp_path / "secret.yaml").write_text("lr: 0.1\n")
    rows = compare(tmp_path, f"""
        import yaml
        import torch
        cfg = yaml.safe_load(open("{tmp_path / 'secret.yaml'}"))
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    """)
    assert rows["optimizer.lr"].verdict == UNKNOWN


def test_unresolvable_values_stay_unknown(tmp_path) -> None:
    rows = compare(tmp_path, """
        import os
        import torch

        def make(model, momentum):
            return torch.optim.SGD(model.parameters(), lr=float(os.environ["LR"]), momentum=momentum)
    """, ref="""
        import os
        import torch
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=float(os.environ["LR"]), momentum=0.9)
    """)
    lr = rows["optimizer.lr"]
    # the same expression on both sides is still not a known match
    assert lr.verdict == UNKNOWN and not lr.reference.val.known and not lr.new.val.known
    assert lr.new.val.text == 'float(os.environ["LR"])' and 'float(os.environ["LR"])' in lr.advice
    # a parameter of a function nobody calls: no value (not its default)
    assert rows["optimizer.momentum"].verdict == UNKNOWN


def test_values_differing_by_call_site_compare_as_sets(tmp_path) -> None:
    block = """
        from torch import nn

        class Block(nn.Module):
            def __init__(self, c, stride):
                super().__init__()
                self.conv = nn.Conv2d(c, c, 3, stride=stride, padding=1)

        blocks = [Block(16, 1), Block(32, {s})]
    """
    rows = compare(tmp_path, block.format(s=2), ref=block.format(s=2))
    assert rows["layers.Conv2d[0].stride"].verdict == MATCH
    assert rows["layers.Conv2d[0].stride"].new.val.value == frozenset({(1, 1), (2, 2)})


def test_pipeline_values_are_read_per_role(tmp_path) -> None:
    """`create_dataset(..., training=True)` is the training pipeline: its batch size and shuffle
    come from that call, not from the evaluation one."""
    rows = compare(tmp_path, """
        from src.data import create_dataset
        train_ds = create_dataset(64, training=True)
        val_ds = create_dataset(500, training=False)
    """, {"src/__init__.py": "", "src/data.py": """
        import mindspore.dataset as ds

        def create_dataset(batch_size, training):
            data = ds.MnistDataset("mnist", shuffle=training)
            return data.batch(batch_size, drop_remainder=training)
    """}, ref="""
        from torch.utils.data import DataLoader
        train_loader = DataLoader(train_set, batch_size=64, shuffle=True, drop_last=True)
        val_loader = DataLoader(val_set, batch_size=500)
    """)
    assert rows["data.train.batch_size"].verdict == MATCH and rows["data.train.batch_size"].new.val.value == 64
    assert rows["data.eval.batch_size"].verdict == MATCH and rows["data.eval.batch_size"].new.val.value == 500
    assert rows["data.train.shuffle"].verdict == MATCH
    assert rows["data.train.drop_last"].verdict == MATCH


def test_mindspore_sources_shuffle_by_default(tmp_path) -> None:
    rows = compare(tmp_path, """
        import mindspore.dataset as ds
        train_ds = ds.Cifar10Dataset("cifar").batch(32)
    """, ref="""
        from torch.utils.data import DataLoader
        train_loader = DataLoader(train_set, batch_size=32)
    """)
    shuffle = rows["data.train.shuffle"]
    assert (shuffle.verdict, shuffle.reference.val.value, shuffle.new.val.value) == (MISMATCH, False, True)
    assert shuffle.reference.val.defaulted and shuffle.new.val.defaulted


def test_a_builder_s_values_come_from_the_side_s_own_program(tmp_path) -> None:
    """Another script of the folder that calls the same builder (here a second training script
    reading its batch size from the command line) is not the program being compared."""
    data = {"src/__init__.py": "", "src/data.py": """
        import mindspore.dataset as ds

        def create_dataset(batch_size, training):
            data = ds.MnistDataset("mnist", shuffle=training)
            return data.batch(batch_size, drop_remainder=training)
    """, "train_distill.py": """
        import sys
        from src.data import create_dataset
        from mindspore import nn, train
        ds_train = create_dataset(int(sys.argv[1]), training=True)
        net = nn.Dense(4, 2)
        train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params())).train(1, ds_train)
    """}
    rows = compare(tmp_path, """
        from src.data import create_dataset
        from mindspore import nn, train
        ds_train = create_dataset(64, training=True)
        net = nn.Dense(4, 2)
        train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params())).train(1, ds_train)
    """, data, ref="""
        from torch.utils.data import DataLoader
        train_loader = DataLoader(train_set, batch_size=64, shuffle=True, drop_last=True)
    """)
    assert rows["data.train.batch_size"].verdict == MATCH and rows["data.train.batch_size"].new.val.value == 64


def test_an_unknown_value_shows_its_known_parts(tmp_path) -> None:
    """`EPOCHS - start` with `start` read at run time: unknown, but EPOCHS = 90 is shown with
    it (text and JSON), and no part is made up for what is not known."""
    from linter.compare.mapping import builtin_tables
    from linter.compare.render import to_json, unresolved_text

    (tmp_path / "ref").mkdir()
    (tmp_path / "new").mkdir()
    (tmp_path / "ref" / "train.py").write_text(textwrap.dedent("""
        import torch
        for epoch in range(90):
            pass
    """))
    (tmp_path / "new" / "train.py").write_text(textwrap.dedent("""
        from mindspore import nn, train
        EPOCHS = 90
        start = int(open("last_epoch.txt").read())
        net = nn.Dense(4, 2)
        model = train.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params()))
        model.train(EPOCHS - start, ds_train)
    """))
    c = compare_paths(str(tmp_path / "ref"), str(tmp_path / "new"), cwd=str(tmp_path), use_cache=False)
    row = next(r for r in c.rows if r.key == "train.epochs")
    val = row.new.val
    assert not val.known and val.parts == (("EPOCHS", 90),)
    tables = builtin_tables()
    assert unresolved_text(val, tables, "en") == "unresolved: EPOCHS - start, where EPOCHS = 90"
    assert unresolved_text(val, tables, "zh") == "无法解析：EPOCHS - start，其中 EPOCHS = 90"
    doc = next(r for r in to_json(c)["rows"] if r["key"] == "train.epochs")
    assert doc["new"] == {"unresolved": "EPOCHS - start", "known": {"EPOCHS": 90}}


def test_a_schedule_computed_by_project_functions_shows_its_inputs(tmp_path) -> None:
    """ResNet's shape: `lr = Tensor(init_lr(step_size))`, `init_lr` returning `get_lr(...)` of
    config values, the step count from another project function. The value stays unknown (a per-step
    schedule), names the function computing it, and shows the config inputs that are known — the
    learning-rate ones first — and no framework name (`np.float32`) as an input."""
    from linter.compare.mapping import builtin_tables
    from linter.compare.render import to_json, unresolved_text

    rows = compare(tmp_path, """
        import numpy as np
        import yaml
        from mindspore import nn, Tensor
        from lr_generator import get_lr

        with open("config.yaml") as fh:
            config = yaml.safe_load(fh)

        def init_lr(step_size):
            if config["warmup"]:
                return get_lr(config["warmup"], config["lr_max"] * 8, step_size)
            return get_lr(config["warmup"], config["lr_max"], step_size)

        def count_steps(ds):
            return ds.get_dataset_size()

        net = nn.Dense(4, 2)
        steps = count_steps(dataset)
        lr = Tensor(init_lr(step_size=steps))
        opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    """, {"config.yaml": "warmup: 5\nlr_max: 0.8\n", "lr_generator.py": """
        import numpy as np

        def get_lr(warmup_epochs, lr_max, steps):
            out = [lr_max * i / (warmup_epochs * steps) for i in range(warmup_epochs * steps)]
            return np.array(out).astype(np.float32)
    """})
    val = rows["optimizer.lr"].new.val
    assert not val.known and val.text == "lr"
    assert val.by == ("init_lr()", "get_lr()")   # not count_steps(): it computes an input, not the value
    # the learning-rate input first; `np.float32` and the unknown step count are not parts
    assert val.parts == (("config['lr_max']", 0.8), ("config['warmup']", 5))
    tables = builtin_tables()
    text = unresolved_text(val, tables, "en")
    assert text == "unresolved: lr (computed by init_lr(), get_lr()), where config['lr_max'] = 0.8; config['warmup'] = 5"
    assert unresolved_text(val, tables, "zh").startswith("无法解析：lr（由 init_lr(), get_lr() 计算）")
    doc = next(r for r in to_json(compare_paths(str(tmp_path / "ref"), str(tmp_path / "new"), cwd=str(tmp_path),
                                                use_cache=False))["rows"] if r["key"] == "optimizer.lr")
    assert doc["new"]["computed_by"] == ["init_lr()", "get_lr()"]


def test_a_converted_unknown_keeps_its_known_parts(tmp_path) -> None:
    """A value that goes through a convention's conversion (MindSpore BatchNorm momentum, 1 − m)
    and is unknown keeps its known parts: the conversion cannot run, the reader still gets them."""
    rows = compare(tmp_path, """
        from mindspore import nn
        BASE = 0.9
        shift = float(open("shift.txt").read())
        bn = nn.BatchNorm2d(16, momentum=BASE - shift)
    """, ref="""
        import torch
        bn = torch.nn.BatchNorm2d(16, momentum=0.1)
    """)
    row = next(r for k, r in rows.items() if k.endswith("momentum"))
    assert not row.new.val.known and row.new.val.parts == (("BASE", 0.9),)
