"""Stage 5: matcher semantics not covered by the shipped rules' examples."""
from __future__ import annotations

import textwrap

from linter.api import check_sources
from linter.engine.packs import load_packs
from linter.engine.units import Options
from tests.conftest import lint

RULE = """\
id: CG499
name: {name}
checklist: cg.04
framework: pytorch
severity: warning
title: {{en: t, zh: 标题}}
message: {{en: "`{{callee}}` without zero_grad", zh: "`{{callee}}` 缺少 zero_grad"}}
docs: {{what: {{en: w, zh: 内容}}, why: {{en: w, zh: 原因}}, fix: {{en: f, zh: 修复}}}}
match:
  absent:
    scope: {scope}
    trigger: {{name: ["?.backward"]}}
    require: [{{name: [torch.optim.Optimizer.zero_grad, "?.zero_grad"]}}]
examples:
  invalid: ["import torch\\nloss.backward()  # expect: CG499\\n"]
  valid: ["import torch\\nopt.zero_grad()\\nloss.backward()\\n"]
"""


def _pack(tmp_path, scope: str):
    d = tmp_path / scope
    d.mkdir()
    name = f"backward-without-zero-grad-{scope}"
    (d / f"{name}.yaml").write_text(RULE.format(name=name, scope=scope), encoding="utf-8")
    packs = load_packs([str(d)])
    assert not packs.errors, packs.errors
    return packs


SRC = {"m.py": textwrap.dedent("""
    import torch
    def helper(opt):
        opt.zero_grad()
    def step_ok(loss, opt):
        helper(opt)
        loss.backward()
    def step_bad(loss, opt):
        loss.backward()
""")}


def test_absence_at_function_scope_counts_helpers(tmp_path) -> None:
    res = check_sources(SRC, _pack(tmp_path, "function"), Options(select=lambda r: r == "CG499"))
    assert [f.span.line for f in res.findings] == [9]


def test_absence_at_file_scope(tmp_path) -> None:
    res = check_sources(SRC, _pack(tmp_path, "file"), Options(select=lambda r: r == "CG499"))
    assert res.findings == []  # the file does call zero_grad somewhere


def test_mode_rule_severity_drops_without_dropout_or_batchnorm() -> None:
    src = """\
        import mindspore as ms
        from mindspore import nn, ops
        net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2)])
        opt = nn.SGD(net.trainable_params())
        grad_fn = ops.value_and_grad(lambda x, y: nn.MSELoss()(net(x), y), None, opt.parameters)
        if __name__ == "__main__":
            for x, y in []:
                loss, grads = grad_fn(x, y)
                opt(grads)
    """
    (f,) = lint({"train.py": textwrap.dedent(src)}, select="API201").findings
    assert f.severity.value == "info" and "No Dropout or BatchNorm layer is built" in f.message
    with_dropout = textwrap.dedent(src).replace("nn.ReLU()", "nn.Dropout(p=0.1)")
    (g,) = lint({"train.py": with_dropout}, select="API201").findings
    assert g.severity.value == "warning"


def test_findings_are_deterministic_and_sorted() -> None:
    src = {"b.py": "from mindspore import nn\nx = nn.Dropout(0.1)\n", "a.py": "from mindspore import nn\ny = nn.Dropout(0.2)\nz = nn.Dropout(0.3)\n"}
    first = [f.to_json() for f in lint(src).findings]
    assert first == [f.to_json() for f in lint(src).findings]
    assert [(f["path"], f["line"]) for f in first] == [("a.py", 2), ("a.py", 3), ("b.py", 2)]


def test_one_crashing_rule_does_not_stop_the_others(monkeypatch) -> None:
    import linter.match.calls as calls

    orig = calls.run_call_rule

    def boom(rule, mc, files, lang):
        if rule.id == "API101":
            raise ValueError("synthetic failure")
        return orig(rule, mc, files, lang)

    monkeypatch.setattr(calls, "run_call_rule", boom)
    res = lint({"m.py": "from mindspore import nn\nx = nn.Dropout(0.1)\ny = nn.BatchNorm2d(4, momentum=0.1)\n"})
    assert [f.rule for f in res.findings] == ["API121"]
    (err,) = res.errors
    assert err.kind.value == "internal" and "API101" in err.message and "synthetic failure" in err.message


def test_rules_of_frameworks_the_project_does_not_use_are_not_run(monkeypatch) -> None:
    """Without an import of a framework (direct, through a project module, an adapter or a
    factory package), none of its names resolve: its rules are skipped, not run over every call."""
    import linter.match as match_mod
    from linter.api import check_sources

    ran = []
    real = match_mod.run_rule

    def spy(rule, mc, files, lang):
        ran.append(rule.framework)
        return real(rule, mc, files, lang)

    monkeypatch.setattr(match_mod, "run_rule", spy)
    check_sources({"app.py": "import os\n\ndef main(model):\n    model.train()\n    model.eval()\n"})
    assert ran == []
    check_sources({"train.py": "from helpers import *\nnet = Net()\nnet.train()\n",
                   "helpers.py": "import timm\nNet = timm.create_model\n"})
    assert set(ran) == {"pytorch"}
    ran.clear()
    result = check_sources({"train.py": "import helpers\nlayer = helpers.nn.Dropout(0.1)\n",
                            "helpers.py": "from mindspore import nn\n"})
    assert set(ran) == {"mindspore"} and [f.rule for f in result.findings] == ["API101"]


DISCARD_RULE = """\
id: WI299
name: result-discarded-probe
checklist: wi.02
framework: pytorch
severity: warning
title: {en: t, zh: 标题}
message: {en: "`{callee}` result", zh: "`{callee}` 返回值"}
docs: {what: {en: w, zh: 内容}, why: {en: w, zh: 原因}, fix: {en: f, zh: 修复}}
match:
  call:
    name: ["?.load_state_dict"]
    where: {call: {result_discarded: DISCARDED}}
examples:
  invalid: ["import torch\\nm.load_state_dict(sd)  # expect: WI299\\n"]
  valid: ["import torch\\nr = m.load_state_dict(sd)\\n"]
"""

DISCARD_SRC = {"m.py": textwrap.dedent("""
    import torch
    def f(m, sd):
        m.load_state_dict(sd)
        _ = m.load_state_dict(sd)
        _, __ = m.load_state_dict(sd)
        r = m.load_state_dict(sd)
        missing, _ = m.load_state_dict(sd)
        print(m.load_state_dict(sd))
        if True:
            m.load_state_dict(sd)
        return m.load_state_dict(sd)
    m.load_state_dict({})
""")}


def test_result_discarded_is_a_bare_statement_or_throwaway_names(tmp_path) -> None:
    """`result_discarded: true`: expression statements (any nesting, module level too) and
    results bound only to `_`-names; a real variable, an argument or a return uses it."""
    lines = {}
    for flag in ("true", "false"):
        d = tmp_path / flag
        d.mkdir()
        (d / "result-discarded-probe.yaml").write_text(DISCARD_RULE.replace("DISCARDED", flag), encoding="utf-8")
        packs = load_packs([str(d)])
        assert not packs.errors, packs.errors
        res = check_sources(DISCARD_SRC, packs, Options(select=lambda r: r == "WI299"))
        lines[flag] = sorted(f.span.line for f in res.findings)
    assert lines["true"] == [4, 5, 6, 11, 13]
    assert lines["false"] == [7, 8, 9, 12]


ATTR_RULE = """\
id: WI199
name: attribute-used-by-probe
checklist: wi.01
framework: pytorch
severity: warning
title: {en: t, zh: 标题}
message: {en: "`{callee}` weight zeroed", zh: "`{callee}` 权重置零"}
docs: {what: {en: w, zh: 内容}, why: {en: w, zh: 原因}, fix: {en: f, zh: 修复}}
match:
  call:
    name: [torch.nn.Linear]
    where: {call: {attribute_used_by: {attr: weight, by: {name: [torch.nn.init.zeros_, "?.zero_"]}}}}
examples:
  invalid: ["import torch\\nfc = torch.nn.Linear(2, 2)  # expect: WI199\\ntorch.nn.init.zeros_(fc.weight)\\n"]
  valid: ["import torch\\nfc = torch.nn.Linear(2, 2)\\n"]
"""


def test_attribute_used_by_follows_the_object_into_other_methods(tmp_path) -> None:
    """`nn.init.zeros_(self.a.weight)` in another method, and `.weight.data.zero_()`, reach the
    Linear stored in `self.a`/`self.c`; a bias, another layer's weight or another object do not."""
    d = tmp_path / "p"
    d.mkdir()
    (d / "attribute-used-by-probe.yaml").write_text(ATTR_RULE, encoding="utf-8")
    packs = load_packs([str(d)])
    assert not packs.errors, packs.errors
    src = {"m.py": textwrap.dedent("""
        import torch.nn as nn
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(2, 2)
                self.b = nn.Linear(2, 2)
                self.c = nn.Linear(2, 2)
                self.d = nn.Linear(2, 2)
                self.c.weight.data.zero_()
                nn.init.zeros_(self.b.bias)
                self.init()
            def init(self):
                nn.init.zeros_(self.a.weight)
                nn.init.normal_(self.d.weight)
    """)}
    res = check_sources(src, packs, Options(select=lambda r: r == "WI199"))
    assert sorted(f.span.line for f in res.findings) == [6, 8]


MADE_BY_CALL_RULE = """\
id: API199
name: made-by-call-probe
checklist: api.01
framework: mindspore
severity: warning
title: {en: t, zh: 标题}
message: {en: "`{callee}` gets `{loss_fn}`[[ from {loss_fn.made_at}]]", zh: "`{callee}` 使用 `{loss_fn}`"}
docs: {what: {en: w, zh: 内容}, why: {en: w, zh: 原因}, fix: {en: f, zh: 修复}}
match:
  call:
    name: [mindspore.train.Model]
    where:
      arg: loss_fn
      made_by_call: {name: [mindspore.nn.SmoothL1Loss], where: {arg: reduction, value: {eq: none}, quantifier: all}}
examples:
  invalid: ["from mindspore import nn, Model\\nModel(1, loss_fn=nn.SmoothL1Loss())  # expect: API199\\n"]
  valid: ["from mindspore import nn, Model\\nModel(1, loss_fn=nn.SmoothL1Loss(reduction='mean'))\\n"]
"""


def test_made_by_call_applies_the_nested_where_and_records_the_origin(tmp_path) -> None:
    d = tmp_path / "p"
    d.mkdir()
    (d / "made-by-call-probe.yaml").write_text(MADE_BY_CALL_RULE, encoding="utf-8")
    packs = load_packs([str(d)])
    assert not packs.errors, packs.errors
    src = {"m.py": textwrap.dedent("""
        from mindspore import nn
        from mindspore.train import Model
        def make_loss(mean):
            return nn.SmoothL1Loss(reduction="mean") if mean else nn.SmoothL1Loss()
        a = Model(1, loss_fn=nn.SmoothL1Loss(1.0, "none"))
        b = Model(1, loss_fn=nn.SmoothL1Loss(reduction="mean"))
        crit = nn.SmoothL1Loss()
        c = Model(1, loss_fn=crit)
        d = Model(1, loss_fn=nn.MSELoss())
    """)}
    res = check_sources(src, packs, Options(select=lambda r: r == "API199"))
    assert sorted(f.span.line for f in res.findings) == [6, 9]
    assert any("`crit` from m.py:8" in f.message for f in res.findings), [f.message for f in res.findings]


# --------------------------------------------------------------------------- call.entry / guarded_by / exclusive
CALL_RULE = """\
id: DP599
name: {name}
checklist: dp.05
framework: pytorch
severity: warning
title: {{en: t, zh: 标题}}
message: {{en: "`{{callee}}`[[ in {{entry}}]][[ after {{related}}]]", zh: "`{{callee}}`[[ 在 {{entry}}]][[ 之后 {{related}}]]"}}
docs: {{what: {{en: w, zh: 内容}}, why: {{en: w, zh: 原因}}, fix: {{en: f, zh: 修复}}}}
match:
  call:
{match}
examples:
  invalid: ["import torch\\nx = 1  # expect: DP599\\n"]
  valid: ["import torch\\n"]
"""


def _call_pack(tmp_path, name: str, match: str):
    d = tmp_path / name
    d.mkdir()
    (d / f"{name}.yaml").write_text(CALL_RULE.format(name=name, match=textwrap.indent(match, "    ")), encoding="utf-8")
    packs = load_packs([str(d)])
    assert not packs.errors, packs.errors
    return packs


ENTRY_SRC = {
    "lib.py": textwrap.dedent("""
        import torch
        def build(ds):
            return torch.utils.data.DataLoader(ds)
    """),
    "train_ddp.py": textwrap.dedent("""
        import torch
        from lib import build
        def setup():
            torch.distributed.init_process_group("nccl")
        if __name__ == "__main__":
            setup()
            loader = build([1, 2])
            for x in loader:
                x.backward()
    """),
    "train_plain.py": textwrap.dedent("""
        import torch
        if __name__ == "__main__":
            loader = torch.utils.data.DataLoader([1])
            for x in loader:
                x.backward()
    """),
    "unused.py": "import torch\nLOADER = torch.utils.data.DataLoader([1])\n",
}


def test_entry_reaches_follows_helpers_and_records_the_call(tmp_path) -> None:
    packs = _call_pack(tmp_path, "loader-in-ddp", textwrap.dedent("""\
        name: [torch.utils.data.DataLoader]
        where:
          call:
            entry:
              role: training
              reaches: [{name: [torch.distributed.init_process_group]}]
    """))
    res = check_sources(ENTRY_SRC, packs, Options(select=lambda r: r == "DP599"))
    assert [(f.path, f.span.line) for f in res.findings] == [("lib.py", 4)]
    assert "train_ddp.py" in res.findings[0].message and "train_ddp.py:5" in res.findings[0].message


def test_not_entry_reaches_needs_a_reaching_entry(tmp_path) -> None:
    """`not entry{reaches}` alone would also hold for code no entry runs; with `entry{role}` it does not."""
    packs = _call_pack(tmp_path, "loader-without-ddp", textwrap.dedent("""\
        name: [torch.utils.data.DataLoader]
        where:
          all:
            - call: {entry: {role: training}}
            - not: {call: {entry: {role: training, reaches: [{name: [torch.distributed.init_process_group]}]}}}
    """))
    res = check_sources(ENTRY_SRC, packs, Options(select=lambda r: r == "DP599"))
    assert [(f.path, f.span.line) for f in res.findings] == [("train_plain.py", 4)]


def test_guarded_by_reads_names_attributes_and_calls(tmp_path) -> None:
    packs = _call_pack(tmp_path, "loader-guarded", textwrap.dedent("""\
        name: [torch.utils.data.DataLoader]
        where: {call: {guarded_by: '(?i)distributed|world_size'}}
    """))
    src = {"m.py": textwrap.dedent("""
        import torch
        def build(ds, args, world_size):
            if args.distributed:
                a = torch.utils.data.DataLoader(ds)
            else:
                b = torch.utils.data.DataLoader(ds, batch_size=2)
            if world_size > 1 and ds:
                c = torch.utils.data.DataLoader(ds)
            if torch.distributed.is_initialized():
                d = torch.utils.data.DataLoader(ds)
            if ds:
                e = torch.utils.data.DataLoader(ds)
            f = torch.utils.data.DataLoader(ds)
        def early_return(ds, args):
            if args.distributed:
                return None
            return torch.utils.data.DataLoader(ds)
        def no_exit(ds, args):
            if args.distributed:
                print(ds)
            return torch.utils.data.DataLoader(ds)
    """)}
    res = check_sources(src, packs, Options(select=lambda r: r == "DP599"))
    assert [f.span.line for f in res.findings] == [5, 7, 9, 11, 18]


def test_exclusive_pipeline_context(tmp_path) -> None:
    packs = _call_pack(tmp_path, "eval-only", textwrap.dedent("""\
        name: [torch.utils.data.DataLoader]
        context: {pipeline: evaluation, exclusive: true}
    """))
    src = {"m.py": textwrap.dedent("""
        import torch
        def shared(ds):
            return torch.utils.data.DataLoader(ds)
        def make_eval(ds):
            return torch.utils.data.DataLoader(ds)
        train_loader = shared([1])
        val_loader = shared([2])
        test_loader = make_eval([3])
    """)}
    res = check_sources(src, packs, Options(select=lambda r: r == "DP599"))
    assert [f.span.line for f in res.findings] == [6]


def test_exclusive_needs_a_pipeline(tmp_path) -> None:
    d = tmp_path / "bad-exclusive"
    d.mkdir()
    (d / "bad-exclusive.yaml").write_text(CALL_RULE.format(name="bad-exclusive", match="    name: [x.y]\n    context: {exclusive: true}\n"),
                                          encoding="utf-8")
    packs = load_packs([str(d)])
    assert packs.errors and "needs `pipeline`" in str(packs.errors[0])


def test_names_imported_under_another_name_are_candidates(tmp_path) -> None:
    packs = _call_pack(tmp_path, "ddp-call", "name: [torch.nn.parallel.DistributedDataParallel]\n")
    src = {"m.py": textwrap.dedent("""
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP
        model = DDP(torch.nn.Linear(2, 2))
        other = torch.nn.parallel.DistributedDataParallel(model)
    """)}
    res = check_sources(src, packs, Options(select=lambda r: r == "DP599"))
    assert [f.span.line for f in res.findings] == [4, 5]


def test_entry_of_a_method_is_the_entry_that_builds_its_instance(tmp_path) -> None:
    """`forward` runs when the module is called: the entries that construct it (or a subclass) reach it."""
    packs = _call_pack(tmp_path, "relu-in-trained-forward", textwrap.dedent("""\
        name: [torch.relu]
        where: {call: {entry: {role: training}}}
    """))
    src = {
        "net.py": textwrap.dedent("""
            import torch
            class Net(torch.nn.Module):
                def forward(self, x):
                    return torch.relu(x)
            class Unused(torch.nn.Module):
                def forward(self, x):
                    return torch.relu(x)
            class Child(Net):
                pass
        """),
        "train.py": textwrap.dedent("""
            import torch
            from net import Child
            if __name__ == "__main__":
                model = Child()
                model(torch.ones(1)).sum().backward()
        """),
    }
    res = check_sources(src, packs, Options(select=lambda r: r == "DP599"))
    assert [(f.path, f.span.line) for f in res.findings] == [("net.py", 5)]


def test_code_after_an_if_that_returns_is_its_else_branch(tmp_path) -> None:
    """`if is_train: return ...` — the rest of the function is the evaluation branch."""
    packs = _call_pack(tmp_path, "eval-loader", "name: [torch.utils.data.DataLoader]\ncontext: {pipeline: evaluation}\n")
    src = {"m.py": textwrap.dedent("""
        import torch
        def build(ds, is_train):
            if is_train:
                return torch.utils.data.DataLoader(ds, shuffle=True)
            return torch.utils.data.DataLoader(ds)
        def build2(ds, is_train):
            if is_train:
                print(ds)
            return torch.utils.data.DataLoader(ds)
    """)}
    res = check_sources(src, packs, Options(select=lambda r: r == "DP599"))
    assert [f.span.line for f in res.findings] == [6]


def _probe(tmp_path, name: str, match: str, src):
    """Findings of a one-rule pack (rule DP599, `match` under `match.call`) on ``src``."""
    return check_sources(src, _call_pack(tmp_path, name, textwrap.dedent(match)),
                         Options(select=lambda r: r == "DP599")).findings


OTHER_SRC = {
    "a.py": textwrap.dedent("""
        import torch
        x = torch.utils.data.DataLoader([1])
        y = torch.utils.data.DataLoader([2], shuffle=True)
    """),
    "b.py": textwrap.dedent("""
        import torch
        z = torch.utils.data.DataLoader([3])
        w = torch.utils.data.DataLoader([4])
    """),
    "c.py": "import torch\nv = torch.utils.data.DataLoader([5])\n",
}


def test_file_calls_looks_in_the_same_file_only_and_never_at_the_call_itself(tmp_path) -> None:
    findings = _probe(tmp_path, "shuffled-neighbour", """\
        name: [torch.utils.data.DataLoader]
        where:
          all:
            - {arg: shuffle, missing: true}
            - call: {file_calls: [{name: [torch.utils.data.DataLoader], where: {arg: shuffle, missing: false}}]}
    """, OTHER_SRC)
    assert [(f.path, f.span.line) for f in findings] == [("a.py", 3)]
    assert "a.py:4" in findings[0].message   # {related}: the neighbour that passes shuffle


def test_file_calls_excludes_the_matching_call_itself(tmp_path) -> None:
    """Every loader matches the inner pattern; a file with one loader has no *other* one."""
    findings = _probe(tmp_path, "another-loader", """\
        name: [torch.utils.data.DataLoader]
        where: {call: {file_calls: [{name: [torch.utils.data.DataLoader]}]}}
    """, OTHER_SRC)
    assert sorted((f.path, f.span.line) for f in findings) == [("a.py", 3), ("a.py", 4), ("b.py", 3), ("b.py", 4)]


def test_project_calls_looks_in_every_file(tmp_path) -> None:
    findings = _probe(tmp_path, "shuffled-anywhere", """\
        name: [torch.utils.data.DataLoader]
        where:
          all:
            - {arg: shuffle, missing: true}
            - call: {project_calls: [{name: [torch.utils.data.DataLoader], where: {arg: shuffle, missing: false}}]}
    """, OTHER_SRC)
    assert sorted((f.path, f.span.line) for f in findings) == [("a.py", 3), ("b.py", 3), ("b.py", 4), ("c.py", 2)]
    assert all("a.py:4" in f.message for f in findings)
    # under `not`: nothing else in the project passes `sampler`, so every loader is reported
    findings = _probe(tmp_path, "no-sampler-anywhere", """\
        name: [torch.utils.data.DataLoader]
        where: {not: {call: {project_calls: [{name: [torch.utils.data.DataLoader], where: {arg: sampler, missing: false}}]}}}
    """, OTHER_SRC)
    assert len(findings) == 5


def test_defines_data_op_needs_a_local_callable_used_as_an_op(tmp_path) -> None:
    match = """\
        name: [torch.utils.data.DataLoader]
        where: {call: {defines_data_op: true}}
    """
    src = {"m.py": textwrap.dedent("""
        import torch
        def helper():
            pass
        a = torch.utils.data.DataLoader([1])
        def with_lambda(ds):
            ops = [lambda x: x / 255]
            return torch.utils.data.DataLoader(ds.map(ops))
        def with_nested(ds):
            def norm(x):
                return x / 255
            return torch.utils.data.DataLoader(ds.map(norm))
        def nested_but_not_an_op(ds):
            def forward(x):
                return x
            grad = torch.func.grad(forward)
            return torch.utils.data.DataLoader(ds)
        def plain(ds):
            return torch.utils.data.DataLoader(ds)
        b = torch.utils.data.DataLoader(ds.map(operations=helper))
    """)}
    findings = _probe(tmp_path, "custom-op-nearby", match, src)
    # a function passed to value_and_grad/grad is not a data op; one in a list or given to .map is;
    # module code counts as one scope (helper is given to .map at line 20, so line 5 holds too)
    assert sorted(f.span.line for f in findings) == [5, 8, 12, 20]


NORM_SRC = textwrap.dedent("""
    import torchvision.transforms as T
    MEAN = [0.485, 0.456, 0.406]
    STD = (0.229, 0.224, 0.225)
    train_tf = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
    val_tf = T.Compose([T.Normalize([m * 255 for m in MEAN], [s * 255 for s in STD])])
    test_tf = T.Compose([T.Normalize(MEAN, [0.229, 0.224, 0.226])])
    eval_tf = T.Compose([T.Normalize(CFG_MEAN, STD)])
""")


def test_differs_from_compares_resolved_vectors_scale_free(tmp_path) -> None:
    match = """\
        name: [torchvision.transforms.Normalize]
        context: {pipeline: evaluation}
        where:
          call:
            differs_from:
              call: {name: [torchvision.transforms.Normalize], context: {pipeline: training}}
              args: [mean, std]
              scale_free: SCALE
    """
    findings = _probe(tmp_path, "eval-normalize", match.replace("SCALE", "true"), {"t.py": NORM_SRC})
    # val_tf: the same constants x255 (equal); test_tf: one std digit differs; eval_tf: unknown mean
    assert [f.span.line for f in findings] == [7]
    findings = _probe(tmp_path, "eval-normalize-strict", match.replace("SCALE", "false"), {"t.py": NORM_SRC})
    assert [f.span.line for f in findings] == [6, 7]
    # no training Normalize in the file: nothing to differ from
    only_eval = "import torchvision.transforms as T\nval_tf = T.Compose([T.Normalize([0.5], [0.5])])\n"
    assert not _probe(tmp_path, "eval-normalize-alone", match.replace("SCALE", "false"), {"t.py": only_eval})


def test_project_calls_stay_inside_the_program_of_the_call(tmp_path) -> None:
    """Two training scripts in one run are two programs: a shuffle=True in one says nothing about
    the other; a file no entry script reaches is compared with the whole run."""
    match = """\
        name: [torch.utils.data.DataLoader]
        where:
          all:
            - {arg: shuffle, missing: true}
            - not: {call: {project_calls: [{name: [torch.utils.data.DataLoader], where: {arg: shuffle, missing: false}}]}}
    """
    src = {
        "a/data.py": "import torch\ndef loader(ds):\n    return torch.utils.data.DataLoader(ds, shuffle=True)\n",
        "a/train.py": "import torch\nfrom data import loader\nval = torch.utils.data.DataLoader([0])\nfor x in loader([1]):\n    x.backward()\n",
        "b/train.py": "import torch\nfor x in torch.utils.data.DataLoader([1]):\n    x.backward()\n",
        "lonely.py": "import torch\nL = torch.utils.data.DataLoader([2])\n",
    }
    findings = _probe(tmp_path, "shuffled-in-program", match, src)
    assert sorted((f.path, f.span.line) for f in findings) == [("b/train.py", 2)]


_STEP_WITHOUT_SET_TRAIN = """
import numpy as np
from mindspore import nn
net = nn.SequentialCell([nn.Dense(2, 2), nn.Dropout(p=0.5)])
train_net = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Adam(net.trainable_params()))
if __name__ == "__main__":
    for x, y in np.load("data.npy"):
        train_net(x, y)
"""


def test_a_site_a_flow_rule_trips_on_costs_that_site_only(monkeypatch) -> None:
    """A project-wide rule that cannot evaluate one call loses that call (reported, with its
    file) — not the whole run's findings, and it is not re-run file by file (which costs the
    whole project once per file: minutes on a many-project tree)."""
    import linter.match.flow as flow
    import linter.match.pattern as pattern_mod

    collected = []
    orig_collect = flow.StateFlow._collect_events
    orig_match = pattern_mod.match_call

    def counting(self):
        collected.append(self.rule.id)
        return orig_collect(self)

    def tripping(mc, pattern, fi, cid, framework=None):
        if mc.p.files[fi].path == "bad.py":
            raise RecursionError("synthetic")
        return orig_match(mc, pattern, fi, cid, framework)

    monkeypatch.setattr(flow.StateFlow, "_collect_events", counting)
    monkeypatch.setattr(pattern_mod, "match_call", tripping)
    res = lint({"train.py": _STEP_WITHOUT_SET_TRAIN, "bad.py": "from mindspore import nn\nnet = nn.Dense(2, 2)\nnet.set_train()\n",
                "other.py": "x = 1\n"}, select="API201")
    assert [(f.rule, f.path) for f in res.findings] == [("API201", "train.py")]
    assert collected == ["API201"]          # one event collection for the whole tree
    (err,) = res.errors
    assert err.path.endswith("bad.py") and err.rule == "API201" and "recursion limit" in err.message


def test_a_project_wide_rule_that_crashes_is_reported_once_not_rerun_per_file(monkeypatch) -> None:
    import linter.match.flow as flow

    runs = []

    def boom(self, files):
        runs.append(len(files))
        raise ValueError("synthetic failure")

    monkeypatch.setattr(flow.StateFlow, "run", boom)
    res = lint({f"m{i}.py": _STEP_WITHOUT_SET_TRAIN for i in range(5)}, select="API201")
    assert runs == [5] and res.findings == []
    (err,) = res.errors
    assert "API201" in err.message and "synthetic failure" in err.message and "in the 5 files checked with it" in err.message


def test_an_import_cycle_has_no_value_and_stops() -> None:
    """`from b import x` in a and `from a import x` in b (same-named modules of many projects
    in one tree resolve into each other): no value, no endless recursion."""
    res = lint({"a.py": "from b import rate\nfrom mindspore import nn\nd = nn.Dropout(rate)\n",
                "b.py": "from a import rate\n",
                "c.py": "from mindspore import nn\nd = nn.Dropout(0.1)\n"}, select="API101")
    assert res.errors == []       # it hit the recursion limit before
    assert [(f.path, f.span.line) for f in res.findings] == [("a.py", 3), ("c.py", 2)]


def test_joining_two_paths_states_keeps_every_possibility() -> None:
    """The join of two branches' states (computed by set operations) equals its definition: each
    object's entries from both sides, an object tracked on one side only also getting the other
    side's `ANY` entries."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from linter.match.flow import ANY, _join

    keys = st.sampled_from([ANY, ("o", 0, 1), ("o", 0, 2), ("p", 0, 1, "net")])
    states = st.frozensets(st.tuples(keys, st.sampled_from(["train", "eval", None]), st.sampled_from([None, 3, 7])),
                           max_size=6)

    def reference(a, b):
        if a == b or not b:
            return a
        if not a:
            return b

        def lookup(S, k):
            own = [(s, o) for kk, s, o in S if kk == k]
            return own or [(s, o) for kk, s, o in S if kk == ANY]
        ks = {k for k, _, _ in a} | {k for k, _, _ in b}
        return frozenset((k, s, o) for k in ks for s, o in lookup(a, k) + lookup(b, k))

    @settings(max_examples=400, deadline=None)
    @given(states, states)
    def check(a, b):
        assert _join(a, b) == reference(a, b)

    check()


def test_a_step_after_an_evaluation_inside_the_epoch_loop_names_that_switch() -> None:
    """`self.net.set_train(True)` before the epoch loop, `self.net.set_train(False)` for the
    evaluation inside it, and a step whose network the model cannot name (gradients of the
    optimizer's parameters): the next epoch trains in inference mode. The message names the
    switch inside the loop; "set_train() is not called" would be wrong (vglaw's Trainer)."""
    src = textwrap.dedent("""
        import mindspore as ms
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(4, 2)
                self.drop = nn.Dropout(p=0.1)
            def construct(self, x):
                return self.drop(self.fc(x))
        class Trainer:
            def __init__(self, net, optimizer):
                self.net = net
                self.opt = optimizer
                self.grad_fn = ms.value_and_grad(self.forward_fn, None, weights=self.opt.parameters)
            def forward_fn(self, x, y):
                return nn.MSELoss()(self.net(x), y)
            def train_single(self, x, y):
                loss, grads = self.grad_fn(x, y)
                self.opt(grads)
                return loss
            def train(self, data, epochs):
                self.net.set_train(True)
                for epoch in range(epochs):
                    for x, y in data:
                        self.train_single(x, y)
                    self.net.set_train(False)
                    for x, y in data:
                        print(self.net(x))
        def main(net, opt, data):
            Trainer(net, opt).train(data, 10)
        if __name__ == "__main__":
            from optimizers import create_optimizer    # not in the project: the trained network is unknown
            net = Net()
            main(net, create_optimizer(net), [])
    """)
    (f,) = lint({"train.py": src}, select="API201").findings
    assert "set_train(False)" in f.message and "switches it to inference mode" in f.message, f.message
    assert "is not called" not in f.message
