"""What a program trains — the objects whose parameters an optimizer
updates — and the parts objects are made of.

An optimizer is built from parameters: ``nn.Momentum(net.trainable_params(), ...)``,
``torch.optim.SGD(model.parameters())``, parameter groups (``[{"params": decay}, ...]``),
``filter(lambda p: p.requires_grad, net.get_parameters())``, or a helper that returns them.
The owner of those parameters is trained; so are the objects it is built from (a loss
wrapper's network) and the layers it holds. A network a checkpoint is loaded into that no
optimizer reaches (an evaluation copy built inside a training script) is not.

Which classes are optimizers and which methods read parameters is data (``rules/roles.yaml``:
``training.optimizers`` and ``training.parameters``).
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Protocol, Set, Tuple

from linter.core.globs import GlobSet
from linter.core.memo import MemoStore
from linter.facts.ir import iter_returns
from linter.facts.model import Expr
from linter.index.project import Project
from linter.index.values import Cls, Obj, Unknown, Value
from linter.program.roles import Roles


class Program(Protocol):
    """What this module asks of the program model (:class:`linter.program.model.ProgramModel`,
    which sits above it)."""

    p: Project
    roles: Roles
    store: MemoStore

    def calls_creating(self, globs: GlobSet) -> List[Tuple[int, int]]: ...

    def entries_reaching(self, fi: int, cid: int) -> List[int]: ...

Origin = Tuple[int, int]
"""(file, call) where an object was created."""

_MAX_DEPTH = 8
_MAX_PARTS = 2000


def trained_objects(pm: Program) -> Dict[Origin, Origin]:
    """Every object whose parameters an optimizer of the project updates → that optimizer's
    construction (memoised per run)."""
    return _optimizers(pm)[0]


def _optimizers(pm: Program) -> Tuple[Dict[Origin, Origin], List[Origin]]:
    """(trained objects → optimizer, optimizers whose parameters could not be traced)."""
    memo = pm.store.scoped("training.optimizers")
    hit = memo.get("trained")
    if hit is not None:
        return hit
    out: Dict[Origin, Origin] = {}
    untraced: List[Origin] = []
    by_optimizer: Dict[Origin, FrozenSet[Origin]] = {}
    spec = pm.roles.spec
    if spec.optimizers:
        for fi, cid in pm.calls_creating(spec.optimizers):
            call = pm.p.files[fi].calls[cid]
            params = next((a for a in call.args if a.keyword == "params"), None) or \
                next((a for a in call.args if a.keyword is None and not a.star), None)
            blind: List[bool] = []
            owners = _owners(pm, fi, call.scope, params.value, 0, set(), blind) if params is not None else set()
            if not owners or blind:
                # no owner found, or the parameters of an object the model cannot resolve as well
                # (`create_optimizer(network.trainable_params())` with `network` from a registry
                # lookup): this optimizer may train anything, so "not trained" is unknown
                untraced.append((fi, cid))
            by_optimizer[(fi, cid)] = frozenset(owners)
            for origin in sorted(owners):
                out.setdefault(origin, (fi, cid))
    memo["trained"] = (out, untraced)
    memo["by_optimizer"] = by_optimizer
    return out, untraced


_PARAMETER_LISTS = ("trainable_params", "get_parameters", "parameters")


def standalone_only(pm: Program, fi: int, scope: int, e: Expr) -> bool:
    """Expression ``e`` (an optimizer's or a gradient's parameters) holds only parameters made on
    their own (``[ms.Parameter(...)]``: an input mask, a style-transfer image), traced completely:
    what it updates is no network."""
    blind: List[bool] = []
    owners = _owners(pm, fi, scope, e, 0, set(), blind)
    return bool(owners) and not blind and all(
        pm.roles.spec.standalone_parameters.any(pm.p.call_names(ofi, ocid)) for ofi, ocid in owners)


def frozen_objects(pm: Program) -> FrozenSet[Origin]:
    """Objects whose parameters the program freezes — ``for p in net.trainable_params():
    p.requires_grad = False`` (a pretrained backbone): the optimizer handed their parameters
    does not update them, so their layers are not part of what it trains. Memoised per run."""
    memo = pm.store.scoped("training.optimizers")
    hit = memo.get("frozen")
    if hit is not None:
        return hit
    out: Set[Origin] = set()
    thawed: Set[Origin] = set()   # unfrozen again somewhere (a second fine-tuning phase): not frozen
    p = pm.p
    for fi, facts in enumerate(p.files):
        for a in facts.assigns:
            t = a.target
            if not (t[0] == "attr" and t[2] == "requires_grad" and a.value[0] == "const" and t[1][0] == "name"):
                continue
            into = out if a.value[1] is False else thawed
            for aid in t[1][2]:
                it = facts.assigns[aid].value
                if it[0] != "iter" or it[1][0] != "call":
                    continue
                c = facts.calls[it[1][1]]
                if c.func[0] == "attr" and c.func[2] in _PARAMETER_LISTS:
                    into.update(o.origin for o in _objects(pm, p.expand_params(p.values(fi, c.scope, c.func[1]))))
    hit = frozenset(out - thawed)
    memo["frozen"] = hit
    return hit


def updated_by(pm: Program, optimizer: Origin) -> FrozenSet[Origin]:
    """The objects whose parameters the optimizer built at ``optimizer`` updates (empty when
    not an optimizer construction or its parameters cannot be traced)."""
    _optimizers(pm)
    return pm.store.scoped("training.optimizers")["by_optimizer"].get(optimizer, frozenset())


def _owners(pm: Program, fi: int, scope: int, e: Expr, depth: int, seen: Set[Any],
            blind: Optional[List[bool]] = None) -> Set[Origin]:
    """Objects whose parameters expression ``e`` holds; ``blind`` gets an entry when it also
    holds the parameters of a value the model cannot resolve."""
    if depth > _MAX_DEPTH or not isinstance(e, tuple) or not e:
        return set()
    key = (fi, scope, id(e))
    if key in seen:
        return set()
    seen.add(key)
    p = pm.p
    tag = e[0]
    out: Set[Origin] = set()
    if tag == "call":
        c = p.files[fi].calls[e[1]]
        if c.func[0] == "attr" and c.func[2] in pm.roles.spec.parameter_methods:
            return _parameter_owners(pm, p.expand_params(p.values(fi, c.scope, c.func[1])), blind)
        if pm.roles.spec.standalone_parameters.any(p.call_names(fi, e[1])):
            return {(fi, e[1])}   # `nn.Adam([ms.Parameter(...)])`: the parameter is its own owner
        # filter(...), list(...), itertools.chain(...), a helper's result: what goes in, what it returns
        for a in c.args:
            out |= _owners(pm, fi, c.scope, a.value, depth + 1, seen, blind)
        for f, _ in p.call_targets(fi, e[1]):
            for r in iter_returns(p.files[f.file].funcs[f.index].body):
                if r is not None:
                    out |= _owners(pm, f.file, f.index, r, depth + 1, seen, blind)
        return out
    if tag == "attr" and e[2] in pm.roles.spec.parameter_methods:
        # `model.trainable_weights` (a property)
        return _parameter_owners(pm, p.expand_params(p.values(fi, scope, e[1])), blind)
    if tag in ("name", "attr"):
        for sfi, sscope, sexpr, _line, _via in p.defining_exprs(fi, scope, e):
            if sexpr is not None:
                out |= _owners(pm, sfi, sscope, sexpr, depth + 1, seen, blind)
        return out
    if tag == "seq":
        for x in e[2]:
            out |= _owners(pm, fi, scope, x, depth + 1, seen, blind)
    elif tag == "dict":
        for x in e[2]:
            out |= _owners(pm, fi, scope, x, depth + 1, seen, blind)
    elif tag == "binop":
        out |= _owners(pm, fi, scope, e[2], depth + 1, seen, blind) | _owners(pm, fi, scope, e[3], depth + 1, seen, blind)
    elif tag == "comp":
        out |= _owners(pm, fi, scope, e[2], depth + 1, seen, blind)
        for _target, it in e[3]:
            out |= _owners(pm, fi, scope, it, depth + 1, seen, blind)
    elif tag in ("star", "ifexp"):
        for x in e[1:]:
            out |= _owners(pm, fi, scope, x, depth + 1, seen, blind)
    return out


def _parameter_owners(pm: Program, vals: Iterable[Value], blind: Optional[List[bool]]) -> Set[Origin]:
    vals = list(vals)
    if blind is not None and any(isinstance(v, Unknown) for v in vals):
        blind.append(True)
    return {v.origin for v in _objects(pm, vals)}


def _objects(pm: Program, vals: Iterable[Value]) -> Iterable[Obj]:
    return [v for v in vals if isinstance(v, Obj) and v.file >= 0 and v.call >= 0]


def parts(pm: Program, origin: Origin) -> FrozenSet[Origin]:
    """Every object ``origin`` is built from or holds, transitively: the objects passed to its
    construction (a wrapper's network) and the attributes a project class assigns (its layers)."""
    cache: Dict[Origin, FrozenSet[Origin]] = pm.store.table("training.parts")
    hit = cache.get(origin)
    if hit is not None:
        return hit
    seen: Set[Origin] = set()
    todo = [origin]
    while todo and len(seen) < _MAX_PARTS:
        for d in sorted(direct_parts(pm, todo.pop())):
            if d not in seen and d != origin:
                seen.add(d)
                todo.append(d)
    result = frozenset(seen)
    cache[origin] = result
    return result


def direct_parts(pm: Program, origin: Origin) -> FrozenSet[Origin]:
    """The objects ``origin`` is built from (its arguments, list items included) and the
    objects its project class assigns to attributes (memoised: the mode rules ask it of every
    object a state touches)."""
    cache: Dict[Origin, FrozenSet[Origin]] = pm.store.table("training.direct_parts")
    hit = cache.get(origin)
    if hit is None:
        hit = cache[origin] = frozenset(_direct_parts_uncached(pm, origin))
    return hit


def _direct_parts_uncached(pm: Program, origin: Origin) -> Set[Origin]:
    p = pm.p
    fi, cid = origin
    call = p.files[fi].calls[cid]
    exprs = []
    for a in call.args:
        exprs.append(a.value)
        if a.value[0] in ("seq", "comp"):
            exprs += _elements(a.value)   # `nn.CellList([Block(...) for _ in range(n)])`
        elif a.value[0] == "name":
            exprs += _list_items(pm, fi, call.scope, a.value[1])
    out: Set[Origin] = set()
    for e in exprs:
        out |= {v.origin for v in _objects(pm, p.expand_params(p.values(fi, call.scope, e)))}
    for v in p.callee_values(fi, cid):
        if isinstance(v, Cls):
            for klass in p.project_mro(v):
                cf = p.files[klass.file].classes[klass.index]
                for ids in cf.attrs.values():
                    for aid in ids:
                        asg = p.files[klass.file].assigns[aid]
                        out |= {x.origin for x in _objects(pm, p.expand_params(p.values(klass.file, asg.scope, asg.value)))}
                out |= _appended_to_self(pm, klass.file, cf)
    return out


def _appended_to_self(pm: Program, fi: int, cf: Any) -> Set[Origin]:
    """Objects a class's methods add to a list attribute: ``self.blocks = []`` then
    ``self.blocks.append(nn.SequentialCell(...))`` (SSD-ResNet34's extra blocks)."""
    p = pm.p
    methods = set(cf.methods.values())
    out: Set[Origin] = set()
    for c in p.files[fi].calls:
        f = c.func
        if c.scope in methods and f[0] == "attr" and f[2] in ("append", "extend", "insert") and f[1][0] == "attr" \
                and f[1][1][0] == "name" and f[1][1][1] == "self" and f[1][2] in cf.attrs:
            for arg in c.args[-1:]:
                exprs = _elements(arg.value) if arg.value[0] in ("seq", "comp") else [arg.value]
                for e in exprs:
                    out |= {x.origin for x in _objects(pm, p.expand_params(p.values(fi, c.scope, e)))}
    return out


def _list_items(pm: Program, fi: int, scope: int, name: str) -> List[Any]:
    """The items of a list built in the same function (``layers = [...]``, ``layers.append(x)``,
    ``layers += [...]``, ``layers.extend([...])``) and handed to ``nn.SequentialCell(layers)``."""
    facts = pm.p.files[fi]
    items: List[Any] = []
    for a in facts.assigns:
        if a.scope == scope and a.target[0] == "name" and a.target[1] == name and a.value[0] in ("seq", "comp"):
            items += _elements(a.value)   # `blocks = [Unit(...) for _ in range(n)]`: the element built
    for c in facts.calls:
        f = c.func
        if c.scope == scope and f[0] == "attr" and f[1][0] == "name" and f[1][1] == name and f[2] in ("append", "extend", "insert"):
            for arg in c.args[-1:]:
                items += _elements(arg.value) if arg.value[0] in ("seq", "comp") else [arg.value]
    return items


def _elements(e: Any) -> List[Any]:
    """What a list literal holds, or what a comprehension builds (its element expression)."""
    return list(e[2]) if e[0] == "seq" else [e[2]]


def training_state(pm: Program, vals: Iterable[Value], entries: Iterable[int] = ()) -> Optional[bool]:
    """True: one of the objects is trained — an optimizer that one of ``entries`` reaches (any,
    when none is given) updates it or a wrapper built from it; False: they are known objects, the
    program's optimizers are known and none updates them; None: unknown (not known objects, an
    optimizer whose parameters cannot be traced, or no optimizer construction in sight).

    Objects are told apart by where they are created, not by which call created them: an
    evaluation copy built by the same factory as the trained network is the same object here.
    So a network whose *part* is trained does not count — its part may be that shared factory
    product, not what this program trains."""
    objs = list(_objects(pm, pm.p.expand_params(frozenset(vals))))
    if not objs:
        return None
    wanted = set(entries)
    everyone, by_entry, untraced_entries, any_untraced = _trained_index(pm)
    if wanted:
        trained = sorted({t for e in wanted for t in by_entry.get(e, ())})
        untraced_here = bool(wanted & untraced_entries)
        optimizer_here = bool(wanted & by_entry.keys())
    else:
        trained, untraced_here, optimizer_here = everyone, any_untraced, bool(everyone)
    trained_set = set(trained)
    for o in objs:
        if o.origin in trained_set or any(o.origin in parts(pm, t) for t in trained):
            return True
    if wanted and not any("training" in pm.roles.entry_roles(e) for e in wanted):
        return False   # no program that runs it trains anything
    if untraced_here or not optimizer_here:
        return None   # an optimizer whose parameters we cannot trace, or none we can see: unknown
    return False


def _trained_index(pm: Program) -> Tuple[List[Origin], Dict[int, List[Origin]], Set[int], bool]:
    """The trained objects (sorted); entry → the objects its programs' optimizers update;
    the entries reaching an optimizer whose parameters cannot be traced; whether there is one.
    Built once per run: asking every optimizer about every question costs questions ×
    optimizers on a tree of many projects."""
    memo = pm.store.scoped("training.optimizers")
    hit = memo.get("index")
    if hit is not None:
        return hit
    owners, untraced = _optimizers(pm)
    by_entry: Dict[int, List[Origin]] = {}
    for t, opt in sorted(owners.items()):
        for e in pm.entries_reaching(*opt):
            by_entry.setdefault(e, []).append(t)
    untraced_entries = {e for opt in untraced for e in pm.entries_reaching(*opt)}
    hit = (sorted(owners), by_entry, untraced_entries, bool(untraced))
    memo["index"] = hit
    return hit
