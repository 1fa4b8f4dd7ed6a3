"""Severity adjustments declared by rules (``severity_if``), shared by every matcher.

``network-without-dropout-or-batchnorm``: train/eval mode only changes results through
layers such as Dropout, BatchNorm, noise and random augmentation. When the network a finding
is about is known to have none, the finding is kept (the code is still fragile) but lowered,
with a note. The network is inspected where it can be (a ``Sequential`` list, the layers a
project class builds, the networks a wrapper is constructed with); otherwise the modules of
the script are (the file, what it imports and what imports it). A network from an external
factory is unknown and never lowers anything.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from linter.compiler.build import CompiledRule
from linter.core.globs import GlobSet
from linter.index.values import Cls, Ext, Mod, Obj
from linter.match.context import MatchContext
from linter.match.predicates import arg_values, evaluate
from linter.program.training import parts

_FACTORIES = ("create_model", "get_model", "build_model", "from_pretrained", "load_model", "load")
_DATA_LOADERS = ("numpy.", "pickle.", "json.", "yaml.", "joblib.", "scipy.", "pandas.", "h5py.", "cv2.", "PIL.",
                 "builtins.", "os.", "io.")
"""`np.load`, `json.load`, ...: data, not a network from an external model zoo."""


def adjust(rule: CompiledRule, mc: MatchContext, lang: str, fi: int,
           network: Iterable[Any] = (), site: Any = None, cid: Optional[int] = None) -> Tuple[Optional[str], str]:
    """(severity or None, note) for a finding at call ``cid`` of file ``fi`` about ``network``
    (callee values); the first ``severity_if`` entry that holds decides. Predicate entries are
    tested on the matched call ``site`` (call rules)."""
    if cid is None and site is not None:
        cid = site.cid
    for adj in rule.severity_if:
        if "pred" in adj:

            if site is not None and evaluate(adj["pred"], site, mc):
                return adj["severity"], adj["note"].get(lang) or adj["note"]["en"]
        elif "layers" in adj:
            if site is not None and _layers_match(mc, rule.framework, site, *adj["layers"]):
                return adj["severity"], adj["note"].get(lang) or adj["note"]["en"]
        elif adj["when"] == "network-without-dropout-or-batchnorm":
            values = list(network)
            has = _network_has(mc, rule.framework, values, set())
            if has is None and _external_network(mc, values):
                continue   # its layers are in a library the tables do not describe: unknown
            if has is None:
                has = _modules_have(mc, rule.framework, fi, cid)
            if not has:
                return adj["severity"], adj["note"].get(lang) or adj["note"]["en"]
    return None, ""


def _external_network(mc: MatchContext, values: List[Any]) -> bool:
    """A network object of a library class the API tables do not describe (texar's
    ``BERTClassifier``): the script's own modules say nothing about its layers."""
    return any(isinstance(v, Obj) and mc.p.unknown_ext(v.type) for v in values)


def _layers_match(mc: MatchContext, framework: str, site: Any, arg: str, has: GlobSet, lacks: GlobSet) -> bool:
    """The network passed as ``arg`` is known to build a layer matching ``has`` and known to
    build none matching ``lacks`` (an MSE-trained network with no log or softmax loss)."""
    a = site.arg(arg)
    if a is None:
        return False
    objs = [v for v in mc.p.values(site.fi, site.call.scope, a.value) if isinstance(v, Obj)]
    if not objs:
        return False
    return _network_has(mc, framework, objs, set(), has) is True and \
        _network_has(mc, framework, objs, set(), lacks) is False


_RECURRENT = frozenset(("LSTM", "GRU", "RNN"))
"""Recurrent layers in the mode-dependent tables: they differ between modes only through dropout."""

def mode_layer_globs(mc: MatchContext, framework: str) -> GlobSet:
    """Layers whose behaviour depends on train/eval mode (``mode_dependent`` in rules/apis)."""
    return GlobSet(mc.p.apis.mode_dependent.get(framework, ()))


def _network_has(mc: MatchContext, framework: str, values: list, seen: Set[Any],
                 globs: Optional[GlobSet] = None) -> Optional[bool]:
    """True/False when the layers of the network objects are known, None when they are not;
    the layers looked for are the mode-dependent ones unless ``globs`` says otherwise."""
    objs = [v for v in values if isinstance(v, Obj)]
    if not objs:
        return None
    if globs is None:
        globs = mode_layer_globs(mc, framework)
    verdict: Optional[bool] = False
    for o in objs:
        if o in seen:
            continue
        seen.add(o)
        r = _object_has(mc, globs, framework, o, seen)
        if r:
            return True
        if r is None:
            verdict = None
    return verdict


def _object_has(mc: MatchContext, globs: GlobSet, framework: str, o: Obj, seen: Set[Any]) -> Optional[bool]:
    """Whether object ``o`` holds a mode-dependent layer: one it is (a Dropout that drops
    something), one its project class builds (in any method, or assigns to an attribute,
    parameters followed to what the call sites pass), or one inside the objects it is built
    from (a wrapper's network). A framework object built from no other object (an optimizer,
    a Dense layer) holds none; a network from an unknown factory is unknown."""
    p = mc.p
    if o.file >= 0 and o.call >= 0 and _is_mode_layer(mc, globs, o.file, o.call):
        return True
    unknown = False
    if isinstance(o.type, Cls):
        for k in p.project_mro(o.type):
            facts = p.files[k.file]
            cls = facts.classes[k.index]
            scopes = _with_nested(facts, set(cls.methods.values()) | {cls.body})
            for cid, c in enumerate(facts.calls):
                if c.scope not in scopes:
                    continue
                names = p.call_names(k.file, cid)
                if globs.any(names) and _built_layer(mc, globs, k.file, cid):
                    return True
                if names and names[0].rsplit(".", 1)[-1] in _FACTORIES:
                    unknown = True
    elif o.file < 0 or o.call < 0:
        return None
    elif mc.p.apis.get(o.type.qual) is None and not p.apis.callable_kind(p.call_names(o.file, o.call)):
        unknown = True   # a framework class the tables do not describe
    if o.file >= 0 and o.call >= 0:
        for part in sorted(parts(mc.program, (o.file, o.call))):
            if part in seen:
                continue
            seen.add(part)
            if _built_layer(mc, globs, *part):
                return True
            for v in p.call_values(*part):
                if isinstance(v, Obj) and isinstance(v.type, Cls):
                    r = _object_has(mc, globs, framework, v, seen)
                    if r:
                        return True
                    unknown = unknown or r is None
    return None if unknown else False


def _with_nested(facts: Any, scopes: Set[int]) -> Set[int]:
    """``scopes`` and the functions defined inside them (a ``downsample()`` helper nested in
    ``__init__`` that builds the BatchNorm layers)."""
    out = set(scopes)
    for index, f in enumerate(facts.funcs):
        p = f.parent
        while p > 0 and p not in out:
            p = facts.funcs[p].parent
        if p in out and p > 0:
            out.add(index)
    return out


def _built_layer(mc: MatchContext, globs: GlobSet, fi: int, cid: int) -> bool:
    """:func:`_is_mode_layer`, in a branch some path takes (DBPN's `if self.norm == "batch":
    self.bn = nn.BatchNorm2d(...)` with every constructor call leaving `norm=None` builds none),
    and used: stored somewhere the project reads."""
    if not _is_mode_layer(mc, globs, fi, cid):
        return False
    call = mc.p.files[fi].calls[cid]
    # a layer stored as `self.drop` that nothing in the project reads (depthnet's CoarseNet) runs in neither mode
    return not mc.program.paths.dead(fi, call.scope, call.stmt) and not mc.stored_unused(fi, cid)


def _is_mode_layer(mc: MatchContext, globs: GlobSet, fi: int, cid: int) -> bool:
    """Call ``cid`` builds a mode-dependent layer — not a Dropout that keeps everything
    (``p=0.0``/``keep_prob=1.0`` on every path), which is the identity in both modes, nor a
    MindSpore BatchNorm given ``use_batch_statistics`` (True/False fixes its statistics
    whatever the mode; only None, the default, follows ``set_train``)."""
    names = mc.p.call_names(fi, cid)
    if not globs.any(mc.created_types(fi, cid) or names):
        return False

    f = mc.p.files[fi].calls[cid].func
    if _mode_fixed_at_construction(mc, fi, cid) or \
            (f[0] == "attr" and f[2] in ("set_train", "train", "eval") and f[1][0] == "call"):
        return False   # the layer built and switched in one expression (its value is the switch's result)
    if any(n.startswith("mindspore.") and "BatchNorm" in n for n in names):
        site = mc.bind(fi, cid, names, names[0])
        a = site.arg("use_batch_statistics")
        if a is None:
            return True
        # an unknown value passed on purpose (a gin/config binding) fixes the mode too
        vals, known = arg_values(site, mc, a, "use_batch_statistics", False)
        return known and bool(vals) and all(v.value is None for v in vals)
    if any(n.rsplit(".", 1)[-1] in _RECURRENT for n in names):
        # an RNN depends on the mode only through its dropout (between layers; Keras also on its inputs
        # and recurrent state), 0.0 by default: an LSTM left at the default is the same in both modes
        site = mc.bind(fi, cid, names, names[0])
        return any(site.arg(arg) is not None and not _always(mc, site, arg, 0.0) for arg in ("dropout", "recurrent_dropout"))
    if not any("ropout" in n for n in names):
        return True
    site = mc.bind(fi, cid, names, names[0])
    return not any(site.arg(arg) is not None and _always(mc, site, arg, identity)
                   for arg, identity in (("p", 0.0), ("keep_prob", 1.0), ("rate", 0.0)))


def _always(mc: MatchContext, site: Any, arg: str, number: float) -> bool:
    """Argument ``arg``, passed to the call, is ``number`` on every path (its values all known)."""
    vals, known = arg_values(site, mc, site.arg(arg), arg, False)
    return known and bool(vals) and all(isinstance(v.value, (int, float)) and float(v.value) == number for v in vals)


def _mode_fixed_at_construction(mc: MatchContext, fi: int, cid: int) -> bool:
    """``nn.BatchNorm2d(c).set_train(True)`` (MAML's learner): the layer's mode is set where it
    is built, so a network never switched as a whole keeps it (a network switched later switches
    its children too — then the mode rules see that switch)."""
    for c in mc.p.files[fi].calls:
        f = c.func
        if f[0] == "attr" and f[2] in ("set_train", "train", "eval") and f[1][0] == "call" and f[1][1] == cid:
            return True
    return False


def _modules_have(mc: MatchContext, framework: str, fi: int, cid: Optional[int] = None) -> bool:
    """Whether the script's modules build a mode-dependent layer (or an external network).

    With the finding's call known, a layer counts unless the program model shows it is built
    only by other programs: the entries that reach it are known and none of them reaches the
    finding (d2l: one helper module, a hundred notebooks; the BatchNorm of its ``resnet18`` does
    not make the linear-regression notebook's network mode-dependent). A layer whose programs
    are unknown still counts."""
    globs = mode_layer_globs(mc, framework)
    if not globs:
        return True
    built = mc.program.store.table("severity.built")
    importers: Dict[int, List[int]] = built.get("importers")  # type: ignore[assignment]
    if importers is None:
        # file → the files whose import closure holds it, once per run (asked per file, the
        # scan over every file costs files × files on a tree of many projects)
        importers = {}
        for other in range(len(mc.p.files)):
            for f in mc.program.import_closure(other):
                importers.setdefault(f, []).append(other)
        built["importers"] = importers
    files = set(mc.program.import_closure(fi))
    for other in importers.get(fi, ()):
        files |= mc.program.import_closure(other)
    entries = set(mc.program.entries_reaching(fi, cid)) if cid is not None else set()

    def this_program(gfi: int, lcid: int) -> bool:
        if not entries:
            return True
        theirs = mc.program.entries_reaching(gfi, lcid)
        if theirs:
            return not entries.isdisjoint(theirs)
        # reached by no entry (registries and classes handed on as values included): not built
        # by this program — unless it looks things up by computed name, which reach cannot follow
        return _dynamic_lookup(mc, files)

    for gfi in sorted(files):
        facts = mc.p.files[gfi]
        for key in globs.keys_in(facts.callee_index):
            for lcid in facts.callee_index[key]:
                if _built_layer(mc, globs, gfi, lcid) and this_program(gfi, lcid):
                    return True
        for key in _FACTORIES:
            for cid in facts.callee_index.get(key, ()):
                if any(isinstance(v, Ext) and not v.qual.startswith(_DATA_LOADERS) for v in mc.p.callee_values(gfi, cid)):
                    return True  # a network from an external model zoo: its layers are unknown
    return False


_DYNAMIC = ("globals", "eval", "exec", "importlib.import_module", "__import__", "builtins.globals",
            "builtins.eval", "builtins.exec", "builtins.__import__")


def _dynamic_lookup(mc: MatchContext, files: Iterable[int]) -> bool:
    """Whether one of these files may build a class or call a function chosen by a computed
    name: ``getattr(module, name)`` with a name that is not a literal, ``globals()[name]``,
    ``eval``, ``importlib.import_module``. Reachability cannot follow these, so what no entry
    reaches may still run there."""
    table = mc.program.store.table("severity.dynamic")
    for gfi in files:
        hit = table.get(gfi)
        if hit is None:
            hit = table[gfi] = _file_looks_up(mc, gfi)
        if hit:
            return True
    return False


def _file_looks_up(mc: MatchContext, fi: int) -> bool:
    facts = mc.p.files[fi]
    for cid, c in enumerate(facts.calls):
        if c.dotted in _DYNAMIC:
            return True
        if c.dotted in ("getattr", "builtins.getattr") and len(c.args) >= 2 and c.args[1].value[0] != "const":
            target = mc.p.values(fi, c.scope, c.args[0].value)
            if any(isinstance(v, (Mod, Ext)) for v in target):
                return True   # an attribute of a module by computed name (`getattr(models, cfg.arch)`)
    return False
