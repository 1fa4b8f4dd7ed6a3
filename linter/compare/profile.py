"""Compare, stage 2: a loaded side → its training profile (canonical keys → normalised values).

Every call of the entry script and its import closure is resolved by the project index
(aliases, star imports, receivers) and looked up in the mapping tables; its arguments are bound
to the API's signature, so a parameter that is not written gets the framework's default — the
values that differ silently between frameworks. Pipelines are split into training and
evaluation with the index's role analysis (names, flags, ``if training:`` branches, callers).

Keys: ``optimizer.*``, ``lr_schedule.*``, ``loss.*``, ``data.{train,eval}.*``, ``train.epochs``,
``seed.*``, ``amp.*``, ``loss_scale.*``, ``clip.*``, ``dropout[i].*`` and ``layers.Kind[i].*``
(sites in source order: a layer written once in a block class is one site).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from linter.compare import normalize
from linter.compare.load import Side
from linter.compare.mapping import ApiEntry, Tables
from linter.compare.model import Fact, Profile, Symbol, Val
from linter.compare.values import Resolver, object_types
from linter.core.versions import parse_version
from linter.engine.packs import RulePacks
from linter.facts.model import ArgFact, CallFact, Expr, Stmt
from linter.index.apis import NO_DEFAULT, Expression, Param
from linter.index.project import BoundArgs, bind_args
from linter.index.values import Ext, Func
from linter.match import run_rule
from linter.match.pattern import new_context
from linter.program.roles import EVALUATION, TRAINING

_ROLE_KEY = {TRAINING: "train", EVALUATION: "eval"}
_OPTIMIZER_STEPS = ("torch.optim.Optimizer.step", "torch.amp.GradScaler.step", "torch.cuda.amp.GradScaler.step")
_CLIP_ORDER_RULES = ("MP301", "MP302", "MP303")


class Site:
    """A call that an API entry of the tables describes, with its arguments bound."""
    def __init__(self, ex: "Extractor", fi: int, cid: int, entry: ApiEntry, names: Tuple[str, ...]) -> None:
        self.ex = ex
        self.fi = fi
        self.cid = cid
        self.entry = entry
        self.call: CallFact = ex.p.files[fi].calls[cid]
        self.path = ex.side.display(fi)
        self.framework = ex.p.apis.framework_of(entry.qual) or ""
        self.params = ex.signature(names, entry.qual, self.framework)
        if self.params is not None:
            self.bound = bind_args(self.call.args, self.params)
        else:
            self.bound = BoundArgs()
            self.bound.uncertain = any(a.star for a in self.call.args)
            for a in self.call.args:
                if a.keyword is not None:
                    self.bound.args[a.keyword] = a
        self.role: Optional[str] = None
        self._cache: Dict[Tuple[str, Optional[str]], Optional[Val]] = {}

    @property
    def key(self) -> Tuple[int, int, int]:
        return (self.ex.file_order[self.fi], self.call.line, self.call.column)

    def argfact(self, name: str) -> Optional[ArgFact]:
        return self.bound.get(name)

    def arg(self, name: str) -> Optional[Val]:
        """The value of source parameter ``name``: written, else the signature's default; None
        when the API has no such parameter."""
        ck = (name, self.role)
        if ck in self._cache:
            return self._cache[ck]
        a = self.bound.get(name)
        out: Optional[Val]
        if a is not None:
            out = self.ex.resolver.arg(self.fi, self.call.scope, a, self.role)
        else:
            param = next((p for p in self.params or () if p.name == name), None)
            if param is None:
                out = None
            elif self.bound.uncertain:
                out = Val.unknown(f"{name} (may be passed through *args/**kwargs)")
            elif param.default is NO_DEFAULT:
                out = Val.unknown(f"{name} (required, not passed)")
            else:
                d = param.default
                out = Val(str(d) if isinstance(d, Expression) else d, True, "", defaulted=True)
        self._cache[ck] = out
        return out

    def line_of(self, spec: Optional[Dict[str, Any]]) -> int:
        """The line of the argument a value came from (the call's line for defaults)."""
        if spec:
            froms = spec.get("from")
            for f in froms if isinstance(froms, list) else [froms]:
                a = self.bound.get(f) if f else None
                if a is not None:
                    return a.line
        return self.call.line

    def read(self, name: str, extra: Optional[Dict[str, Any]] = None) -> Tuple[Val, Optional[Dict[str, Any]]]:
        return normalize.read(name, self.entry.spec, self.entry.post, self.arg, self.call.dotted or self.entry.qual, extra)


class Extractor:
    """Builds the profile of one side."""
    def __init__(self, side: Side, tables: Tables, packs: RulePacks) -> None:
        self.side = side
        self.p = side.project
        self.tables = tables
        self.packs = packs
        self.resolver = Resolver(side)
        self.mc = new_context(side.program, {})
        self.file_order = {fi: i for i, fi in enumerate(side.files)}
        self.sites: Dict[str, List[Site]] = {}
        self._lists: Dict[int, Dict[int, Tuple[int, ...]]] = {}
        self._collect()
        fws = Counter(s.framework for group in self.sites.values() for s in group if s.framework)
        self.profile = Profile(side.path, side.display(side.entry), fws.most_common(1)[0][0] if fws else "")
        for e in side.errors:
            self.profile.notes.append(f"{e.path}: {e.message}")

    # ------------------------------------------------------------------ collection
    def signature(self, names: Sequence[str], qual: str, framework: str) -> Optional[Tuple[Param, ...]]:
        return signature_of(self.tables, self.p.apis, list(names[:1]) + [qual], framework)

    def _collect(self) -> None:
        for fi in self.side.files:
            facts = self.p.files[fi]
            for cid in range(len(facts.calls)):
                names = self.p.call_names(fi, cid)
                if not names or names[0].startswith("?."):
                    continue
                candidates = list(names)
                for v in self.p.callee_values(fi, cid):
                    if isinstance(v, Ext) and self.p.apis.is_class(v.qual):
                        candidates += [q for q in self.p.apis.mro(v.qual) if q not in candidates]
                taken = set()
                for n in candidates:
                    for entry in self.tables.by_api.get(n, ()):
                        if entry.section in taken:
                            continue
                        taken.add(entry.section)
                        self.sites.setdefault(entry.section, []).append(Site(self, fi, cid, entry, names))
        for group in self.sites.values():
            group.sort(key=lambda s: s.key)

    # ------------------------------------------------------------------ facts
    def add(self, key: str, val: Val, site: Optional[Site], line: Optional[int] = None,
            write: Optional[Tuple[str, Optional[Dict[str, Any]]]] = None, api: str = "") -> None:
        if site is None:
            path, at, fw = self.profile.entry, line or 0, self.profile.framework
        else:
            path, at, fw = site.path, line or site.call.line, site.framework
        self.profile.add(Fact(key, val, path, at, api or (site.entry.qual if site else ""), fw,
                              (write[0], write[1]) if write and write[1] is not None else None,
                              written=frozenset(site.bound.args) if site is not None else frozenset()))

    def add_params(self, prefix: str, site: Site, skip: Iterable[str] = (),
                   extra: Optional[Dict[str, Any]] = None, only: Optional[Sequence[str]] = None) -> Dict[str, Val]:
        """One fact per canonical parameter the API can express."""
        out: Dict[str, Val] = {}
        for name in normalize.canonical_params(site.entry.spec, site.entry.params):
            if name in skip or (only is not None and name not in only):
                continue
            try:
                val, used = site.read(name, extra)
            except normalize.Skip:
                continue
            out[name] = val
            self.add(f"{prefix}.{name}", val, site, site.line_of(used), (name, used))
        return out

    def extract(self) -> Profile:
        self._guard("layers", self._layers)
        schedule = self._guard("schedules", self._schedule)
        self._guard("optimizers", lambda: self._optimizer(schedule))
        self._guard("losses", self._loss)
        scaling = self._guard("amp", self._amp_and_scaling)
        self._guard("clipping", lambda: self._clip(bool(scaling)))
        self._guard("seeds", self._seeds)
        self._guard("data", self._data)
        self._guard("epochs", self._epochs)
        return self.profile

    def _guard(self, what: str, fn: Any) -> Any:
        """One part of the profile; a crash there is reported and the rest is still compared."""
        try:
            return fn()
        except RecursionError:
            self.profile.notes.append(f"{what}: nesting too deep to analyse; these settings are missing")
        except Exception as exc:  # a bug here must not hide the other settings
            self.profile.notes.append(f"{what}: internal error ({type(exc).__name__}: {exc}); these settings are "
                                      "missing — please report this")
        return None

    # ------------------------------------------------------------------ network
    def _layers(self) -> None:
        for section, prefix in (("layers", "layers.{kind}"), ("dropout", "dropout")):
            by_kind: Dict[str, List[Site]] = {}
            for s in self.sites.get(section, ()):
                by_kind.setdefault(s.entry.kind, []).append(s)
            for kind, sites in by_kind.items():
                base = prefix.format(kind=kind)
                self.add(f"{base}.count", Val(len(sites)), sites[0], api=sites[0].entry.qual)
                for i, s in enumerate(sites):
                    self.add_params(f"{base}[{i}]", s)

    # ------------------------------------------------------------------ optimisation
    def _first(self, section: str) -> Optional[Site]:
        sites = self.sites.get(section) or []
        if len({(s.fi, s.cid) for s in sites}) > 1:
            self.profile.notes.append(f"several {section} found; compared the first, {sites[0].path}:{sites[0].call.line}")
        return sites[0] if sites else None

    def _schedule(self) -> Optional[Tuple[Site, Val]]:
        site = self._first("schedules")
        if site is None:
            return None
        self.add("lr_schedule.kind", Val(site.entry.kind), site, write=("kind", {"section": "schedules"}))
        extra = {"scheduler_steps": {"unit": self._scheduler_unit(site)}}
        self.add_params("lr_schedule", site, skip=("initial_lr",), extra=extra)
        try:
            initial, _ = site.read("initial_lr")
        except normalize.Skip:
            initial = Val.unknown("")
        if initial.known and initial.value == "optimizer":   # torch: the schedule starts from the optimizer's lr
            initial = Val.unknown("")
        return site, initial

    def _optimizer(self, schedule: Optional[Tuple[Site, Val]]) -> None:
        site = self._first("optimizers")
        if site is None:
            return
        self.add("optimizer.kind", Val(site.entry.kind), site, write=("kind", {"section": "optimizers"}))
        self.add_params("optimizer", site, skip=("lr", "weight_decay", "weight_decay_scope",
                                                 "weight_decay_style", "bias_correction"))
        # learning rate: a number, or a schedule passed as the learning rate
        try:
            lr, used = site.read("lr")
        except normalize.Skip:
            lr, used = Val.unknown(""), None
        lr_line = site.line_of(used)
        if not lr.known or isinstance(lr.value, Symbol):
            src = site.argfact((used or {}).get("from", "")) if used else None
            origin = self.mc.origin_calls(site.fi, site.call.scope, src.value)[0] if src is not None else []
            if schedule is not None and (schedule[0].fi, schedule[0].cid) in origin:
                lr = schedule[1]
            elif lr.known:   # an object the tables do not describe (a schedule, a Tensor of one): not a number
                lr = self.resolver.unknown(site.fi, site.call.scope, src, site.role) if src is not None \
                    else Val.unknown("")
        self.add("optimizer.lr", lr, site, lr_line, ("lr", used))
        # weight decay: parameter groups override the optimizer's value and scope
        wd, wd_used = site.read("weight_decay")
        scope_val, _ = site.read("weight_decay_scope") if "weight_decay_scope" in (site.entry.spec.get("facts") or {}) \
            else (Val.unknown(""), None)
        groups = self._param_groups(site)
        wd_line = site.line_of(wd_used)
        if groups is not None:
            if len(groups) == 1:
                fi, scope, group, gline = groups[0]
                if "weight_decay" in group:
                    wd = self.resolver.expr(fi, scope, group["weight_decay"], "weight_decay (parameter group)")
                    wd_line = gline
                scope_val = Val("all parameters", via="one parameter group")
            else:
                wd = Val.unknown(f"{len(groups)} parameter groups")
                scope_val = Val.unknown(f"{len(groups)} parameter groups")
        self.add("optimizer.weight_decay", wd, site, wd_line, ("weight_decay", wd_used))
        # (compared only when both sides decay: see diff.GATED)
        try:
            style, style_used = site.read("weight_decay_style")
            self.add("optimizer.weight_decay_style", style, site, site.line_of(style_used), ("weight_decay_style", style_used))
        except normalize.Skip:
            pass
        if scope_val.known or scope_val.text:
            self.add("optimizer.weight_decay_scope", scope_val, site, wd_line)
        if "bias_correction" in (site.entry.spec.get("facts") or {}):
            v, _ = site.read("bias_correction")
            self.add("optimizer.bias_correction", v, site)

    def _param_groups(self, site: Site) -> Optional[List[Tuple[int, int, Dict[str, Expr], int]]]:
        """Parameter groups passed to an optimizer (a list of dict literals), else None."""
        a = site.argfact("params") or (site.call.args[0] if site.call.args and site.call.args[0].keyword is None else None)
        if a is None:
            return None
        exprs = [(site.fi, site.call.scope, a.value)]
        if a.value[0] == "name":
            exprs = [(f, s, e) for f, s, e, _l, _v in self.p.defining_exprs(site.fi, site.call.scope, a.value) if e is not None]
        for fi, scope, e in exprs:
            if e[0] == "seq" and e[2] and all(x[0] == "dict" for x in e[2]):
                out = []
                for d in e[2]:
                    keys = [k[1] if k is not None and k[0] == "const" else None for k in d[1]]
                    out.append((fi, scope, {k: v for k, v in zip(keys, d[2]) if isinstance(k, str)},
                                self._expr_line(fi, e, site)))
                return out
        return None

    def _expr_line(self, fi: int, e: Expr, site: Site) -> int:
        for a in self.p.files[fi].assigns:
            if a.value is e:
                return a.line
        return site.call.line

    def _loss(self) -> None:
        site = self._first("losses")
        if site is None:
            return
        self.add("loss.kind", Val(site.entry.kind), site, write=("kind", {"section": "losses"}))
        self.add_params("loss", site)

    def _amp_and_scaling(self) -> bool:
        """Mixed precision and loss scaling; True when the gradients carry a loss scale."""
        amp_sites = self.sites.get("amp") or []
        chosen: Optional[Site] = None
        for s in amp_sites:
            try:
                enabled, _ = s.read("enabled")
            except normalize.Skip:
                continue
            if chosen is None or (enabled.known and enabled.value is True):
                chosen = s
                if enabled.known and enabled.value is True:
                    break
        enabled_val = Val(False, True, "", defaulted=True, via="no mixed-precision call found")
        if chosen is not None:
            enabled_val, used = chosen.read("enabled")
            self.add("amp.enabled", enabled_val, chosen, chosen.line_of(used), ("enabled", used))
            if not (enabled_val.known and enabled_val.value is False):
                self.add_params("amp", chosen, skip=("enabled",))
        else:
            self.add("amp.enabled", enabled_val, None, 0)
        scaler = self._first("loss_scalers")
        if scaler is not None:
            self.add("loss_scale.kind", Val(scaler.entry.kind), scaler, write=("kind", {"section": "loss_scalers"}))
            self.add_params("loss_scale", scaler)
            return True
        # a loss scaler the framework adds by itself (MindSpore amp_level O2, Keras mixed_float16)
        if chosen is not None and enabled_val.known and enabled_val.value is True:
            implies = chosen.entry.spec.get("implies") or {}
            level = None
            for name in ("amp_level", "level", "policy"):
                v = chosen.arg(name)
                if v is not None and v.known:
                    level = v.value
                    break
            implied = implies.get(level) if isinstance(level, str) else None
            if implied and not (chosen.arg("loss_scale_manager") and chosen.bound.get("loss_scale_manager")):
                entries = [e for e in self.tables.by_api.get(implied, ()) if e.section == "loss_scalers"]
                if entries:
                    synthetic = Site(self, chosen.fi, chosen.cid, entries[0], (implied,))
                    synthetic.bound = BoundArgs()
                    synthetic.params = self.signature((implied,), implied, synthetic.framework)
                    via = f"added by {level!r}"
                    self.add("loss_scale.kind", Val(entries[0].kind, via=via), synthetic, api=implied)
                    for name in normalize.canonical_params(entries[0].spec, entries[0].params):
                        try:
                            val, _ = synthetic.read(name)
                        except normalize.Skip:
                            continue
                        self.add(f"loss_scale.{name}", Val(val.value, val.known, val.text, True, via), synthetic, api=implied)
                    return True
        return False

    def _clip(self, scaling: bool) -> None:
        site = None
        for s in self.sites.get("clipping") or []:
            when = s.entry.spec.get("when")
            if when:
                v = s.arg(when)
                if v is None or (v.known and v.value is None) or s.bound.get(when) is None:
                    continue
            site = s
            break
        if site is None:
            return
        self.add("clip.kind", Val(site.entry.kind), site, write=("kind", {"section": "clipping"}))
        self.add_params("clip", site)
        if scaling:
            self.add("clip.order", self._clip_order(site), site)

    def _clip_order(self, site: Site) -> Val:
        """Whether the clip sees unscaled gradients: the engine's mp.03 rules decide."""
        rules = [r for r in self.packs.rules if r.id in _CLIP_ORDER_RULES]
        if not rules:
            return Val.unknown("mp.03 rules not loaded")
        for rule in rules:
            found = ([f for f in self.side.findings if f.rule == rule.id] if self.side.findings is not None
                     else run_rule(rule, self.mc, self.side.files, "en"))
            for f in found:
                if f.path == self.p.files[site.fi].path and f.span.line == site.call.line:
                    return Val("scaled gradients (clip before unscale)", via=f"{rule.id} at {site.path}:{f.span.line}")
        return Val("unscaled gradients")

    def _scheduler_unit(self, site: Site) -> str:
        """What a torch scheduler's step counts: 'epochs' when ``scheduler.step()`` runs once per
        iteration of a loop whose body trains a whole epoch, 'steps' when it runs next to the
        optimizer step; '' when unknown (the period is then reported as unknown)."""
        step_name = f"{site.entry.qual}.step"
        for fi in self.side.files:
            facts = self.p.files[fi]
            for cid in facts.callee_index.get("step", ()):
                if step_name not in self.p.call_names(fi, cid):
                    continue
                call = facts.calls[cid]
                loops = self.mc.loops(fi, call.scope).get(call.stmt)
                if not loops:
                    return ""
                per_step = self._trains_per_iteration(fi, call.scope, loops[-1], 0)
                return "" if per_step is None else ("steps" if per_step else "epochs")
        return ""

    def _trains_per_iteration(self, fi: int, scope: int, loop: Stmt, depth: int) -> Optional[bool]:
        """True when the loop body performs one optimizer step per iteration, False when it
        runs a nested loop of steps (an epoch), None when neither is visible."""
        inner = self.mc.loops(fi, scope)
        for cid in self.p.calls_in_stmt(fi, loop, scope):
            call = self.p.files[fi].calls[cid]
            enclosing = inner.get(call.stmt) or ()
            direct = bool(enclosing) and enclosing[-1] is loop
            names = self.p.call_names(fi, cid)
            if any(n in _OPTIMIZER_STEPS for n in names):
                return direct
            if direct and depth < 3:
                for target, _ in self.p.call_targets(fi, cid):
                    r = self._function_steps(target, depth + 1)
                    if r is not None:
                        return r
        return None

    def _function_steps(self, f: Func, depth: int) -> Optional[bool]:
        """For a function called once per loop iteration: True if it steps the optimizer
        outside any loop, False if inside one."""
        loops = self.mc.loops(f.file, f.index)
        for cid, call in enumerate(self.p.files[f.file].calls):
            if call.scope != f.index:
                continue
            if any(n in _OPTIMIZER_STEPS for n in self.p.call_names(f.file, cid)):
                return not loops.get(call.stmt)
        return None

    # ------------------------------------------------------------------ seeds
    def _seeds(self) -> None:
        for site in self.sites.get("seeds") or []:
            for name in normalize.canonical_params(site.entry.spec, site.entry.params):
                if f"seed.{name}" in self.profile.facts:
                    continue
                try:
                    val, used = site.read(name)
                except normalize.Skip:
                    continue
                self.add(f"seed.{name}", val, site, site.line_of(used), (name, used))

    # ------------------------------------------------------------------ data
    def _roles(self, site: Site) -> List[Optional[str]]:
        if site.entry.qual in ("keras.Model.fit",):
            return [TRAINING]
        ctx = self.side.roles.pipeline_context(site.fi, site.cid)
        roles: List[Optional[str]] = [r for r in (TRAINING, EVALUATION) if r in ctx]
        return roles or [None]

    def _data(self) -> None:
        found: Dict[str, Tuple[int, Site, Val, int, Any]] = {}
        shuffles: List[Tuple[int, Site, Val, int]] = []

        def offer(key: str, prio: int, site: Site, val: Val, line: int, used: Any) -> None:
            if key not in found or prio > found[key][0]:
                found[key] = (prio, site, val, line, used)

        for section in ("loaders", "datasets"):
            for site in self.sites.get(section) or []:
                if site.entry.qual == "keras.Model.fit" and self._fit_on_dataset(site):
                    continue
                for role in self._roles(site):
                    site.role = role
                    prio = 2 if role else 1
                    rk = _ROLE_KEY.get(role or TRAINING, "train")
                    for name in normalize.canonical_params(site.entry.spec, site.entry.params):
                        if rk == "eval" and name != "batch_size":
                            continue
                        try:
                            val, used = site.read(name)
                        except normalize.Skip:
                            continue
                        if name == "shuffle":
                            if site.entry.kind == "shuffle_op":   # `.shuffle(n)` is written, not a default
                                val = Val(val.value, val.known, val.text, False, val.via)
                            shuffles.append((prio, site, val, site.line_of(used)))
                        else:
                            offer(f"data.{rk}.{name}", prio, site, val, site.line_of(used), used)
                site.role = None
        for key, (_prio, site, val, line, used) in sorted(found.items(), key=lambda kv: kv[1][1].key):
            self.add(key, val, site, line, (key.rsplit(".", 1)[-1], used))
        if shuffles:
            best = max(p for p, *_ in shuffles)
            train = [(s, v, line) for p, s, v, line in shuffles if p == best]
            on = [t for t in train if t[1].known and t[1].value is True]
            unknown = [t for t in train if not t[1].known or isinstance(t[1].value, frozenset)]
            pick = on[0] if on else (unknown[0] if unknown else train[0])
            site, val, line = pick
            spec = next((e for e in [site.entry.spec.get("map", {}).get("shuffle")] if isinstance(e, dict)), {"from": "shuffle"})
            self.add("data.train.shuffle", val, site, line, ("shuffle", spec))
        self._transforms()

    def _fit_on_dataset(self, site: Site) -> bool:
        x = site.argfact("x")
        if x is None:
            return False
        return any(t.startswith("tensorflow.data.") for t in object_types(self.side, site.fi, site.call.scope, x.value))

    def _transforms(self) -> None:
        for site in self.sites.get("transforms") or []:
            kind_role = site.entry.kind_spec.get("role")
            if kind_role == "rescale":
                continue
            for role in self._roles(site):
                rk = _ROLE_KEY.get(role or TRAINING, "train")
                site.role = role
                if kind_role == "normalize":
                    scale = self._input_scale(site)
                    for name in ("mean", "std"):
                        try:
                            val, used = site.read(name)
                        except normalize.Skip:
                            continue
                        spec = {"from": (used or {}).get("from", name), "transform": "scale", "factor": 1.0 / scale}
                        if (used or {}).get("transform") == "sqrt":
                            spec = dict(used or {})
                        val = normalize.apply({"transform": "scale", "factor": 1.0 / scale}, [val], val.text) \
                            if val.known else val
                        self.add(f"data.{rk}.normalize.{name}", val, site, site.line_of(used), (name, spec))
                else:
                    group = "augment" if kind_role == "augment" else "preprocess"
                    self.add_params(f"data.{rk}.{group}.{site.entry.kind}", site)
                site.role = None

    def _input_scale(self, site: Site) -> float:
        """The scale of the values a normalisation receives (1 = pixels in [0, 1], 255 = raw):
        from the rescaling ops before it in its list (or earlier in its function), else the API's
        convention."""
        rescales = self._rescale_before(site)
        if rescales is not None:
            return 255.0 * rescales
        return float(site.entry.spec.get("input_scale", 1))

    def _rescale_before(self, site: Site) -> Optional[float]:
        siblings = self._list_of(site.fi).get(site.cid)
        candidates: List[Site] = []
        rescale_sites = [s for s in self.sites.get("transforms") or [] if s.entry.kind_spec.get("role") == "rescale"]
        if siblings:
            before = siblings[:siblings.index(site.cid)]
            candidates = [s for s in rescale_sites if s.fi == site.fi and s.cid in before]
        if not candidates:
            candidates = [s for s in rescale_sites if s.fi == site.fi and s.call.scope == site.call.scope
                          and s.call.line < site.call.line]
        if not candidates:
            return None
        factor = 1.0
        for s in candidates:
            f = s.entry.spec.get("factor")
            if f is None:
                v = s.arg(s.entry.spec.get("factor_from", ""))
                if v is None or not v.known or not isinstance(v.value, (int, float)):
                    return None
                f = v.value
            factor *= f
        return factor

    def _list_of(self, fi: int) -> Dict[int, Tuple[int, ...]]:
        """call id → the call ids of the list/tuple literal it is an element of."""
        hit = self._lists.get(fi)
        if hit is not None:
            return hit
        out: Dict[int, Tuple[int, ...]] = {}

        def walk(e: Any) -> None:
            if not isinstance(e, tuple) or not e:
                return
            if e[0] == "seq":
                ids = tuple(x[1] for x in e[2] if isinstance(x, tuple) and x and x[0] == "call")
                for i in ids:
                    out.setdefault(i, ids)
            for x in e[1:]:
                if isinstance(x, tuple):
                    walk(x)

        facts = self.p.files[fi]
        for a in facts.assigns:
            walk(a.value)
        for c in facts.calls:
            for arg in c.args:
                walk(arg.value)
        self._lists[fi] = out
        return out

    # ------------------------------------------------------------------ epochs
    def _epochs(self) -> None:
        for site in self.sites.get("loops") or []:
            site.role = TRAINING
            try:
                val, used = site.read("epochs")
            except normalize.Skip:
                continue
            self.add("train.epochs", val, site, site.line_of(used), ("epochs", used))
            return
        found = self._epoch_loop()
        if found is not None:
            fi, scope, arg, line = found
            val = self.resolver.arg(fi, scope, arg, TRAINING)
            self.add("train.epochs", val, None, line)
            fact = self.profile.facts["train.epochs"]
            fact.path = self.side.display(fi)

    def _epoch_loop(self) -> Optional[Tuple[int, int, ArgFact, int]]:
        """The outermost ``for _ in range(N)`` loop on the way from the entry to a training step."""
        best: Optional[Tuple[int, int, ArgFact, int]] = None
        for fi, cid in self.side.roles.step_sites(TRAINING):
            if fi not in self.file_order:
                continue
            seen = set()
            todo = [(fi, cid, 0)]
            while todo:
                cfi, ccid, depth = todo.pop()
                if (cfi, ccid) in seen or depth > 6:
                    continue
                seen.add((cfi, ccid))
                call = self.p.files[cfi].calls[ccid]
                for loop in self.mc.loops(cfi, call.scope).get(call.stmt, ()):
                    it = loop[3] if loop[0] == "for" else None
                    if it is not None and it[0] == "call" and "builtins.range" in self.p.call_names(cfi, it[1]):
                        rc = self.p.files[cfi].calls[it[1]]
                        pos = [a for a in rc.args if a.keyword is None and not a.star]
                        if len(pos) == 1:
                            cand = (cfi, call.scope, pos[0], self.p.files[cfi].stmts[loop[1]][0])
                            best = cand   # climbing outwards: the last one found is the outermost
                        break
                if call.scope:
                    for gfi, gcid, _ in self.p.callers(Func(cfi, call.scope)):
                        todo.append((gfi, gcid, depth + 1))
                    for gfi, gcid in self.p.instance_callers(Func(cfi, call.scope)):
                        todo.append((gfi, gcid, depth + 1))
            if best is not None:
                return best
        return best


def signature_of(tables: Tables, apis: Any, names: Sequence[str], framework: str) -> Optional[Tuple[Param, ...]]:
    """The signature of the first of ``names`` that the mapping tables or the API tables
    describe, in the framework's table version."""
    fw = apis.frameworks.get(framework)
    version = parse_version(fw.default_version) if fw and fw.default_version else None
    for n in names:
        if n in tables.signatures:
            return tables.signatures[n]
        api = apis.get(n)
        if api is not None and api.signature(version) is not None:
            return api.signature(version)
    return None


def extract_profile(side: Side, tables: Tables, packs: RulePacks) -> Profile:
    """The training profile of a loaded side."""
    return Extractor(side, tables, packs).extract()
