"""Flow rules with ``track: state``: a state machine over the statement IR.

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

Which objects a transition or a sink acts on is :mod:`linter.match.flow.objects`; the abstract
states and their join are :mod:`linter.match.flow.lattice`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from linter.compiler.build import CompiledRule, Effect, FlowSpec
from linter.core.model import Finding
from linter.facts.ir import last_sid, walk
from linter.facts.model import Stmt
from linter.index.values import Func, Obj, ordered
from linter.match.context import MatchContext
from linter.match.findings import make_finding, render
from linter.match.flow.lattice import _ENTRY, _INITIAL, ANY, Entry, Key, State, _grouped, _join, _lookup
from linter.match.flow.objects import Objects
from linter.match.flow.sites import CallKey, Site, _label
from linter.match.predicates import arg_values
from linter.match.severity import adjust, mode_layer_globs


@dataclass
class _Event:
    sink: bool = False
    to: Optional[FrozenSet[str]] = None
    label: str = ""
    with_enter: Optional[FrozenSet[str]] = None
    with_exit: Optional[FrozenSet[str]] = None


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

    @cached_property
    def by_key(self) -> Tuple[Dict[Key, List[Tuple[Any, Any]]], List[Tuple[Any, Any]]]:
        """The exit entries grouped by object, and the ``ANY`` ones (each call applies them)."""
        touched: Dict[Key, List[Tuple[Any, Any]]] = {}
        any_exits: List[Tuple[Any, Any]] = []
        for k, s, o in self.exits:
            if k == ANY:
                any_exits.append((s, o))
            else:
                touched.setdefault(k, []).append((s, o))
        return touched, any_exits


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
    saved_modes: Dict[str, Tuple[FrozenSet[Key], State]] = field(default_factory=dict)
    """``was = model.training``: the object read and the state at that point (restored by
    ``if was: model.train()``)."""


class StateFlow(Objects):
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

    # ------------------------------------------------------------------ transitions
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
            if tag == "assign" and self.objects:
                self._save_mode(fr, st, S)
            if tag == "return":
                fr.exits.append(S)
                return frozenset()
            if tag == "raise":
                return frozenset()
            return S
        if tag == "if":
            S = self._header(fr, st, S)
            out = self._join_branches(fr, S, [st[3], st[4]])
            return self._restore_mode(fr, st, out) if fr.saved_modes else out
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

    def _save_mode(self, fr: _Frame, st: Stmt, S: State) -> None:
        """``was_training = self.model.training``: remember the object's entries here."""
        facts = self.p.files[fr.fi]
        for aid in st[2]:
            a = facts.assigns[aid]
            if a.target[0] == "name" and a.value[0] == "attr" and a.value[2] == "training":
                keys = self._keys(fr.fi, fr.scope, a.value[1])
                if keys and ANY not in keys:
                    fr.saved_modes[a.target[1]] = (keys, S)

    def _restore_mode(self, fr: _Frame, st: Stmt, S: State) -> State:
        """``if was_training: self.model.train()`` after evaluating: the idiom puts the object back
        in the mode it had when ``was_training`` was read — when it was training it trains again,
        when it was not it never left evaluation — so its entries are the saved ones (pytorch-fcn's
        fix of its mid-epoch validation)."""
        test = st[2]
        if test[0] != "name" or test[1] not in fr.saved_modes or st[4]:
            return S
        keys, saved = fr.saved_modes[test[1]]
        facts = self.p.files[fr.fi]
        restore = next((cid for cid in self.p.calls_in_stmt(fr.fi, st[3][0], fr.scope)
                        if facts.calls[cid].func[0] == "attr" and facts.calls[cid].func[2] == "train"
                        and not facts.calls[cid].args
                        and self._keys(fr.fi, fr.scope, facts.calls[cid].func[1]) == keys), None) \
            if len(st[3]) == 1 else None
        if restore is None:
            return S
        moved = self._with_children(self._receiver(fr, restore))   # the object and the layers it moves
        return frozenset(e for e in S if e[0] not in moved) | frozenset(e for e in saved if e[0] in moved)

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
            for t, _skip in targets:
                summ = self.summary((t.file, t.index))
                if summ.sink:
                    self._check(fr, cid, S, t, self._sink_keys_here(fr, cid, t, summ) or frozenset((ANY,)))
                after = self._apply(S, summ, fr, cid)
                acc = _join(acc, after) if acc else after
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

    def _apply(self, S: State, summ: _Summary, fr: _Frame, cid: int) -> State:
        """The caller's state after a helper: what the helper sets replaces, the rest passes.

        A helper's keys are concrete objects (parameters are expanded through call sites), so
        they are the caller's keys as they are."""
        label = _label(self.mc, fr.fi, cid)
        here = self._origin(fr, cid, label)
        moved: Dict[Any, Any] = {}

        def at_call(o: Any) -> Any:
            # a helper's transition is shown at this call, with the helper's own label after it;
            # one rewrite per distinct origin (timm: 853 objects set by one `eval()`)
            n = moved.get(o)
            if n is None:
                n = moved[o] = here[:3] + (label + self._inner(o),) + here[4:]
            return n

        def expand(tk: Key, ents: Any) -> Set[Entry]:
            out: Set[Entry] = set()
            for s, o in ents:
                if s is None:
                    out |= {(tk, s2, o2) for s2, o2 in _lookup(S, tk)}
                else:
                    out.add((tk, s, at_call(o)))
            return out

        touched, any_exits = summ.by_key
        if ANY in touched:
            # the helper acts on an object we cannot name: only a move to a good state is applied
            touched = dict(touched)
            ents = touched.pop(ANY)
            if not any(s in self.bad for s, _ in ents if s is not None):
                any_exits = list(ents) + [(None, _ENTRY)]
        if all(s is None for s, _ in any_exits):
            # Objects the helper does not touch keep their entries, and one it only passes
            # through (state None) gets what the caller had: its own entries, else the ANY ones —
            # the sets the general path below builds with one lookup per object, without it.
            if not touched:
                return S
            by_key = _grouped(S)
            any_ents = by_key.get(ANY, ())
            added: Set[Entry] = set()
            mixed = set()
            for tk, ents in touched.items():
                had = by_key.get(tk)
                passes = False
                for st, o in ents:
                    if st is None:
                        passes = True
                    else:
                        added.add((tk, st, at_call(o)))
                        mixed.add(tk)
                if passes and (tk in mixed or had is None):
                    added.update((tk, st, o) for st, o in (had or any_ents))
            kept = frozenset(e for e in S if e[0] not in mixed) if mixed else S
            return kept | frozenset(added) if added else kept
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
        unknown = self.objects and ANY in keys
        tracked = {k for k, _, _ in S if k != ANY} if unknown else set()
        if unknown:
            # The network of this step is unknown: it may be any tracked object. If one of
            # them is certainly in a good state, it may be the one: say nothing.
            if any(all(st is not None and st not in self.bad for st, _ in _lookup(S, k)) for k in tracked):
                return
        observed: List[Tuple[Key, Any, Any]] = []
        for k in ordered(keys):
            for s, o in _lookup(S, k):
                observed.append((k, s, o))
        if unknown and in_loop:
            # ...and if one of them was switched to a good state on the way but may be switched to a
            # bad one by this loop (`net.set_train(True)` before it, `net.set_train(False)` inside
            # it), the cause is that switch: "set_train() is never called" would be wrong
            switched = [(k, s, o) for k in ordered(tracked) for s, o in _lookup(S, k)
                        if o[0] == "L" and s in self.bad and self._loop_carried(fr, cid, o)]
            if switched and any(s is not None and s not in self.bad for k in tracked for s, _ in _lookup(S, k)):
                observed = [e for e in observed if e[2] != _INITIAL] + switched
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

    def _judged_network(self, fi: int, cid: int) -> List[Any]:
        """The network whose layers decide whether the mode matters: what the step calls, or — for
        a function made by ``value_and_grad(fn, None, weights)`` — the networks that own the
        differentiated parameters (a GAN's discriminator step: the discriminator's layers, not the
        generator's BatchNorm elsewhere in the script)."""
        call = self.p.files[fi].calls[cid]
        origins, _complete = self.mc.origin_calls(fi, call.scope, call.func)
        owners: List[Any] = []
        for ofi, ocid in origins:
            if self._makes_grad(ofi, ocid):
                keys = self._trained_networks(ofi, ocid)
                if not keys or any(k[0] != "o" for k in keys):
                    return list(self.p.callee_values(fi, cid))
                for k in sorted(keys):
                    owners += [v for v in self.p.call_values(k[1], k[2]) if isinstance(v, Obj) and v.origin == (k[1], k[2])]
        return owners or list(self.p.callee_values(fi, cid))

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

        severity, note = adjust(self.rule, self.mc, self.lang, fi, self._judged_network(fi, cid), cid=cid)
        return make_finding(self.rule, self.p.files[fi].path, (call.line, call.column, call.end_line, call.end_column),
                            data, self.lang, severity=severity, note=note)
