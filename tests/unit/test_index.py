"""Stage 3: name resolution, receiver typing, constant propagation and call sites."""
from __future__ import annotations

import os
import textwrap
from typing import Dict

import pytest

from linter.api import VIRTUAL_ROOT
from linter.facts.extract import extract
from linter.index.project import Project
from linter.index.values import Obj
from tests.conftest import builtin_packs


def project(files: Dict[str, str]) -> Project:
    paths = sorted(files)
    facts = [extract(p, textwrap.dedent(files[p])) for p in paths]
    return Project(facts, [os.path.join(VIRTUAL_ROOT, p) for p in paths], [VIRTUAL_ROOT] * len(paths), builtin_packs().apis)


def names_of(p: Project, path: str, dotted: str):
    fi = next(i for i, f in enumerate(p.files) if f.path == path)
    cid = next(i for i, c in enumerate(p.files[fi].calls) if c.dotted == dotted)
    return p.call_names(fi, cid)


def test_aliases_and_deep_module_paths_canonicalise() -> None:
    apis = builtin_packs().apis
    assert apis.canonical("mindspore.nn.layer.basic.Dropout") == "mindspore.nn.Dropout"
    assert apis.canonical("mindspore.ops.composite.clip_by_global_norm") == "mindspore.ops.clip_by_global_norm"
    assert apis.canonical("msadapter.pytorch.nn.Dropout") == "torch.nn.Dropout"
    assert apis.canonical("tensorflow.keras.layers.Dropout") == "keras.layers.Dropout"
    assert apis.canonical("mindspore.value_and_grad") == "mindspore.ops.value_and_grad"


def test_framework_resolved_per_call_with_function_local_imports() -> None:
    p = project({"m.py": """
        from mindspore import nn
        a = nn.Dropout(0.1)
        def port():
            import torch.nn as nn
            return nn.Dropout(0.1)
    """})
    fi = 0
    got = [p.call_names(fi, cid)[0] for cid, c in enumerate(p.files[0].calls) if c.dotted == "nn.Dropout"]
    assert got == ["mindspore.nn.Dropout", "torch.nn.Dropout"]


def test_star_import_chain_and_reexport_across_project_modules() -> None:
    p = project({
        "pkg/__init__.py": "",
        "pkg/base.py": "from mindspore import nn\n",
        "pkg/layers.py": "from .base import *\n",
        "train.py": "from pkg.layers import *\nfrom pkg.layers import nn as N\nx = nn.Dropout(0.1)\ny = N.Dense(2, 2)\n",
    })
    assert names_of(p, "train.py", "nn.Dropout") == ("mindspore.nn.Dropout",)
    assert names_of(p, "train.py", "N.Dense") == ("mindspore.nn.Dense",)


def test_receiver_typing_self_attributes_chains_and_bases() -> None:
    p = project({"m.py": """
        import mindspore.dataset as ds
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3)
            def construct(self, x):
                return self.conv(x)
        net = Net()
        net.set_train()
        d = ds.Cifar10Dataset("p").batch(2)
        d.shuffle(10)
    """})
    assert "mindspore.nn.Conv2d.__call__" in names_of(p, "m.py", "self.conv")
    assert "mindspore.nn.Cell.set_train" in names_of(p, "m.py", "net.set_train")
    assert "mindspore.dataset.Dataset.shuffle" in names_of(p, "m.py", "d.shuffle")
    fi = 0
    shuffle = next(i for i, c in enumerate(p.files[0].calls) if c.dotted == "d.shuffle")
    recv = [v for v in p.values(fi, 0, p.files[0].calls[shuffle].func[1]) if isinstance(v, Obj)]
    source = next(i for i, c in enumerate(p.files[0].calls) if c.dotted == "ds.Cifar10Dataset")
    assert recv and recv[0].origin == (0, source)  # lineage back to the source dataset


def test_parameters_typed_from_call_sites() -> None:
    p = project({"m.py": """
        import torch.nn as nn
        def evaluate(model, x):
            return model(x)
        evaluate(nn.Linear(2, 2), 1)
    """})
    assert "torch.nn.Module.__call__" in names_of(p, "m.py", "model")


def test_constants_through_modules_params_records_and_arithmetic() -> None:
    p = project({
        "config.py": "DROP = 0.3\ncfg = dict(momentum=0.1)\n",
        "m.py": """
            import argparse
            import config
            from easydict import EasyDict as ed
            opts = ed({"keep": 0.9})
            def build(rate=0.5):
                return use(rate, 1 - config.DROP, opts.keep, config.cfg.momentum)
            build(rate=0.25)
            parser = argparse.ArgumentParser()
            parser.add_argument("--lr", type=float, default=0.01)
            args = parser.parse_args()
            use2(args.lr)
        """,
    })
    fi = 1
    use = next(c for c in p.files[fi].calls if c.dotted == "use")
    got = [sorted(v.value for v in p.constants(fi, use.scope, a.value)[0]) for a in use.args]
    assert got == [[0.25], [0.7], [0.9], [0.1]]
    rate = p.constants(fi, use.scope, use.args[0].value)[0][0]
    assert "passed to 'rate'" in rate.via
    use2 = next(c for c in p.files[fi].calls if c.dotted == "use2")
    assert [v.value for v in p.constants(fi, 0, use2.args[0].value)[0]] == [0.01]


def test_parameter_default_counts_only_where_a_call_site_omits_it() -> None:
    p = project({"m.py": """
        def bn(c, momentum=0.1):
            return use(momentum)
        def never_called(x, drop=0.8):
            return use2(drop)
        bn(64)
        bn(64, momentum=0.9)
    """})
    calls = {c.dotted: c for c in p.files[0].calls}
    vals, _ = p.constants(0, calls["use"].scope, calls["use"].args[0].value)
    assert sorted(v.value for v in vals) == [0.1, 0.9]
    vals2, known = p.constants(0, calls["use2"].scope, calls["use2"].args[0].value)
    assert vals2 == [] and not known  # no call site: the default is not evidence


def test_parameter_cycles_terminate() -> None:
    p = project({"m.py": """
        def a(x):
            return b(x.child)
        def b(y):
            return a(y.parent)
        a(None)
    """})
    for cid in range(len(p.files[0].calls)):
        p.call_names(0, cid)
        p.call_values(0, cid)


def test_wildcard_alias_drops_a_submodule_not_the_name() -> None:
    apis = builtin_packs().apis
    assert apis.canonical("mindspore.nn.optim.Adam") == "mindspore.nn.Adam"
    assert apis.canonical("mindspore.nn.optim.adam.Adam") == "mindspore.nn.Adam"
    assert apis.canonical("mindspore.nn.layer.Dense") == "mindspore.nn.Dense"


def test_vectors_of_literals_names_modules_and_comprehensions() -> None:
    p = project({
        "consts.py": "MEAN = (0.485, 0.456, 0.406)\n",
        "m.py": """
            import consts
            SCALE = 255
            STD = [0.229, 0.224, 0.225]
            if flag:
                ODD = [1, 2]
            else:
                ODD = [1, 3]
            def f(mean_in):
                use([m * SCALE for m in consts.MEAN], STD, [-s for s in STD], ODD, mean_in,
                    [x ** 100 for x in STD], [0.5] * 3, ["a", 1])
        """,
    })
    fi = 1
    use = next(c for c in p.files[fi].calls if c.dotted == "use")
    got = [p.vector(fi, use.scope, a.value) for a in use.args]
    assert got[0] == pytest.approx((123.675, 116.28, 103.53))
    assert got[1] == (0.229, 0.224, 0.225) and got[2] == (-0.229, -0.224, -0.225)
    # two possible values, an unknown parameter, an overflowing power, a repeated list, strings: none
    assert got[3:] == [None, None, None, None, None]


def test_a_root_that_is_a_package_resolves_its_own_absolute_imports() -> None:
    """`trainlint check pytorchyolo` with no marker above: the root is the package folder, and
    `from pytorchyolo.models import load_model` resolves from the folder holding it (as
    `python -m pytorchyolo.train` would); a root that is not a package does not look above."""
    from linter.index.modules import ModuleMap

    base = os.path.join(VIRTUAL_ROOT, "repo")
    pkg = os.path.join(base, "pytorchyolo")
    files = [os.path.join(pkg, n) for n in ("__init__.py", "train.py", "models.py")]
    mm = ModuleMap(files, {f: pkg for f in files})
    never = lambda path: False  # noqa: E731 - nothing outside the known files exists
    assert mm.resolve(files[1], "pytorchyolo.models", 0, never) == os.path.normpath(files[2])
    assert mm.resolve(files[1], "models", 0, never) == os.path.normpath(files[2])
    plain = os.path.join(base, "scripts")
    other = [os.path.join(plain, "train.py"), os.path.join(plain, "models.py")]
    mm = ModuleMap(other, {f: plain for f in other})
    assert mm.resolve(other[0], "scripts.models", 0, never) is None


def test_methods_of_an_unknown_librarys_objects_answer_to_untyped_names() -> None:
    """An instance of a class from a library the tables do not cover (texar) may be a module:
    its methods answer to `?.method` as an untyped receiver's do; a known torch class's do not."""
    p = project({"train.py": """
        import torch
        import texar.torch as tx
        model = tx.modules.BERTClassifier(hparams={})
        model.eval()
        model(1)
        lin = torch.nn.Linear(2, 2)
        lin.eval()
    """})
    assert "?.eval" in names_of(p, "train.py", "model.eval")
    assert "?.__call__" in names_of(p, "train.py", "model")
    lin = names_of(p, "train.py", "lin.eval")
    assert "torch.nn.Module.eval" in lin and "?.eval" not in lin


def test_a_package_importing_its_own_submodule_resolves_it() -> None:
    """`from . import models` in `torchfcn/__init__.py`: `torchfcn.models.FCN32s` is the project
    class (asking the package's globals for `models` asked this very import again: unknown)."""
    p = project({
        "torchfcn/__init__.py": "from . import models\nfrom .trainer import Trainer\n",
        "torchfcn/models/__init__.py": "from .fcn32s import FCN32s\n",
        "torchfcn/models/fcn32s.py": "import torch.nn as nn\nclass FCN32s(nn.Module):\n    pass\n",
        "torchfcn/trainer.py": "class Trainer:\n    pass\n",
        "train.py": "import torchfcn\nmodel = torchfcn.models.FCN32s()\ntrainer = torchfcn.Trainer()\n",
    })
    assert names_of(p, "train.py", "torchfcn.models.FCN32s") == ("torchfcn.models.fcn32s.FCN32s",)
    assert names_of(p, "train.py", "torchfcn.Trainer") == ("torchfcn.trainer.Trainer",)
