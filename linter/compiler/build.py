"""Stage 4c: validated rule YAML → :class:`CompiledRule` (patterns, predicates, flow specs).

Rules are data: this module turns them into small immutable structures the matchers
interpret. Everything a rule file can get wrong is reported here, before any file is
linted, as a :class:`RuleFileError` with the file, line and JSON path.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from linter.compiler.load import RuleFileError, YamlDoc
from linter.compiler.spec import rule_schema
from linter.core.globs import GlobSet, Regex
from linter.core.versions import version_in

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")
BUILTIN_PLACEHOLDERS = frozenset({
    "callee", "qualname", "framework_version", "assumed_version", "helper", "related", "state",
    "entry", "source", "sink", "function", "layer", "next", "pipeline_reason", "context", "cause",
    "set_by", "seed_calls", "network", "more",
})


@dataclass(frozen=True)
class ValueTest:
    eq: Any = None
    ne: Any = None
    lt: Optional[float] = None
    le: Optional[float] = None
    gt: Optional[float] = None
    ge: Optional[float] = None
    in_: Optional[Tuple[Any, ...]] = None
    not_in: Optional[Tuple[Any, ...]] = None
    type: Optional[str] = None
    truthy: Optional[bool] = None
    tolerance: float = 1e-6
    has_eq: bool = False
    has_ne: bool = False


@dataclass(frozen=True)
class ArgPred:
    arg: str
    missing: Optional[bool] = None
    positional: Optional[bool] = None
    value: Optional[ValueTest] = None
    quantifier: str = "any"
    known: Optional[bool] = None
    default_applies: bool = True
    name_re: Optional[Regex] = None
    name_not_re: Optional[Regex] = None
    source_re: Optional[Regex] = None
    source_not_re: Optional[Regex] = None
    kinds: Tuple[str, ...] = ()
    from_call: Optional[GlobSet] = None
    from_gradient: Optional[bool] = None
    made_by: Optional[GlobSet] = None
    made_by_call: Optional["CallPattern"] = None
    is_generator: Optional[bool] = None
    project_code: Optional[bool] = None
    complement: Optional[bool] = None
    single_sample: Optional[bool] = None
    through_networks: bool = False
    is_subclass_instance: Optional[GlobSet] = None
    trained: Optional[bool] = None
    mentions: Optional[Regex] = None
    computed_from: Optional[Regex] = None
    edited_by: Optional[GlobSet] = None
    code_calls: Optional[GlobSet] = None
    code_mentions: Optional[Regex] = None


@dataclass(frozen=True)
class CallPred:
    receiver_made_by: Optional[GlobSet] = None
    callee_made_by: Optional[GlobSet] = None
    callee_made_by_call: Optional["CallPattern"] = None
    in_function: Optional[Regex] = None
    result_method: Tuple[str, ...] = ()
    result_used_by: Optional["CallPattern"] = None
    attribute_used_by: Optional[Tuple[str, "CallPattern"]] = None
    loop_contains: Optional[GlobSet] = None
    loop_over: Optional[Regex] = None
    never_read: Optional[bool] = None
    in_loop: Optional[bool] = None
    inside_with: Optional["CallPattern"] = None
    callee_created_here: Optional[bool] = None
    function_calls: Optional[GlobSet] = None
    in_script_role: Tuple[str, ...] = ()
    result_discarded: Optional[bool] = None
    guarded_by: Optional[Regex] = None
    entry: Optional["EntryTest"] = None
    named: Optional[GlobSet] = None
    version: Optional[str] = None
    file_calls: Tuple["CallPattern", ...] = ()
    defines_data_op: Optional[bool] = None
    differs_from: Optional["DiffersFrom"] = None
    project_calls: Tuple["CallPattern", ...] = ()
    in_class: Optional[GlobSet] = None
    live: Optional[bool] = None
    trained: Optional[bool] = None
    multi_device_launch: Optional[bool] = None
    port_evidence: Optional[bool] = None
    maps_code_mentioning: Optional[Regex] = None
    runs: Optional[GlobSet] = None


@dataclass(frozen=True)
class DiffersFrom:
    """Some other call of the file matches ``call`` and none has the same ``args`` values."""
    call: "CallPattern"
    args: Tuple[str, ...]
    scale_free: bool = False


@dataclass(frozen=True)
class EntryTest:
    """Some entry script reaching the call has ``role`` and reaches one of ``reaches``."""
    role: Optional[str] = None
    reaches: Tuple["CallPattern", ...] = ()


@dataclass(frozen=True)
class BoolPred:
    op: str
    items: Tuple[Any, ...]


@dataclass(frozen=True)
class CallPattern:
    names: Optional[GlobSet]
    not_names: Optional[GlobSet] = None
    creates: Optional[GlobSet] = None
    where: Any = None
    pipeline: Optional[str] = None
    pipeline_exclusive: bool = False
    inside_with: Optional["CallPattern"] = None
    not_inside_with: Optional["CallPattern"] = None

    @property
    def scan_all(self) -> bool:
        return self.names is None or self.names.scan_all


@dataclass(frozen=True)
class Effect:
    kind: str
    """``call``, ``with``, ``attribute``, ``divide`` or ``multiply_inverse``."""
    pattern: Optional[CallPattern] = None
    on: str = "enter"
    attr_name: str = ""
    attr_classes: Optional[GlobSet] = None
    arg: Optional[str] = None
    effect: str = ""
    to: Optional[str] = None
    to_from_arg: Optional[Tuple[str, str, str, Optional[int], Optional[bool]]] = None
    """(argument, state if true, state if false, position when untyped, default when absent)."""
    label: str = ""
    inverse: Optional[GlobSet] = None


@dataclass(frozen=True)
class FlowSpec:
    track: str
    states: Tuple[str, ...] = ()
    initial: Optional[str] = None
    transitions: Tuple[Effect, ...] = ()
    sources: Tuple[Effect, ...] = ()
    sanitizers: Tuple[Effect, ...] = ()
    sinks: Tuple[Effect, ...] = ()
    bad_states: Tuple[str, ...] = ()
    transparent: Optional[GlobSet] = None
    loop_sinks: bool = False
    track_objects: bool = False
    not_networks: Optional[GlobSet] = None
    only_loop_carried: bool = False
    trained_only: bool = False
    causes: Tuple[Tuple[str, Tuple[Tuple[str, str], ...]], ...] = ()
    """(cause kind, ((lang, text), ...)) for the ``{cause}`` placeholder."""

    def cause(self, kind: str, lang: str) -> str:
        for k, texts in self.causes:
            if k == kind:
                d = dict(texts)
                return d.get(lang) or d.get("en", "")
        return ""


@dataclass(frozen=True)
class AbsentSpec:
    scope: str
    require: Tuple[CallPattern, ...]
    entry_role: Optional[str] = None
    framework: Optional[str] = None
    trigger: Optional[CallPattern] = None
    report_at: str = "main-path"
    unknown_may_satisfy: Optional[Regex] = None


@dataclass(frozen=True)
class SequenceSpec:
    layer: CallPattern
    not_followed_by: Tuple[CallPattern, ...]
    until: Tuple[CallPattern, ...]
    output: Tuple[CallPattern, ...] = ()
    """Losses: with any given, reaching one — or the network's output (returned by the
    outermost cell) — is a finding too."""


@dataclass(frozen=True)
class Example:
    files: Tuple[Tuple[str, str], ...]
    kind: str
    """``invalid``, ``valid`` or ``todo_invalid``."""
    index: int
    line: Optional[int]
    fixed: Optional[Tuple[Tuple[str, str], ...]] = None
    """The files that ``--fix`` changes, as they must read afterwards (None: nothing changes)."""
    unsafe_fixed: Optional[Tuple[Tuple[str, str], ...]] = None
    """The same with ``--unsafe-fixes`` (None: as ``fixed``)."""


@dataclass
class CompiledRule:
    id: str
    name: str
    checklist: str
    framework: str
    severity: str
    title: Dict[str, str]
    message: Dict[str, str]
    docs: Dict[str, Any]
    kind: str
    """``call``, ``absent``, ``flow`` or ``sequence``."""
    spec: Any
    examples: List[Example]
    path: str
    line: int
    tags: Tuple[str, ...] = ()
    versions: Optional[str] = None
    severity_if: Tuple[Dict[str, Any], ...] = ()
    report_at: str = "call"
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)
    fixes: Tuple[Any, ...] = ()
    """:class:`linter.compiler.fixes.FixSpec` variants (empty: no automatic fix)."""
    once_per: str = ""
    """``program``: one finding per set of entry scripts (``report.once_per``)."""
    group_by_cause: Tuple[str, ...] = ()
    """(argument, ``cause`` | ``first-use``): matches whose argument value shares one definition
    are one finding (``report.group_by_cause``, :mod:`linter.match.group`)."""
    default_on: bool = True
    """False: an opt-in rule, run only when selected explicitly (``default: false``)."""


class _Builder:
    def __init__(self, doc: YamlDoc) -> None:
        self.doc = doc
        self.arg_names: List[str] = []

    def fail(self, path: Sequence[Any], message: str) -> RuleFileError:
        return RuleFileError(self.doc.path, message, self.doc.line_of(path), _pointer(path))

    def regex(self, text: str, path: Sequence[Any]) -> Regex:
        try:
            re.compile(text)   # validated now, compiled again on first use after loading
            return Regex(text)
        except re.error as exc:
            raise self.fail(path, f"invalid regular expression {text!r}: {exc}") from None

    def globs(self, value: Any, path: Sequence[Any]) -> GlobSet:
        items = [value] if isinstance(value, str) else list(value)
        for i, g in enumerate(items):
            if not re.fullmatch(r"[A-Za-z0-9_.*?\[\]!-]+", g):
                raise self.fail(list(path) + ([i] if not isinstance(value, str) else []),
                                f"invalid name glob {g!r}: use dotted names with * and ?")
        return GlobSet(items)

    def version_spec(self, text: str, path: Sequence[Any]) -> str:
        try:
            version_in((1,), text)
        except ValueError as exc:
            raise self.fail(path, str(exc)) from None
        return text

    # ------------------------------------------------------------------ predicates
    def pred(self, node: Dict[str, Any], path: List[Any]) -> Any:
        if "all" in node:
            return BoolPred("all", tuple(self.pred(x, path + ["all", i]) for i, x in enumerate(node["all"])))
        if "any" in node:
            return BoolPred("any", tuple(self.pred(x, path + ["any", i]) for i, x in enumerate(node["any"])))
        if "not" in node:
            return BoolPred("not", (self.pred(node["not"], path + ["not"]),))
        if "call" in node:
            c = node["call"]
            p = path + ["call"]
            if "differs_from" in c:
                self.arg_names.extend(c["differs_from"]["args"])   # usable as placeholders
            return CallPred(
                receiver_made_by=self.globs(c["receiver_made_by"], p + ["receiver_made_by"]) if "receiver_made_by" in c else None,
                callee_made_by=self.globs(c["callee_made_by"], p + ["callee_made_by"]) if "callee_made_by" in c else None,
                callee_made_by_call=self.call_pattern(c["callee_made_by_call"], p + ["callee_made_by_call"])
                if "callee_made_by_call" in c else None,
                in_function=self.regex(c["in_function"], p + ["in_function"]) if "in_function" in c else None,
                result_method=tuple([c["result_method"]] if isinstance(c.get("result_method"), str) else c.get("result_method", ())),
                result_used_by=self.call_pattern(c["result_used_by"], p + ["result_used_by"]) if "result_used_by" in c else None,
                attribute_used_by=(c["attribute_used_by"]["attr"], self.call_pattern(c["attribute_used_by"]["by"], p + ["attribute_used_by", "by"]))
                if "attribute_used_by" in c else None,
                loop_contains=self.globs(c["loop_contains"], p + ["loop_contains"]) if "loop_contains" in c else None,
                loop_over=self.regex(c["loop_over"], p + ["loop_over"]) if "loop_over" in c else None,
                never_read=c.get("never_read"),
                in_loop=c.get("in_loop"),
                inside_with=self.call_pattern(c["inside_with"], p + ["inside_with"]) if "inside_with" in c else None,
                callee_created_here=c.get("callee_created_here"),
                function_calls=self.globs(c["function_calls"], p + ["function_calls"]) if "function_calls" in c else None,
                in_script_role=tuple([c["in_script_role"]] if isinstance(c.get("in_script_role"), str) else c.get("in_script_role", ())),
                result_discarded=c.get("result_discarded"),
                guarded_by=self.regex(c["guarded_by"], p + ["guarded_by"]) if "guarded_by" in c else None,
                named=self.globs(c["named"], p + ["named"]) if "named" in c else None,
                entry=EntryTest(
                    role=c["entry"].get("role"),
                    reaches=tuple(self.call_pattern(x, p + ["entry", "reaches", i])
                                  for i, x in enumerate(c["entry"].get("reaches", ()))),
                ) if "entry" in c else None,
                version=self.version_spec(c["version"], p + ["version"]) if "version" in c else None,
                defines_data_op=c.get("defines_data_op"),
                differs_from=DiffersFrom(self.call_pattern(c["differs_from"]["call"], p + ["differs_from", "call"]),
                                         tuple(c["differs_from"]["args"]), bool(c["differs_from"].get("scale_free")))
                if "differs_from" in c else None,
                file_calls=tuple(self.call_pattern(x, p + ["file_calls", i]) for i, x in enumerate(c.get("file_calls", ()))),
                project_calls=tuple(self.call_pattern(x, p + ["project_calls", i])
                                    for i, x in enumerate(c.get("project_calls", ()))),
                in_class=self.globs(c["in_class"], p + ["in_class"]) if "in_class" in c else None,
                live=c.get("live"),
                trained=c.get("trained"),
                multi_device_launch=c.get("multi_device_launch"),
                port_evidence=c.get("port_evidence"),
                maps_code_mentioning=self.regex(c["maps_code_mentioning"], p + ["maps_code_mentioning"])
                if "maps_code_mentioning" in c else None,
                runs=self.globs(c["runs"], p + ["runs"]) if "runs" in c else None,
            )
        self.arg_names.append(node["arg"])
        value = None
        if "value" in node:
            v = node["value"]
            value = ValueTest(
                eq=v.get("eq"), ne=v.get("ne"), lt=v.get("lt"), le=v.get("le"), gt=v.get("gt"), ge=v.get("ge"),
                in_=tuple(v["in"]) if "in" in v else None, not_in=tuple(v["not_in"]) if "not_in" in v else None,
                type=v.get("type"), truthy=v.get("truthy"), tolerance=float(v.get("tolerance", 1e-6)),
                has_eq="eq" in v, has_ne="ne" in v,
            )
        name = node.get("name") or {}
        source = node.get("source") or {}
        kinds = node.get("kind", ())
        return ArgPred(
            arg=str(node["arg"]),
            missing=node.get("missing"),
            positional=node.get("positional"),
            value=value,
            quantifier=node.get("quantifier", "any"),
            known=node.get("known"),
            default_applies=node.get("default_applies", True),
            name_re=self.regex(name["regex"], path + ["name", "regex"]) if "regex" in name else None,
            name_not_re=self.regex(name["not_regex"], path + ["name", "not_regex"]) if "not_regex" in name else None,
            source_re=self.regex(source["regex"], path + ["source", "regex"]) if "regex" in source else None,
            source_not_re=self.regex(source["not_regex"], path + ["source", "not_regex"]) if "not_regex" in source else None,
            kinds=(kinds,) if isinstance(kinds, str) else tuple(kinds),
            from_call=self.globs(node["from_call"], path + ["from_call"]) if "from_call" in node else None,
            from_gradient=node.get("from_gradient"),
            made_by=self.globs(node["made_by"], path + ["made_by"]) if "made_by" in node else None,
            made_by_call=self.call_pattern(node["made_by_call"], path + ["made_by_call"]) if "made_by_call" in node else None,
            is_generator=node.get("is_generator"),
            project_code=node.get("project_code"),
            complement=node.get("complement"),
            single_sample=node.get("single_sample"),
            through_networks=bool(node.get("through_networks", False)),
            is_subclass_instance=self.globs(node["is_subclass_instance"], path + ["is_subclass_instance"]) if "is_subclass_instance" in node else None,
            trained=node.get("trained"),
            mentions=self.regex(node["mentions"], path + ["mentions"]) if "mentions" in node else None,
            computed_from=self.regex(node["computed_from"], path + ["computed_from"]) if "computed_from" in node else None,
            edited_by=self.globs(node["edited_by"], path + ["edited_by"]) if "edited_by" in node else None,
            code_calls=self.globs(node["code_calls"], path + ["code_calls"]) if "code_calls" in node else None,
            code_mentions=self.regex(node["code_mentions"], path + ["code_mentions"]) if "code_mentions" in node else None,
        )

    def call_pattern(self, node: Dict[str, Any], path: List[Any]) -> CallPattern:
        ctx = node.get("context") or {}
        if ctx.get("exclusive") and "pipeline" not in ctx:
            raise self.fail(path + ["context", "exclusive"], "`exclusive` needs `pipeline`")
        return CallPattern(
            names=self.globs(node["name"], path + ["name"]) if "name" in node else None,
            not_names=self.globs(node["not_name"], path + ["not_name"]) if "not_name" in node else None,
            creates=self.globs(node["creates"], path + ["creates"]) if "creates" in node else None,
            where=self.pred(node["where"], path + ["where"]) if "where" in node else None,
            pipeline=(node.get("context") or {}).get("pipeline"),
            pipeline_exclusive=bool((node.get("context") or {}).get("exclusive", False)),
            inside_with=self.call_pattern(node["inside"]["with"], path + ["inside", "with"]) if "inside" in node else None,
            not_inside_with=self.call_pattern(node["not_inside"]["with"], path + ["not_inside", "with"]) if "not_inside" in node else None,
        )

    def effect(self, node: Dict[str, Any], path: List[Any]) -> Effect:
        common = dict(arg=node.get("arg"), effect=node.get("effect", ""), to=node.get("to"), label=node.get("label", ""))
        if "to_from_arg" in node:
            t = node["to_from_arg"]
            common["to_from_arg"] = (t["arg"], t["if_true"], t["if_false"], t.get("position"), t.get("default"))
        if "call" in node:
            return Effect("call", pattern=self.call_pattern(node["call"], path + ["call"]), **common)
        if "with" in node:
            return Effect("with", pattern=self.call_pattern(node["with"], path + ["with"]), on=node.get("at", "enter"), **common)
        if "attribute" in node:
            a = node["attribute"]
            return Effect("attribute", attr_name=a["name"],
                          attr_classes=self.globs(a["of_self_in_subclass_of"], path + ["attribute", "of_self_in_subclass_of"]), **common)
        if node.get("divide_by_tainted"):
            return Effect("divide", **common)
        if node.get("multiply_by_inverse_of_tainted"):
            inverse = self.globs(node["inverse"], path + ["inverse"]) if "inverse" in node else None
            return Effect("multiply_inverse", inverse=inverse, **common)
        raise self.fail(path, "an event needs one of: call, with, attribute, divide_by_tainted, multiply_by_inverse_of_tainted")

    def flow(self, node: Dict[str, Any], path: List[Any]) -> FlowSpec:
        def effects(key: str) -> Tuple[Effect, ...]:
            return tuple(self.effect(x, path + [key, i]) for i, x in enumerate(node.get(key, ())))

        spec = FlowSpec(
            track=node["track"],
            states=tuple(node.get("states", ())),
            initial=node.get("initial"),
            transitions=effects("transitions"),
            sources=effects("sources"),
            sanitizers=effects("sanitizers"),
            sinks=effects("sinks"),
            bad_states=tuple(node.get("bad_states", ())),
            transparent=self.globs(node["transparent"], path + ["transparent"]) if "transparent" in node else None,
            loop_sinks=bool(node.get("loop_sinks", False)),
            only_loop_carried=bool(node.get("only_loop_carried", False)),
            trained_only=bool(node.get("trained_only", False)),
            track_objects=bool(node.get("track_objects", False)),
            not_networks=self.globs(node["not_networks"], path + ["not_networks"]) if "not_networks" in node else None,
            causes=tuple((k, tuple(sorted(v.items()))) for k, v in sorted((node.get("causes") or {}).items())),
        )
        if spec.track == "state":
            known = set(spec.states)
            if not spec.states or spec.initial not in known:
                raise self.fail(path + ["initial"], "a state flow needs `states` and an `initial` state among them")
            for i, t in enumerate(spec.transitions):
                targets = [t.to] if t.to else list(t.to_from_arg[1:3]) if t.to_from_arg else []
                if not targets:
                    raise self.fail(path + ["transitions", i], "a transition needs `to` or `to_from_arg`")
                for s in targets:
                    if s not in known:
                        raise self.fail(path + ["transitions", i], f"unknown state {s!r} (states: {sorted(known)})")
            for s in spec.bad_states:
                if s not in known:
                    raise self.fail(path + ["bad_states"], f"unknown state {s!r}")
            if not spec.bad_states:
                raise self.fail(path, "a state flow needs `bad_states`")
        elif not spec.sources:
            raise self.fail(path, "a value flow needs `sources`")
        return spec


def _pointer(path: Sequence[Any]) -> str:
    return "/" + "/".join(str(p) for p in path) if path else ""


def validate_schema(doc: YamlDoc) -> None:
    """Validate against the JSON Schema; report the most specific error with its line."""
    import jsonschema  # imported lazily: not needed when compiled rules come from the cache

    validator = jsonschema.Draft202012Validator(rule_schema())
    errors = sorted(validator.iter_errors(doc.data), key=lambda e: (-len(list(e.absolute_path)), str(e.message)))
    if not errors:
        return
    best = jsonschema.exceptions.best_match(errors) or errors[0]
    err = best
    # For anyOf/oneOf failures, descend to the deepest sub-error: it names the real problem.
    while err.context:
        err = sorted(err.context, key=lambda e: -len(list(e.absolute_path)))[0]
    path = list(err.absolute_path)
    msg = err.message
    if err.validator == "additionalProperties":
        extra = [k for k in (err.instance or {}) if k not in (err.schema.get("properties") or {})]
        names = ", ".join(repr(k) for k in extra) or msg
        msg = f"unknown key {names}"
        if any(isinstance(k, bool) for k in extra):
            msg += " (YAML reads unquoted on/off/yes/no as booleans: quote the key)"
        allowed = sorted(k for k in (err.schema.get("properties") or {}))
        if allowed:
            msg += f"; expected one of: {', '.join(allowed)}"
        if extra:
            # point at the offending key itself, not at the mapping that holds it
            line = doc.line_of(path + [extra[0]])
            raise RuleFileError(doc.path, msg, line, _pointer(path))
    raise RuleFileError(doc.path, msg, doc.line_of(path), _pointer(path))


def build_rule(doc: YamlDoc, validate: bool = True) -> CompiledRule:
    """Compile one rule file (validated first unless the caller already did)."""
    data = doc.data
    if not isinstance(data, dict):
        raise RuleFileError(doc.path, "a rule file must be a YAML mapping", 1)
    if validate:
        validate_schema(doc)
    b = _Builder(doc)
    stem = os.path.splitext(os.path.basename(doc.path))[0]
    if data["name"] != stem:
        raise b.fail(["name"], f"rule name {data['name']!r} must equal the file name {stem!r}")
    match = data["match"]
    kind = next(iter(match))
    if kind == "call":
        spec: Any = b.call_pattern(match["call"], ["match", "call"])
    elif kind == "flow":
        spec = b.flow(match["flow"], ["match", "flow"])
    elif kind == "absent":
        a = match["absent"]
        p = ["match", "absent"]
        spec = AbsentSpec(
            scope=a["scope"],
            require=tuple(b.call_pattern(x, p + ["require", i]) for i, x in enumerate(a["require"])),
            entry_role=a.get("entry_role"),
            framework=a.get("framework"),
            trigger=b.call_pattern(a["trigger"], p + ["trigger"]) if "trigger" in a else None,
            report_at=a.get("report_at", "main-path" if a["scope"] == "entry" else "trigger"),
            unknown_may_satisfy=b.regex(a["unknown_may_satisfy"], p + ["unknown_may_satisfy"]) if "unknown_may_satisfy" in a else None,
        )
        if spec.scope != "entry" and spec.trigger is None:
            raise b.fail(p, f"an absence rule with scope {spec.scope!r} needs a `trigger`")
    else:
        s = match["sequence"]
        p = ["match", "sequence"]

        def patterns(key: str) -> Tuple[CallPattern, ...]:
            v = s[key]
            items = [v] if isinstance(v, dict) else v
            return tuple(b.call_pattern(x, p + [key, i]) for i, x in enumerate(items))

        spec = SequenceSpec(layer=b.call_pattern(s["layer"], p + ["layer"]),
                            not_followed_by=patterns("not_followed_by"), until=patterns("until"),
                            output=patterns("output") if "output" in s else ())
    severity_if: List[Dict[str, Any]] = []
    for i, adj in enumerate(data.get("severity_if", ())):
        adj = dict(adj)
        if isinstance(adj["when"], dict) and "entry_reaches" in adj["when"]:
            if kind != "absent" or spec.scope != "entry":
                raise b.fail(["severity_if", i, "when"], "`entry_reaches` needs an absence rule of scope `entry`")
            adj["reaches"] = tuple(b.call_pattern(x, ["severity_if", i, "when", "entry_reaches", j])
                                   for j, x in enumerate(adj["when"]["entry_reaches"]))
        elif isinstance(adj["when"], dict) and "entry_path" in adj["when"]:
            if kind != "absent" or spec.scope != "entry":
                raise b.fail(["severity_if", i, "when"], "`entry_path` needs an absence rule of scope `entry`")
            adj["entry_path"] = b.regex(adj["when"]["entry_path"], ["severity_if", i, "when", "entry_path"])
        elif isinstance(adj["when"], dict) and "entry_reaches_none" in adj["when"]:
            if kind != "absent" or spec.scope != "entry":
                raise b.fail(["severity_if", i, "when"], "`entry_reaches_none` needs an absence rule of scope `entry`")
            adj["reaches_none"] = tuple(b.call_pattern(x, ["severity_if", i, "when", "entry_reaches_none", j])
                                        for j, x in enumerate(adj["when"]["entry_reaches_none"]))
            adj["unknown_rx"] = b.regex(adj["when"]["unknown_may_reach"], ["severity_if", i, "when", "unknown_may_reach"])
        elif isinstance(adj["when"], dict) and "network_layers" in adj["when"]:
            if kind != "call":
                raise b.fail(["severity_if", i, "when"], "`network_layers` needs a call rule (it looks at an argument of the matched call)")
            nl = adj["when"]["network_layers"]
            q = ["severity_if", i, "when", "network_layers"]
            adj["layers"] = (nl["arg"], b.globs(nl["has"], q + ["has"]), b.globs(nl["lacks"], q + ["lacks"]))
        elif isinstance(adj["when"], dict):
            if kind not in ("call", "sequence"):
                raise b.fail(["severity_if", i, "when"], "a predicate `when` needs a call or sequence rule (it is tested on the matched call)")
            adj["pred"] = b.pred(adj["when"], ["severity_if", i, "when"])
        severity_if.append(adj)
    report_at = (data.get("report") or {}).get("at", "call")
    if report_at.startswith("arg:"):
        b.arg_names.append(report_at[4:])
    grouping = (data.get("report") or {}).get("group_by_cause")
    if grouping is not None:
        if kind != "call":
            raise b.fail(["report", "group_by_cause"], "`group_by_cause` needs a call rule (it groups matched calls)")
        if ("arg" in grouping) == ("pipeline" in grouping):
            raise b.fail(["report", "group_by_cause"], "`group_by_cause` needs either `arg` or `pipeline: true`")
        if "pipeline" in grouping:
            grouping = {"arg": "pipeline", "at": grouping["at"]}
        elif grouping["arg"] not in b.arg_names:
            raise b.fail(["report", "group_by_cause", "arg"],
                         f"`{grouping['arg']}` is not an argument whose value the rule tests "
                         f"({', '.join(sorted(set(b.arg_names))) or 'none'})")
    allowed = BUILTIN_PLACEHOLDERS | {a.split(".")[0] for a in b.arg_names} | set(b.arg_names)
    for lang in ("en", "zh"):
        for m in _PLACEHOLDER.finditer(data["message"][lang]):
            head = m.group(1).split(".")[0]
            if head not in allowed:
                raise b.fail(["message", lang], f"unknown placeholder {{{m.group(1)}}}: use an argument the rule tests "
                                                f"({', '.join(sorted(set(b.arg_names))) or 'none'}) or one of {', '.join(sorted(BUILTIN_PLACEHOLDERS))}")
    if data.get("versions"):
        try:
            version_in((1,), data["versions"])
        except ValueError as exc:
            raise b.fail(["versions"], str(exc)) from None
    fixes: Tuple[Any, ...] = ()
    if "fix" in data:
        # only rules with a fix need the fix compiler (start-up time)
        from linter.compiler.fixes import compile_fixes

        fixes = compile_fixes(b, data["fix"], kind, allowed)
    examples: List[Example] = []
    for kind_name in ("invalid", "valid", "todo_invalid"):
        for i, ex in enumerate(data["examples"].get(kind_name, ())):
            fixed = unsafe_fixed = None
            if isinstance(ex, str):
                files: Tuple[Tuple[str, str], ...] = (("example.py", ex),)
            elif "code" in ex:
                files = (("example.py", ex["code"]),)
                fixed = (("example.py", ex["fixed"]),) if "fixed" in ex else None
                unsafe_fixed = (("example.py", ex["unsafe_fixed"]),) if "unsafe_fixed" in ex else None
            else:
                files = tuple(sorted(ex["files"].items()))
                fixed = tuple(sorted(ex["fixed"].items())) if "fixed" in ex else None
                unsafe_fixed = tuple(sorted(ex["unsafe_fixed"].items())) if "unsafe_fixed" in ex else None
            if (fixed or unsafe_fixed) and not fixes:
                raise b.fail(["examples", kind_name, i], "`fixed`/`unsafe_fixed` given but the rule has no `fix`")
            names = {path for path, _ in files}
            for path, _ in (fixed or ()) + (unsafe_fixed or ()):
                if path not in names:
                    raise b.fail(["examples", kind_name, i], f"fixed file {path!r} is not one of the example's files")
            examples.append(Example(files, kind_name, i, doc.line_of(["examples", kind_name, i]), fixed, unsafe_fixed))
    return CompiledRule(
        id=data["id"], name=data["name"], checklist=data["checklist"], framework=data["framework"],
        severity=data["severity"], title=data["title"], message=data["message"], docs=data["docs"],
        kind=kind, spec=spec, examples=examples, path=doc.path, line=doc.line_of([]) or 1,
        tags=tuple(data.get("tags", ())), versions=data.get("versions"),
        severity_if=tuple(severity_if), report_at=report_at, raw=data, fixes=fixes,
        default_on=bool(data.get("default", True)), once_per=(data.get("report") or {}).get("once_per", ""),
        group_by_cause=(grouping["arg"], grouping["at"]) if grouping is not None else (),
    )


def check_unique(rules: Sequence[CompiledRule]) -> None:
    """Ids and names must be unique across every loaded pack."""
    seen: Dict[str, CompiledRule] = {}
    for r in rules:
        for key in (r.id, r.name):
            other = seen.get(key)
            if other is not None and other is not r:
                raise RuleFileError(r.path, f"duplicate rule {'id' if key == r.id else 'name'} {key!r} (also in {other.path})",
                                    r.line, "/id" if key == r.id else "/name")
            seen[key] = r
