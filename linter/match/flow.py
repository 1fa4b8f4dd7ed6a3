"""Stage 5f: flow rules — a state machine (``track: state``) or taint (``track: value``).

State machines (train/eval mode, a GradScaler's scaled/unscaled gradients) run over the
statement IR: branches are joined, loops run until their states settle, ``return`` ends a
path. Every abstract state remembers its *origin*:

* ``I`` — the framework's initial state, from the start of an entry script;
* ``E`` — whatever the caller had (symbolic, used to summarise helpers);
* ``L`` — set by a transition in this function (with the call that set it).

A finding is reported in the function where the bad state is established: at the sink, or
at the call of a helper that reaches a sink. For the initial state of ``loop_sinks`` rules
that is the call inside the loop that runs the step. Helpers are summarised (exit states,
whether a sink is reachable from entry), so a ``set_train(False)`` in ``evaluate()`` of
another file counts where ``evaluate()`` is called.

Taint (loss-scaled gradients) follows values through the reaching definitions computed at
extraction: a call's result carries the taint of its arguments unless it is a sanitizer;
project functions are summarised (which parameters reach the return, which reach a sink),
``partial``/``hyper_map`` apply their function to the elements, and dispatch registries
(``MultitypeFuncGraph``) use their registered implementations. A sink whose argument is
tainted by a source of its own function is reported there; one tainted only through a
parameter is reported at the call sites that pass a tainted value.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from linter.compiler.build import CompiledRule, Effect, FlowSpec
from linter.core.model import Finding
from linter.facts.ir import iter_returns, last_sid, walk
from linter.facts.model import Expr, Stmt
from linter.index.apis import Param as ApiParam
from linter.index.project import bind_args
from linter.index.values import Bound, Cls, Ext, Func, Obj, ordered
from linter.match.context import MatchContext
from linter.match.findings import make_finding, render
from linter.match.predicates import arg_values, code_scopes
from linter.match.severity import adjust, mode_layer_globs
from linter.program.training import direct_parts, frozen_objects, parts, trained_objects, updated_by

Site = Tuple[int, int]
CallKey = Tuple[int, int]


def _label(mc: MatchContext, fi: int, cid: int) -> str:
    call = mc.p.files[fi].calls[cid]
    args = ", ".join(a.text if len(a.text) <= 24 else a.text[:21] + "..." for a in call.args)
    head = call.dotted or "(...)"
    return f"`{head}({args})` ({mc.p.files[fi].path}:{call.line})"


def run_flow_rule(rule: CompiledRule, mc: MatchContext, files: Sequence[int], lang: str) -> List[Finding]:
    if rule.spec.track == "state":
        return StateFlow(rule, mc, lang).run(files)
    return TaintFlow(rule, mc, lang).run(files)


# ============================================================================ state machines
@dataclass
class _Event:
    sink: bool = False
    to: Optional[FrozenSet[str]] = None
    label: str = ""
    with_enter: Optional[FrozenSet[str]] = None
    with_exit: Optional[FrozenSet[str]] = None


Key = Tuple[Any, ...]
"""Whose state: ``ANY`` (every object not tracked separately), ``("o", file, call)`` an object
created at that call, or ``("p", file, function, name)`` a parameter of a summarised helper."""
ANY: Key = ("*",)
Entry = Tuple[Key, Any, Any]
"""(key, state or None for "whatever the caller had", origin)."""
State = FrozenSet[Entry]


@dataclass
class _Summary:
    exits: State = frozenset()
    """The function's state at its exits, from a symbolic entry (state None = unchanged)."""
    sink_keys: FrozenSet[Key] = frozenset()
    """Objects whose entry state reaches a sink (the caller checks them at the call)."""
    sink_sites: FrozenSet[CallKey] = frozenset()
    """Direct sinks reachable from the function's entry without a transition (nested helpers included)."""
    by_param: Tuple[Tuple[str, FrozenSet[Key]], ...] = ()
    """Sink keys met only where the function calls one of its parameters (``train_step(x, y)``
    with ``train_step`` passed in): a caller replaces them by what it passes."""
    own_keys: FrozenSet[Key] = frozenset()
    """Sink keys met at calls that are not of a parameter."""
    loop_sink: bool = False
    """A sink under entry runs inside a loop of this function or of a helper it calls."""
    @property
    def sink(self) -> bool:
        return bool(self.sink_sites)


@dataclass
class _Frame:
    fi: int
    scope: int
    summary_mode: bool
    exits: List[State] = field(default_factory=list)
    """The state at each ``return`` (one whole state per path)."""
    sink_sites: Set[CallKey] = field(default_factory=set)
    sink_keys: Set[Key] = field(default_factory=set)
    param_keys: Dict[str, Set[Key]] = field(default_factory=dict)
    own_keys: Set[Key] = field(default_factory=set)
    loop_sink: bool = False
    loop_depth: int = 0


_TENSOR_METHODS = frozenset({"reshape", "view", "sum", "mean", "pow", "exp", "log", "abs", "sqrt", "matmul", "mm",
                             "transpose", "t", "squeeze", "unsqueeze", "expand_dims", "flatten", "clip", "clamp",
                             "max", "min", "argmax", "astype", "float", "asnumpy", "item", "shape", "size",
                             "norm", "square", "mul", "add", "sub", "div", "dot"})
"""Methods of tensors: calling them runs no network (a Cell has none of these)."""

_ENTRY = ("E",)
_INITIAL = ("I",)


_BY_KEY: Dict[State, Dict[Key, List[Tuple[Any, Any]]]] = {}
"""Each state set grouped by object once (states are immutable and asked about many times)."""


def _grouped(S: State) -> Dict[Key, List[Tuple[Any, Any]]]:
    by_key = _BY_KEY.get(S)
    if by_key is None:
        if len(_BY_KEY) > 2_000:
            _BY_KEY.clear()   # bounded: a rule's states are few at a time
        by_key = {}
        for kk, s, o in S:
            by_key.setdefault(kk, []).append((s, o))
        _BY_KEY[S] = by_key
    return by_key


def _lookup(S: State, k: Key) -> List[Tuple[Any, Any]]:
    """The possible (state, origin) of object ``k``: its own entries, else the ``ANY`` ones."""
    by_key = _grouped(S)
    own = by_key.get(k)
    return list(own) if own else list(by_key.get(ANY, ()))


def _join(a: State, b: State) -> State:
    """Union of two paths' states; an object tracked on one path only gets the other path's
    ``ANY`` entries, so no possibility is lost. (Every entry of either side is in the union; what
    is added is the other side's ``ANY`` entries for the objects it does not track — computed by
    set operations, as joins run at every branch and loop of every function.)"""
    if a == b or not b:
        return a
    if not a:
        return b
    ga, gb = _grouped(a), _grouped(b)
    any_a, any_b = ga.get(ANY), gb.get(ANY)
    extra: List[Entry] = []
    if any_a:
        extra += [(k, s, o) for k in gb.keys() - ga.keys() for s, o in any_a]
    if any_b:
        extra += [(k, s, o) for k in ga.keys() - gb.keys() for s, o in any_b]
    return a | b | frozenset(extra) if extra else a | b


class StateFlow:
    """See the module docstring. Where a finding goes:

    * a direct sink reached in a bad state: at the sink;
    * a helper reaching a sink, called in a bad state: inside the helper (at its sinks) when
      every call site of the helper may be bad, at the call site when the helper is also
      called correctly (a shared utility); for ``loop_sinks`` rules, at the call when it is
      inside a loop (the training step of the loop).

    With ``track_objects`` the state is kept per object: a transition acts on its receiver
    and the objects it wraps, a sink checks the networks it trains; without it every key is
    ``ANY`` (one state per script).
    """
    def __init__(self, rule: CompiledRule, mc: MatchContext, lang: str) -> None:
        self.rule = rule
        self.spec: FlowSpec = rule.spec
        self.mc = mc
        self.p = mc.p
        self.lang = lang
        self.events: Dict[CallKey, _Event] = {}
        self.relevant: Set[Site] = set()
        self.summaries: Dict[Site, _Summary] = {}
        self.active: Set[Site] = set()
        self.reports: Dict[CallKey, Dict[str, Any]] = {}
        self.initial_into: Dict[Site, State] = {}
        self.pending: List[Tuple[CallKey, Func, str, Any, str]] = []
        self.callsite_bad: Dict[Func, Dict[CallKey, bool]] = {}
        self.bad = frozenset(self.spec.bad_states)
        self.objects = self.spec.track_objects
        self._child_cache: Dict[Key, FrozenSet[Key]] = {}
        self._network_cache: Dict[CallKey, FrozenSet[Key]] = {}
        self._inside_trained: Optional[Set[Tuple[int, int]]] = None
        self._cold: Optional[Set[Tuple[int, int]]] = None

    # ------------------------------------------------------------------ events
    def _collect_events(self) -> None:
        allfiles = range(len(self.p.files))
        fw = self.rule.framework
        mc = self.mc
        for eff in self.spec.transitions:
            assert eff.pattern is not None
            pattern = eff.pattern
            for fi, cid in mc.candidates(pattern, allfiles):
                site = mc.isolated(fi, lambda: mc.match(pattern, fi, cid, framework=fw), None)
                if site is None:
                    continue
                targets = mc.isolated(fi, lambda: self._targets(eff, site), None)
                if targets is None:
                    continue
                ev = self.events.setdefault((fi, cid), _Event(label=_label(mc, fi, cid)))
                if eff.kind == "with":
                    if eff.on == "exit":
                        ev.with_exit = targets
                    else:
                        ev.with_enter = targets
                else:
                    ev.to = targets
        for eff in self.spec.sinks:
            assert eff.pattern is not None
            pattern = eff.pattern
            for fi, cid in mc.candidates(pattern, allfiles):
                if mc.isolated(fi, lambda: mc.match(pattern, fi, cid, framework=fw), None) is not None:
                    self.events.setdefault((fi, cid), _Event(label=_label(mc, fi, cid))).sink = True

    def _targets(self, eff: Effect, site: Any) -> FrozenSet[str]:
        if eff.to is not None:
            return frozenset((eff.to,))
        assert eff.to_from_arg is not None
        arg, when_true, when_false, position, default = eff.to_from_arg

        a = site.arg(arg)
        if a is None and site.params is None and position is not None:
            a = site.arg(str(position))  # untyped receiver: take the argument by position
        if a is None and site.params is None and default is not None and not site.call.args:
            return frozenset((when_true if default else when_false,))
        vals, known = arg_values(site, self.mc, a, arg, True)
        out = set()
        for v in vals:
            out.add(when_true if v.value else when_false)
        if not known or not vals:
            out |= {when_true, when_false}
        return frozenset(out)

    def _relevant_sites(self) -> None:
        self.relevant |= self.p.calling_scopes(
            ((fi, self.p.files[fi].calls[cid].scope) for fi, cid in self.events), instances=True, resolved=True)

    # ------------------------------------------------------------------ objects
    def _keys(self, fi: int, scope: int, e: Expr) -> FrozenSet[Key]:
        """The objects an expression may denote (``ANY`` when unknown or not tracking)."""
        if not self.objects:
            return frozenset((ANY,))
        out: Set[Key] = set()
        # Parameters are expanded through their call sites, so a helper's `net` and the
        # object the script passes to it are one key (context-insensitive, alias-safe).
        for v in self.p.expand_params(self.p.values(fi, scope, e)):
            if isinstance(v, Obj) and v.origin != (-1, -1):
                out.add(("o",) + tuple(v.origin))
            else:
                out.add(ANY)
        return frozenset(out) if out else frozenset((ANY,))

    def _direct_children(self, k: Key) -> Set[Key]:
        """Objects a wrapper or container was built from, and the layers a project network
        holds as attributes: what ``set_train`` on it reaches (the same parts as
        :func:`linter.program.training.parts` follows)."""
        return {("o",) + tuple(o) for o in direct_parts(self.mc.program, (k[1], k[2]))}

    def _children(self, k: Key) -> FrozenSet[Key]:
        """Every object below ``k`` (transitively; bounded)."""
        if k[0] != "o":
            return frozenset()
        hit = self._child_cache.get(k)
        if hit is not None:
            return hit
        seen: Set[Key] = set()
        todo = [k]
        while todo and len(seen) < 5000:
            cur = todo.pop()
            for c in self._direct_children(cur):
                if c not in seen and c != k:
                    seen.add(c)
                    todo.append(c)
        result = frozenset(seen)
        self._child_cache[k] = result
        return result

    def _with_children(self, keys: FrozenSet[Key]) -> FrozenSet[Key]:
        out = set(keys)
        for k in keys:
            out |= self._children(k)
        return frozenset(out)

    def _is_network(self, k: Key) -> bool:
        """Not a wrapper, loss or optimizer (the rule's ``not_networks``)."""
        if k[0] != "o" or self.spec.not_networks is None:
            return True
        types = self.mc.created_types(k[1], k[2]) or list(self.p.call_names(k[1], k[2]))
        return not self.spec.not_networks.any(types)

    def _networks(self, fi: int, cid: int) -> FrozenSet[Key]:
        """The networks a sink trains or runs."""
        key = (fi, cid)
        hit = self._network_cache.get(key)
        if hit is not None:
            return hit
        out = frozenset((ANY,))
        if self.objects:
            out = self._networks_uncached(fi, cid)
        self._network_cache[key] = out
        return out

    def _networks_uncached(self, fi: int, cid: int) -> FrozenSet[Key]:
        call = self.p.files[fi].calls[cid]
        # a function made by value_and_grad: the networks whose parameters it differentiates
        origins, complete = self.mc.origin_calls(fi, call.scope, call.func)
        for ofi, ocid in origins:
            names = self.p.call_names(ofi, ocid)
            if any(n.endswith(("value_and_grad", ".grad")) for n in names):
                trained = self._trained_networks(ofi, ocid)
                if trained:
                    return self._mode_layers(trained)
        if origins and complete and all(self._grad_of_plain_code(ofi, ocid) for ofi, ocid in origins):
            return frozenset()   # gradients of code that runs no network: no mode to be in
        keys = self._keys(fi, call.scope, call.func)
        if keys == frozenset((ANY,)):
            return keys
        return self._mode_layers(keys, self._step_optimizers(keys))

    def _step_optimizers(self, keys: FrozenSet[Key]) -> FrozenSet[Tuple[int, int]]:
        """Where the optimizers handed to these train-one-step objects are built (their
        ``optimizer`` argument); empty when one of them has none that can be traced."""
        out: Set[Tuple[int, int]] = set()
        for k in keys:
            if k[0] != "o":
                return frozenset()
            names = self.p.call_names(k[1], k[2])
            if not names:
                return frozenset()
            site = self.mc.bind(k[1], k[2], names, names[0])
            a = site.arg("optimizer")
            if a is None:
                return frozenset()
            calls, complete = self.mc.origin_calls(k[1], site.call.scope, a.value)
            if not calls or not complete:
                return frozenset()
            out.update(calls)
        return frozenset(out)

    def _mode_layers(self, keys: FrozenSet[Key], optimizers: FrozenSet[Tuple[int, int]] = frozenset()) -> FrozenSet[Key]:
        """What a step on ``keys`` depends on: the mode-dependent layers (Dropout, BatchNorm...)
        inside them — ``set_train`` on any ancestor reaches those. Without known layers: the
        networks themselves (wrappers, losses and optimizers replaced by what they wrap)."""
        globs = mode_layer_globs(self.mc, self.rule.framework)
        layers: Set[Key] = set()
        for k in keys:
            for d in {k} | self._children(k):
                if d[0] == "o" and globs.any(self.mc.created_types(d[1], d[2]) or self.p.call_names(d[1], d[2])):
                    layers.add(d)
        if layers and self.spec.trained_only:
            layers = self._trained_layers(layers, optimizers)
            if not layers:
                return frozenset()   # only frozen networks' layers (a distillation teacher): nothing to check
        if layers:
            return frozenset(layers)
        nets: Set[Key] = set()
        for k in keys:
            if self._is_network(k):
                nets.add(k)
            else:
                inner = [c for c in self._children(k) if self._is_network(c)]
                nets |= set(inner) if inner else {k}
        # A network that wraps another of them (a loss cell around the model: `LossNet(net)`) is
        # switched with it for all that is known of its layers: the innermost ones decide
        # (`net.set_train(True)` before `TrainOneStepCell(LossNet(net), opt)` runs)
        wrapped = {k for k in nets if k[0] == "o" and nets & (self._children(k) - {k})}
        return frozenset(nets - wrapped) if nets - wrapped else frozenset(nets)

    def _trained_layers(self, layers: Set[Key], optimizers: FrozenSet[Tuple[int, int]] = frozenset()) -> Set[Key]:
        """The layers that belong to a network some optimizer updates — the step's own
        optimizers when they are known (a GAN's generator step leaves the discriminator in
        inference mode on purpose: another step trains it); all of them when no optimizer's
        parameters are known (unknown must not silence)."""
        trained = trained_objects(self.mc.program)
        if not trained:
            return layers
        def inside(objects: Iterable[Tuple[int, int]]) -> Set[Tuple[int, int]]:
            out: Set[Tuple[int, int]] = set()
            for t in objects:
                out.add(t)
                out |= parts(self.mc.program, t)
            return out

        if self._cold is None:
            # a backbone whose parameters are frozen (`p.requires_grad = False`) is not trained,
            # whatever optimizer its parameters are handed to: its mode is the program's choice
            self._cold = inside(frozen_objects(self.mc.program))
        if self._cold:
            layers = {d for d in layers if (d[1], d[2]) not in self._cold}
            if not layers:
                return layers
        if optimizers:
            mine = sorted({t for opt in optimizers for t in updated_by(self.mc.program, opt)})
            if mine:
                own = inside(mine)
                return {d for d in layers if (d[1], d[2]) in own}
        if self._inside_trained is None:   # once per run: per question it costs questions × networks
            self._inside_trained = inside(trained)
        return {d for d in layers if (d[1], d[2]) in self._inside_trained}

    def _grad_of_plain_code(self, fi: int, cid: int) -> bool:
        """``grad(relu)``, ``value_and_grad(forward_fn, (2, 3))`` over functions of tensors and
        parameters: the differentiated project code (and what it calls, two levels down) runs no
        network — every call in it is a known function, never an instance of a class — and no
        ``weights`` are asked for, so no Cell is trained here and its mode cannot matter
        (d2l's plots of an activation's derivative, its linear regression from scratch)."""
        names = self.p.call_names(fi, cid)
        if not any(n.endswith(("value_and_grad", ".grad")) for n in names):
            return False
        call = self.p.files[fi].calls[cid]
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if any(a.star for a in call.args) or not positional or len(positional) > 2 or \
                any(a.keyword == "weights" for a in call.args):
            return False
        fn_vals = self.p.values(fi, call.scope, positional[0].value)
        if not fn_vals or not all(isinstance(v, Func) or (isinstance(v, Ext) and not self.p.apis.is_class(v.qual))
                                  for v in fn_vals):
            return False   # `grad(ops.relu)`: a framework function; a class or an unknown value may be a network
        for sfi, sscope in code_scopes(self.mc, fi, call.scope, positional[0].value):
            facts = self.p.files[sfi]
            for ccid, c in enumerate(facts.calls):
                if c.scope != sscope:
                    continue
                if c.func[0] == "attr" and c.func[2] in _TENSOR_METHODS:
                    continue   # `y.reshape(...)`, `(x ** 2).sum()`: arithmetic on tensors
                vals = self.p.expand_params(self.p.callee_values(sfi, ccid))
                if not vals or not all(isinstance(v, Func) or (isinstance(v, Ext) and not self.p.apis.is_class(v.qual))
                                       for v in vals):
                    return False
        return True

    def _trained_networks(self, fi: int, cid: int) -> FrozenSet[Key]:
        """``value_and_grad(fn, None, optimizer.parameters)`` → the network behind the parameters."""
        call = self.p.files[fi].calls[cid]
        weights = next((a for a in call.args if a.keyword == "weights"), None)
        if weights is None:
            positional = [a for a in call.args if a.keyword is None]
            weights = positional[2] if len(positional) > 2 else None
        if weights is None:
            return frozenset()
        return self._param_owner(fi, call.scope, weights.value, 0)

    def _param_owner(self, fi: int, scope: int, e: Expr, depth: int) -> FrozenSet[Key]:
        if depth > 6:
            return frozenset()
        tag = e[0]
        if tag == "call":
            c = self.p.files[fi].calls[e[1]]
            if c.func[0] == "attr" and c.func[2] in ("trainable_params", "get_parameters", "parameters"):
                return frozenset(k for k in self._keys(fi, c.scope, c.func[1]) if k != ANY)
            return frozenset()
        if tag == "attr" and e[2] in ("parameters", "trainable_params"):
            out: Set[Key] = set()
            for v in self.p.expand_params(self.p.values(fi, scope, e[1])):
                if isinstance(v, Obj) and v.file >= 0 and v.call >= 0:
                    ctor = self.p.files[v.file].calls[v.call]
                    if ctor.args:
                        out |= self._param_owner(v.file, ctor.scope, ctor.args[0].value, depth + 1)
            return frozenset(out)
        if tag in ("name", "attr"):
            out = set()
            for sfi, sscope, sexpr, _l, _v in self.p.defining_exprs(fi, scope, e):
                if sexpr is not None:
                    out |= self._param_owner(sfi, sscope, sexpr, depth + 1)
            return frozenset(out)
        return frozenset()

    def _set(self, S: State, keys: FrozenSet[Key], targets: FrozenSet[str], origin: Any) -> State:
        if not self.objects:
            return frozenset((ANY, t, origin) for t in targets)  # one state for the whole script
        if ANY in keys:
            if not (targets & self.bad):
                # an unknown receiver may well be the network: a move to a good state applies to all
                ks = {k for k, _, _ in S} | {ANY}
                return frozenset((k, t, origin) for k in ks for t in targets)
            keys = keys - {ANY}  # ...but a move to a bad state is not pinned on objects it may not touch
            if not keys:
                return S
        keys = self._with_children(keys)
        kept = {(k, s, o) for k, s, o in S if k not in keys}
        if not any(k == ANY for k, _, _ in kept):
            kept |= {(ANY, s, o) for k, s, o in S if k == ANY}
        return frozenset(kept | {(k, t, origin) for k in keys for t in targets})

    # ------------------------------------------------------------------ run
    def run(self, files: Sequence[int]) -> List[Finding]:
        self._collect_events()
        if not any(ev.sink for ev in self.events.values()):
            return []
        self._relevant_sites()
        # Phase 1: every relevant function, from a symbolic entry: summaries, and findings
        # whose bad state is set inside the function.
        for site in sorted(self.relevant):
            self.summary(site)
        # Phase 2: the initial state, from the module code of entry scripts into the helpers
        # it reaches unreported.
        todo: List[Tuple[Site, State]] = [((e, 0), frozenset(((ANY, self.spec.initial, _INITIAL),)))
                                          for e in self.mc.roles.entries() if (e, 0) in self.relevant]
        done: Set[Site] = set()
        while todo:
            site, entry = todo.pop(0)
            if site in done:
                continue
            done.add(site)
            frame = _Frame(site[0], site[1], summary_mode=False)
            self.mc.isolated(site[0], lambda: self._exec_block(frame, self.p.files[site[0]].funcs[site[1]].body, entry),
                             None)
            for nxt in sorted(set(self.initial_into) - done):
                todo.append((nxt, self.initial_into[nxt]))
        self._resolve_pending()
        linted = set(files)
        out = []
        seen = set()
        for (fi, cid), info in sorted(self.reports.items()):
            # one problem, one finding: the sinks of one function in the same bad state set by
            # the same calls (an evaluation loop calling the network's layers one by one)
            key = (fi, self.p.files[fi].calls[cid].scope, info["state"], tuple(sorted(info["kinds"])),
                   tuple(info["set_by"]), self.p.files[fi].calls[cid].dotted)
            if fi in linted and key not in seen:
                seen.add(key)
                out.append(self._finding(fi, cid, info))
        return out

    def _resolve_pending(self) -> None:
        """Helpers called in a bad state: report inside them unless they are also called correctly."""
        for (fi, cid), helper, kind, origin, state in self.pending:
            sites = self.callsite_bad.get(helper, {})
            shared = any(not bad for bad in sites.values())
            if shared:
                self._report(fi, cid, kind, origin, state, helper)
                continue
            where = f"{self.p.files[fi].path}:{self.p.files[fi].calls[cid].line}"
            for sfi, scid in sorted(self.summary((helper.file, helper.index)).sink_sites):
                self._report(sfi, scid, kind, origin, state, None, called_at=where)

    def summary(self, site: Site) -> _Summary:
        hit = self.summaries.get(site)
        if hit is not None:
            return hit
        if site in self.active:
            return _Summary(exits=frozenset(((ANY, None, _ENTRY),)))
        self.active.add(site)
        try:
            # a function the interpreter trips on changes nothing and reaches no sink
            summ = self.mc.isolated(site[0], lambda: self._summarise(site),
                                    _Summary(exits=frozenset(((ANY, None, _ENTRY),))))
        finally:
            self.active.discard(site)
        self.summaries[site] = summ
        return summ

    def _summarise(self, site: Site) -> _Summary:
        frame = _Frame(site[0], site[1], summary_mode=True)
        end = self._exec_block(frame, self.p.files[site[0]].funcs[site[1]].body, frozenset(((ANY, None, _ENTRY),)))
        exits = end
        for path in frame.exits:
            exits = _join(exits, path)
        return _Summary(exits=frozenset(exits), sink_keys=frozenset(frame.sink_keys),
                        sink_sites=frozenset(frame.sink_sites), loop_sink=frame.loop_sink,
                        by_param=tuple(sorted((n, frozenset(ks)) for n, ks in frame.param_keys.items())),
                        own_keys=frozenset(frame.own_keys))

    # ------------------------------------------------------------------ interpreter
    def _exec_block(self, fr: _Frame, block: Sequence[Stmt], S: State) -> State:
        for st in block:
            if not S:
                break
            S = self._exec_stmt(fr, st, S)
        return S

    def _header(self, fr: _Frame, st: Stmt, S: State) -> State:
        for cid in self.p.calls_in_stmt(fr.fi, st, fr.scope, header_only=True):
            S = self._on_call(fr, cid, S)
        return S

    def _exec_stmt(self, fr: _Frame, st: Stmt, S: State) -> State:
        tag = st[0]
        if tag in ("def", "class"):
            return S
        if tag in ("expr", "assign", "return", "raise", "import", "break", "continue"):
            S = self._header(fr, st, S)
            if tag == "return":
                fr.exits.append(S)
                return frozenset()
            if tag == "raise":
                return frozenset()
            return S
        if tag == "if":
            S = self._header(fr, st, S)
            return self._join_branches(fr, S, [st[3], st[4]])
        if tag in ("for", "while"):
            S = self._header(fr, st, S)
            body = st[4] if tag == "for" else st[3]
            orelse = st[5] if tag == "for" else st[4]
            fr.loop_depth += 1
            loop_in = S
            for _ in range(3):  # states settle after the second iteration; a third confirms
                end = self._exec_block(fr, body, loop_in)
                nxt = _join(loop_in, end)
                if nxt == loop_in:
                    break
                loop_in = nxt
            fr.loop_depth -= 1
            return self._exec_block(fr, orelse, loop_in) if orelse else loop_in
        if tag == "with":
            S = self._header(fr, st, S)
            items = [e[1] for e, _ids in st[2] if e[0] == "call"]
            for cid in items:
                ev = self.events.get((fr.fi, cid))
                if ev is not None and ev.with_enter is not None:
                    S = self._set(S, frozenset((ANY,)) if not self.objects else self._receiver(fr, cid),
                                  ev.with_enter, self._origin(fr, cid, ev.label))
            S = self._exec_block(fr, st[3], S)
            for cid in reversed(items):
                ev = self.events.get((fr.fi, cid))
                if ev is not None and ev.with_exit is not None and S:
                    S = self._set(S, frozenset((ANY,)) if not self.objects else self._receiver(fr, cid),
                                  ev.with_exit, self._origin(fr, cid, ev.label))
            return S
        if tag == "try":
            body = self._exec_block(fr, st[2], S)
            out = body
            for h in st[3]:
                out = _join(out, self._exec_block(fr, h, _join(S, body)))
            if st[4]:
                out = _join(out, self._exec_block(fr, st[4], body))
            if st[5]:
                out = self._exec_block(fr, st[5], _join(out, S))
            return out
        if tag == "branches":
            S = self._header(fr, st, S)
            return self._join_branches(fr, S, list(st[3]) + [[]])   # [] : no branch taken
        return S

    def _join_branches(self, fr: _Frame, S: State, blocks: List[Sequence[Stmt]]) -> State:
        """The join of exclusive branches. An object built inside one branch (`if
        self.isTrain: self.train_G = TrainOneStep(...); self.train_G.set_train()`) does not
        exist on the others: there its state is the building branch's, not their ``ANY``."""
        ends = [self._exec_block(fr, b, S) for b in blocks]
        if self.objects and len(ends) > 1:
            before = {k for k, _, _ in S}
            for i, (block, end) in enumerate(zip(blocks, ends)):
                made = [k for k in {k for k, _, _ in end} - before
                        if k[0] == "o" and k[1] == fr.fi and self._built_in(fr, k[2], block)]
                for k in made:
                    own = {(kk, s, o) for kk, s, o in end if kk == k}
                    # the objects switched together with it (`step.set_train()` switches the
                    # network inside), for branches that build nothing that could train them
                    origins = {o for _, _, o in own if o[0] == "L"}
                    along = {(kk, s, o) for kk, s, o in end if o in origins and kk not in before}
                    for j, other in enumerate(ends):
                        if j != i and other and not any(kk == k for kk, _, _ in other):
                            ends[j] = other | own
                            if not self._calls_in(fr, blocks[j]):
                                ends[j] = ends[j] | {e for e in along if not any(kk == e[0] for kk, _, _ in other)}
        out = ends[0]
        for end in ends[1:]:
            out = _join(out, end)
        return out

    def _calls_in(self, fr: _Frame, block: Sequence[Stmt]) -> bool:
        """Whether ``block`` (nested blocks included) makes any call."""
        stmts = {st[1] for st in walk(block)}
        return bool(stmts) and any(c.scope == fr.scope and c.stmt in stmts for c in self.p.files[fr.fi].calls)

    def _built_in(self, fr: _Frame, cid: int, block: Sequence[Stmt]) -> bool:
        """Call ``cid`` of the frame's file is a statement of ``block`` (nested ones included)."""
        call = self.p.files[fr.fi].calls[cid]
        return call.scope == fr.scope and any(st[1] == call.stmt for st in walk(block))

    def _receiver(self, fr: _Frame, cid: int) -> FrozenSet[Key]:
        call = self.p.files[fr.fi].calls[cid]
        if call.func[0] == "attr":
            return self._keys(fr.fi, call.scope, call.func[1])
        return frozenset((ANY,))

    def _on_call(self, fr: _Frame, cid: int, S: State) -> State:
        fi = fr.fi
        ev = self.events.get((fi, cid))
        if ev is not None and ev.sink:
            self._check(fr, cid, S, None, self._networks(fi, cid))
        targets = [(t, skip) for t, skip in self.p.call_targets(fi, cid) if (t.file, t.index) in self.relevant]
        if targets:
            acc: State = frozenset()
            for t, skip_self in targets:
                summ = self.summary((t.file, t.index))
                mapping = self._mapping(fr, cid, t, skip_self)
                if summ.sink:
                    keys: Set[Key] = set()
                    for k in self._sink_keys_here(fr, cid, t, summ):
                        keys |= mapping(k)
                    self._check(fr, cid, S, t, frozenset(keys) or frozenset((ANY,)))
                acc = _join(acc, self._apply(S, summ, mapping, fr, cid)) if acc else self._apply(S, summ, mapping, fr, cid)
            S = acc
        if ev is not None and ev.to is not None:
            recv = self._receiver(fr, cid)
            origin = self._origin(fr, cid, ev.label)
            if self.objects and self._single_layer(recv):
                origin = origin + ("layer",)   # `net.decoder.prenet.dropout.set_train(True)`: on purpose
            S = self._set(S, recv, ev.to, origin)
        return S

    def _called_param(self, fr: _Frame, cid: int) -> Optional[str]:
        """The parameter of the frame's function that call ``cid`` calls (``train_step(x, y)``
        inside ``def train_batch(train_step, x, y)``), when the name is bound by nothing else."""
        facts = self.p.files[fr.fi]
        e = facts.calls[cid].func
        if e[0] != "name" or fr.scope <= 0:
            return None
        f = facts.funcs[fr.scope]
        ids = f.defs.get(e[1]) or ()
        if ids and any(x.name == e[1] for x in f.params) and all(facts.assigns[d].value[0] == "param" for d in ids):
            return str(e[1])
        return None

    def _sink_keys_here(self, fr: _Frame, cid: int, t: Func, summ: _Summary) -> FrozenSet[Key]:
        """The objects helper ``t`` trains when called from here: a step it receives as a
        parameter is the one this call passes (d2l's ``train_batch_ch13(train_step, ...)``
        called with this loop's own step), not every step any caller passes."""
        if not summ.by_param:
            return summ.sink_keys
        keys: Set[Key] = set(summ.own_keys)
        bound = None
        for cfi, ccid, b in self.p.callers(t):
            if (cfi, ccid) == (fr.fi, cid):
                bound = b
                break
        scope = self.p.files[fr.fi].calls[cid].scope
        for name, pkeys in summ.by_param:
            a = bound.get(name) if bound is not None else None
            here = self._passed_keys(fr.fi, scope, a.value) if a is not None else None
            keys |= here if here is not None else pkeys
        return frozenset(keys)

    def _passed_keys(self, fi: int, scope: int, e: Any) -> Optional[FrozenSet[Key]]:
        """What a step passed as ``e`` trains: a project function's sink keys, or the networks
        of a train-one-step object; None when the value is not known."""
        vals = self.p.values(fi, scope, e)
        if not vals:
            return None
        funcs = [v for v in vals if isinstance(v, Func)]
        if len(funcs) == len(vals):
            out: Set[Key] = set()
            for f in funcs:
                if (f.file, f.index) not in self.relevant:
                    return None
                out |= self.summary((f.file, f.index)).sink_keys
            return frozenset(out) if out else None
        if all(isinstance(v, Obj) for v in vals):
            keys = self._keys(fi, scope, e)
            if ANY in keys:
                return None
            return self._mode_layers(keys, self._step_optimizers(keys)) or None
        return None

    def _single_layer(self, keys: FrozenSet[Key]) -> bool:
        """The receiver is one mode-dependent layer (a Dropout), not a network: switching it
        alone is deliberate (Tacotron2 keeps its prenet dropout on at inference)."""
        if not keys or ANY in keys:
            return False
        globs = mode_layer_globs(self.mc, self.rule.framework)
        return all(k[0] == "o" and globs.any(self.mc.created_types(k[1], k[2]) or self.p.call_names(k[1], k[2]))
                   for k in keys)

    def _mapping(self, fr: _Frame, cid: int, f: Func, skip_self: bool) -> Any:
        """Translate a helper's object keys into the caller's. Keys are concrete objects
        (parameters are expanded through call sites), so this is the identity."""
        return lambda k: frozenset((k,))

    def _apply(self, S: State, summ: _Summary, mapping: Any, fr: _Frame, cid: int) -> State:
        """The caller's state after a helper: what the helper sets replaces, the rest passes."""
        touched: Dict[Key, Set[Tuple[Any, Any]]] = {}
        any_exits = [(s, o) for k, s, o in summ.exits if k == ANY]
        for k, s, o in summ.exits:
            if k == ANY:
                continue
            for tk in mapping(k):
                touched.setdefault(tk, set()).add((s, o))
        label = _label(self.mc, fr.fi, cid)
        here = self._origin(fr, cid, label)

        def expand(tk: Key, ents: Any) -> Set[Entry]:
            out: Set[Entry] = set()
            for s, o in ents:
                if s is None:
                    out |= {(tk, s2, o2) for s2, o2 in _lookup(S, tk)}
                else:
                    out.add((tk, s, here[:3] + (label + self._inner(o),) + here[4:]))
            return out

        if ANY in touched:
            # the helper acts on an object we cannot name: only a move to a good state is applied
            ents = touched.pop(ANY)
            if not any(s in self.bad for s, _ in ents if s is not None):
                any_exits = list(ents) + [(None, _ENTRY)]
        result: Set[Entry] = set()
        keys = {k for k, _, _ in S if k != ANY} | set(touched)
        for tk in keys:
            result |= expand(tk, touched.get(tk) or any_exits or [(None, _ENTRY)])
        result |= expand(ANY, any_exits or [(None, _ENTRY)])
        return frozenset(result)

    def _origin(self, fr: _Frame, cid: int, label: str) -> Tuple[Any, ...]:
        """A transition made by call ``cid`` of this function: ("L", file, line, label, scope, statement)."""
        call = self.p.files[fr.fi].calls[cid]
        return ("L", fr.fi, call.line, label, fr.scope, call.stmt)

    def _loop_carried(self, fr: _Frame, cid: int, origin: Any) -> bool:
        """Whether the transition behind ``origin`` runs in a loop that also runs call ``cid``."""
        if origin[0] != "L" or origin[4] != fr.scope or origin[1] != fr.fi:
            return False

        stmt = self.p.files[fr.fi].calls[cid].stmt
        for loop in self.mc.loops(fr.fi, fr.scope).get(stmt, ()):
            if loop[1] <= origin[5] <= last_sid(loop):
                return True
        return False

    def _inner(self, origin: Any) -> str:
        if origin[0] == "L" and origin[3]:
            return f" → {origin[3]}"
        return ""

    def _check(self, fr: _Frame, cid: int, S: State, via: Optional[Func], keys: FrozenSet[Key]) -> None:
        in_loop = fr.loop_depth > 0
        if self.objects and ANY in keys:
            # The network of this step is unknown: it may be any tracked object. If one of
            # them is certainly in a good state, it may be the one: say nothing.
            tracked = {k for k, _, _ in S if k != ANY}
            if any(all(st is not None and st not in self.bad for st, _ in _lookup(S, k)) for k in tracked):
                return
        observed: List[Tuple[Key, Any, Any]] = []
        for k in ordered(keys):
            for s, o in _lookup(S, k):
                observed.append((k, s, o))
        if via is not None and any(o != _ENTRY for _, _, o in observed):
            # how this helper is called here: possibly bad, or certainly fine
            bad_here = any(s in self.bad for _, s, o in observed if o != _ENTRY)
            sites = self.callsite_bad.setdefault(via, {})
            sites[(fr.fi, cid)] = sites.get((fr.fi, cid), False) or bad_here
        for k, state, origin in ordered(set(observed)):
            if origin == _ENTRY:
                if fr.summary_mode:
                    fr.sink_keys.add(k)
                    param = self._called_param(fr, cid)
                    if param is not None:
                        fr.param_keys.setdefault(param, set()).add(k)
                    else:
                        fr.own_keys.add(k)
                    if via is None:
                        fr.sink_sites.add((fr.fi, cid))
                        fr.loop_sink = fr.loop_sink or in_loop
                    else:
                        inner = self.summary((via.file, via.index))
                        fr.sink_sites |= inner.sink_sites
                        fr.loop_sink = fr.loop_sink or in_loop or inner.loop_sink
                continue
            if state not in self.bad or (origin[0] == "L" and origin[-1] == "layer"):
                continue
            if self.spec.only_loop_carried and not self._loop_carried(fr, cid, origin):
                continue
            kind = "transition" if origin[0] == "L" else "initial"
            # For loop rules, the step call of the innermost loop takes the report: here if the
            # helper has no loop of its own around the step, else inside the helper.
            here_in_loop = self.spec.loop_sinks and in_loop and \
                (via is None or not self.summary((via.file, via.index)).loop_sink)
            if via is None or here_in_loop:
                self._report(fr.fi, cid, kind, origin, state, via)
            elif origin == _INITIAL:
                entry = frozenset(((ANY, state, _INITIAL),))
                site = (via.file, via.index)
                self.initial_into[site] = _join(self.initial_into.get(site, frozenset()), entry)
            else:
                self.pending.append(((fr.fi, cid), via, kind, origin, state))

    def _report(self, fi: int, cid: int, kind: str, origin: Any, state: str, via: Optional[Func],
                called_at: str = "") -> None:
        info = self.reports.setdefault((fi, cid), {"kinds": set(), "set_by": [], "state": state, "via": via, "called_at": ""})
        info["kinds"].add(kind)
        if kind == "transition" and origin[3] not in info["set_by"]:
            info["set_by"].append(origin[3])
        if called_at and not info["called_at"]:
            info["called_at"] = called_at

    def _finding(self, fi: int, cid: int, info: Dict[str, Any]) -> Finding:
        call = self.p.files[fi].calls[cid]
        data = {"state": info["state"], "callee": call.dotted or "call"}
        causes = []
        if "initial" in info["kinds"]:
            causes.append(self.spec.cause("initial", self.lang))
        if "transition" in info["kinds"]:
            set_by = ", ".join(info["set_by"][:3])
            if info["called_at"]:
                set_by += f" (called at {info['called_at']})"
            data["set_by"] = set_by

            causes.append(render(self.spec.cause("transition", self.lang), data))
        data["cause"] = "; ".join(c for c in causes if c)
        via = info["via"]
        if via is not None:
            data["helper"] = self.p.project_qual(via)

        severity, note = adjust(self.rule, self.mc, self.lang, fi, self.p.callee_values(fi, cid), cid=cid)
        return make_finding(self.rule, self.p.files[fi].path, (call.line, call.column, call.end_line, call.end_column),
                            data, self.lang, severity=severity, note=note)


# ============================================================================ taint
Taint = FrozenSet[Tuple[Any, ...]]
_CLEAN: Taint = frozenset()


class TaintFlow:
    def __init__(self, rule: CompiledRule, mc: MatchContext, lang: str) -> None:
        self.rule = rule
        self.spec: FlowSpec = rule.spec
        self.mc = mc
        self.p = mc.p
        self.lang = lang
        self._memo: Dict[Tuple[int, int, int], Taint] = {}
        self._assign_memo: Dict[Tuple[int, int], Taint] = {}
        self._active: Set[Any] = set()
        self._returns: Dict[Site, Taint] = {}
        self._call_effects: Dict[CallKey, str] = {}
        self._registered: Optional[Dict[Tuple[int, int], List[Func]]] = None
        self._parents: Dict[int, Dict[int, int]] = {}
        self.reports: Dict[CallKey, Dict[str, Any]] = {}
        self._param_seen: Set[Tuple[Site, str]] = set()
        self._partials: Optional[Dict[Func, List[CallKey]]] = None

    # ------------------------------------------------------------------ classification
    def _classify(self, fi: int, cid: int) -> str:
        """``source``, ``sanitizer``, ``transparent`` or ``""`` for a call."""
        key = (fi, cid)
        hit = self._call_effects.get(key)
        if hit is not None:
            return hit
        kind = ""
        names = self.p.call_names(fi, cid)
        fw = self.rule.framework
        for eff in self.spec.sanitizers:
            if eff.kind == "call" and eff.pattern is not None and eff.pattern.names is not None \
                    and eff.pattern.names.any(names) and self.mc.match(eff.pattern, fi, cid, framework=fw) is not None:
                kind = "sanitizer"
                break
        if not kind:
            for eff in self.spec.sources:
                if eff.kind == "call" and eff.pattern is not None and eff.pattern.names is not None \
                        and eff.pattern.names.any(names) and self.mc.match(eff.pattern, fi, cid, framework=fw) is not None:
                    kind = "source"
                    break
        if not kind and self.spec.transparent is not None and self.spec.transparent.any(names):
            kind = "transparent"
        self._call_effects[key] = kind
        return kind

    # ------------------------------------------------------------------ taint of expressions
    def taint(self, fi: int, scope: int, e: Expr) -> Taint:
        tag = e[0]
        if tag in ("const", "lambda", "other"):
            return _CLEAN
        key = (fi, scope, id(e))   # expressions are shared within a file (facts/extract.py)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        if key in self._active:
            return _CLEAN
        self._active.add(key)
        try:
            out = self._taint(fi, scope, e)
        finally:
            self._active.discard(key)
        self._memo[key] = out
        return out

    def _union(self, fi: int, scope: int, exprs: Iterable[Any]) -> Taint:
        acc: Set[Tuple[Any, ...]] = set()
        for x in exprs:
            if isinstance(x, tuple) and x and isinstance(x[0], str):
                acc |= self.taint(fi, scope, x)
        return frozenset(acc)

    def _taint(self, fi: int, scope: int, e: Expr) -> Taint:
        tag = e[0]
        if tag == "name":
            if e[2]:
                acc: Set[Tuple[Any, ...]] = set()
                for aid in e[2]:
                    acc |= self.assign_taint(fi, aid)
                return frozenset(acc)
            return self._free_name(fi, scope, e[1])
        if tag == "attr":
            src = self._attribute_source(fi, scope, e)
            if src:
                return src
            if e[1][0] == "name" and self._is_self(fi, scope, e[1]):
                return _CLEAN
            return self.taint(fi, scope, e[1])
        if tag == "call":
            return self._call_taint(fi, e[1])
        if tag == "binop":
            if self._sanitizing_binop(fi, scope, e):
                return _CLEAN
            return self.taint(fi, scope, e[2]) | self.taint(fi, scope, e[3])
        if tag == "unary":
            return self.taint(fi, scope, e[2])
        if tag in ("await", "yield", "star"):
            return self.taint(fi, scope, e[1]) if e[1] is not None else _CLEAN
        if tag == "compare":
            return _CLEAN
        if tag == "boolop":
            return self._union(fi, scope, e[2])
        if tag == "ifexp":
            return self.taint(fi, scope, e[2]) | self.taint(fi, scope, e[3])
        if tag == "seq" or tag == "fstr":
            return self._union(fi, scope, e[2] if tag == "seq" else e[1])
        if tag == "dict":
            return self._union(fi, scope, e[2])
        if tag == "subscript":
            return self.taint(fi, scope, e[1])
        if tag == "comp":
            return self.taint(fi, scope, e[2])
        return _CLEAN

    def _is_self(self, fi: int, scope: int, name_expr: Expr) -> bool:
        for aid in name_expr[2]:
            v = self.p.files[fi].assigns[aid].value
            if v[0] == "param":
                f = self.p.files[fi].funcs[v[1]]
                if f.kind == "method" and f.params and f.params[0].name == v[2]:
                    return True
        return False

    def assign_taint(self, fi: int, aid: int) -> Taint:
        key = (fi, aid)
        hit = self._assign_memo.get(key)
        if hit is not None:
            return hit
        if ("a", key) in self._active:
            return _CLEAN
        self._active.add(("a", key))
        try:
            a = self.p.files[fi].assigns[aid]
            v = a.value
            tag = v[0]
            if tag == "param":
                f = self.p.files[fi].funcs[v[1]]
                is_self = f.kind == "method" and f.params and f.params[0].name == v[2]
                out: Taint = _CLEAN if is_self else frozenset((("P", v[1], v[2]),))
            elif tag in ("import", "class", "except"):
                out = _CLEAN
            elif tag == "def":
                out = self._function_value(Func(fi, v[1]))
            elif tag in ("iter", "enter"):
                out = self.taint(fi, a.scope, v[1])
            elif tag == "unpack":
                src = v[1]
                if src[0] == "seq" and isinstance(v[2], int) and v[2] < len(src[2]):
                    out = self.taint(fi, a.scope, src[2][v[2]])
                else:
                    element = self._unpacked_return(fi, src, v[2]) if src[0] == "call" else None
                    out = element if element is not None else self.taint(fi, a.scope, src)
            else:
                out = self.taint(fi, a.scope, v)
        finally:
            self._active.discard(("a", key))
        self._assign_memo[key] = out
        return out

    def _free_name(self, fi: int, scope: int, name: str) -> Taint:
        """Module constants and closures: their own taint, minus parameters of other functions."""
        acc: Set[Tuple[Any, ...]] = set()
        for sfi, sscope, sexpr, _line, _via in self.p.defining_exprs(fi, scope, ("name", name, ())):
            if sexpr is None:
                continue
            acc |= {o for o in self.taint(sfi, sscope, sexpr) if o[0] == "S"}
        # functions referenced by name (e.g. passed to value_and_grad)
        for v in self.p.free_name(fi, scope, name):
            if isinstance(v, Func):
                acc |= self._function_value(v)
        return frozenset(acc)

    def _function_value(self, f: Func) -> Taint:
        """A function used as a value carries the sources its result always carries."""
        return frozenset(o for o in self.returns(f) if o[0] == "S")

    def _attribute_source(self, fi: int, scope: int, e: Expr) -> Taint:
        for eff in self.spec.sources:
            if eff.kind != "attribute" or e[2] != eff.attr_name or e[1][0] != "name":
                continue
            if not self._is_self(fi, scope, e[1]):
                continue
            f = self.p.files[fi].funcs[scope]
            if f.cls < 0 or eff.attr_classes is None:
                continue
            if eff.attr_classes.any(self.p.framework_bases(Cls(fi, f.cls))):
                line = self.p.files[fi].funcs[scope].line
                return frozenset((("S", fi, line, f"`self.{eff.attr_name}`", f.qualname),))
        return _CLEAN

    def _sanitizing_binop(self, fi: int, scope: int, e: Expr) -> bool:
        op = e[1]
        for eff in self.spec.sanitizers:
            if eff.kind == "divide" and op == "/" and self.taint(fi, scope, e[3]):
                return True
            if eff.kind == "multiply_inverse" and op == "*":
                if self._inverse_of_tainted(fi, scope, e[2], eff) or self._inverse_of_tainted(fi, scope, e[3], eff):
                    return True
        return False

    def _inverse_of_tainted(self, fi: int, scope: int, e: Expr, eff: Effect, depth: int = 0) -> bool:
        if depth > 4:
            return False
        if e[0] == "binop" and e[1] == "/" and e[2][0] == "const" and e[2][1] in (1, 1.0):
            return bool(self.taint(fi, scope, e[3]))
        if e[0] == "name" and e[2]:
            return any(self._inverse_of_tainted(fi, self.p.files[fi].assigns[aid].scope,
                                                self.p.files[fi].assigns[aid].value, eff, depth + 1)
                       for aid in e[2] if self.p.files[fi].assigns[aid].value[0] not in ("param", "import", "def", "class"))
        if e[0] == "call":
            call = self.p.files[fi].calls[e[1]]
            names = self.p.call_names(fi, e[1])
            if self.spec.transparent is not None and self.spec.transparent.any(names) and call.args:
                return self._inverse_of_tainted(fi, call.scope, call.args[0].value, eff, depth + 1)
            if eff.inverse is not None and eff.inverse.any(names) and call.args:
                return bool(self.taint(fi, call.scope, call.args[0].value))
        return False

    # ------------------------------------------------------------------ calls
    def _call_taint(self, fi: int, cid: int) -> Taint:
        call = self.p.files[fi].calls[cid]
        kind = self._classify(fi, cid)
        if kind == "sanitizer":
            return _CLEAN
        if kind == "source":
            return frozenset((("S", fi, call.line, _label(self.mc, fi, cid), ""),))
        if kind == "transparent":
            return self.taint(fi, call.scope, call.args[0].value) if call.args else _CLEAN
        names = self.p.call_names(fi, cid)
        ck = self.p.apis.callable_kind(names)
        if ck == "map" and call.args:
            applied = self._apply_map(fi, cid)
            if applied is not None:
                return applied
        # a call of `partial(f, a)` object: f(a, *args)
        if call.func[0] == "call":
            pcid = call.func[1]
            if self.p.apis.callable_kind(self.p.call_names(fi, pcid)) == "partial":
                applied = self._apply_partial(fi, pcid, [a.value for a in call.args], fi, call.scope)
                if applied is not None:
                    return applied
        targets = self.p.call_targets(fi, cid)
        if targets and all(self._has_body(t) for t, _ in targets):
            acc: Set[Tuple[Any, ...]] = set()
            for t, skip_self in targets:
                acc |= self._apply_summary(t, skip_self, fi, cid)
            return frozenset(acc)
        # default: the result carries the taint of everything it was computed from
        parts: List[Any] = [a.value for a in call.args]
        if call.func[0] == "attr":
            parts.append(call.func[1])
        elif call.func[0] in ("call", "name", "subscript"):
            parts.append(call.func)
        return self._union(fi, call.scope, parts)

    def _unpacked_return(self, fi: int, src: Expr, index: Any) -> Optional[Taint]:
        """``loss, overflow, grads = step(x, y)`` with every ``return`` of the project function
        (or ``construct``) a tuple literal of that length: element ``index`` carries the taint of
        that element only (the unscaled gradients next to a flag computed from the scale)."""
        if not isinstance(index, int) or self._classify(fi, src[1]):
            return None
        targets = self.p.call_targets(fi, src[1])
        if not targets or not all(self._has_body(t) for t, _ in targets):
            return None
        out: Set[Tuple[Any, ...]] = set()
        for t, skip_self in targets:
            rets = list(iter_returns(self.p.files[t.file].funcs[t.index].body))
            if not rets or any(r is None or r[0] != "seq" or len(r[2]) <= index for r in rets):
                return None
            for r in rets:
                out |= self._at_call(self.taint(t.file, t.index, r[2][index]), t, skip_self, fi, src[1])
        return frozenset(out)

    def _has_body(self, f: Func) -> bool:
        return self.p.files[f.file].funcs[f.index].kind != "class"

    def returns(self, f: Func) -> Taint:
        site = (f.file, f.index)
        hit = self._returns.get(site)
        if hit is not None:
            return hit
        if ("r", site) in self._active:
            return _CLEAN
        self._active.add(("r", site))
        try:
            fact = self.p.files[f.file].funcs[f.index]
            acc: Set[Tuple[Any, ...]] = set()
            for e in iter_returns(fact.body):
                if e is not None:
                    acc |= self.taint(f.file, f.index, e)
        finally:
            self._active.discard(("r", site))
        out = frozenset(acc)
        self._returns[site] = out
        return out

    def _apply_summary(self, f: Func, skip_self: bool, fi: int, cid: int,
                       arg_exprs: Optional[Sequence[Tuple[int, int, Any]]] = None) -> Taint:
        """Taint of calling ``f``: its own sources plus the taint of the arguments that reach its return."""
        return self._at_call(self.returns(f), f, skip_self, fi, cid, arg_exprs)

    def _at_call(self, ret: Taint, f: Func, skip_self: bool, fi: int, cid: int,
                 arg_exprs: Optional[Sequence[Tuple[int, int, Any]]] = None) -> Taint:
        """A taint computed inside ``f``, seen at call ``cid``: its sources, and each parameter
        it depends on replaced by the taint of what this call passes."""
        out: Set[Tuple[Any, ...]] = {o for o in ret if o[0] == "S"}
        params = self.p.files[f.file].funcs[f.index].params
        if skip_self:
            params = params[1:]
        bound = self._bind(params, fi, cid, arg_exprs)
        for o in ret:
            if o[0] == "P" and o[1] == f.index:
                src = bound.get(o[2])
                if src is not None:
                    out |= self.taint(*src)
        return frozenset(out)

    def _bind(self, params: Sequence[Any], fi: int, cid: int,
              arg_exprs: Optional[Sequence[Tuple[int, int, Any]]]) -> Dict[str, Tuple[int, int, Any]]:
        out: Dict[str, Tuple[int, int, Any]] = {}
        if arg_exprs is not None:
            positional = [p for p in params if p.kind in ("pos", "posonly")]
            for p, a in zip(positional, arg_exprs):
                out[p.name] = a
            return out
        call = self.p.files[fi].calls[cid]

        b = bind_args(call.args, [ApiParam(p.name, p.kind) for p in params])
        for name, bound in b.args.items():
            out[name] = (fi, call.scope, bound.value)
        return out

    def _fn_targets(self, fi: int, scope: int, e: Expr) -> List[Func]:
        """Project functions a function-valued expression stands for (dispatch registries expanded)."""
        out: List[Func] = []
        for v in ordered(self.p.values(fi, scope, e)):
            if isinstance(v, Func):
                out.append(v)
            elif isinstance(v, Bound) and isinstance(v.func, Func):
                out.append(v.func)
            elif isinstance(v, Obj):
                out += self.registered().get(v.origin, [])
        return out

    def registered(self) -> Dict[Tuple[int, int], List[Func]]:
        """Dispatch registries: origin of the registry object → functions registered with ``@obj.register``."""
        if self._registered is None:
            reg: Dict[Tuple[int, int], List[Func]] = {}
            for fi, facts in enumerate(self.p.files):
                for idx, f in enumerate(facts.funcs):
                    for d in f.decorators:
                        if d[0] != "call":
                            continue
                        dc = facts.calls[d[1]]
                        if dc.func[0] != "attr" or dc.func[2] != "register":
                            continue
                        for v in self.p.values(fi, dc.scope, dc.func[1]):
                            if isinstance(v, Obj):
                                reg.setdefault(v.origin, []).append(Func(fi, idx))
            self._registered = reg
        return self._registered

    def _apply_partial(self, fi: int, pcid: int, extra: Sequence[Any], efi: int, escope: int) -> Optional[Taint]:
        pcall = self.p.files[fi].calls[pcid]
        if not pcall.args:
            return None
        funcs = self._fn_targets(fi, pcall.scope, pcall.args[0].value)
        if not funcs:
            return None
        args = [(fi, pcall.scope, a.value) for a in pcall.args[1:]] + [(efi, escope, x) for x in extra]
        return self._apply_all(funcs, args)

    def _apply_all(self, funcs: Sequence[Func], args: Sequence[Tuple[int, int, Any]]) -> Taint:
        """Implementations of a registry are alternatives by input type: a value stays tainted
        only if every implementation keeps it tainted (the tensor overload decides)."""
        results = [self._apply_summary(f, False, -1, -1, args) for f in funcs]
        if not results:
            return _CLEAN
        out = set(results[0])
        for r in results[1:]:
            out &= r
        return frozenset(out)

    def _apply_map(self, fi: int, cid: int) -> Optional[Taint]:
        call = self.p.files[fi].calls[cid]
        fn = call.args[0].value
        elems = [(fi, call.scope, a.value) for a in call.args[1:]]
        if fn[0] == "call" and self.p.apis.callable_kind(self.p.call_names(fi, fn[1])) == "partial":
            pcall = self.p.files[fi].calls[fn[1]]
            if not pcall.args:
                return None
            funcs = self._fn_targets(fi, pcall.scope, pcall.args[0].value)
            args = [(fi, pcall.scope, a.value) for a in pcall.args[1:]] + elems
        else:
            funcs = self._fn_targets(fi, call.scope, fn)
            args = elems
        if not funcs:
            return None
        return self._apply_all(funcs, args)

    # ------------------------------------------------------------------ sinks and reports
    def run(self, files: Sequence[int]) -> List[Finding]:
        fw = self.rule.framework
        allfiles = range(len(self.p.files))
        for eff in self.spec.sinks:
            if eff.kind != "call" or eff.pattern is None:
                continue
            for fi, cid in self.mc.candidates(eff.pattern, allfiles):
                self.mc.isolated(fi, lambda: self._sink(eff, fi, cid, fw), None)
        linted = set(files)
        return [self._finding(fi, cid, info) for (fi, cid), info in sorted(self.reports.items()) if fi in linted]

    def _sink(self, eff: Effect, fi: int, cid: int, fw: Optional[str]) -> None:
        assert eff.pattern is not None
        site = self.mc.match(eff.pattern, fi, cid, framework=fw)
        if site is None:
            return
        a = site.arg(eff.arg) if eff.arg else (site.call.args[0] if site.call.args else None)
        if a is not None:
            self._handle(fi, cid, self.taint(fi, site.call.scope, a.value), (fi, cid))

    def _handle(self, fi: int, cid: int, t: Taint, sink: CallKey) -> None:
        for o in ordered(t):
            if o[0] == "S":
                info = self.reports.setdefault((fi, cid), {"sources": [], "sink": sink})
                if o not in info["sources"]:
                    info["sources"].append(o)
            elif o[0] == "P":
                self._param_reaches_sink(Func(fi, o[1]), o[2], sink)

    def _param_reaches_sink(self, f: Func, param: str, sink: CallKey) -> None:
        key = ((f.file, f.index), param)
        if key in self._param_seen:
            return
        self._param_seen.add(key)
        fact = self.p.files[f.file].funcs[f.index]
        for cfi, cid, bound in self.p.callers(f):
            a = bound.get(param)
            if a is not None:
                self._handle(cfi, cid, self.taint(cfi, self.p.files[cfi].calls[cid].scope, a.value), sink)
        # used through partial()/hyper_map(): find partial calls naming f (or its registry)
        index = [p.name for p in fact.params].index(param) if param in [p.name for p in fact.params] else -1
        if index < 0:
            return
        for gfi, pcid in self._partials_of().get(f, ()):
            facts = self.p.files[gfi]
            pcall = facts.calls[pcid]
            bound_n = len(pcall.args) - 1
            parent = self._parent_call(gfi, pcid)
            if index < bound_n:
                src = (gfi, pcall.scope, pcall.args[1 + index].value)
                self._handle(gfi, parent if parent is not None else pcid, self.taint(*src), sink)
            elif parent is not None:
                pc = facts.calls[parent]
                elems = [a.value for a in pc.args[1:]]
                j = index - bound_n
                if j < len(elems):
                    self._handle(gfi, parent, self.taint(gfi, pc.scope, elems[j]), sink)

    def _partials_of(self) -> Dict[Func, List[CallKey]]:
        """Project function → the ``partial(f, ...)`` calls naming it (or its registry): one
        pass over the project, not one per parameter that reaches a sink."""
        if self._partials is None:
            self._partials = {}
            for gfi, facts in enumerate(self.p.files):
                for pcid in facts.callee_index.get("partial", ()):
                    if self.p.apis.callable_kind(self.p.call_names(gfi, pcid)) != "partial":
                        continue
                    pcall = facts.calls[pcid]
                    if pcall.args:
                        for target in sorted(set(self._fn_targets(gfi, pcall.scope, pcall.args[0].value)), key=repr):
                            self._partials.setdefault(target, []).append((gfi, pcid))
        return self._partials

    def _parent_call(self, fi: int, cid: int) -> Optional[int]:
        table = self._parents.get(fi)
        if table is None:
            table = {}
            for pid, c in enumerate(self.p.files[fi].calls):
                for a in c.args:
                    if a.value[0] == "call":
                        table[a.value[1]] = pid
            self._parents[fi] = table
        return table.get(cid)

    def _finding(self, fi: int, cid: int, info: Dict[str, Any]) -> Finding:
        call = self.p.files[fi].calls[cid]
        srcs = info["sources"]
        source = ", ".join(f"{o[3]}" for o in srcs[:2])
        data = {"source": source, "callee": call.dotted or "call"}
        sfi, scid = info["sink"]
        if (sfi, scid) != (fi, cid):
            data["sink"] = _label(self.mc, sfi, scid)

        data["cause"] = render(self.spec.cause("source", self.lang), data)
        return make_finding(self.rule, self.p.files[fi].path, (call.line, call.column, call.end_line, call.end_column),
                            data, self.lang)
