"""The program model: program roles from evidence, reachability through aliases and instance
construction, what a program trains, and the predicates and severities built on them."""
from __future__ import annotations

import os
import textwrap
from typing import Dict, List, Tuple

from linter.api import VIRTUAL_ROOT, check_sources
from linter.engine.packs import load_packs
from linter.program.model import ProgramModel
from linter.match.context import MatchContext
from linter.match.pattern import new_context
from linter.program.training import trained_objects, training_state
from linter.engine.probes import Probes
from linter.engine.run import link
from linter.engine.units import Options
from linter.facts.parse_file import Unit, parse_unit
from tests.conftest import builtin_packs
from tests.unit.test_index import project


def context(files: Dict[str, str]) -> MatchContext:
    p = project(files)
    return new_context(ProgramModel(p, builtin_packs().roles), {})


def fid(mc: MatchContext, path: str) -> int:
    return next(i for i, f in enumerate(mc.p.files) if f.path == path)


def call_at(mc: MatchContext, path: str, line: int) -> Tuple[int, int]:
    fi = fid(mc, path)
    return fi, next(i for i, c in enumerate(mc.p.files[fi].calls) if c.line == line)


NET = """
    from mindspore import nn
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)
        def construct(self, x):
            return self.fc(x)
"""


def test_roles_come_from_what_the_program_reaches_not_from_its_name() -> None:
    mc = context({
        "net.py": NET,
        # named train, but only exports: not a training program
        "train2export.py": """
            import mindspore as ms
            from net import Net
            ms.export(Net(), None, file_name="n")
        """,
        # named like nothing, but updates parameters through a helper in another file
        "main.py": """
            from mindspore import nn, Model
            from net import Net
            from steps import fit
            if __name__ == "__main__":
                fit(Net())
        """,
        "steps.py": """
            from mindspore import nn, Model
            def fit(net):
                opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
                Model(net, nn.MSELoss(), opt).train(1, None)
        """,
        # gradients alone (a saliency map) do not train
        "saliency.py": """
            import mindspore as ms
            from net import Net
            grad_fn = ms.value_and_grad(Net())
            grad_fn(1)
        """,
        # an eval.py that reaches nothing decisive keeps the role its name gives
        "eval.py": """
            from net import Net
            print(Net()(1))
        """,
    })
    r = mc.roles
    assert r.entry_roles(fid(mc, "train2export.py")) == {"export"}
    assert r.entry_roles(fid(mc, "main.py")) == {"training"}
    assert "steps.py:5" in r.describe_program(fid(mc, "main.py"), "training")
    assert r.entry_roles(fid(mc, "saliency.py")) == set()
    assert r.entry_roles(fid(mc, "eval.py")) == {"evaluation"}
    assert "named like" in r.describe_program(fid(mc, "eval.py"), "evaluation")


def test_gradient_with_untyped_update_or_training_name_trains() -> None:
    mc = context({
        "loop.py": """
            import torch
            def run(model, loader, optimizer):
                for x in loader:
                    model(x).sum().backward()
                    optimizer.step()
            run(None, [], None)
        """,
        "train_small.py": """
            import torch
            def run(model, loader):
                for x in loader:
                    model(x).sum().backward()
            run(None, [])
        """,
        "probe.py": """
            import torch
            def run(model, loader):
                for x in loader:
                    model(x).sum().backward()
            run(None, [])
        """,
    })
    r = mc.roles
    assert r.entry_roles(fid(mc, "loop.py")) == {"training"}
    assert r.entry_roles(fid(mc, "train_small.py")) == {"training"}   # a name breaks the tie
    assert r.entry_roles(fid(mc, "probe.py")) == set()


def test_calls_through_aliases_and_framework_run_construct_are_reached() -> None:
    mc = context({
        "net.py": NET,
        "train.py": """
            import mindspore as ms
            from mindspore import nn
            from net import Net
            def step_a(x):
                return x
            def step_b(x):
                return x
            step = step_a if ms else step_b
            net = Net()
            step(1)
        """,
    })
    fi = fid(mc, "train.py")
    a = call_at(mc, "net.py", 8)   # self.fc(x) inside construct: run by whoever builds a Net
    assert mc.entries_reaching(*a) == [fi]
    step_a = next(i for i, f in enumerate(mc.p.files[fi].funcs) if f.name == "step_a")
    assert mc.roles.reaching_entries(fi, step_a) == frozenset({fi})


TRAINED = {
    "net.py": NET,
    "train.py": """
        import mindspore as ms
        from mindspore import nn
        from net import Net

        def params_of(net):
            return [p for p in net.trainable_params() if p.requires_grad]

        net = Net()
        eval_net = Net()
        loss_net = nn.WithLossCell(net, nn.MSELoss())
        opt = nn.Momentum(params_of(loss_net), 0.1, 0.9)
        ms.load_param_into_net(net, {})
        ms.load_param_into_net(eval_net, {})
        ms.load_param_into_net(unknown, {})
        ms.Model(loss_net, optimizer=opt).train(1, None)
    """,
}


def test_trained_objects_follow_helpers_comprehensions_and_wrappers() -> None:
    mc = context(TRAINED)
    fi = fid(mc, "train.py")
    assert [mc.p.files[o[0]].calls[o[1]].line for o in trained_objects(mc.program)] == [11]   # the WithLossCell
    states = []
    for line in (13, 14, 15):
        cfi, cid = call_at(mc, "train.py", line)
        call = mc.p.files[cfi].calls[cid]
        states.append(training_state(mc.program, mc.p.values(cfi, call.scope, call.args[0].value), [fi]))
    # the network inside the trained wrapper; an evaluation copy; an unknown object
    assert states == [True, False, None]


def test_untraceable_optimizer_parameters_leave_the_state_unknown() -> None:
    files = dict(TRAINED)
    files["train.py"] = files["train.py"].replace("params_of(loss_net)", "groups")
    mc = context(files)
    cfi, cid = call_at(mc, "train.py", 14)
    call = mc.p.files[cfi].calls[cid]
    assert training_state(mc.program, mc.p.values(cfi, call.scope, call.args[0].value), [cfi]) is None


def test_an_optimizer_also_given_unresolved_parameters_may_train_anything() -> None:
    """A shared optimizer factory called with a resolved test network and with the product of a
    registry the model cannot resolve: "not trained" is unknown for every other object."""
    files = dict(TRAINED)
    files["train.py"] = files["train.py"].replace(
        "opt = nn.Momentum(params_of(loss_net), 0.1, 0.9)",
        "opt = nn.Momentum(params_of(loss_net) + registry[name]().trainable_params(), 0.1, 0.9)")
    mc = context(files)
    fi = fid(mc, "train.py")
    cfi, cid = call_at(mc, "train.py", 14)
    call = mc.p.files[cfi].calls[cid]
    assert training_state(mc.program, mc.p.values(cfi, call.scope, call.args[0].value), [fi]) is None
    # the look-alike: every parameter resolved, the evaluation copy is provably not trained
    mc = context(TRAINED)
    cfi, cid = call_at(mc, "train.py", 14)
    call = mc.p.files[cfi].calls[cid]
    assert training_state(mc.program, mc.p.values(cfi, call.scope, call.args[0].value), [fi]) is False


def test_layers_built_by_a_comprehension_are_parts_of_the_network() -> None:
    mc = context({
        "net.py": """
            from mindspore import nn
            class Unit(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.bn = nn.BatchNorm2d(4)
                def construct(self, x):
                    return self.bn(x)
            class Net(nn.Cell):
                def __init__(self, n):
                    super().__init__()
                    blocks = [Unit() for _ in range(n)]
                    self.stage = nn.CellList(blocks)
                    self.head = nn.CellList([Unit() for _ in range(n)])
                def construct(self, x):
                    for b in self.stage:
                        x = b(x)
                    return x
        """,
        "train.py": """
            import mindspore as ms
            from mindspore import nn
            from net import Net, Unit
            net = Net(2)
            spare = Unit()
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
            ms.Model(net, nn.MSELoss(), opt).train(1, None)
        """,
    })
    fi = fid(mc, "train.py")
    nfi = fid(mc, "net.py")
    bn = next(i for i, c in enumerate(mc.p.files[nfi].calls) if c.line == 6)
    made = [v for v in mc.p.call_values(nfi, bn) if v.origin == (nfi, bn)]
    assert training_state(mc.program, made, [fi]) is True
    # a Unit built outside the network is not trained
    cfi, cid = call_at(mc, "train.py", 6)
    assert training_state(mc.program, [v for v in mc.p.call_values(cfi, cid)], [fi]) is False



def test_layers_appended_to_a_list_attribute_are_parts_of_the_network() -> None:
    """`self.blocks = []` then `self.blocks.append(layer)` in a method (SSD-ResNet34's extra blocks):
    the layer is trained with the network; one appended to a local list nobody keeps is not."""
    mc = context({
        "net.py": """
            from mindspore import nn
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.blocks = []
                    self.blocks.append(nn.SequentialCell(nn.Conv2d(4, 4, 1), nn.ReLU()))
                    scratch = []
                    scratch.append(nn.Conv2d(4, 4, 1))
                def construct(self, x):
                    for b in self.blocks:
                        x = b(x)
                    return x
        """,
        "train.py": """
            import mindspore as ms
            from mindspore import nn
            from net import Net
            net = Net()
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
            ms.Model(net, nn.MSELoss(), opt).train(1, None)
        """,
    })
    fi = fid(mc, "train.py")
    nfi = fid(mc, "net.py")
    convs = [i for i, c in enumerate(mc.p.files[nfi].calls) if mc.p.call_names(nfi, i)[:1] == ("mindspore.nn.Conv2d",)]
    kept, scratch = convs
    assert training_state(mc.program, [v for v in mc.p.call_values(nfi, kept) if v.origin == (nfi, kept)], [fi]) is True
    assert training_state(mc.program, [v for v in mc.p.call_values(nfi, scratch) if v.origin == (nfi, scratch)], [fi]) is not True

RULE = """\
id: WI299
name: probe-load
checklist: wi.02
framework: mindspore
severity: warning
title: {en: t, zh: 标题}
message: {en: "`{callee}` loads[[ {parameter_dict.mentions}]]", zh: "`{callee}` 加载"}
docs: {what: {en: w, zh: 内容}, why: {en: w, zh: 原因}, fix: {en: f, zh: 修复}}
severity_if:
  - when: {arg: net, trained: false}
    severity: info
    note: {en: "(not trained)", zh: "（未训练）"}
match:
  call:
    name: [mindspore.load_param_into_net]
    where:
      any:
        - {arg: parameter_dict, mentions: '(?i)pretrain'}
        - {arg: parameter_dict, edited_by: ["?.pop"]}
examples:
  invalid: ["import mindspore as ms\\nms.load_param_into_net(n, ms.load_checkpoint('pretrained.ckpt'))  # expect: WI299\\n"]
  valid: ["import mindspore as ms\\nms.load_param_into_net(n, ms.load_checkpoint('last.ckpt'))\\n"]
"""


def test_mentions_edited_by_and_predicate_severity(tmp_path) -> None:
    d = tmp_path / "p"
    d.mkdir()
    (d / "probe-load.yaml").write_text(RULE, encoding="utf-8")
    packs = load_packs([str(d)])
    assert not packs.errors, packs.errors
    src = dict(TRAINED)
    src["train.py"] = textwrap.dedent("""
        import os
        import mindspore as ms
        from mindspore import nn
        from net import Net

        def load(net, path):
            ms.load_param_into_net(net, ms.load_checkpoint(path))

        def load_edited(net):
            params = ms.load_checkpoint("last.ckpt")
            params.pop("head.weight")
            ms.load_param_into_net(net, params)

        net = Net()
        eval_net = Net()
        load(net, os.path.join(ARGS.pretrained_dir, "resnet.ckpt"))
        load_edited(eval_net)
        ms.load_param_into_net(net, ms.load_checkpoint("last.ckpt"))
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        ms.Model(net, nn.MSELoss(), opt).train(1, None)
    """)
    res = check_sources(src, packs, Options(select=lambda r: r == "WI299"))
    got = [(f.span.line, f.severity.value, f.message) for f in res.findings]
    # the path mentions `pretrained_dir` through the parameter; the edited dict; last.ckpt: neither
    assert got == [(8, "warning", "`ms.load_param_into_net` loads pretrained_dir"),
                   (13, "info", "`ms.load_param_into_net` loads (not trained)")]


def test_same_call_in_exclusive_branches_is_one_finding() -> None:
    from tests.conftest import lint

    res = lint({"train.py": textwrap.dedent("""
        import mindspore as ms
        from mindspore import nn
        def main(args, net):
            if args.device == "GPU":
                ms.load_param_into_net(net, ms.load_checkpoint(args.pretrained))
            elif args.device == "CPU":
                ms.load_param_into_net(net, ms.load_checkpoint(args.pretrained))
            else:
                ms.load_param_into_net(net, ms.load_checkpoint(args.pretrained, strict_load=True))
            ms.load_param_into_net(net, ms.load_checkpoint(args.pretrained))
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
            ms.Model(net, nn.MSELoss(), opt).train(1, None)
        main(None, None)
    """)}, select="WI201")
    # the elif twin is dropped; a different call (strict_load) and one outside the `if` stay
    assert [f.span.line for f in res.findings] == [6, 10, 11]


def test_optimizer_subclasses_are_candidates_for_creates() -> None:
    from linter.compiler.build import CallPattern
    from linter.core.globs import GlobSet

    mc = context({"m.py": """
        from mindspore import nn
        opt = nn.Momentum([], 0.1, 0.9)
        other = nn.Dense(2, 2)
    """})
    pattern = CallPattern(names=None, creates=GlobSet(["mindspore.nn.Optimizer"]))
    hits = [c for c in mc.candidates(pattern, [0]) if mc.match(pattern, *c) is not None]
    assert [mc.p.files[0].calls[cid].dotted for _, cid in hits] == ["nn.Momentum"]


def test_path_conditions_tell_exclusive_branches_apart() -> None:
    mc = context({
        "train.py": """
            import mindspore as ms
            from data import create_dataset
            def setup(args):
                ms.set_auto_parallel_context(parallel_mode="data_parallel")
            def main(args, config):
                if args.run_distribute:
                    setup(args)
                    ds = create_dataset(args, rank=1)
                else:
                    ds = create_dataset(args)
                if not args.run_distribute:
                    print("single device")
                if config.device_target == "GPU":
                    print("gpu")
                elif config.device_target == "Ascend":
                    print("ascend")
                if args.run_distribute and config.device_target == "GPU":
                    print("both")
            if __name__ == "__main__":
                main(None, None)
        """,
        "data.py": """
            import mindspore.dataset as de
            def create_dataset(args, rank=None):
                return de.Cifar10Dataset("d", num_shards=rank)
        """,
    })
    e = fid(mc, "train.py")
    paths = mc.roles.paths
    ctx = call_at(mc, "train.py", 5)
    shard = call_at(mc, "train.py", 9)
    single = call_at(mc, "train.py", 11)
    dataset = call_at(mc, "data.py", 4)        # reached from both branches
    assert paths.compatible(e, ctx, shard)
    assert not paths.compatible(e, ctx, single)
    assert paths.compatible(e, ctx, dataset)
    assert not paths.compatible(e, ctx, call_at(mc, "train.py", 13))      # `if not args.run_distribute`
    gpu, ascend, both = (call_at(mc, "train.py", n) for n in (15, 17, 19))
    assert not paths.compatible(e, gpu, ascend)                            # == "GPU" vs == "Ascend"
    assert paths.compatible(e, ctx, both) and paths.compatible(e, gpu, both)
    assert not paths.compatible(e, ascend, both)                           # `and` holds both atoms


DATASET = """
    import mindspore.dataset as ds
    import mindspore.dataset.vision as vision
    def create_dataset(path, do_train=True):
        flip = vision.RandomHorizontalFlip()
        ops = [vision.Decode()]
        if do_train:
            ops.append(flip)
        data = ds.ImageFolderDataset(path, shuffle=False)
        return data.map(operations=ops)
    def unused(path):
        return ds.ImageFolderDataset(path, shuffle=False)
"""


def test_pipeline_roles_need_a_program_that_runs_them() -> None:
    files = {
        "src/dataset.py": DATASET,
        # builds a training pipeline, but converts it to MindRecord: trains nothing
        "train2mindrecord.py": """
            from mindspore.mindrecord import FileWriter
            from src.dataset import create_dataset
            writer = FileWriter("out.mindrecord")
            for row in create_dataset("/data", do_train=True):
                writer.write_raw_data([row])
        """,
    }
    mc = context(files)
    roles = mc.roles
    made = call_at(mc, "src/dataset.py", 9)
    assert roles.pipeline_context(*made) == {}        # no training program runs it
    assert roles.pipeline_context(*call_at(mc, "src/dataset.py", 12)) == {}   # dead: no program reaches it
    files["train.py"] = """
        import mindspore as ms
        from mindspore import nn
        from src.dataset import create_dataset
        net = nn.Dense(2, 2)
        ms.Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, create_dataset("/d"))
    """
    mc = context(files)
    assert list(mc.roles.pipeline_context(*call_at(mc, "src/dataset.py", 9))) == ["training"]
    # without any entry script (a library, a snippet): names and flags alone decide
    mc = context({"src/dataset.py": DATASET, "src/builders.py": """
        from src.dataset import create_dataset
        def train_data():
            return create_dataset("/d", do_train=True)
    """})
    assert list(mc.roles.pipeline_context(*call_at(mc, "src/dataset.py", 9))) == ["training"]


def test_an_op_used_only_in_a_training_branch_serves_training() -> None:
    mc = context({"src/dataset.py": DATASET})
    ctx = mc.roles.pipeline_context(*call_at(mc, "src/dataset.py", 5))
    assert list(ctx) == ["training"] and "used only in a branch" in ctx["training"]


def test_branches_decided_by_constants_are_dead_but_command_line_defaults_are_not() -> None:
    mc = context({
        "net.py": """
            from mindspore import nn
            class Block(nn.Cell):
                def __init__(self, norm=None, drop=0.0):
                    super().__init__()
                    if norm == "batch":
                        self.bn = nn.BatchNorm2d(4)
                    if drop > 0.:
                        self.drop = nn.Dropout(p=drop)
                    self.fc = nn.Dense(4, 4)
            class Attention(nn.Cell):
                def __init__(self, attn_drop=0.):
                    super().__init__()
                    self.attn_drop = attn_drop
                    if self.attn_drop > 0.:
                        self.attn_drop = nn.Dropout(p=attn_drop)
                    if self.attn_drop > 0.:
                        self.proj_drop = nn.Dropout(p=attn_drop)
        """,
        "train.py": """
            import argparse
            import mindspore as ms
            from net import Block
            parser = argparse.ArgumentParser()
            parser.add_argument("--data_dir", default="")
            args = parser.parse_args()
            a = Block()
            b = Block(norm=None, drop=0.0)
            c = Attention(attn_drop=0.0)
            if args.data_dir:
                print("from a folder")
            ms.export(a, None, file_name="x")
        """,
    })
    e = fid(mc, "train.py")
    bn, drop, fc = (call_at(mc, "net.py", n) for n in (7, 9, 10))
    assert mc.entries_reaching(*bn) == [] and mc.entries_reaching(*drop) == []
    assert mc.entries_reaching(*fc) == [e]
    # `self.attn_drop` is read where the method set it: 0.0 (the Dropout assigned in the dead branch never was)
    assert mc.entries_reaching(*call_at(mc, "net.py", 16)) == [] and mc.entries_reaching(*call_at(mc, "net.py", 18)) == []
    folder = call_at(mc, "train.py", 12)
    assert mc.entries_reaching(*folder) == [e]      # `--data_dir` may be passed on the command line


def test_classes_and_functions_handed_on_as_values_are_reached() -> None:
    mc = context({
        "models.py": """
            from mindspore import nn
            def register(fn):
                return fn
            class NetA(nn.Cell):
                def construct(self, x):
                    return nn.Dense(2, 2)(x)
            @register
            def net_b():
                return nn.Dense(3, 3)
            @jit
            def unused():
                return nn.Dense(4, 4)
            MODELS = {"a": NetA}
        """,
        "train.py": """
            from models import MODELS
            if __name__ == "__main__":
                net = MODELS["a"]()
        """,
    })
    e = fid(mc, "train.py")
    assert mc.entries_reaching(*call_at(mc, "models.py", 7)) == [e]
    assert mc.entries_reaching(*call_at(mc, "models.py", 10)) == [e]   # registered by a decorator, module imported
    assert mc.entries_reaching(*call_at(mc, "models.py", 13)) == []    # @jit registers nothing


def test_functions_registered_on_a_dispatch_graph_run_where_the_graph_is_applied() -> None:
    """`@_adam_opt.register(...)` on a MultitypeFuncGraph is an overload, not a registry entry
    that may run on import: an inference script importing the package (SememeWSD's
    `run_pretrain.py`) does not reach the update inside it — while `@register` still does."""
    mc = context({
        "src/adam.py": """
            from mindspore.ops import composite as C
            _adam_opt = C.MultitypeFuncGraph("adam_opt")
            def register(fn):
                return fn
            @_adam_opt.register("Function", "Tensor")
            def _run_opt(opt, gradient):
                return opt(gradient)
            @register
            def _named(opt, gradient):
                return abs(gradient)
        """,
        "run_pretrain.py": """
            import src.adam
            print("inference only")
        """,
    })
    e = fid(mc, "run_pretrain.py")
    assert mc.entries_reaching(*call_at(mc, "src/adam.py", 8)) == []
    assert mc.entries_reaching(*call_at(mc, "src/adam.py", 11)) == [e]
    assert "training" not in mc.roles.entry_roles(e)


def test_a_modules_own_main_block_trains_only_when_it_is_the_script() -> None:
    """A layer file with a training self-test under `if __name__ == "__main__":` (hp-vae-gan's
    spectral_norm.py): a preprocessing script importing it does not train; the file itself does."""
    mc = context({
        "layers.py": """
            import mindspore as ms
            from mindspore import nn
            class Norm(nn.Cell):
                def construct(self, x):
                    return x
            if __name__ == "__main__":
                net = nn.Dense(2, 2)
                step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
                for i in range(2):
                    step(1, 2)
        """,
        "preprocess.py": """
            import numpy as np
            from layers import Norm
            np.save("noise.npy", np.zeros(3))
        """,
    })
    assert "training" not in mc.roles.entry_roles(fid(mc, "preprocess.py"))
    assert "training" in mc.roles.entry_roles(fid(mc, "layers.py"))


def test_building_a_train_step_cell_is_not_training_calling_it_is() -> None:
    files = {
        "src/step.py": """
            import mindspore as ms
            from mindspore import nn
            class TrainStep(nn.Cell):
                def __init__(self, net, opt):
                    super().__init__()
                    self.net, self.opt = net, opt
                    self.grad_fn = ms.value_and_grad(net, None, opt.parameters)
                def construct(self, x):
                    loss, grads = self.grad_fn(x)
                    self.opt(grads)
                    return loss
            def build():
                net = nn.Dense(2, 2)
                return TrainStep(net, nn.Adam(net.trainable_params())), net
        """,
        "eval.py": """
            import mindspore as ms
            from src.step import build
            train_net, eval_net = build()
            print(ms.Model(eval_net).eval(None))
        """,
        "run.py": """
            from src.step import build
            train_net, _ = build()
            for x in []:
                train_net(x)
        """,
    }
    mc = context(files)
    assert mc.roles.entry_roles(fid(mc, "eval.py")) == {"evaluation"}
    assert mc.roles.entry_roles(fid(mc, "run.py")) == {"training"}


ZOO_CONFIG = {
    "src/model_utils/config.py": """
        import argparse
        import os
        import yaml

        class Config:
            def __init__(self, cfg_dict):
                for k, v in cfg_dict.items():
                    setattr(self, k, v)

        def parse_yaml(yaml_path):
            with open(yaml_path, "r") as fin:
                cfgs = [x for x in yaml.load_all(fin.read(), Loader=yaml.FullLoader)]
            return cfgs[0]

        def get_config():
            parser = argparse.ArgumentParser(description="default name", add_help=False)
            current_dir = os.path.dirname(os.path.abspath(__file__))
            parser.add_argument("--config_path", type=str, default=os.path.join(current_dir, "../../default_config.yaml"))
            path_args, _ = parser.parse_known_args()
            return Config(parse_yaml(path_args.config_path))

        config = get_config()
    """,
    "default_config.yaml": "# the default\\nkeep_prob: 0.1\\ndrop_rate: 0.0\\nmodel:\\n  depth: 50\\n---\\nkeep_prob: help text\\n",
    "config/resnet101.yaml": "keep_prob: 0.2\\ndrop_rate: 0.0\\nmodel:\\n  depth: 101\\n",
    "config/unrelated.yaml": "host: x\\nport: 1\\nuser: y\\n",
    "train.py": """
        from mindspore import nn, Model
        from src.model_utils.config import config
        drop = nn.Dropout(config.keep_prob)
        depth = config.model.depth
        if config.drop_rate > 0:
            extra = nn.Dropout(0.1)
        net = nn.SequentialCell([nn.Dense(2, 2), drop])
        Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, None)
    """,
}


def test_configuration_files_are_read_like_module_constants() -> None:
    files = {k: textwrap.dedent(v) if k.endswith(".py") else v.encode().decode("unicode_escape")
             for k, v in ZOO_CONFIG.items()}
    res = check_sources(files, builtin_packs(), Options(select=lambda r: r in ("API101", "API102")))
    # keep_prob (0.1, a drop rate) from the shipped configuration, with its file and line;
    # the dropout under `drop_rate > 0` is never built (0.0 in every variant): info
    got = [(f.path, f.span.line, f.rule, f.severity.value) for f in res.findings]
    assert got == [("train.py", 4, "API101", "error"), ("train.py", 7, "API101", "info")], got
    assert "default_config.yaml:2" in res.findings[0].message
    units = []
    configs = {}
    for path, text in sorted(files.items()):
        abspath = os.path.join(VIRTUAL_ROOT, path)
        if path.endswith(".yaml"):
            configs[os.path.normpath(abspath)] = text.encode()
            continue
        u = Unit(path, abspath, VIRTUAL_ROOT, linted=True)
        parse_unit(u, text.encode())
        units.append(u)
    _present, p, _errors = link(units, builtin_packs(), Options(), Probes(configs), read_context=False)
    mc = new_context(ProgramModel(p, builtin_packs().roles), {})
    fi, cid = call_at(mc, "train.py", 4)
    call = p.files[fi].calls[cid]
    vals, known = p.constants(fi, call.scope, call.args[0].value)
    assert known and sorted(v.value for v in vals) == [0.1, 0.2]
    assert {(os.path.basename(v.path), v.line) for v in vals} == {("default_config.yaml", 2), ("resnet101.yaml", 1)}
    depth = next(a for a in p.files[fi].assigns if a.target[0] == "name" and a.target[1] == "depth")
    dvals, dknown = p.constants(fi, 0, depth.value)
    assert dknown and sorted(v.value for v in dvals) == [50, 101]
    extra = call_at(mc, "train.py", 7)
    assert mc.live(*extra) is False and mc.live(fi, cid) is True


def test_a_conditional_expression_decided_by_every_caller_is_dead() -> None:
    """`nn.BatchNorm2d(c) if use_bn else None` with every caller leaving use_bn=False never
    builds the layer; a call site no program runs (a variant nobody builds) does not keep it live."""
    mc = context({
        "net.py": """
            from mindspore import nn
            def block(c, use_bn=False):
                norm = nn.BatchNorm2d(c) if use_bn else None
                return nn.SequentialCell([nn.Conv2d(c, c, 3), norm])
            def small():
                return block(8, use_bn=True)
            def large():
                return block(16)
        """,
        "train.py": """
            import mindspore as ms
            from net import large
            ms.export(large(), None, file_name="x")
        """,
    })
    e = fid(mc, "train.py")
    bn, conv = call_at(mc, "net.py", 4), call_at(mc, "net.py", 5)
    assert mc.entries_reaching(*conv) == [e]
    # small() (use_bn=True) is defined but no program calls it: the only live call site leaves use_bn=False
    assert mc.entries_reaching(*bn) == []
    assert mc.live(*bn) is False and mc.live(*conv) is True


def test_a_conditional_expression_stays_live_when_a_run_caller_sets_the_flag() -> None:
    mc = context({
        "net.py": """
            from mindspore import nn
            def block(c, use_bn=False):
                norm = nn.BatchNorm2d(c) if use_bn else None
                return nn.SequentialCell([nn.Conv2d(c, c, 3), norm])
        """,
        "train.py": """
            import mindspore as ms
            from net import block
            ms.export(block(8, use_bn=True), None, file_name="x")
            ms.export(block(16), None, file_name="y")
        """,
    })
    assert mc.entries_reaching(*call_at(mc, "net.py", 4)) == [fid(mc, "train.py")]


def test_a_file_checked_alone_is_judged_by_the_entry_scripts_beside_it(tmp_path) -> None:
    """Checking one model file (pre-commit, an editor) reads the entry scripts of its folder and
    above, so code no program runs is `info` as in a whole-repository run."""
    from linter.api import check_paths
    (tmp_path / ".git").mkdir()      # the repository root: where the search for entry scripts stops
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "net.py").write_text(textwrap.dedent("""
        from mindspore import nn
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout(0.1)
            def construct(self, x):
                return self.drop(x)
    """))
    (tmp_path / "src" / "unused.py").write_text(textwrap.dedent("""
        from mindspore import nn
        class Old(nn.Cell):
            def __init__(self):
                super().__init__()
                self.drop = nn.Dropout(0.1)
    """))
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        from mindspore import nn
        from mindspore.train import Model
        from src.net import Head
        net = Head()
        Model(net, nn.MSELoss(), nn.Adam(net.trainable_params())).train(1, None)
    """))
    opts = Options(select=lambda r: r == "API101")
    alone = check_paths([str(tmp_path / "src" / "unused.py")], builtin_packs(), opts, cwd=str(tmp_path))
    whole = check_paths([str(tmp_path)], builtin_packs(), opts, cwd=str(tmp_path))
    got_alone = [(f.path, f.severity.value) for f in alone.findings]
    got_whole = sorted((f.path, f.severity.value) for f in whole.findings)
    assert got_alone == [(os.path.join("src", "unused.py"), "info")], got_alone
    assert got_whole == [(os.path.join("src", "net.py"), "error"), (os.path.join("src", "unused.py"), "info")], got_whole
    used = check_paths([str(tmp_path / "src" / "net.py")], builtin_packs(), opts, cwd=str(tmp_path))
    assert [(f.path, f.severity.value) for f in used.findings] == [(os.path.join("src", "net.py"), "error")]


SELECTED_BY_CONFIG = {
    "src/model_utils/config.py": """
        import argparse
        import yaml

        def get_config():
            parser = argparse.ArgumentParser()
            # this copy of the model ships another configuration than the helper's default
            parser.add_argument("--config_path", default="./config/resnet50_cifar10_config.yaml")
            args, _ = parser.parse_known_args()
            with open(args.config_path) as fh:
                return yaml.safe_load(fh)

        config = get_config()
    """,
    "config/resnet50_imagenet2012_config.yaml": "net_name: resnet50\\nclass_num: 1001\\nbatch_size: 32\\n",
    "src/resnet.py": """
        from mindspore import nn
        def resnet18(class_num):
            return nn.SequentialCell([nn.Conv2d(3, 64, 7), nn.BatchNorm2d(64, momentum=0.1)])
        def resnet50(class_num):
            return nn.SequentialCell([nn.Conv2d(3, 64, 7), nn.BatchNorm2d(64, momentum=0.9)])
    """,
    "train.py": """
        from mindspore import nn, Model
        from src.model_utils.config import config
        if config.net_name in ("resnet18", "resnet50"):
            if config.net_name == "resnet18":
                from src.resnet import resnet18 as resnet
            else:
                from src.resnet import resnet50 as resnet
        else:
            from src.resnet import resnet18 as resnet
        net = resnet(config.class_num)
        Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, None)
    """,
}


def test_a_builder_imported_under_a_branch_the_configuration_never_takes_is_not_run() -> None:
    """`from src.resnet import resnet18 as resnet` under `if config.net_name == "resnet18":`
    with only resnet50 configurations shipped: `resnet(...)` builds resnet50 alone. The helper's
    default file is missing from this copy, so the files of its config/ folder are the
    configurations; `in` a tuple of constants is decided too."""
    files = {k: textwrap.dedent(v) if k.endswith(".py") else v.encode().decode("unicode_escape")
             for k, v in SELECTED_BY_CONFIG.items()}
    res = check_sources(files, builtin_packs(), Options(select=lambda r: r == "API121"))
    got = [(f.path, f.span.line, f.severity.value) for f in res.findings]
    assert got == [("src/resnet.py", 4, "info")], got
    assert "Not run as shipped" in res.findings[0].message
    # control: a configuration that selects resnet18 makes the same layer an error
    files["config/resnet50_imagenet2012_config.yaml"] = "net_name: resnet18\nclass_num: 1001\nbatch_size: 32\n"
    res = check_sources(files, builtin_packs(), Options(select=lambda r: r == "API121"))
    assert [(f.path, f.span.line, f.severity.value) for f in res.findings] == [("src/resnet.py", 4, "error")]


REGISTRY = {
    "config.yaml": "model_name: Net3\\nclass_num: 16\\nlr: 0.1\\n",
    "src/config.py": """
        import yaml
        def get_config():
            with open("config.yaml") as fh:
                return yaml.safe_load(fh)
        config = get_config()
    """,
    "src/models.py": """
        from mindspore import nn
        class Block1(nn.Cell):
            def __init__(self, c):
                super().__init__()
                self.bn = nn.BatchNorm2d(c, momentum=0.1)
            def construct(self, x):
                return self.bn(x)
        class Block3(nn.Cell):
            def __init__(self, c):
                super().__init__()
                self.bn = nn.BatchNorm2d(c, momentum=0.1)
            def construct(self, x):
                return self.bn(x)
        class Backbone(nn.Cell):
            def __init__(self, block, n):
                super().__init__()
                self.layers = self._make_layer(block, n)
            def _make_layer(self, block, n):
                return nn.SequentialCell([block(8) for _ in range(n)])
        def Net1(**kwargs):
            return Backbone(Block1, 2)
        def Net3(**kwargs):
            return Backbone(Block3, 2)
        def registry():
            nets = {"Net1": Net1, "Net3": Net3}
            return nets
    """,
    "train.py": """
        from mindspore import nn, Model
        from src.config import config
        from src.models import registry
        net = registry()[config.model_name](num_classes=config.class_num)
        Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, None)
    """,
}


def test_a_registry_looked_up_by_configuration_builds_only_the_selected_entry() -> None:
    """`registry()[config.model_name]` with `model_name: Net3` in the shipped configuration runs
    Net3 alone, and the block class Net1 would hand to `_make_layer`'s `block(...)` is never
    built: its BatchNorm is `info` (not run as shipped), Block3's is an error."""
    files = {k: textwrap.dedent(v) if k.endswith(".py") else v.encode().decode("unicode_escape")
             for k, v in REGISTRY.items()}
    res = check_sources(files, builtin_packs(), Options(select=lambda r: r == "API121"))
    got = sorted((f.path, f.span.line, f.severity.value) for f in res.findings)
    assert got == [("src/models.py", 6, "info"), ("src/models.py", 12, "error")], got
    # a lookup by a key nobody can know (a command-line choice) keeps every entry
    files["train.py"] = files["train.py"].replace("config.model_name", "input()")
    res = check_sources(files, builtin_packs(), Options(select=lambda r: r == "API121"))
    got = sorted((f.path, f.span.line, f.severity.value) for f in res.findings)
    assert got == [("src/models.py", 6, "error"), ("src/models.py", 12, "error")], got


LAUNCHED = {
    "src/args.py": """
        import argparse
        def get_args():
            parser = argparse.ArgumentParser()
            parser.add_argument("--head", type=str, default="small")
            parser.add_argument("--drop_rate", type=float, default=0.0)
            return parser.parse_args()
        args = get_args()
    """,
    "train.py": """
        from mindspore import nn, Model
        from src.args import args
        layers = [nn.Dense(8, 8)]
        if args.head == "large":
            layers.append(nn.Dropout(0.1))
        if args.drop_rate > 0:
            layers.append(nn.Dropout(0.2))
        net = nn.SequentialCell(layers)
        Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, None)
    """,
    "scripts/run_train.sh": "python train.py --head small --data_path $DATA > log.txt 2>&1\\n",
    "README.md": "Run `bash scripts/run_train.sh`.\\n",
}


def test_options_the_launch_scripts_never_change_keep_their_default() -> None:
    """An argparse default decides a branch when every launch file (shell scripts, READMEs) that
    mentions the option passes a literal (`--head small`) or none mentions it (`--drop_rate`);
    a script passing a variable (`--head $HEAD`), or no shell script starting the program,
    leaves it open."""
    files = {k: textwrap.dedent(v) if k.endswith(".py") else v.encode().decode("unicode_escape")
             for k, v in LAUNCHED.items()}
    got = api101(files)
    assert got == [(6, "info"), (8, "info")], got
    files["scripts/run_train.sh"] = "python train.py --head $HEAD\n"
    got = api101(files)
    assert got == [(6, "error"), (8, "info")], got
    del files["scripts/run_train.sh"]   # a README alone does not show how the program is run
    got = api101(files)
    assert got == [(6, "error"), (8, "error")], got



def test_launchers_in_a_script_folder_count_too() -> None:
    """Some zoo models keep their launchers in `script/` (transformer_xl): a literal passed there
    decides the branch as one in `scripts/` does, and a variable there leaves it open."""
    files = {k: textwrap.dedent(v) if k.endswith(".py") else v.encode().decode("unicode_escape")
             for k, v in LAUNCHED.items()}
    files["script/run_train.sh"] = files.pop("scripts/run_train.sh")
    assert api101(files) == [(6, "info"), (8, "info")]
    files["script/run_train.sh"] = "python train.py --head $HEAD\n"
    assert api101(files) == [(6, "error"), (8, "info")]


def api101(files: Dict[str, str]) -> List[Tuple[int, str]]:
    """(line, severity) of the API101 findings of an in-memory project."""
    res = check_sources(files, builtin_packs(), Options(select=lambda r: r == "API101"))
    return sorted((f.span.line, f.severity.value) for f in res.findings)


def config_helper(filename: str, name: str) -> str:
    """A model zoo's configuration module: ``name = get_config()`` reading ``filename``."""
    return (f"import yaml\ndef get_config():\n    with open({filename!r}) as fh:\n"
            f"        return yaml.safe_load(fh)\n{name} = get_config()\n")


def test_flags_read_through_str_lower_are_decided() -> None:
    """`if str(cfg.use_extra).lower() == "true":` with `use_extra: False` in the configuration
    (and `str(None).lower()` for YAML's `None`) is decided like a plain comparison; a project
    function named `str` is not Python's."""
    files = {
        "config.yaml": "use_extra: False\nnum_samples: None\nlr: 0.1\n",
        "src/config.py": config_helper("config.yaml", "cfg"),
        "train.py": textwrap.dedent("""
            from mindspore import nn, Model
            from src.config import cfg
            layers = [nn.Dense(8, 8)]
            if str(cfg.use_extra).lower() == "true":
                layers.append(nn.Dropout(0.1))
            if str(cfg.num_samples).lower() != "none":
                layers.append(nn.Dropout(0.2))
            net = nn.SequentialCell(layers)
            Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, None)
        """),
    }
    got = api101(files)
    assert got == [(6, "info"), (8, "info")], got
    files["train.py"] = "def str(x):\n    return x\n" + files["train.py"]
    got = api101(files)
    assert got == [(8, "error"), (10, "error")], got


def test_a_command_counts_for_the_program_it_starts() -> None:
    """README commands of another script (`bash scripts/run_finetune.sh --do_train=true`, which
    starts finetune.py) pass nothing to eval.py's own `--do_train`; the shipped launcher of
    eval.py passes `--do_train=false`, so its training branch is not run as shipped."""
    eval_py = textwrap.dedent("""
        import argparse
        from mindspore import nn, Model
        parser = argparse.ArgumentParser()
        parser.add_argument("--do_train", type=str, default="false")
        args = parser.parse_args()
        if args.do_train.lower() == "true":
            net = nn.SequentialCell([nn.Dense(8, 8), nn.Dropout(0.1)])
            Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, None)
    """)
    files = {
        "eval.py": eval_py,
        "finetune.py": eval_py,
        "scripts/run_eval.sh": "python ${DIR}/../eval.py \\\n    --device_id=0 \\\n    --do_train=\"false\"\n",
        "scripts/run_finetune.sh": "python ${DIR}/../finetune.py --do_train=$DO_TRAIN\n",
        "README.md": "```bash\nbash scripts/run_finetune.sh --device_id=0\n                             --do_train=\"true\"\n```\n",
    }
    opts = Options(select=lambda r: r == "API101")
    got = sorted((f.path, f.severity.value) for f in check_sources(files, builtin_packs(), opts).findings)
    assert got == [("eval.py", "info"), ("finetune.py", "error")], got


def test_configuration_read_through_a_parameter_and_an_index() -> None:
    """`scale = args.scale[0]` where `args` is the network's parameter and `scale: [2]` is in the
    configuration: `if scale == 4:` is never taken; an argparse `type=float` applies to a string
    default (`default="0.0"` is 0.0)."""
    files = {
        "default_config.yaml": "scale: [2]\nn_feats: 64\nlr: 0.1\n",
        "src/config.py": config_helper("default_config.yaml", "config"),
        "src/net.py": textwrap.dedent("""
            import argparse
            from mindspore import nn
            parser = argparse.ArgumentParser()
            parser.add_argument("--drop", type=float, default="0.0")
            opts = parser.parse_args()
            class Net(nn.Cell):
                def __init__(self, args):
                    super().__init__()
                    scale = args.scale[0]
                    self.body = nn.Dense(8, 8)
                    if scale == 4:
                        self.extra = nn.Dropout(0.1)
                    if opts.drop > 0:
                        self.drop = nn.Dropout(0.2)
                    self.scale = scale
                def construct(self, x):
                    x = self.body(x)
                    if self.scale == 4:
                        x = self.extra(x)
                    if opts.drop > 0:
                        x = self.drop(x)
                    return x
        """),
        "scripts/run_train.sh": "python train.py --device_id 0\n",
        "train.py": textwrap.dedent("""
            from mindspore import nn, Model
            from src.config import config
            from src.net import Net
            net = Net(config)
            Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, None)
        """),
    }
    got = api101(files)
    assert got == [(13, "info"), (15, "info")], got
    files["default_config.yaml"] = "scale: [4]\nn_feats: 64\nlr: 0.1\n"
    got = api101(files)
    assert got == [(13, "error"), (15, "info")], got


STEP = """
    import mindspore.nn as nn
    import mindspore.ops as ops
    class TrainOneStep(nn.Cell):
        def __init__(self, network, optimizer):
            super().__init__(auto_prefix=False)
            self.network = network
            self.optimizer = optimizer
            self.weights = optimizer.parameters
            self.grad = ops.GradOperation(get_by_list=True)
        def construct(self, *inputs):
            loss = self.network(*inputs)
            grads = self.grad(self.network, self.weights)(*inputs)
            self.optimizer(grads)
            return loss
"""
REWRITTEN = """
    import argparse
    import mindspore as ms
    from mindspore import nn
    from mindspore.context import ParallelMode
    from src.train_step import TrainOneStep
    parser = argparse.ArgumentParser()
    parser.add_argument("--device_target", default="Ascend")
    parser.add_argument("--run_distribute", action="store_true")
    args = parser.parse_args()
    if args.device_target == "CPU":
        args.run_distribute = False
    if args.run_distribute:
        ms.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)
    net = nn.Dense(16, 10)
    step = TrainOneStep(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    for x, y in []:
        step(x, y)
"""


def test_a_namespace_rewritten_after_parsing_and_a_launcher_that_never_distributes() -> None:
    """`args.run_distribute = False` written after parsing joins the option's values; with the
    launchers never passing `--run_distribute`, the data-parallel branch is not run as shipped, so
    the custom step needs no gradient reducer (CG501 silent). A launcher that passes it: error."""
    files = {"src/train_step.py": textwrap.dedent(STEP), "train.py": textwrap.dedent(REWRITTEN),
             "scripts/run_standalone_train.sh": "python train.py --device_target Ascend\n"}
    opts = Options(select=lambda r: r == "CG501")
    assert [f.rule for f in check_sources(files, builtin_packs(), opts).findings] == []
    files["scripts/run_distribute_train.sh"] = "python train.py --run_distribute\n"
    got = [(f.rule, f.severity.value) for f in check_sources(files, builtin_packs(), opts).findings]
    assert got == [("CG501", "error")], got


def test_values_written_into_a_parsed_namespace_are_values_of_the_option() -> None:
    mc = context({"train.py": """
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--pad_mode", default="REFLECT")
        args = parser.parse_args()
        if args.device_target == "Ascend":
            args.pad_mode = "CONSTANT"
        mode = args.pad_mode
    """})
    fi = fid(mc, "train.py")
    mode = next(a for a in mc.p.files[fi].assigns if a.target[0] == "name" and a.target[1] == "mode")
    vals, known = mc.p.constants(fi, 0, mode.value)
    assert known and sorted(v.value for v in vals) == ["CONSTANT", "REFLECT"]


def test_configuration_keys_passed_on_the_command_line() -> None:
    """The zoo's config helpers turn every top-level YAML key into a command-line option: a
    launcher passing `--do_distribute="True"` makes the data-parallel branch live although the
    YAML says False; with standalone launchers only, the YAML decides."""
    train = REWRITTEN.replace("    parser.add_argument(\"--run_distribute\", action=\"store_true\")\n", "") \
        .replace("if args.run_distribute:", "if config.do_distribute:") \
        .replace("from src.train_step import TrainOneStep", "from src.train_step import TrainOneStep\n    from src.config import config")
    files = {"src/train_step.py": textwrap.dedent(STEP), "train.py": textwrap.dedent(train),
             "src/config.py": config_helper("default_config.yaml", "config"),
             "default_config.yaml": "do_distribute: False\nlr: 0.1\nepochs: 3\n",
             "scripts/run_standalone_train.sh": "python train.py --lr 0.1\n"}
    opts = Options(select=lambda r: r == "CG501")
    res = check_sources(files, builtin_packs(), opts)
    assert not res.errors and [f.rule for f in res.findings] == []
    files["scripts/run_distribute_train.sh"] = "mpirun -n 8 python -u train.py \\\n    --do_distribute=\"True\" \\\n    --lr 0.1\n"
    got = [(f.rule, f.severity.value) for f in check_sources(files, builtin_packs(), opts).findings]
    assert got == [("CG501", "error")], got


def test_an_else_no_shipped_device_reaches_is_dead() -> None:
    """`if device == "Ascend": ... elif device == "GPU": ... else:` when the configuration says
    Ascend and the launchers pass GPU (a value, not a placeholder): no single value reaches the
    `else`. A launcher passing a variable, or a usage line `[--device_target DEVICE_TARGET]` in a
    script, leaves it open."""
    train = textwrap.dedent("""
        from mindspore import nn, Model
        from src.config import config
        if config.device_target == "Ascend":
            net = nn.SequentialCell([nn.Dense(8, 8), nn.Dropout(p=0.1)])
        elif config.device_target == "GPU":
            net = nn.SequentialCell([nn.Dense(8, 8), nn.Dropout(p=0.2)])
        else:
            net = nn.SequentialCell([nn.Dense(8, 8), nn.Dropout(0.1)])
        Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, None)
    """)
    files = {"train.py": train, "src/config.py": config_helper("default_config.yaml", "config"),
             "default_config.yaml": "device_target: Ascend\nlr: 0.1\nepochs: 3\n",
             "scripts/run_train_gpu.sh": "python train.py --device_target=GPU\n"}
    assert api101(files) == [(9, "info")]
    files["scripts/run_train.sh"] = "python train.py --device_target=$DEVICE\n"
    assert api101(files) == [(9, "error")]
    files["scripts/run_train.sh"] = "echo 'usage: python train.py [--device_target DEVICE_TARGET]'\n"
    assert api101(files) == [(9, "error")]


def _api121(files: Dict[str, str]) -> List[Tuple[str, int, str]]:
    res = check_sources({k: textwrap.dedent(v) for k, v in files.items()}, builtin_packs(),
                        Options(select=lambda r: r == "API121"))
    return sorted((f.path, f.span.line, f.severity.value) for f in res.findings)


STORED = {
    "src/net.py": """
        from mindspore import nn
        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.bn = nn.BatchNorm2d(8, momentum=0.1)
                self.bn_unused = nn.BatchNorm2d(8, momentum=0.1)
                self.bn_outside = nn.BatchNorm2d(8, momentum=0.1)
            def construct(self, x):
                return self.bn(x)
    """,
    "train.py": """
        from mindspore import nn, Model
        from src.net import Block
        net = Block()
        print(net.bn_outside)
        Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, None)
    """,
}


def test_a_layer_stored_but_never_read_is_not_live() -> None:
    """`self.bn_unused` is built but nothing in the project reads `.bn_unused`: info. A layer
    read from another file (`net.bn_outside`) is used; a file that reaches its cells by
    iteration (`self.cells()`) keeps every layer."""
    assert _api121(STORED) == [("src/net.py", 6, "error"), ("src/net.py", 7, "info"), ("src/net.py", 8, "error")]
    files = dict(STORED)
    for dynamic in ("[c(x) for c in self.cells()]", "[c(x) for c in self._cells.values()]"):
        files["src/net.py"] = STORED["src/net.py"].replace("return self.bn(x)", f"return {dynamic}")
        assert _api121(files) == [("src/net.py", 6, "error"), ("src/net.py", 7, "error"), ("src/net.py", 8, "error")]


def test_a_seed_computed_from_the_rank_points_at_the_caller_that_passes_it() -> None:
    """WI304 reports `ms.set_seed(seed + rank)` in a seeding helper only when a caller passes a
    rank (mindcv before its fix), and lists that call as a related place; the same helper called
    with its default rank 0 everywhere is silent (a parameter is what its callers pass)."""
    helper = """
        import mindspore as ms
        def set_seed(seed=42, rank=0):
            if rank is None:
                rank = 0
            ms.set_seed(seed + rank)
    """
    caller = """
        from mindspore.communication import init, get_rank
        from utils import set_seed
        init()
        rank_id = get_rank()
        set_seed(1, rank_id)
    """
    files = {"utils.py": textwrap.dedent(helper), "train.py": textwrap.dedent(caller)}
    res = check_sources(files, builtin_packs(), Options(select=lambda r: r == "WI304"))
    assert [(f.path, f.span.line) for f in res.findings] == [("utils.py", 6)]
    related = {(path, line) for path, line, _note in res.findings[0].related}
    assert ("train.py", 6) in related, related
    files["train.py"] = textwrap.dedent(caller).replace("set_seed(1, rank_id)", "set_seed(1)")
    res = check_sources(files, builtin_packs(), Options(select=lambda r: r == "WI304"))
    assert res.findings == []


def test_parse_args_given_an_empty_list_makes_the_defaults_decide() -> None:
    """A notebook's `parser.parse_args(args=[])` reads no command line: `--device_num` is its
    default 1, so the data-parallel branch is dead (the bamboo-font notebook); `parse_args()`
    with no launcher in sight leaves the option open."""
    src = """
        import argparse
        import mindspore as ms
        parser = argparse.ArgumentParser()
        parser.add_argument("--device_num", type=int, default=1)
        args = parser.parse_args(args=[])
        if args.device_num > 1:
            ms.set_auto_parallel_context(parallel_mode="data_parallel")
    """
    for text, dead in ((src, True), (src.replace("parse_args(args=[])", "parse_args()"), False)):
        mc = context({"train.py": text})
        fi, cid = call_at(mc, "train.py", 8)
        call = mc.p.files[fi].calls[cid]
        assert mc.program.paths.dead(fi, call.scope, call.stmt) is dead, text


def test_is_none_branches_are_decided_by_constructor_call_sites_only() -> None:
    """`if loss_fn is None:` in a constructor every caller gives a loss is dead; the same test in
    `construct` is not (the framework calls it with the default), nor in a class a registry holds."""
    mc = context({
        "lib.py": """
            from mindspore import nn
            class Defense:
                def __init__(self, network, loss_fn=None):
                    if loss_fn is None:
                        loss_fn = nn.MSELoss()
                    self.loss_fn = loss_fn
            class Net(nn.Cell):
                def construct(self, x, mask=None):
                    if mask is None:
                        mask = x
                    return x * mask
            class Registered:
                def __init__(self, loss_fn=None):
                    if loss_fn is None:
                        loss_fn = nn.L1Loss()
                    self.loss_fn = loss_fn
            REGISTRY = {"registered": Registered}
        """,
        "train.py": """
            from mindspore import nn
            from lib import Defense, Net, Registered
            net = Net()
            d = Defense(net, nn.L1Loss())
            y = net(1.0, 2.0)
            r = Registered(nn.MSELoss())
        """,
    })
    fi = fid(mc, "lib.py")
    facts = mc.p.files[fi]

    def dead_at(name: str) -> bool:
        cid = next(i for i in range(len(facts.calls)) if mc.p.call_names(fi, i)[:1] == (name,))
        c = facts.calls[cid]
        return mc.program.paths.dead(fi, c.scope, c.stmt)

    assert dead_at("mindspore.nn.MSELoss")          # Defense: every caller passes a loss
    assert not dead_at("mindspore.nn.L1Loss")       # Registered: also reachable through REGISTRY
    nfi, scope, stmt = fi, None, None
    for a in facts.assigns:
        if a.target[0] == "name" and a.target[1] == "mask" and a.value[0] != "param":
            scope, stmt = a.scope, a.stmt
    assert scope is not None and not mc.program.paths.dead(nfi, scope, stmt)   # construct: the framework may pass nothing


def test_code_after_exit_return_or_raise_in_its_block_is_dead() -> None:
    """A debugging `exit()` left before the training code (pointRCNN's train_rcnn.py) ends the
    program: what follows in its block never runs; a terminator inside a branch ends that branch
    only, and code after the branch runs."""
    mc = context({
        "train.py": """
            import sys
            from mindspore import nn
            def build(debug):
                if debug:
                    print("debug")
                    sys.exit(0)
                    nn.Dropout(p=0.5)
                net = nn.Dense(2, 2)
                return net
                nn.BatchNorm2d(2)
            net = build(len(sys.argv) > 1)
            print(net)
            exit()
            drop = nn.Dropout(p=0.1)
        """,
    })
    assert mc.live(*call_at(mc, "train.py", 8)) is False      # after sys.exit in the branch
    assert mc.live(*call_at(mc, "train.py", 9)) is not False  # after the branch: runs
    assert mc.live(*call_at(mc, "train.py", 11)) is False     # after return
    assert mc.live(*call_at(mc, "train.py", 12)) is not False
    assert mc.live(*call_at(mc, "train.py", 15)) is False     # after exit()
