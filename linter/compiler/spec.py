"""Stage 4a: the rule language, as a JSON Schema built from documented pieces.

This module is the single source of truth for what a rule file may contain. The committed
``linter/schema/rule.json`` is generated from :func:`rule_schema` (``trainlint schema``
prints it; a test fails when the committed copy is stale; ``TRAINLINT_UPDATE_SCHEMA=1``
rewrites it). Every object rejects unknown keys, so a typo is an error with a JSON path,
not a silently ignored option.
"""
from __future__ import annotations

from typing import Any, Dict, Sequence

CHECKLIST_IDS = (
    "ds.01", "ds.02", "ds.03", "ds.04", "dp.01", "dp.02", "dp.03", "dp.04", "dp.05",
    "hp.01", "hp.02", "hp.03", "api.01", "api.02", "cg.01", "cg.02", "cg.03", "cg.04",
    "wi.01", "wi.02", "wi.03", "mp.01", "mp.02", "mp.03", "mp.04", "cg.05",
)
FRAMEWORKS = ("mindspore", "pytorch", "tensorflow")
SEVERITIES = ("error", "warning", "info")


def _obj(props: Dict[str, Any], required: Sequence[str] = (), desc: str = "", **extra: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    if desc:
        out["description"] = desc
    out.update(extra)
    return out


def _ref(name: str) -> Dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _one_or_many(item: Dict[str, Any], desc: str = "") -> Dict[str, Any]:
    out: Dict[str, Any] = {"anyOf": [item, {"type": "array", "items": item, "minItems": 1}]}
    if desc:
        out["description"] = desc
    return out


_GLOB = {"type": "string", "minLength": 1, "description": "A qualified-name glob: `*` matches any run of characters (dots included), `?` one character."}

_TEXT = _obj(
    {"en": {"type": "string", "minLength": 1}, "zh": {"type": "string", "minLength": 1}},
    ["en", "zh"],
    "The same text in English and Chinese (`--lang zh`).",
)

_NUMBER_OR_ANY = {"description": "A literal (number, string, boolean or null) compared with the constant-propagated value."}

_VALUE_TEST = _obj(
    {
        "eq": dict(_NUMBER_OR_ANY, description="Equal (floats within `tolerance`)."),
        "ne": dict(_NUMBER_OR_ANY, description="Not equal (floats within `tolerance`)."),
        "lt": {"type": "number", "description": "Less than."},
        "le": {"type": "number", "description": "Less than or equal."},
        "gt": {"type": "number", "description": "Greater than."},
        "ge": {"type": "number", "description": "Greater than or equal."},
        "in": {"type": "array", "description": "One of these literals (floats within `tolerance`)."},
        "not_in": {"type": "array", "description": "None of these literals."},
        "type": {"enum": ["int", "float", "number", "str", "bool", "none"], "description": "The Python type of the value."},
        "truthy": {"type": "boolean", "description": "The value is truthy (true) / falsy (false)."},
        "tolerance": {"type": "number", "minimum": 0, "description": "Relative tolerance of float equality (default 1e-6); converter output such as 0.8999999761581421 equals 0.9."},
    },
    desc="Tests on the constant-propagated value(s) of an argument. All tests given must hold.",
)

_NAME_TEST = _obj(
    {
        "regex": {"type": "string", "format": "regex", "description": "Python regex searched in the name."},
        "not_regex": {"type": "string", "format": "regex", "description": "The name must not match this regex."},
    },
    desc="Tests on the variable name of a bare-name or attribute argument (its last segment), e.g. `dropout_rate` in `cfg.dropout_rate`.",
)

_ARG_PRED = _obj(
    {
        "arg": {"type": "string", "minLength": 1, "description": "Parameter name in the API signature (positional arguments are bound to it), or `0`, `1`, ... for a position when no signature is known."},
        "missing": {"type": "boolean", "description": "True: the argument is not passed (the API default applies)."},
        "positional": {"type": "boolean", "description": "True: passed positionally; false: passed by keyword."},
        "value": _VALUE_TEST,
        "quantifier": {"enum": ["any", "all"], "description": "Over the possible values found by constant propagation: `any` (default) = some value passes; `all` = every value passes and all are known."},
        "known": {"type": "boolean", "description": "True: every path to the argument resolves to a constant."},
        "default_applies": {"type": "boolean", "description": "Apply `value` tests to the signature default when the argument is missing (default true)."},
        "name": _NAME_TEST,
        "source": _obj({"regex": {"type": "string", "format": "regex"}, "not_regex": {"type": "string", "format": "regex"}}, desc="Regex on the argument's source text."),
        "kind": _one_or_many({"enum": ["literal", "name", "attribute", "call", "expression", "starred"]}, "Syntactic kind of the argument."),
        "from_gradient": {"type": "boolean", "description": "True: the argument's value comes (through local assignments) only from calling a gradient function — one made by `value_and_grad`/`grad`, or `GradOperation(...)(net, weights)` — possibly through clipping (`clip_by_global_norm`, `clip_by_value`, `clip_by_norm`): no other code can have changed it on the way (the gradients of a functional step). False: some path ends elsewhere."},
        "from_call": _one_or_many(_GLOB, "The argument's value comes (through local assignments) only from calls matching these qualified names."),
        "made_by": _one_or_many(_GLOB, "The argument's value is an object created or returned by a call matching these names."),
        "made_by_call": dict(_ref("call_pattern"), description="Like `made_by`, with a full call pattern: the argument's value was created by a call that matches it, `where` included (e.g. a loss built with its reduction left at the default)."),
        "is_generator": {"type": "boolean", "description": "The argument is a generator (a generator function, its result, or an instance of a class with __iter__/__next__ but no __getitem__)."},
        "project_code": {"type": "boolean", "description": "The argument is project code and nothing else: every value it may have is a project function or generator (or a call of one), a lambda, a project class or an instance of one — the code `code_calls`/`code_mentions` read. With `not: {code_calls: ...}` it proves what that code does not do (a data source that never shuffles)."},
        "through_networks": {"type": "boolean", "description": "With `from_call`/`made_by`: a value a project network computes (`out = model(x)`: what its `forward`/`construct`/`call` returns, three calls deep) or a `Sequential`/`SequentialCell` (its last layer, as `<layer>.__call__`) counts as coming from there — a model whose `forward` ends in a softmax, given to a loss that expects logits."},
        "single_sample": {"type": "boolean", "description": "The argument is an instance of a project class whose `__len__` returns 1 on every path: a data source of one sample (a whole point set in one batch), which has no order to shuffle."},
        "complement": {"type": "boolean", "description": "The argument's value is computed as `1 - x` — written so, or read from a variable or attribute assigned so (`self.p = 1.0 - drop_rate`; followed three assignments deep): a probability converted on purpose (a keep probability from a drop rate, or the reverse)."},
        "is_subclass_instance": _one_or_many(_GLOB, "The argument is an instance of a project class deriving from these framework classes."),
        "trained": {"type": "boolean", "description": "True: the argument is a network some optimizer of the project updates (its parameters, a part's, or a wrapper's go into the optimizer; rules/roles.yaml `training.optimizers`). False: it is a known object and no optimizer updates it (e.g. an evaluation copy). A value that is not a known object passes neither."},
        "mentions": {"type": "string", "format": "regex", "description": "Regex searched in the names and string constants the argument's value is built from, following local bindings, module constants and parameters to their call sites (`load_checkpoint(os.path.join(args.pretrained_dir, name))` mentions `pretrained_dir`)."},
        "computed_from": {"type": "string", "format": "regex", "description": "Like `mentions`, but only through what the value is computed from: names and attributes to their definitions (bindings, parameters at their call sites, configuration fields), operands, call arguments and callees, a subscript's key — not the object an attribute is read from, nor every entry of a container (`cfg[\"seed\"]` is not computed from `cfg[\"rank\"]`). `{ARG.mentions}` is the word found; the place that passes it (a caller) becomes a related place."},
        "code_calls": _one_or_many(_GLOB, "The argument is project code — a function or generator (or a call of one), a lambda, a project class or an instance of one — and that code (the function body or the class's methods, and the project functions they call, two levels down) calls something matching these names, e.g. a generator source that shuffles itself with `numpy.random.shuffle`."),
        "code_mentions": {"type": "string", "format": "regex", "description": "Like `code_calls`, with a regex searched in the names that code uses: parameters, assigned names and attributes, callees and argument texts (a source that takes `rank_id`/`rank_size` and shards itself)."},
        "edited_by": _one_or_many(_GLOB, "The argument is a variable the code rebuilds (bound to a literal or comprehension in its function) or that a call matching these names takes as receiver or first argument in the same function before or after (`param_dict.pop(k)`, `filter_checkpoint_parameter_by_list(param_dict, ...)`)."),
    },
    ["arg"],
    "A test on one bound argument. All tests given must hold.",
)

_CALL_PRED = _obj(
    {
        "receiver_made_by": _one_or_many(_GLOB, "The receiver of a method call was created/returned by a call matching these names."),
        "callee_made_by": _one_or_many(_GLOB, "The called object is the result of a call matching these names (e.g. a function made by `mindspore.ops.value_and_grad`)."),
        "callee_made_by_call": dict(_ref("call_pattern"), description="Like `callee_made_by`, with a full call pattern: the called object (a layer called in `construct`) was created by a call that matches it, `where` included (e.g. a `Dense` built without `has_bias=False`)."),
        "in_function": {"type": "string", "format": "regex", "description": "Regex on the qualified name of the enclosing function."},
        "live": {"type": "boolean", "description": "True: some entry script's program runs this call. False: it provably does not — it sits in a branch that constant propagation and shipped configuration decide the other way, no entry script of its project reaches it (an entry script lives in its folder or above), or it builds a layer that a method stores as `self.<name>` and nothing in its project reads `.<name>`. Code whose programs are unknown (a library without entry scripts, a snippet) passes neither."},
        "runs": _one_or_many(_GLOB, "The project code this call runs — the function it calls, or the `construct`/`forward`/`call` of the project cell it calls — itself calls something matching these names (e.g. `mindspore.nn.Optimizer.__call__`: a project-defined train-one-step cell)."),
        "maps_code_mentioning": {"type": "string", "format": "regex", "description": "The call's function maps project code over the data (`.map(operations=f)`, `.batch(per_batch_map=f)`) whose code uses a name matching this regex (parameters, assigned names, attributes, callees, argument texts): e.g. a mapped function that keeps only this rank's slice."},
        "multi_device_launch": {"type": "boolean", "description": "True: a shell script, README or YAML file beside an entry script running this call (its folder, two above, their `scripts/`) mentions running on several devices (msrun, mpirun, torchrun, RANK_SIZE, a rank table, device_num, distributed, multi-GPU, 多卡/分布式). False: entry scripts reach the call and nothing near any of them says so — a data-parallel branch the project never launches. No entry script: neither."},
        "port_evidence": {"type": "boolean", "description": "True: the call's code shows it was ported or reproduces a published model — a file in its folder or a folder above it, up to the project root (the nearest VCS/packaging marker), mentions PyTorch (a `.py` importing or naming `torch.`, a README, `.txt` or YAML saying PyTorch) or a README cites the paper or says it reproduces one (arxiv.org, paper, 论文, reproduce, 复现). False: nothing there does (code written for MindSpore: its own tutorials, science suites)."},
        "trained": {"type": "boolean", "description": "The object this call creates (a layer) is part of a network some optimizer of the call's programs updates (true), or a known object no optimizer updates (false: an inference-only detector, an evaluation copy). Unknown passes neither."},
        "in_class": _one_or_many(_GLOB, "The call is in a method (or a function nested in one) of a project class deriving from these, e.g. `mindspore.nn.Cell`: a network calling its own layers."),
        "result_method": _one_or_many({"type": "string"}, "The call's result is immediately used as the receiver of a method with one of these names (e.g. `scaler.scale(loss).backward()`)."),
        "result_used_by": dict(_ref("call_pattern"), description="Some call matching this pattern, anywhere in the project, acts on an object derived from this call's result (e.g. a `.shuffle()` on any dataset derived from a source dataset, in a helper or a caller)."),
        "attribute_used_by": _obj(
            {"attr": {"type": "string", "minLength": 1, "description": "The attribute of the object this call creates (e.g. `weight`)."},
             "by": dict(_ref("call_pattern"), description="A call matching this takes `<object>.<attr>` (or `<object>.<attr>.data`) as its receiver or first argument.")},
            ["attr", "by"],
            "Some call in the project acts on an attribute of the object this call creates, e.g. `nn.init.zeros_(self.fc.weight)` for the `nn.Linear` stored in `self.fc`."),
        "never_read": {"type": "boolean", "description": "The value the call builds — through the calls chained on it (`GeneratorDataset(...).batch(...)`) — is bound only to local names that nothing reads (nor returns, nor reads by name from another scope): built and never used."},
        "loop_over": {"type": "string", "format": "regex", "description": "Regex searched in the names the innermost `for` loop around the call iterates over (`for x, y in tqdm(val_loader)` gives `tqdm`, `val_loader`): a validation or test loop written inline."},
        "loop_contains": _one_or_many(_GLOB, "The innermost loop around the call also runs (directly) a call matching these names, e.g. `?.backward`."),
        "in_loop": {"type": "boolean", "description": "The call is (not) inside a for/while loop of its function."},
        "inside_with": dict(_ref("call_pattern"), description="The call is lexically inside a `with` block whose context manager matches (like `inside`, but usable under `any`/`not`)."),
        "callee_created_here": {"type": "boolean", "description": "The called object was created in the same function (e.g. a freshly built model in a shape check)."},
        "function_calls": _one_or_many(_GLOB, "The enclosing function itself calls something matching these names (e.g. `torch.nn.Module.load_state_dict`)."),
        "in_script_role": _one_or_many({"type": "string"}, "The call is in a script whose file name gives it one of these roles (rules/roles.yaml: `inference`, `evaluation`, `training`)."),
        "result_discarded": {"type": "boolean", "description": "True: the call's result is thrown away — the call is a statement of its own, or its result is bound only to `_`-style names (e.g. the list of parameters `load_param_into_net` could not load)."},
        "named": _one_or_many(_GLOB, "The call itself answers to one of these names: branches of an `any` that apply to some of the pattern's names only."),
        "guarded_by": {"type": "string", "format": "regex", "description": "The call is inside an `if` branch of its function whose test reads a name, an attribute or a call whose (last) name matches this regex, e.g. `if rank_size == 1:` / `if args.distributed:` (either branch)."},
        "entry": _obj(
            {
                "role": {"type": "string", "description": "Only entry scripts with this role (rules/roles.yaml, e.g. `training`)."},
                "reaches": {"type": "array", "items": _ref("call_pattern"), "minItems": 1,
                            "description": "The entry script also reaches (in its module code, helpers in any file, or imported modules) a call matching one of these."},
            },
            desc="Some entry script that reaches this call (through its module code, the functions it calls in any file, "
                 "or the modules it imports) has `role` and also reaches a call matching `reaches`. Under `not`: no such "
                 "entry does — combine with `entry: {role: ...}` so that calls no entry reaches stay silent.",
        ),
        "differs_from": _obj(
            {"call": _ref("call_pattern"),
             "args": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1,
                      "description": "The arguments compared (constant-propagated; all must be known on both sides)."},
             "scale_free": {"type": "boolean", "description": "Values that differ only by a common factor of 255 count as equal (pixel constants written for [0, 255] vs [0, 1] inputs)."}},
            ["call", "args"],
            "Other calls in the same file match `call`, their `args` and this call's are all known, and none of them "
            "has the same values as this call (recorded as `{related}`): e.g. Normalize constants of an evaluation "
            "pipeline that match no training pipeline's."),
        "defines_data_op": {"type": "boolean", "description": "The enclosing function (or module code) hands a callable of its own to the data pipeline — a lambda, a function or an instance of a project class (local or not), or a value that cannot be resolved — in a list/tuple literal, as `operations=`/`per_batch_map=`, or to `.map`/`Compose`: a custom data op that may do the work a rule looks for (a numpy/cv2 normalisation)."},
        "file_calls": {"type": "array", "items": _ref("call_pattern"), "minItems": 1,
                       "description": "Another call in the same file matches one of these patterns (recorded as `{related}`), e.g. a LayerNorm that does pass `epsilon`."},
        "project_calls": {"type": "array", "items": _ref("call_pattern"), "minItems": 1,
                          "description": "Another call in the call's program matches one of these patterns (recorded as `{related}`): the files the entry scripts that run this call import (transitively); every file of the run when no entry script reaches it."},
        "version": {"type": "string", "description": "The version assumed for the call's framework is in this range, e.g. `>=2.0` (see `--target-version`)."},
    },
    desc="Tests on the call itself rather than on one argument.",
)

_PRED = {
    "description": "A predicate: `all`/`any`/`not` combine; a leaf tests one argument (`arg`) or the call (`call`).",
    "anyOf": [
        _obj({"all": {"type": "array", "items": _ref("predicate"), "minItems": 1}}, ["all"]),
        _obj({"any": {"type": "array", "items": _ref("predicate"), "minItems": 1}}, ["any"]),
        _obj({"not": _ref("predicate")}, ["not"]),
        _obj({"call": _CALL_PRED}, ["call"]),
        _ARG_PRED,
    ],
}

_CALL_PATTERN = _obj(
    {
        "name": _one_or_many(_GLOB, "Qualified names (resolved through imports, aliases, receivers) the call must answer to."),
        "not_name": _one_or_many(_GLOB, "Qualified names that exclude the call."),
        "creates": _one_or_many(_GLOB, "The call constructs an instance of a class deriving from these (project classes included)."),
        "where": _ref("predicate"),
        "context": _obj(
            {"pipeline": {"enum": ["training", "evaluation"], "description": "The call builds a pipeline used for training / evaluation (function and variable names, train flags, the entry scripts that reach it)."},
             "exclusive": {"type": "boolean", "description": "With `pipeline`: the call serves only that role (a helper shared by training and evaluation without a flag telling them apart does not count)."}},
            desc="Where the call is used.",
        ),
        "inside": _obj({"with": _ref("call_pattern")}, ["with"], "The call is lexically inside a `with` block whose context manager matches."),
        "not_inside": _obj({"with": _ref("call_pattern")}, ["with"], "The call is not inside such a `with` block."),
    },
    desc="Selects calls by qualified name, then filters them with predicates.",
)
_CALL_PATTERN["anyOf"] = [{"required": ["name"]}, {"required": ["creates"]}]

_EFFECT = _obj(
    {
        "call": _ref("call_pattern"),
        "with": _ref("call_pattern"),
        "at": {"enum": ["enter", "exit"], "description": "For `with`: on entering or on leaving the block (default enter)."},
        "attribute": _obj(
            {
                "name": {"type": "string"},
                "of_self_in_subclass_of": _one_or_many(_GLOB),
            },
            ["name", "of_self_in_subclass_of"],
            "Reading `self.<name>` in a method of a project class deriving from these classes.",
        ),
        "divide_by_tainted": {"type": "boolean", "description": "`x / t` where t carries the taint: the result is clean."},
        "multiply_by_inverse_of_tainted": {"type": "boolean", "description": "`x * inv(t)` or `x * (1 / t)` (through transparent calls), inv being one of `inverse`: the result is clean."},
        "inverse": _one_or_many(_GLOB, "For `multiply_by_inverse_of_tainted`: functions computing a reciprocal."),
        "arg": {"type": "string", "description": "For sinks: the argument that must not carry the taint (parameter name or position)."},
        "effect": {"enum": ["state", "value", "result"], "description": "`state`: acts on the function's tracked state; `value` (default for taint): acts on values."},
        "to": {"type": "string", "description": "For state machines: the state this event moves to."},
        "to_from_arg": _obj({"arg": {"type": "string"}, "if_true": {"type": "string"}, "if_false": {"type": "string"},
                             "position": {"type": "integer", "minimum": 0, "description": "Where the argument sits when the call's signature is unknown (an untyped receiver)."},
                             "default": {"type": "boolean", "description": "Its value when not passed and no signature says otherwise."}},
                            ["arg", "if_true", "if_false"],
                            "The next state depends on a boolean argument (e.g. `set_train(mode)`); both states when it cannot be resolved."),
        "label": {"type": "string", "description": "A name for this event used in messages."},
    },
    desc="An event of a flow rule: a call, a `with` block, an attribute read or an arithmetic pattern.",
)

_FLOW = _obj(
    {
        "track": {"enum": ["state", "value"], "description": "`state`: a small state machine over the function's implicit state (e.g. train/eval mode); `value`: taint tracking through values."},
        "states": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        "initial": {"type": "string", "description": "State at the start of a program (module code of an entry script)."},
        "transitions": {"type": "array", "items": _EFFECT},
        "sources": {"type": "array", "items": _EFFECT},
        "sanitizers": {"type": "array", "items": _EFFECT},
        "sinks": {"type": "array", "items": _EFFECT, "minItems": 1},
        "bad_states": {"type": "array", "items": {"type": "string"}, "description": "For `state`: reaching a sink in one of these states is a finding."},
        "transparent": _one_or_many(_GLOB, "Calls that pass their first argument's taint through unchanged (casts, depend)."),
        "loop_sinks": {"type": "boolean", "description": "For `state`: when the bad state is the initial one, report at the call inside a loop that leads to the sink (the training step of an epoch loop)."},
        "track_objects": {"type": "boolean", "description": "For `state`: keep one state per object. A transition acts on its receiver and the objects it was built from (`set_train` on a wrapper reaches the network inside); a sink checks the networks it trains (those whose parameters its optimizer updates) or calls. Off: one state per script (e.g. the gradients of a GradScaler loop)."},
        "not_networks": _one_or_many(_GLOB, "With `track_objects`: types that wrap or serve a network (train-one-step cells, loss functions, optimizers, `Model`); a sink on one of them checks the networks inside instead."),
        "trained_only": {"type": "boolean", "description": "With `track_objects`: a sink checks only the layers of networks some optimizer of the project updates (a frozen distillation teacher kept in inference mode on purpose is not a problem); all layers when the optimizers' parameters are unknown."},
        "only_loop_carried": {"type": "boolean", "description": "For `state`: report a bad state only when the transition that set it runs inside a loop that also runs the sink (an evaluation inside the epoch loop), not when it was set once before the loop (often intentional)."},
        "causes": _obj(
            {"initial": _TEXT, "transition": _TEXT, "source": _TEXT},
            desc="Texts for the `{cause}` placeholder: `initial` when the initial state reaches the sink, `transition` "
                 "when a transition does (may use `{set_by}`), `source` for taint (may use `{source}`).",
        ),
    },
    ["track", "sinks"],
    "Flow rule: a finding where a sink runs while the tracked state is bad / with a tainted value. Branches and loops are followed; project functions are summarised so helpers count across files.",
)

_ABSENT = _obj(
    {
        "scope": {"enum": ["entry", "file", "function"], "description": "`entry`: an entry script with everything it reaches; `file`; `function`."},
        "entry_role": {"type": "string", "description": "For `entry`: which entry scripts (a role of rules/roles.yaml, e.g. `training`)."},
        "framework": {"enum": list(FRAMEWORKS), "description": "Only entries/files whose training uses this framework."},
        "trigger": _ref("call_pattern"),
        "require": {"type": "array", "items": _ref("call_pattern"), "minItems": 1, "description": "Any of these calls, reached from the scope (helpers count), satisfies the rule."},
        "report_at": {"enum": ["main-path", "trigger", "first-line"], "description": "`main-path`: the first statement on the entry's main path that leads to training."},
        "unknown_may_satisfy": {"type": "string", "format": "regex", "description": "A call reachable from the scope to a function that cannot be resolved (a third-party or missing module) and whose name matches this regex may meet the requirement: stay silent rather than guess."},
    },
    ["scope", "require"],
    "Absence rule: something required is missing from a scope.",
)

_SEQUENCE = _obj(
    {
        "layer": _ref("call_pattern"),
        "not_followed_by": _one_or_many(_ref("call_pattern"), "Reaching one of these first ends the search silently (e.g. a normalization)."),
        "until": _one_or_many(_ref("call_pattern"), "Reaching one of these first is a finding (e.g. an activation)."),
        "output": _one_or_many(_ref("call_pattern"), "Losses. When given, reaching one of these first — or the network's output, returned by the outermost cell the framework runs — is a finding too (e.g. a prediction head's last conv)."),
    },
    ["layer", "not_followed_by", "until"],
    "Layer-order rule: follow a layer's output through the calls that consume it — in `SequentialCell`/`Sequential` "
    "element order, in `construct`/`forward` data flow, through `return` into the callers of the cell — passing over "
    "other framework layers and tensor methods, until it reaches `not_followed_by` (silent) or `until` (finding). A "
    "project-defined or unresolved consumer ends the search silently.",
)

_MATCH = {
    "description": "What the rule looks for: exactly one construct.",
    "oneOf": [
        _obj({"call": _ref("call_pattern")}, ["call"]),
        _obj({"absent": _ABSENT}, ["absent"]),
        _obj({"flow": _FLOW}, ["flow"]),
        _obj({"sequence": _SEQUENCE}, ["sequence"]),
    ],
}

_FILES = {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}
_FIXED_DESC = ("The example after `--fix` (safe fixes only): the whole file, or for `files` examples the files that change. "
               "Absent: safe fixes leave the example unchanged.")
_UNSAFE_FIXED_DESC = ("The example after `--fix --unsafe-fixes`. Absent: the same as `fixed` (unsafe fixes change nothing more).")
_EXAMPLE = {
    "description": "A code example: a string (one file, `example.py`), an object with `code` and the fixed results, or several "
                   "files. Mark each line that must be reported with `# expect: <rule id>`. For a rule with a `fix`, `test-rules` "
                   "applies the fixes to every invalid example and compares with `fixed` / `unsafe_fixed`.",
    "anyOf": [
        {"type": "string"},
        _obj({"code": {"type": "string"}, "fixed": {"type": "string", "description": _FIXED_DESC},
              "unsafe_fixed": {"type": "string", "description": _UNSAFE_FIXED_DESC}, "note": {"type": "string"}}, ["code"]),
        _obj({"files": _FILES, "fixed": dict(_FILES, description=_FIXED_DESC),
              "unsafe_fixed": dict(_FILES, description=_UNSAFE_FIXED_DESC), "note": {"type": "string"}}, ["files"]),
    ],
}

_TEMPLATE_DESC = ("Python with `{placeholders}`: the arguments the rule tests (`{keep_prob}` = its source text, "
                  "`{keep_prob.value}`, ...), `bind` names and `add-import` bindings. A placeholder whose value is not an atom is "
                  "parenthesised; arithmetic on number literals is folded (`1 - 0.9` → `0.1`).")
_EDIT = _obj(
    {
        "op": {"enum": ["set-keyword", "rename-keyword", "remove-keyword", "replace-argument", "insert-before", "insert-after",
                        "move-after", "add-import", "insert-after-imports"],
               "description": "`set-keyword` name=value (replaced or appended) · `rename-keyword` from→to (optionally a new value) · "
                              "`remove-keyword` name · `replace-argument` the bound argument `arg` (keyword or positional) gets `value`, "
                              "written `keyword=value` when `keyword` is given · `insert-before`/`insert-after` a statement around the "
                              "statement of the finding · `move-after` the finding's statement after the next sibling statement matching "
                              "`until` · `add-import` module (or `from module import name`), reusing an existing import · "
                              "`insert-after-imports` a statement after the last top-level import before the finding."},
        "name": {"type": "string", "description": "set-keyword/remove-keyword: the keyword; add-import: the imported name."},
        "from": {"type": "string", "description": "rename-keyword: the keyword to rename."},
        "to": {"type": "string", "description": "rename-keyword: its new name."},
        "arg": {"type": "string", "description": "replace-argument: the argument, named as the rule's predicates name it."},
        "keyword": {"type": "string", "description": "replace-argument: write the new value as `keyword=value` (a positional argument "
                                                     "becomes a keyword; only when no positional argument follows)."},
        "value": {"type": "string", "minLength": 1, "description": "An expression template. " + _TEMPLATE_DESC},
        "template": {"type": "string", "minLength": 1, "description": "A one-line statement template. " + _TEMPLATE_DESC},
        "until": {"type": "string", "format": "regex", "description": "move-after: regex searched in the source of the later statement."},
        "module": {"type": "string", "description": "add-import: the module."},
        "bind": {"type": "string", "description": "add-import: the placeholder naming what to use in templates (default: `name`, "
                                                  "else `module`); an existing `import module as alias` binds the alias."},
        "existing_only": {"type": "boolean", "description": "add-import: offer no fix unless the file already imports it."},
    },
    ["op"],
    "One edit. Edits are text replacements computed on the CST, so comments and formatting elsewhere are kept.",
)
_GLOB_TEXT = {"type": "string", "minLength": 1, "description": "A glob on a callee as written (`*` = any dotted name, `scaler.step`); may use earlier bindings (`{scaler}.step`)."}
_FIX_SCOPE = {"enum": ["function", "file"], "description": "Where to look: the function around the finding (default) or the whole file."}
_FIX = _obj(
    {
        "applicability": {"enum": ["safe", "unsafe"], "description": "`safe`: keeps what the code means or makes the change the rule's "
                                                                      "docs call correct with no judgment left; applied by `--fix`. `unsafe`: changes "
                                                                      "behaviour in a way a person must confirm; only with `--unsafe-fixes`."},
        "title": dict(_TEXT, description="What the fix does (\"Pass the drop rate as p=\")."),
        "reason": dict(_TEXT, description="Why it is safe or unsafe; shown to users."),
        "when": dict(_ref("predicate"), description="Call rules: this variant applies only when the predicate holds on the matched call."),
        "bind": {"type": "array", "items": _obj({"name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}, "call": _GLOB_TEXT,
                                                 "result_method": {"type": "string", "description": "Only calls whose result's method this is (`scale(loss).backward()`)."},
                                                 "take": {"type": "string", "description": "`receiver` (default) or `arg:N` / `arg:NAME`."},
                                                 "scope": _FIX_SCOPE},
                                                ["name", "call"],
                                                "Bind a name from the code: every matching call must agree on the text taken, else no fix is offered.")},
        "unless": {"type": "array", "items": _obj({"call": _GLOB_TEXT, "scope": _FIX_SCOPE}, ["call"],
                                                  "Offer no fix when such a call exists.")},
        "edits": {"type": "array", "items": _EDIT, "minItems": 1},
    },
    ["applicability", "title", "reason", "edits"],
    "One fix: edits marked safe or unsafe. When a binding is missing or an edit cannot be made, no fix is offered (never a broken one).",
)

_SEVERITY_IF = _obj(
    {
        "when": {"anyOf": [
            {"enum": ["network-without-dropout-or-batchnorm"],
             "description": "The network the finding is about has no Dropout/BatchNorm (or other mode-dependent layer)."},
            dict(_ref("predicate"), description="Call and sequence rules: a predicate on the matched call (e.g. `{call: {live: false}}`)."),
            _obj({"network_layers": _obj({
                      "arg": {"type": "string", "description": "The argument holding the network (e.g. `network`)."},
                      "has": _one_or_many(_GLOB, "The network is known to build a layer matching one of these."),
                      "lacks": _one_or_many(_GLOB, "... and is known to build none matching these (its layers all known)."),
                  }, ["arg", "has", "lacks"])}, ["network_layers"],
                 "Call rules: what the network passed to the matched call is made of (its layers, its project "
                 "classes' calls and the objects it is built from, followed as for the mode rules)."),
            _obj({"entry_reaches": {"type": "array", "items": _ref("call_pattern"), "minItems": 1}}, ["entry_reaches"],
                 "Absence rules of scope `entry`: the entry script reaches a call matching one of these (something that "
                 "does part of what the requirement does). `{call}` in the note names the first such call."),
            _obj({"entry_path": {"type": "string", "format": "regex",
                                 "description": "Regex searched in the entry script's path (relative to the checked root, `/` separators)."}},
                 ["entry_path"],
                 "Absence rules of scope `entry`: the entry script's path matches (a test, example or documentation script)."),
            _obj({"entry_reaches_none": {"type": "array", "items": _ref("call_pattern"), "minItems": 1},
                  "unknown_may_reach": {"type": "string", "format": "regex",
                                        "description": "A call trainlint cannot resolve whose name matches this regex may be one "
                                                       "of them: when the entry reaches such a call, the condition does not hold."}},
                 ["entry_reaches_none", "unknown_may_reach"],
                 "Absence rules of scope `entry`: the entry script provably reaches none of these calls (e.g. no data is "
                 "read: no dataset, loader or file call) and no unresolved call that may be one."),
        ]},
        "severity": {"enum": list(SEVERITIES)},
        "note": _TEXT,
    },
    ["when", "severity", "note"],
    "Lower (or raise) the severity in a documented situation, appending the note to the message.",
)


def rule_schema() -> Dict[str, Any]:
    """The JSON Schema of one rule file."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://trainlint.dev/schema/rule.json",
        "title": "trainlint rule",
        "description": "One trainlint rule: metadata, bilingual prose, a declarative match and inline examples.",
        "type": "object",
        "additionalProperties": False,
        "required": ["id", "name", "checklist", "framework", "severity", "title", "message", "docs", "match", "examples"],
        "properties": {
            "id": {"type": "string", "pattern": "^[A-Z]{2,4}[0-9]{3}$", "description": "Stable id: letters of the checklist group, item digit, two-digit sequence (API101 = api.01 rule 01)."},
            "name": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "description": "kebab-case slug naming the bad pattern; equals the file name."},
            "checklist": {"enum": list(CHECKLIST_IDS), "description": "The accuracy-checklist item this rule decides."},
            "framework": {"enum": list(FRAMEWORKS)},
            "severity": {"enum": list(SEVERITIES)},
            "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z0-9-]+$"}},
            "versions": {"type": "string", "description": "Framework versions the rule applies to, e.g. `>=2.0` (comma-separated comparisons)."},
            "default": {"type": "boolean", "description": "false: an opt-in rule (style or hygiene rather than an accuracy bug) that runs only "
                                                         "when a selector names it (`--select`/`--extend-select` by id, prefix, name, tag, "
                                                         "checklist id, framework, or ALL). Default true."},
            "title": _TEXT,
            "message": dict(_TEXT, description="The finding message; `{placeholders}` are filled from the match (see docs/rule-language.md)."),
            "docs": _obj(
                {
                    "what": _TEXT,
                    "why": _TEXT,
                    "fix": _TEXT,
                    "known_problems": _TEXT,
                    "references": {"type": "array", "items": {"type": "string"}},
                },
                ["what", "why", "fix"],
                "What `trainlint explain` prints.",
            ),
            "severity_if": {"type": "array", "items": _SEVERITY_IF},
            "match": _MATCH,
            "fix": {"description": "How to fix a finding automatically (`trainlint check --fix`): one fix or a list of variants; the "
                                   "first variant whose `when` holds and whose edits can be made is offered.",
                    "anyOf": [_FIX, {"type": "array", "items": _FIX, "minItems": 1}]},
            "report": _obj({"at": {"type": "string", "pattern": "^(call|arg:[A-Za-z_0-9]+)$"},
                            "once_per": {"enum": ["program", "function"], "description": "`program`: matches run by the same entry scripts are one problem (several `to_float` sites of one float16 training without loss scaling); `function`: matches in one function are (the random ops of one evaluation op list). The first is reported, the others are listed as `{more}` and as related places."},
                            "group_by_cause": _obj(
                                {"arg": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z_0-9]*$",
                                         "description": "An argument whose value the rule tests."},
                                 "pipeline": {"const": True,
                                              "description": "Instead of `arg`: datasets joined into one pipeline (`zip`, `concat`: API table `returns: derived-all`) share a cause, the first call that joins them."},
                                 "at": {"enum": ["cause", "first-use"],
                                        "description": "`cause`: report the group at the definition the value comes from when it is in a linted Python file (the value is what is wrong: a momentum in the other convention), else at the first use; `first-use`: always at the first use (the use is what is wrong: a drop rate passed where keep_prob is expected)."}},
                                ["at"],
                                "One cause, one finding: matches whose `arg` value comes from one definition (a module constant, a "
                                "parameter's default, a configuration key), or whose datasets are joined into one pipeline, are "
                                "reported once, with every use as a related place; a fix is applied at the cause (`at: cause`) or "
                                "at every use in the file.")},
                           desc="Where a call finding points: the call (default) or one argument; and how matches group into findings."),
            "examples": _obj(
                {
                    "invalid": {"type": "array", "items": _EXAMPLE, "minItems": 1},
                    "valid": {"type": "array", "items": _EXAMPLE, "minItems": 1},
                    "todo_invalid": {"type": "array", "items": _EXAMPLE, "description": "Known misses: must NOT fire today (fails when they start firing, so they get promoted)."},
                },
                ["invalid", "valid"],
            ),
        },
        "$defs": {"predicate": _PRED, "call_pattern": _CALL_PATTERN},
    }
