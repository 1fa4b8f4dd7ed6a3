"""Which objects a state machine's transition or sink acts on, when the rule tracks state per
object (``track_objects``): the objects an expression may denote, what a wrapper or container
was built from, the networks a step trains or runs, and the mode-dependent layers inside them
(with ``trained_only``, only those of networks some optimizer updates).

A part of :class:`~linter.match.flow.state.StateFlow`, separate from its interpreter because it
asks the program model (parts, trained and frozen objects, gradients), not the states.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, Optional, Set, Tuple

from linter.facts.model import Expr
from linter.index.values import Ext, Func, Obj
from linter.match.flow.lattice import ANY, Key
from linter.match.flow.sites import CallKey
from linter.match.predicates import code_scopes
from linter.match.severity import mode_layer_globs
from linter.program.training import direct_parts, frozen_objects, parts, standalone_only, trained_objects, updated_by

if TYPE_CHECKING:
    from linter.compiler.build import CompiledRule, FlowSpec
    from linter.index.project import Project
    from linter.match.context import MatchContext

_TENSOR_METHODS = frozenset({"reshape", "view", "sum", "mean", "pow", "exp", "log", "abs", "sqrt", "matmul", "mm",
                             "transpose", "t", "squeeze", "unsqueeze", "expand_dims", "flatten", "clip", "clamp",
                             "max", "min", "argmax", "astype", "float", "asnumpy", "item", "shape", "size",
                             "norm", "square", "mul", "add", "sub", "div", "dot"})
"""Methods of tensors: calling them runs no network (a Cell has none of these)."""


class Objects:
    """The objects of a state machine: keys of expressions, parts, networks and their layers."""

    if TYPE_CHECKING:
        # set by StateFlow.__init__
        rule: CompiledRule
        spec: FlowSpec
        mc: MatchContext
        p: Project
        objects: bool
        _child_cache: Dict[Key, FrozenSet[Key]]
        _network_cache: Dict[CallKey, FrozenSet[Key]]
        _inside_trained: Optional[Set[Tuple[int, int]]]
        _cold: Optional[Set[Tuple[int, int]]]

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
        if origins and complete and all(self._makes_grad(ofi, ocid) and self._standalone_weights(ofi, ocid)
                                         for ofi, ocid in origins):
            return frozenset()   # `value_and_grad(f, None, weights=[mask])`: it trains an input, no network
        for ofi, ocid in origins:
            if self._makes_grad(ofi, ocid):
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

    def _makes_grad(self, fi: int, cid: int) -> bool:
        """Call ``cid`` makes a gradient function (``value_and_grad``, ``grad``)."""
        return any(n.endswith(("value_and_grad", ".grad")) for n in self.p.call_names(fi, cid))

    def _grad_of_plain_code(self, fi: int, cid: int) -> bool:
        """``grad(relu)``, ``value_and_grad(forward_fn, (2, 3))`` over functions of tensors and
        parameters: the differentiated project code (and what it calls, two levels down) runs no
        network — every call in it is a known function, never an instance of a class — and no
        ``weights`` are asked for, so no Cell is trained here and its mode cannot matter
        (d2l's plots of an activation's derivative, its linear regression from scratch)."""
        if not self._makes_grad(fi, cid):
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

    def _weights(self, fi: int, cid: int) -> Optional[Expr]:
        """The ``weights`` argument of gradient maker ``cid`` (keyword, or third positional)."""
        call = self.p.files[fi].calls[cid]
        weights = next((a for a in call.args if a.keyword == "weights"), None)
        if weights is None:
            positional = [a for a in call.args if a.keyword is None]
            weights = positional[2] if len(positional) > 2 else None
        return None if weights is None else weights.value

    def _standalone_weights(self, fi: int, cid: int) -> bool:
        """The ``weights`` of gradient maker ``cid`` are only parameters made on their own."""
        weights = self._weights(fi, cid)
        return weights is not None and standalone_only(self.mc.program, fi, self.p.files[fi].calls[cid].scope, weights)

    def _trained_networks(self, fi: int, cid: int) -> FrozenSet[Key]:
        """``value_and_grad(fn, None, optimizer.parameters)`` → the network behind the parameters."""
        weights = self._weights(fi, cid)
        if weights is None:
            return frozenset()
        return self._param_owner(fi, self.p.files[fi].calls[cid].scope, weights, 0)

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
