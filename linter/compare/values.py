"""Compare: argument expressions → values, through the project index.

Most of the work is the index's constant propagation (module constants, arithmetic, values
passed at call sites, argparse defaults). On top of it this module resolves what a training
profile needs and the index leaves open: tuples and lists (``MEAN = (0.49, ...)``), framework
symbols (``torch.float16``), configuration files loaded with ``yaml.safe_load``/``json.load``
and indexed (``cfg["lr"]``, ``cfg.get("lr", 0.1)``) — read as data only, never executed — and
parameters of pipeline builders resolved per role (``create_dataset(..., training=True)`` is
the training pipeline, so its ``batch_size`` comes from that call only).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Optional, Set, Tuple

from linter.compare.load import Side
from linter.compare.model import Symbol, Val
from linter.facts.ir import calls_in_expr, iter_returns, sub_exprs
from linter.facts.model import ArgFact, Expr
from linter.index.project import _ARITH
from linter.index.values import Ext, Func, Obj, Record

_MAX_DEPTH = 12
_MAX_PARTS = 4
_MAX_HOPS = 3        # bindings and project-function returns followed to name an unknown value's inputs
_MAX_FUNCS = 2
_NOT_EXPRS = ("param", "enter", "import", "def", "class", "iter", "except", "unpack")
_MAX_CHOICES = 16
_CONFIG_MAX_BYTES = 1 << 20
_CONFIG_EXTENSIONS = (".yaml", ".yml", ".json")
_LOADERS = {"yaml.safe_load", "yaml.load", "yaml.full_load", "json.load", "json.loads", "easydict.EasyDict",
            "addict.Dict", "munch.Munch", "munch.munchify", "omegaconf.OmegaConf.create"}
_CONVERT = {"builtins.float": float, "builtins.int": int, "builtins.bool": bool, "builtins.str": str,
            "builtins.tuple": tuple, "builtins.list": tuple}


@dataclass(frozen=True)
class OpenFile:
    """``open(path)``: a configuration file, not read yet."""
    path: str


@dataclass(frozen=True)
class Config:
    """Data read from a configuration file (a mapping or list), with the file's name."""
    data: Any
    source: str

    def __hash__(self) -> int:
        return hash(self.source)


class Unresolved(Exception):
    """Raised inside the resolver when a path cannot be followed; carries nothing, the caller
    reports the argument's own source text."""


class Resolver:
    """Resolve argument expressions of one side to :class:`Val` s."""
    def __init__(self, side: Side) -> None:
        self.side = side
        self.p = side.project
        self._configs: Dict[str, Any] = {}

    # ------------------------------------------------------------------ entry points
    def arg(self, fi: int, scope: int, a: ArgFact, role: Optional[str] = None) -> Val:
        return self.expr(fi, scope, a.value, a.text, role)

    def unknown(self, fi: int, scope: int, a: ArgFact, role: Optional[str] = None) -> Val:
        """The argument as an unknown number (a Tensor or schedule object holding one), with the
        known inputs it is computed from."""
        return self._unknown(fi, scope, a.value, a.text, role)

    def expr(self, fi: int, scope: int, e: Expr, text: str, role: Optional[str] = None) -> Val:
        try:
            choices, via = self._resolve(fi, scope, e, role, 0)
        except (Unresolved, RecursionError):
            return self._unknown(fi, scope, e, text, role)
        plain = [c for c in choices if not isinstance(c, (Config, OpenFile))]
        if not plain or len(plain) != len(choices):
            return self._unknown(fi, scope, e, text, role)
        values = _distinct(plain)
        if len(values) == 1:
            return Val(values[0], True, text, via=via)
        if len(values) > _MAX_CHOICES:
            return Val.unknown(text)
        return Val(frozenset(_hashable(v) for v in values), True, text, via=via)

    def _unknown(self, fi: int, scope: int, e: Expr, text: str, role: Optional[str]) -> Val:
        """Unknown, with the values of its named parts that are known: what a reader needs to
        finish ``config.epoch_size - config.start_epoch`` when only the start is set at run time.
        A value computed by project functions (``lr = Tensor(init_lr(...))``, a per-step schedule)
        is followed into their bindings and returns: the parts are the schedule's inputs
        (``config.lr_max``), and the functions are named."""
        leaves, funcs = self._derivation(fi, scope, e)
        found: List[Tuple[str, Any]] = []
        for lfi, lscope, leaf in leaves:
            name = _dotted(leaf)
            if not name or name == text or any(name == n for n, _ in found):
                continue
            try:
                vals, _ = self._resolve(lfi, lscope, leaf, role, 1)
            except (Unresolved, RecursionError):
                continue
            if not vals or any(isinstance(v, (Config, OpenFile, Symbol)) or v == () for v in vals):
                continue   # a framework name (``np.float32``), an accumulator's `[]`: no input a reader is after
            values = _distinct(vals)
            if len(values) <= _MAX_CHOICES:
                found.append((name, values[0] if len(values) == 1 else frozenset(_hashable(v) for v in values)))
        # Parts sharing a word with the value's own name first (``lr_max`` for ``lr``): the
        # inputs of a schedule are many, and those are the ones a reader is after.
        words = set(_words(text))
        found.sort(key=lambda part: not words & set(_words(part[0])))
        return Val(None, False, text, parts=tuple(found[:_MAX_PARTS]), by=tuple(funcs))

    def _derivation(self, fi: int, scope: int, e: Expr) -> Tuple[List[Tuple[int, int, Expr]], List[str]]:
        """The named leaves ``e`` is computed from, outermost first, following local bindings
        and the returns of project functions it calls (a few hops), with the names of the
        functions that compute the value itself — through names, arithmetic and framework
        wrappers (``Tensor(init_lr(n)) * scale``) — not of those computing an input of a project
        function (``n = count_steps(dataset)`` in ``get_lr(steps=n)``)."""
        leaves: List[Tuple[int, int, Expr]] = []
        funcs: List[str] = []
        seen = set()
        todo = [(fi, scope, e, 0, True)]
        while todo and len(leaves) < 64:
            cfi, cscope, expr, hops, chain = todo.pop(0)
            if (cfi, cscope, expr) in seen:
                continue
            seen.add((cfi, cscope, expr))
            facts = self.p.files[cfi]
            cids = _calls_within(facts, expr)
            targets = {cid: self.p.call_targets(cfi, cid) for cid in cids} if hops < _MAX_HOPS else {}
            # what goes into a project function is an input of the value, not the value
            inputs: set = set()
            inner: set = set()
            for cid, tgt in targets.items():
                if tgt:
                    for a in facts.calls[cid].args:
                        inputs.update(id(x) for x in _named_leaves(facts, a.value))
                        inner.update(_calls_within(facts, a.value))
            for leaf in _named_leaves(facts, expr):
                leaves.append((cfi, cscope, leaf))
                if leaf[0] == "name" and leaf[2] and hops < _MAX_HOPS:
                    for aid in leaf[2]:
                        a = facts.assigns[aid]
                        if a.value[0] not in _NOT_EXPRS:
                            todo.append((cfi, a.scope, a.value, hops + 1, chain and id(leaf) not in inputs))
            for cid, tgt in targets.items():
                on_chain = chain and cid not in inner
                for f, _bound in tgt:
                    fact = self.p.files[f.file].funcs[f.index]
                    if fact.is_generator:
                        continue
                    label = f"{fact.name}()"
                    if on_chain and label not in funcs:
                        funcs.append(label)
                    todo += [(f.file, f.index, r, hops + 1, on_chain) for r in iter_returns(fact.body) if r is not None]
        return leaves, funcs[:_MAX_FUNCS]

    # ------------------------------------------------------------------ resolution
    def _resolve(self, fi: int, scope: int, e: Expr, role: Optional[str], depth: int) -> Tuple[List[Any], str]:
        """Every value ``e`` may have (raise :class:`Unresolved` if any path is unknown), and
        a provenance note."""
        if depth > _MAX_DEPTH:
            raise Unresolved()
        tag = e[0]
        if tag == "const":
            return [e[1]], ""
        if tag == "seq":
            return self._seq(fi, scope, e, role, depth)
        if tag == "name" and e[1] == "__file__":
            return [self.p.abspaths[fi]], ""
        if tag == "name" and e[2]:
            return self._local(fi, scope, e, role, depth)
        if tag == "subscript":
            return self._subscript(fi, scope, e, role, depth)
        if tag == "call":
            return self._call(fi, scope, e[1], role, depth)
        if tag == "attr":
            base = self._try(fi, scope, e[1], role, depth)
            if base is not None and base[0] and all(isinstance(b, Config) for b in base[0]):
                return [self._lookup(b, e[2]) for b in base[0]], _via(base[0], e[2])
            via = self._argparse_via(fi, scope, e)
            vals, known = self.p.constants(fi, scope, e)
            if known and vals:
                return [v.value for v in vals], via
            records = self._records(fi, scope, e[1])
            if records:
                return self._fields(records, e[2], role, depth)
            return self._defined(fi, scope, e, role, depth)
        if tag in ("binop", "unary", "ifexp", "name"):
            vals, known = self.p.constants(fi, scope, e)
            if known and vals:
                return [v.value for v in vals], ""
            if tag == "name":
                return self._defined(fi, scope, e, role, depth)
            if tag == "ifexp":
                a, va = self._resolve(fi, scope, e[2], role, depth + 1)
                b, vb = self._resolve(fi, scope, e[3], role, depth + 1)
                return a + b, va or vb
            if tag == "binop":
                return self._binop(fi, scope, e, role, depth)
        raise Unresolved()

    def _try(self, fi: int, scope: int, e: Expr, role: Optional[str], depth: int) -> Optional[Tuple[List[Any], str]]:
        try:
            return self._resolve(fi, scope, e, role, depth + 1)
        except Unresolved:
            return None

    def _records(self, fi: int, scope: int, e: Expr) -> List[Record]:
        """Records (argparse namespaces, EasyDicts) an expression may hold, through parameters."""
        vals = self.p.expand_params(self.p.values(fi, scope, e))
        if vals and all(isinstance(v, Record) for v in vals):
            return sorted(vals, key=repr)  # type: ignore[arg-type]
        return []

    def _fields(self, records: List[Record], name: str, role: Optional[str], depth: int) -> Tuple[List[Any], str]:
        out: List[Any] = []
        via = ""
        for rec in records:
            hit = [spec for fname, spec in rec.fields if fname == name]
            if not hit:
                raise Unresolved()
            rfi, rscope, rexpr = hit[-1]
            vals, v = self._resolve(rfi, rscope, rexpr, role, depth + 1)
            if rec.call >= 0 and "argparse.ArgumentParser.parse_args" in self.p.call_names(rec.file, rec.call):
                vals = [self._argparse_default(rfi, name, x) for x in vals]
                v = f"argparse default of --{name.replace('_', '-')}"
            out += vals
            via = via or v
        return out, via

    def _seq(self, fi: int, scope: int, e: Expr, role: Optional[str], depth: int) -> Tuple[List[Any], str]:
        parts: List[List[Any]] = []
        via = ""
        for elt in e[2]:
            if elt[0] == "star":
                raise Unresolved()
            vals, v = self._resolve(fi, scope, elt, role, depth + 1)
            parts.append(_distinct(vals))
            via = via or v
        combos: List[Tuple[Any, ...]] = [()]
        for options in parts:
            combos = [c + (o,) for c in combos for o in options]
            if len(combos) > _MAX_CHOICES:
                raise Unresolved()
        return [tuple(c) for c in combos], via

    def _binop(self, fi: int, scope: int, e: Expr, role: Optional[str], depth: int) -> Tuple[List[Any], str]:

        fn = _ARITH.get(e[1])
        if fn is None:
            raise Unresolved()
        left, va = self._resolve(fi, scope, e[2], role, depth + 1)
        right, vb = self._resolve(fi, scope, e[3], role, depth + 1)
        out = []
        for a in _distinct(left):
            for b in _distinct(right):
                if type(a) not in (int, float) or type(b) not in (int, float):
                    raise Unresolved()
                try:
                    r = fn(a, b)
                except (ArithmeticError, ValueError):
                    raise Unresolved() from None
                if r is None:
                    raise Unresolved()
                out.append(r)
        return out, va or vb

    def _local(self, fi: int, scope: int, e: Expr, role: Optional[str], depth: int) -> Tuple[List[Any], str]:
        """A name bound in this scope: follow each binding (``with open(...) as fh`` too)."""
        facts = self.p.files[fi]
        out: List[Any] = []
        via = ""
        for aid in e[2]:
            a = facts.assigns[aid]
            v = a.value
            if v[0] == "param":
                vals, pv = self._param(fi, v[1], v[2], role, depth)
            elif v[0] == "enter":
                vals, pv = self._resolve(fi, a.scope, v[1], role, depth + 1)
            elif v[0] in ("import", "def", "class", "iter", "except", "unpack"):
                vals, pv = self._defined(fi, scope, e, role, depth)
            else:
                vals, pv = self._resolve(fi, a.scope, v, role, depth + 1)
            out += vals
            via = via or pv
        return out, via

    def _defined(self, fi: int, scope: int, e: Expr, role: Optional[str], depth: int) -> Tuple[List[Any], str]:
        """Through the index's definitions (globals, imports, attributes of modules/classes)."""
        sources = self.p.defining_exprs(fi, scope, e)
        if not sources:
            sym = self._symbol(fi, scope, e)
            if sym is not None:
                return [sym], ""
            raise Unresolved()
        out: List[Any] = []
        via = ""
        for sfi, sscope, sexpr, _line, _via in sources:
            if sexpr is None:
                sym = self._symbol(fi, scope, e)
                if sym is not None:
                    return [sym], ""
                raise Unresolved()
            vals, v = self._resolve(sfi, sscope, sexpr, role, depth + 1)
            out += vals
            via = via or v
        return out, via

    def _symbol(self, fi: int, scope: int, e: Expr) -> Optional[Symbol]:
        """A framework name such as ``torch.float16`` or ``mindspore.dataset.Shuffle.GLOBAL``."""
        vals = self.p.values(fi, scope, e)
        exts = {v.qual for v in vals if isinstance(v, Ext)}
        if len(exts) == 1 and len(vals) == 1:
            return Symbol(self.p.apis.canonical(exts.pop()))
        return None

    def _param(self, fi: int, func: int, name: str, role: Optional[str], depth: int) -> Tuple[List[Any], str]:
        """A parameter: what its call sites pass (only those serving ``role`` when some do)."""
        fact = self.p.files[fi].funcs[func]
        param = next((x for x in fact.params if x.name == name), None)
        if param is None:
            raise Unresolved()
        sites = self.p.callers(Func(fi, func))
        if not sites:
            raise Unresolved()   # no known call: the default is no evidence of the value used
        if len(sites) > 1:
            # the calls the side's own program makes: other scripts of the folder (an export,
            # a sibling project importing this builder) pass values this program never sees
            roles, entry = self.side.roles, self.side.entry
            own = [s for s in sites if entry in roles.call_entries(s[0], s[1])]
            if own:
                sites = own
        if role is not None and len(sites) > 1:
            chosen = [s for s in sites if role in self.side.roles.pipeline_context(s[0], s[1])]
            if chosen:
                sites = chosen
        out: List[Any] = []
        via = ""
        for cfi, cid, bound in sites:
            call = self.p.files[cfi].calls[cid]
            a = bound.get(name)
            if a is not None:
                vals, v = self._resolve(cfi, call.scope, a.value, role, depth + 1)
            elif bound.uncertain or param.default is None:
                raise Unresolved()
            else:
                vals, v = self._resolve(fi, fact.parent, param.default, role, depth + 1)
            out += vals
            via = via or v
        return out, via

    def _call(self, fi: int, scope: int, cid: int, role: Optional[str], depth: int) -> Tuple[List[Any], str]:
        call = self.p.files[fi].calls[cid]
        names = self.p.call_names(fi, cid)
        first = names[0] if names else ""
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if first in _CONVERT and len(positional) == 1 and len(call.args) == 1:
            vals, via = self._resolve(fi, scope, positional[0].value, role, depth + 1)
            try:
                return [_CONVERT[first](v) for v in vals], via
            except (TypeError, ValueError):
                raise Unresolved() from None
        if first == "builtins.open" and positional:
            vals, _ = self._resolve(fi, scope, positional[0].value, role, depth + 1)
            return [OpenFile(str(v)) for v in vals if isinstance(v, str)] or _fail(), ""
        if first in ("os.path.join", "os.path.dirname", "os.path.abspath", "os.path.realpath", "os.path.normpath"):
            parts = [self._resolve(fi, scope, a.value, role, depth + 1)[0] for a in positional]
            if len(positional) != len(call.args) or any(len(p) != 1 or not isinstance(p[0], str) for p in parts):
                raise Unresolved()
            strs = [p[0] for p in parts]
            fn = {"os.path.join": lambda: os.path.join(*strs), "os.path.dirname": lambda: os.path.dirname(strs[0]),
                  "os.path.abspath": lambda: strs[0], "os.path.realpath": lambda: strs[0],
                  "os.path.normpath": lambda: os.path.normpath(strs[0])}[first]
            return [fn()], ""
        if first in _LOADERS and positional:
            vals, _ = self._resolve(fi, scope, positional[0].value, role, depth + 1)
            out = []
            for v in vals:
                if isinstance(v, OpenFile):
                    out.append(self._read_config(fi, v.path))
                elif isinstance(v, Config):
                    out.append(v)   # EasyDict(cfg) and friends wrap the same data
                else:
                    raise Unresolved()
            return out, ""
        if call.func[0] == "attr" and call.func[2] == "get" and positional:
            base = self._try(fi, scope, call.func[1], role, depth)
            if base is not None and base[0] and all(isinstance(b, Config) for b in base[0]):
                keys, _ = self._resolve(fi, scope, positional[0].value, role, depth + 1)
                out = []
                for b in base[0]:
                    for k in keys:
                        try:
                            out.append(self._lookup(b, k))
                        except Unresolved:
                            if len(positional) < 2:
                                raise
                            out += self._resolve(fi, scope, positional[1].value, role, depth + 1)[0]
                return out, _via(base[0], keys[0] if keys else "")
        # An object passed as a value (a sampler): its class.
        for v in self.p.callee_values(fi, cid):
            if isinstance(v, Ext) and self.p.apis.is_class(v.qual):
                return [Symbol(self.p.apis.canonical(v.qual))], ""
        raise Unresolved()

    def _subscript(self, fi: int, scope: int, e: Expr, role: Optional[str], depth: int) -> Tuple[List[Any], str]:
        bases, _ = self._resolve(fi, scope, e[1], role, depth + 1)
        keys, _ = self._resolve(fi, scope, e[2], role, depth + 1)
        out = []
        for b in bases:
            for k in keys:
                if isinstance(b, Config):
                    out.append(self._lookup(b, k))
                elif isinstance(b, (tuple, list)) and isinstance(k, int) and -len(b) <= k < len(b):
                    out.append(b[k])
                else:
                    raise Unresolved()
        return out, _via([b for b in bases if isinstance(b, Config)], keys[0] if keys else "")

    # ------------------------------------------------------------------ configuration files
    def _read_config(self, fi: int, path: str) -> "Config":
        """A YAML/JSON file next to the script (or inside the compared project), read as data."""
        if not path.endswith(_CONFIG_EXTENSIONS):
            raise Unresolved()
        here = os.path.dirname(self.p.abspaths[fi])
        candidates = [path] if os.path.isabs(path) else [os.path.join(here, path), os.path.join(self.side.root, path)]
        for c in candidates:
            c = os.path.normpath(c)
            inside = any(os.path.commonpath([c, d]) == d for d in (here, self.side.root))
            if not inside or not os.path.isfile(c):
                continue
            if c not in self._configs:
                self._configs[c] = _load_data(c)
            data = self._configs[c]
            if data is None:
                raise Unresolved()
            return Config(data, os.path.relpath(c, self.side.root) if c.startswith(self.side.root) else os.path.basename(c))
        raise Unresolved()

    @staticmethod
    def _lookup(cfg: Any, key: Any) -> Any:
        if isinstance(cfg, Config):
            data = cfg.data
            if isinstance(data, dict) and key in data:
                v = data[key]
                return Config(v, cfg.source) if isinstance(v, (dict, list)) and not _is_vector(v) else _plain(v)
            if isinstance(data, list) and isinstance(key, int) and -len(data) <= key < len(data):
                v = data[key]
                return Config(v, cfg.source) if isinstance(v, (dict, list)) and not _is_vector(v) else _plain(v)
        raise Unresolved()

    def _argparse_default(self, fi: int, dest: str, value: Any) -> Any:
        """What argparse really stores when the option is not given: ``store_true`` → False,
        ``store_false`` → True, and a string default converted by ``type=int/float``."""
        facts = self.p.files[fi]
        for cid in facts.callee_index.get("add_argument", ()):
            call = facts.calls[cid]
            flags = [a.value[1] for a in call.args if a.keyword is None and a.value[0] == "const" and isinstance(a.value[1], str)]
            names = {f.lstrip("-").replace("-", "_") for f in flags}
            names |= {str(a.value[1]) for a in call.args if a.keyword == "dest" and a.value[0] == "const"}
            if dest not in names:
                continue
            kw = {a.keyword: a.value for a in call.args if a.keyword}
            action = kw.get("action")
            if "default" not in kw and action is not None and action[0] == "const":
                return {"store_true": False, "store_false": True}.get(action[1], value)
            typ = kw.get("type")
            if isinstance(value, str) and typ is not None and typ[0] == "name" and typ[1] in ("int", "float"):
                try:
                    return {"int": int, "float": float}[typ[1]](value)
                except ValueError:
                    raise Unresolved() from None
            return value
        return value

    def _argparse_via(self, fi: int, scope: int, e: Expr) -> str:
        """``args.lr`` where ``args = parser.parse_args()`` (also handed on as a parameter): say
        the value is the default."""
        for v in self.p.expand_params(self.p.values(fi, scope, e[1])):
            if isinstance(v, Record) and v.call >= 0 and \
                    "argparse.ArgumentParser.parse_args" in self.p.call_names(v.file, v.call):
                return f"argparse default of --{e[2].replace('_', '-')}"
        return ""


def _fail() -> List[Any]:
    raise Unresolved()


def _load_data(path: str) -> Any:
    try:
        if os.path.getsize(path) > _CONFIG_MAX_BYTES:
            return None
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        if path.endswith(".json"):
            return json.loads(text)
        # imported where it is used: PyYAML is slow to import (start-up time)
        import yaml

        return yaml.safe_load(text)   # data only: no tags that construct objects
    except (OSError, UnicodeDecodeError, ValueError, Exception):  # noqa: B014 - any parse error = unknown
        return None


def _is_vector(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, (int, float, str, bool)) for x in v)


def _plain(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def _via(bases: List[Any], key: Any) -> str:
    cfgs = [b for b in bases if isinstance(b, Config)]
    if not cfgs:
        return ""
    return f"{cfgs[0].source}: {key}"


def _hashable(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
    return v


def _distinct(vals: List[Any]) -> List[Any]:
    """Values without repeats, keeping ``True``/``1``/``1.0`` apart only where types differ in kind."""
    out: List[Any] = []
    seen: set = set()
    for v in vals:
        key = (type(v) is bool, _hashable(v))
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def object_types(side: Side, fi: int, scope: int, e: Expr) -> FrozenSet[str]:
    """Qualified types of the objects an expression may hold (``isinstance`` questions)."""
    out: Set[str] = set()
    for v in side.project.values(fi, scope, e):
        if isinstance(v, Obj) and isinstance(v.type, Ext):
            out.update(side.project.apis.mro(v.type.qual))
    return frozenset(out)


def _calls_within(facts: Any, e: Expr) -> List[int]:
    """Calls in ``e`` and in their arguments (``init_lr`` of ``Tensor(init_lr(n))``), outermost first."""
    out: List[int] = []
    todo: List[int] = []
    calls_in_expr(e, todo)
    while todo and len(out) < 32:
        cid = todo.pop(0)
        if cid in out or not 0 <= cid < len(facts.calls):
            continue
        out.append(cid)
        for a in facts.calls[cid].args:
            calls_in_expr(a.value, todo)
    return out


def _words(name: str) -> List[str]:
    return [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w and w not in ("config", "cfg", "args", "self")]


def _dotted(e: Expr) -> str:
    """``config.epoch_size`` for a name or attribute chain (``cfg['lr']`` by a constant key), else ''."""
    if e[0] == "name":
        return e[1]
    if e[0] == "attr":
        base = _dotted(e[1])
        return f"{base}.{e[2]}" if base else ""
    if e[0] == "subscript" and isinstance(e[2], tuple) and e[2][0] == "const" and isinstance(e[2][1], (str, int)):
        base = _dotted(e[1])   # cfg["lr_max"]: a config read by key
        return f"{base}[{e[2][1]!r}]" if base else ""
    return ""


def _named_leaves(facts: Any, e: Expr, depth: int = 0) -> List[Expr]:
    """The names and attribute chains an expression computes with, outermost first: through
    arithmetic, conditionals, sequences and the arguments of calls (not the callees)."""
    if depth > _MAX_DEPTH or not isinstance(e, tuple) or not e:
        return []
    tag = e[0]
    if tag in ("name", "attr", "subscript") and _dotted(e):
        return [e]
    if tag == "call":
        subs = [a.value for a in facts.calls[e[1]].args if not a.star] if 0 <= e[1] < len(facts.calls) else []
    elif tag in ("binop", "unary", "boolop", "compare", "ifexp", "seq"):
        subs = list(sub_exprs(e))
    else:
        return []
    out: List[Expr] = []
    for sub in subs:
        out += _named_leaves(facts, sub, depth + 1)
    return out
