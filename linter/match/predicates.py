"""Stage 5b: evaluate a rule's ``where`` predicate on a matched call.

Leaf tests record what they saw (source text, constant values, provenance) in
``CallSite.data`` so messages can say *which* value and *where it came from*.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, List, Optional, Sequence, Tuple

from linter.compiler.build import ArgPred, BoolPred, CallPred, ValueTest
from linter.core.versions import parse_version, version_in
from linter.facts.ir import child_blocks, iter_returns, last_sid
from linter.facts.model import ArgFact, Expr
from linter.index.apis import NO_DEFAULT, Expression
from linter.index.values import Bound, Cls, Const, Ext, Func, Obj, Valued
from linter.match.context import CallSite, MatchContext
from linter.match.narrow import narrowed
from linter.program.roles import _RUN_BY_INSTANCE
from linter.program.training import training_state


def evaluate(pred: Any, site: CallSite, mc: MatchContext) -> bool:
    if isinstance(pred, BoolPred):
        if pred.op == "all":
            return all(evaluate(x, site, mc) for x in pred.items)
        if pred.op == "any":
            return any(evaluate(x, site, mc) for x in pred.items)
        return not evaluate(pred.items[0], site, mc)
    if isinstance(pred, CallPred):
        return _call_pred(pred, site, mc)
    return _arg_pred(pred, site, mc)


# ---------------------------------------------------------------------------- values
def _num(v: Any) -> Optional[float]:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def _equal(a: Any, b: Any, tol: float) -> bool:
    na, nb = _num(a), _num(b)
    if na is not None and nb is not None:
        return math.isclose(na, nb, rel_tol=tol, abs_tol=tol * 1e-3)
    return type(a) is type(b) and a == b


def value_passes(test: ValueTest, v: Any) -> bool:
    tol = test.tolerance
    if test.has_eq and not _equal(v, test.eq, tol):
        return False
    if test.has_ne and _equal(v, test.ne, tol):
        return False
    n = _num(v)
    for bound, op in ((test.lt, "lt"), (test.le, "le"), (test.gt, "gt"), (test.ge, "ge")):
        if bound is None:
            continue
        if n is None:
            return False
        if op == "lt" and not n < bound:
            return False
        if op == "le" and not (n < bound or math.isclose(n, bound, rel_tol=tol)):
            return False
        if op == "gt" and not n > bound:
            return False
        if op == "ge" and not (n > bound or math.isclose(n, bound, rel_tol=tol)):
            return False
    if test.in_ is not None and not any(_equal(v, x, tol) for x in test.in_):
        return False
    if test.not_in is not None and any(_equal(v, x, tol) for x in test.not_in):
        return False
    if test.type is not None:
        t = {"int": int, "float": float, "str": str, "bool": bool}.get(test.type)
        if test.type == "none" and v is not None:
            return False
        if test.type == "number" and _num(v) is None:
            return False
        if t is not None and type(v) is not t:
            return False
    if test.truthy is not None and bool(v) != test.truthy:
        return False
    return True


def arg_values(site: CallSite, mc: MatchContext, a: Optional[ArgFact], name: str,
               default_applies: bool) -> Tuple[List[Valued], bool]:
    """Constant values of an argument (or of its default when it is missing)."""
    p = mc.p
    if a is not None:
        # the matcher's assumption (``do_train=True`` for a training pipeline) holds for the
        # argument's value, not for the other questions asked while matching
        with p.under(p.hypothesis.with_assume(mc.assume)):
            vals, complete = p.constants(site.fi, site.call.scope, a.value)
            return narrowed(mc, site.fi, site.call.scope, site.call.stmt, a.value, vals, complete)
    if not default_applies or site.bound.uncertain:
        return [], False
    d = site.default(name)
    if d is NO_DEFAULT or isinstance(d, Expression):
        return [], False
    return [Valued(d, p.files[site.fi].path, site.call.line, "default")], True


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return repr(round(v, 10)) if abs(v - round(v, 10)) < 1e-12 else repr(v)
    return repr(v)


def _record_position(site: CallSite, name: str, a: Optional[ArgFact]) -> None:
    """Where a fix finds a positional argument: ``{name}.position`` (index among positionals)."""
    if a is not None and a.keyword is None and not a.star:
        positional = [x for x in site.call.args if x.keyword is None and not x.star]
        if a in positional:
            site.data.setdefault(f"{name}.position", str(positional.index(a)))


def _record(site: CallSite, name: str, a: Optional[ArgFact], vals: List[Valued]) -> None:
    if f"{name}.recorded" in site.data:   # the first test that saw values describes them
        return
    site.data[f"{name}.recorded"] = "1"
    site.data[name] = a.text if a is not None else "(default)"
    _record_position(site, name, a)
    if vals:
        uniq: List[str] = []
        for v in vals:
            s = _fmt(v.value)
            if s not in uniq:
                uniq.append(s)
        site.data[f"{name}.value"] = ", ".join(uniq[:4])
        first = vals[0].value
        if _num(first) is not None and 0 <= first <= 1:
            # the conversion between keep/drop probabilities and between momentum conventions
            site.data[f"{name}.complement"] = _fmt(round(1 - float(first), 10))
        via = next((v for v in vals if v.via and v.via != "default"), None)
        if via is not None:
            site.data[f"{name}.via"] = f"{_fmt(via.value)} at {via.path}:{via.line} ({via.via})"
        elif vals[0].line and a is not None and a.value[0] != "const":
            site.data[f"{name}.via"] = f"{_fmt(vals[0].value)} at {vals[0].path}:{vals[0].line}"
        _record_cause(site, name, a, vals)


CAUSE = "cause."
"""Finding data: ``cause.<arg>`` is ``path:line`` of the one definition every value of the
argument comes from (a module constant, a parameter's default, a configuration key), when
the argument names it rather than writing a literal; ``cause.<arg>.value`` is the value.
Findings of a rule with ``report.group_by_cause`` that share it are one finding
(:mod:`linter.match.group`)."""


def _record_cause(site: CallSite, name: str, a: Optional[ArgFact], vals: List[Valued]) -> None:
    if a is None or a.value[0] == "const" or arg_kind(a.value) == "literal":
        return   # a literal at the call: the call itself is the cause
    places = {(v.path, v.line) for v in vals}
    if len(places) != 1 or not vals[0].line or vals[0].via == "default":
        return   # several definitions, or where the value is written is not known
    site.data[f"{CAUSE}{name}"] = f"{vals[0].path}:{vals[0].line}"
    site.data[f"{CAUSE}{name}.value"] = _fmt(vals[0].value)


def arg_name(e: Expr) -> Optional[str]:
    if e[0] == "name":
        return e[1]
    if e[0] == "attr":
        return e[2]
    if e[0] == "subscript" and e[2][0] == "const" and isinstance(e[2][1], str):
        return e[2][1]  # cfg["dropout_rate"]
    return None


def arg_kind(e: Expr) -> str:
    tag = e[0]
    if tag == "const":
        return "literal"
    if tag == "name":
        return "name"
    if tag == "attr":
        return "attribute"
    if tag == "call":
        return "call"
    if tag == "star":
        return "starred"
    if tag == "unary" and e[2][0] == "const":
        return "literal"
    return "expression"


def _arg_pred(pred: ArgPred, site: CallSite, mc: MatchContext) -> bool:
    a = site.arg(pred.arg)
    if pred.missing is not None:
        missing = a is None
        if missing and site.bound.uncertain:
            return False  # hidden behind *args/**kwargs: cannot tell, so never claim it is missing
        if missing != pred.missing:
            return False
    if pred.positional is not None:
        if a is None or (a.keyword is None) != pred.positional:
            return False
    if pred.kinds:
        if a is None or arg_kind(a.value) not in pred.kinds:
            return False
    if pred.source_re is not None or pred.source_not_re is not None:
        if a is None:
            return False
        if pred.source_re is not None and not pred.source_re.search(a.text):
            return False
        if pred.source_not_re is not None and pred.source_not_re.search(a.text):
            return False
    if pred.name_re is not None or pred.name_not_re is not None:
        n = arg_name(a.value) if a is not None else None
        if n is None:
            return False
        if pred.name_re is not None and not pred.name_re.search(n):
            return False
        if pred.name_not_re is not None and pred.name_not_re.search(n):
            return False
        site.data.setdefault(pred.arg, a.text if a is not None else "")
        site.data.setdefault(f"{pred.arg}.recorded", "1")
        site.data.setdefault(f"{pred.arg}.name", n)
        _record_position(site, pred.arg, a)
    if pred.value is not None or pred.known is not None:
        vals, complete = arg_values(site, mc, a, pred.arg, pred.default_applies)
        if pred.known is not None and (complete and bool(vals)) != pred.known:
            return False
        if pred.value is not None:
            passing = [v for v in vals if value_passes(pred.value, v.value)]
            if pred.quantifier == "all":
                if not (complete and vals and len(passing) == len(vals)):
                    return False
            elif not passing:
                return False
            _record(site, pred.arg, a, passing)
    if pred.from_call is not None or pred.made_by is not None:
        if a is None:
            return False
        calls, complete = mc.origin_calls(site.fi, site.call.scope, a.value)
        names: List[Sequence[str]] = [mc.p.call_names(cfi, ccid) for cfi, ccid in calls]
        through = _through_networks(mc, calls, 0) if pred.through_networks and calls and complete else None
        if through is not None:
            names = [n for n, _ in through]
        if pred.from_call is not None:
            if not (calls and complete and all(pred.from_call.any(n) for n in names)):
                return False
            if through is not None:
                for found, (pfi, pcid) in through:
                    if (pfi, pcid) not in calls:   # found inside the network that computed the value
                        c = mc.p.files[pfi].calls[pcid]
                        site.places.append((pfi, c.line, f"`{c.dotted or found[0]}(...)`: the value is its output"))
        if pred.made_by is not None and not any(pred.made_by.any(n) for n in names):
            return False
        site.data.setdefault(pred.arg, a.text)
    if pred.made_by_call is not None:
        if a is None:
            return False
        calls, _ = mc.origin_calls(site.fi, site.call.scope, a.value)
        hit = next((c for c in calls if mc.match(pred.made_by_call, c[0], c[1]) is not None), None)
        if hit is None:
            return False
        made = mc.p.files[hit[0]]
        site.data.setdefault(pred.arg, a.text)
        site.data.setdefault(f"{pred.arg}.made_at", f"{made.path}:{made.calls[hit[1]].line}")
    if pred.is_generator is not None:
        if a is None or _is_generator(site, mc, a) != pred.is_generator:
            return False
    if pred.project_code is not None:
        if a is None or _project_code(site, mc, a) != pred.project_code:
            return False
    if pred.single_sample is not None:
        if a is None or _single_sample(mc, site, a) != pred.single_sample:
            return False
    if pred.complement is not None:
        if a is None or _complement(mc, site.fi, site.call.scope, a.value, 0) != pred.complement:
            return False
    if pred.is_subclass_instance is not None:
        if a is None:
            return False
        vals2 = mc.p.values(site.fi, site.call.scope, a.value)
        if not any(isinstance(v, Obj) and isinstance(v.type, Cls)
                   and pred.is_subclass_instance.any(mc.p.framework_bases(v.type)) for v in vals2):
            return False
    if pred.trained is not None:
        if a is None:
            return False
        state = training_state(mc.program, mc.p.values(site.fi, site.call.scope, a.value), mc.entries_reaching(site.fi, site.cid))
        if state is not pred.trained:
            return False
    for rx, strict in ((pred.mentions, False), (pred.computed_from, True)):
        if rx is None:
            continue
        if a is None:
            return False
        mention = _mentioned(mc, site.fi, site.call.scope, a.value, rx, strict)
        if mention is None:
            return False
        word, where = mention
        site.data.setdefault(f"{pred.arg}.mentions", word)
        for pfi, pline in where:
            if (pfi, pline) != (site.fi, site.call.line):
                site.places.append((pfi, pline, f"`{word}`: the value comes from here"))
    if pred.edited_by is not None:
        if a is None or not _edited(mc, site, a.value, pred.edited_by):
            return False
    if pred.code_calls is not None or pred.code_mentions is not None:
        if a is None or not _code_matches(mc, site, a, pred.code_calls, pred.code_mentions):
            return False
    if a is not None:
        # every argument a passing test looked at is available to messages and fixes
        site.data.setdefault(pred.arg, a.text)
        _record_position(site, pred.arg, a)
    return True


def _mentioned(mc: MatchContext, fi: int, scope: int, e: Expr, rx: Any,
               strict: bool = False) -> Optional[Tuple[str, List[Tuple[int, int]]]]:
    """The first name or string constant matching ``rx`` among those ``e`` is built from:
    identifiers, attribute names, callees and literals, through local bindings, module
    constants, record fields and parameters (at their call sites); bounded. With it, the places
    (file, line) the value was brought from: where the word was bound, and for a parameter
    the call sites that pass it — a seed built from `rank` in a helper points at the caller
    that passes the rank id. ``strict`` (``computed_from``) follows only what the value is
    computed from: not the object an attribute is read from (`config.seed` is not computed from
    the rest of `config`), not the whole container a subscript reads (`cfg["seed"]` reads the
    key `"seed"`, not every entry of the dict)."""
    p = mc.p
    todo: List[Tuple[int, int, Any, int, Optional[Tuple[int, int]]]] = [(fi, scope, e, 0, None)]
    first: Optional[str] = None
    places: List[Tuple[int, int]] = []
    seen = set()
    steps = 0
    while todo and steps < 400:
        cfi, cscope, x, depth, came = todo.pop()
        steps += 1
        if not isinstance(x, tuple) or not x or depth > 8 or (cfi, id(x)) in seen:
            continue
        seen.add((cfi, id(x)))
        tag = x[0]
        words: List[str] = []
        if tag == "const":
            if isinstance(x[1], str):
                words.append(x[1])
        elif tag in ("name", "attr"):
            # strictly, a parameter is what its callers pass, and a name bound only to parameters and
            # constants is what they hold: `set_seed(seed, rank=0)` with `if rank is None: rank = 0`,
            # called as `set_seed(1)`, is not computed from a rank
            param = tag == "name" and strict and bool(x[2]) and all(
                p.files[cfi].assigns[aid].value[0] in ("param", "const") for aid in x[2])
            if not param:
                words.append(x[1] if tag == "name" else x[2])
            if tag == "attr" and not strict:
                todo.append((cfi, cscope, x[1], depth + 1, came))
            defs = p.defining_exprs(cfi, cscope, x)
            for sfi, sscope, sexpr, line, _via in defs:
                if sexpr is not None:
                    todo.append((sfi, sscope, sexpr, depth + 1, (sfi, line) if line else came))
            if tag == "name" and not param and rx.search(x[1]):
                # a name brought in through a parameter: the call that passes it; a local one: the
                # places that give it its value
                here = [came] if came else [(sfi, line) for sfi, _s, sexpr, line, _v in defs if sexpr is not None and line]
                first = first or x[1]
                places += [h for h in here if h not in places]
                continue
        elif tag == "call":
            c = p.files[cfi].calls[x[1]]
            if c.dotted:
                words.append(c.dotted)
            todo.append((cfi, c.scope, c.func, depth + 1, came))
            todo.extend((cfi, c.scope, arg.value, depth + 1, came) for arg in c.args)
        elif tag == "config":
            value = x[1].items[x[2]][0]
            if isinstance(value, str):
                words.append(value)   # a path in a shipped configuration file
        elif tag in ("lambda", "other"):
            pass
        elif strict and tag == "subscript":
            todo.append((cfi, cscope, x[2], depth + 1, came))   # `os.environ["RANK_ID"]`: the key
        elif strict and tag in ("dict", "seq", "comp"):
            pass
        else:
            for part in x[1:]:
                if isinstance(part, tuple):
                    if part and isinstance(part[0], str):
                        todo.append((cfi, cscope, part, depth + 1, came))
                    else:
                        todo.extend((cfi, cscope, y, depth + 1, came) for y in part if isinstance(y, tuple))
        for w in words:
            if rx.search(w):
                first = first or w
                if came and came not in places:
                    places.append(came)
                break
    # every way the value brings the word in (a helper's callers), not just the first
    return (first, places[:5]) if first else None


def _edited(mc: MatchContext, site: CallSite, e: Expr, globs: Any) -> bool:
    """The variable ``e`` names is rebuilt by the code (a literal or comprehension) or handed
    to a matching call (receiver or first argument) in the same function."""
    if e[0] != "name":
        return False
    facts = mc.p.files[site.fi]
    scope = site.call.scope
    for aid in facts.funcs[scope].defs.get(e[1], ()):
        if facts.assigns[aid].value[0] in ("dict", "seq", "comp"):
            return True
    for cid, c in enumerate(facts.calls):
        if c.scope != scope or cid == site.cid:
            continue
        operands = ([c.func[1]] if c.func[0] == "attr" else []) + [a.value for a in c.args[:1] if not a.star]
        if any(x[0] == "name" and x[1] == e[1] for x in operands) and globs.any(mc.p.call_names(site.fi, cid)):
            return True
    return False


def _is_generator(site: CallSite, mc: MatchContext, a: ArgFact) -> bool:
    """A generator function, its result, or an iterator object without random access."""
    p = mc.p
    for v in p.values(site.fi, site.call.scope, a.value):
        if isinstance(v, Func) and p.files[v.file].funcs[v.index].is_generator:
            return True
        if isinstance(v, Obj) and isinstance(v.type, Cls):
            methods = set()
            for k in p.project_mro(v.type):
                methods |= set(p.files[k.file].classes[k.index].methods)
            if ("__iter__" in methods or "__next__" in methods) and "__getitem__" not in methods:
                return True
    calls, _ = mc.origin_calls(site.fi, site.call.scope, a.value)
    for cfi, ccid in calls:
        for v in p.callee_values(cfi, ccid):
            if isinstance(v, Func) and p.files[v.file].funcs[v.index].is_generator:
                return True
    return False


_RESHAPES = ("view", "reshape", "resize", "resize_", "squeeze", "unsqueeze", "flatten", "contiguous", "float",
             "double", "to", "cpu", "cuda", "permute", "transpose", "view_as", "reshape_as", "type")


def _through_networks(mc: MatchContext, calls: List[Tuple[int, int]],
                      depth: int) -> Optional[List[Tuple[List[str], Tuple[int, int]]]]:
    """The names of the calls a value comes from, with where each is, looking through project
    networks (what their ``forward``/``construct`` returns, on every return) and sequential
    containers (their last layer); None when some return cannot be traced."""
    p = mc.p
    out: List[Tuple[List[str], Tuple[int, int]]] = []
    for cfi, ccid in calls:
        c = p.files[cfi].calls[ccid]
        if c.func[0] == "attr" and c.func[2] in _RESHAPES:
            # `y_pred.resize(1, n)`, `.view(-1, n)`, `.float()`: the same values, reshaped
            sub, complete = mc.origin_calls(cfi, c.scope, c.func[1])
            inner = _through_networks(mc, sub, depth + 1) if sub and complete and depth < 6 else None
            if inner is None:
                out.append((list(p.call_names(cfi, ccid)), (cfi, ccid)))
            else:
                out += inner
            continue
        names = p.call_names(cfi, ccid)
        if c.args and any(n in ("torch.exp", "mindspore.ops.exp") for n in names):
            # exp(log_softmax(x)) is softmax(x) (TransformerGCNQA's candidate probabilities)
            sub, complete = mc.origin_calls(cfi, c.scope, c.args[0].value)
            if sub and complete and all(any(n.endswith(("log_softmax", "LogSoftmax.__call__")) for n in p.call_names(*o))
                                        for o in sub):
                out.append((["torch.softmax"], (cfi, ccid)))
                continue
        methods = [t for t, _ in p.call_targets(cfi, ccid) if p.files[t.file].funcs[t.index].name in _RUN_BY_INSTANCE]
        if methods:
            if depth >= 3:
                return None
            for t in methods:
                rets = list(iter_returns(p.files[t.file].funcs[t.index].body))
                if not rets or any(r is None for r in rets):
                    return None
                for r in rets:
                    sub, complete = mc.origin_calls(t.file, t.index, r)
                    inner = _through_networks(mc, sub, depth + 1) if sub and complete else None
                    if inner is None:
                        return None
                    out += inner
            continue
        last = _sequential_last(mc, cfi, ccid)
        out.append(last if last is not None else (list(p.call_names(cfi, ccid)), (cfi, ccid)))
    return out


def _sequential_last(mc: MatchContext, fi: int, cid: int) -> Optional[Tuple[List[str], Tuple[int, int]]]:
    """``model(x)`` with ``model = nn.Sequential(..., nn.Softmax(dim=1))``: the last layer's call."""
    p = mc.p
    for v in p.callee_values(fi, cid):
        if not (isinstance(v, Obj) and isinstance(v.type, Ext) and v.file >= 0 and v.call >= 0):
            continue
        if p.apis.callable_kind(p.call_names(v.file, v.call)) != "sequential":
            continue
        args = [a for a in p.files[v.file].calls[v.call].args if a.keyword is None]
        if len(args) == 1 and args[0].value[0] == "seq":
            elems = list(args[0].value[2])
        else:
            elems = [a.value for a in args]
        if elems and elems[-1][0] == "call":
            return [n + ".__call__" for n in p.call_names(v.file, elems[-1][1])], (v.file, elems[-1][1])
    return None


def _single_sample(mc: MatchContext, site: CallSite, a: ArgFact) -> bool:
    """Every value is an instance of a project class whose ``__len__`` returns the constant 1."""
    p = mc.p
    vals = p.values(site.fi, site.call.scope, a.value)
    if not vals:
        return False
    for v in vals:
        if not (isinstance(v, Obj) and isinstance(v.type, Cls)):
            return False
        lens = [f for f in p.class_attr(v.type, "__len__", None) if isinstance(f, Func)]
        if not lens:
            return False
        for f in lens:
            rets = list(iter_returns(p.files[f.file].funcs[f.index].body))
            if not rets or any(r is None or r[0] != "const" or r[1] != 1 for r in rets):
                return False
    return True


def _complement(mc: MatchContext, fi: int, scope: int, e: Any, depth: int) -> bool:
    """``1 - x`` (``1.0 - x``), here or in every assignment that defines the name or attribute."""
    if e[0] == "binop" and e[1] == "-" and e[2][0] == "const" and e[2][1] in (1, 1.0):
        return True
    if e[0] not in ("name", "attr") or depth >= 3:
        return False
    defs = mc.p.defining_exprs(fi, scope, e)
    return bool(defs) and all(d[2] is not None and _complement(mc, d[0], d[1], d[2], depth + 1) for d in defs)


def _project_code(site: CallSite, mc: MatchContext, a: ArgFact) -> bool:
    """Every value the argument may have is project code (what :func:`code_scopes` reads)."""
    p = mc.p
    e = a.value
    if e[0] == "call":
        targets = p.call_targets(site.fi, e[1])
        if targets and all(p.files[t.file].funcs[t.index].is_generator or p.files[t.file].funcs[t.index].name == "__init__"
                           for t, _ in targets):
            return True   # a generator function's generator, a project class's instance
    vals = set(p.expand_params(p.values(site.fi, site.call.scope, e)))
    if not vals:
        return False
    for v in vals:
        if isinstance(v, Bound):
            v = v.func
        if isinstance(v, Obj):
            v = v.type
        if not isinstance(v, (Func, Cls)):
            return False
    return True


def _call_pred(pred: CallPred, site: CallSite, mc: MatchContext) -> bool:
    p = mc.p
    call = site.call
    if pred.named is not None and not pred.named.any(site.names):
        return False
    if pred.in_function is not None:
        qual = p.files[site.fi].funcs[call.scope].qualname
        if not pred.in_function.search(qual):
            return False
    if pred.in_class is not None and not _in_class(pred.in_class, site, mc):
        return False
    if pred.live is not None and mc.live(site.fi, site.cid) is not pred.live:
        return False
    if pred.trained is not None:
        made = [v for v in mc.p.call_values(site.fi, site.cid) if isinstance(v, Obj) and v.origin == (site.fi, site.cid)]
        if training_state(mc.program, made, mc.entries_reaching(site.fi, site.cid)) is not pred.trained:
            return False
    if pred.in_loop is not None and mc.in_loop(site.fi, site.cid) != pred.in_loop:
        return False
    if pred.loop_contains is not None and not mc.loop_contains(site.fi, site.cid, pred.loop_contains):
        return False
    if pred.loop_over is not None and not _loop_over(mc, site, pred.loop_over):
        return False
    if pred.never_read is not None and mc.roles.never_read(site.fi, site.cid) != pred.never_read:
        return False
    if pred.result_method:
        if not set(pred.result_method) & set(mc.result_methods(site.fi, site.cid)):
            return False
    if pred.receiver_made_by is not None:
        if call.func[0] != "attr":
            return False
        calls, _ = mc.origin_calls(site.fi, call.scope, call.func[1])
        if not any(pred.receiver_made_by.any(p.call_names(cfi, ccid)) for cfi, ccid in calls):
            return False
    if pred.callee_made_by_call is not None:
        calls, _ = mc.origin_calls(site.fi, site.call.scope, site.call.func)
        if not any(mc.match(pred.callee_made_by_call, cfi, ccid) is not None for cfi, ccid in calls):
            return False
    if pred.callee_made_by is not None and not mc.callee_made_by(pred.callee_made_by, site.fi, site.cid):
        return False
    if pred.result_used_by is not None and not mc.result_used_by(pred.result_used_by, site.fi, site.cid):
        return False
    if pred.attribute_used_by is not None and not mc.attribute_used_by(pred.attribute_used_by[0], pred.attribute_used_by[1],
                                                                         site.fi, site.cid):
        return False
    if pred.inside_with is not None and not mc.inside_with(pred.inside_with, site.fi, site.cid):
        return False
    if pred.callee_created_here is not None:
        calls, _ = mc.origin_calls(site.fi, call.scope, call.func)
        here = bool(calls) and all(cfi == site.fi and p.files[cfi].calls[ccid].scope == call.scope for cfi, ccid in calls)
        if here != pred.callee_created_here:
            return False
    if pred.function_calls is not None:
        facts = p.files[site.fi]
        if not any(c.scope == call.scope and pred.function_calls.any(p.call_names(site.fi, cid))
                   for cid, c in enumerate(facts.calls)):
            return False
    if pred.in_script_role and not set(pred.in_script_role) & mc.roles.name_roles(site.fi):
        return False
    if pred.result_discarded is not None and mc.result_discarded(site.fi, site.cid) != pred.result_discarded:
        return False
    if pred.guarded_by is not None and not _guarded_by(pred.guarded_by, site, mc):
        return False
    if pred.entry is not None and not _entry_test(pred.entry, site, mc):
        return False
    if pred.differs_from is not None and not _differs_from(pred.differs_from, site, mc):
        return False
    if pred.defines_data_op is not None and _defines_data_op(site, mc) != pred.defines_data_op:
        return False
    if pred.maps_code_mentioning is not None and not _maps_code_mentioning(site, mc, pred.maps_code_mentioning):
        return False
    if pred.runs is not None and not _runs(site, mc, pred.runs):
        return False
    for patterns, same_file in ((pred.file_calls, True), (pred.project_calls, False)):
        if patterns:
            hit = mc.other_call(patterns, site.fi, site.cid, same_file)
            if hit is None:
                return False
            _record_related(site, mc, hit)
    if pred.version is not None:

        version = site.version or mc.version_of(site.framework)
        if not version or not version_in(parse_version(version), pred.version):
            return False
    return True


def _in_class(globs: Any, site: CallSite, mc: MatchContext) -> bool:
    funcs = mc.p.files[site.fi].funcs
    scope = site.call.scope
    while scope > 0:
        f = funcs[scope]
        if f.cls >= 0:
            c = Cls(site.fi, f.cls)
            return globs.any(mc.p.type_quals(c))
        scope = f.parent
    return False


def _guarded_by(rx: Any, site: CallSite, mc: MatchContext) -> bool:
    """An enclosing ``if`` test of the call's function reads a matching name (either branch),
    or an earlier ``if`` with such a test leaves the function (``if args.distributed: return
    ...``), which makes the rest its implicit ``else``."""
    facts = mc.p.files[site.fi]
    for test, _positive in mc.roles.guards(site.fi, site.call.scope).get(site.call.stmt, ()):
        if any(rx.search(n) for n in _names_read(test, facts)):
            return True
    return _after_exiting_if(rx, facts.funcs[site.call.scope].body, site.call.stmt, facts)


def _after_exiting_if(rx: Any, block: Any, sid: int, facts: Any) -> bool:
    for st in block:
        if st[1] == sid or (st[1] < sid <= last_sid(st)):
            if st[1] != sid:
                for b in child_blocks(st):
                    if b and b[0][1] <= sid <= last_sid(b[-1]):
                        return _after_exiting_if(rx, b, sid, facts)
            return False
        if st[0] == "if" and st[3] and st[3][-1][0] in ("return", "raise") \
                and any(rx.search(n) for n in _names_read(st[2], facts)):
            return True
    return False


def _loop_over(mc: MatchContext, site: CallSite, rx: Any) -> bool:
    """The innermost ``for`` loop around the call iterates over something named like ``rx``."""
    loops = mc.loops(site.fi, site.call.scope).get(site.call.stmt)
    fors = [lp for lp in loops or () if lp[0] == "for"]
    if not fors:
        return False
    return any(rx.search(n) for n in _names_read(fors[-1][3], mc.p.files[site.fi]))


def _names_read(e: Any, facts: Any, depth: int = 0) -> List[str]:
    """Names, attribute names and called names in an expression (``args.distributed`` gives
    ``args`` and ``distributed``; ``is_distributed()`` gives ``is_distributed``)."""
    out: List[str] = []
    if not isinstance(e, tuple) or not e or depth > 50:
        return out
    tag = e[0]
    if tag == "name":
        return [e[1]]
    if tag == "attr":
        return _names_read(e[1], facts, depth + 1) + [e[2]]
    if tag == "call":
        call = facts.calls[e[1]]
        out = _names_read(call.func, facts, depth + 1)
        for a in call.args:
            out += _names_read(a.value, facts, depth + 1)
        return out
    if tag in ("const", "lambda", "other"):
        return out
    for part in e[1:]:
        if isinstance(part, tuple):
            if part and isinstance(part[0], str):
                out += _names_read(part, facts, depth + 1)
            else:
                for x in part:
                    out += _names_read(x, facts, depth + 1)
    return out


def _entry_test(test: Any, site: CallSite, mc: MatchContext) -> bool:
    """Records the entry (``{entry}``) and the call it reaches (``{related}``) for messages."""
    p = mc.p
    for e in mc.entries_reaching(site.fi, site.cid):
        if test.role is not None and test.role not in mc.roles.entry_roles(e):
            continue
        hit = None
        for pattern in test.reaches:
            hit = mc.entry_reaches(e, pattern, along=(site.fi, site.cid))
            if hit is not None:
                break
        if test.reaches and hit is None:
            continue
        site.data.setdefault("entry", p.files[e].path)
        if hit is not None:
            _record_related(site, mc, hit)
        return True
    return False


def _known_floats(site: CallSite, mc: MatchContext, name: str) -> Optional[Tuple[float, ...]]:
    """The one known value of an argument as a flat tuple of numbers (a scalar or a list)."""
    a = site.arg(name)
    if a is None:
        return None
    vec = mc.p.vector(site.fi, site.call.scope, a.value)
    if vec is not None:
        return vec
    vals, complete = arg_values(site, mc, a, name, False)
    nums = {_num(v.value) for v in vals}
    if not complete or len(nums) != 1 or None in nums:
        return None
    return (nums.pop(),)  # type: ignore[return-value]


def _same_constants(a: List[Tuple[float, ...]], b: List[Tuple[float, ...]], scale_free: bool) -> bool:
    for k in ((1.0, 255.0, 1 / 255.0) if scale_free else (1.0,)):
        if all(len(x) == len(y) and all(math.isclose(u, v * k, rel_tol=1e-3, abs_tol=1e-9) for u, v in zip(x, y))
               for x, y in zip(a, b)):
            return True
    return False


def _differs_from(test: Any, site: CallSite, mc: MatchContext) -> bool:
    """All of ``test.args`` known here and on at least one other matching call of the file, and no
    such call has the same values: two pipelines that should agree and do not."""
    mine = [_known_floats(site, mc, name) for name in test.args]
    if any(m is None for m in mine):
        return False
    others = []
    for fi, cid in mc.sites_matching(test.call):
        if fi != site.fi or cid == site.cid:
            continue
        other = mc.match(test.call, fi, cid)
        theirs = [_known_floats(other, mc, name) for name in test.args] if other is not None else [None]
        if any(t is None for t in theirs):
            return False   # a counterpart we cannot read may well agree
        if _same_constants(mine, theirs, test.scale_free):  # type: ignore[arg-type]
            return False
        if other is not None:
            others.append(other)
    if not others:
        return False
    for name in test.args:
        a = site.arg(name)
        site.data.setdefault(name, a.text if a is not None else "")
    o = others[0]
    written = ", ".join(f"{name}={a.text}" for name in test.args for a in (o.arg(name),) if a is not None)
    site.data.setdefault("related", f"`{o.call.dotted or o.names[0]}({written})` ({mc.p.files[o.fi].path}:{o.call.line})")
    return True


def _defines_data_op(site: CallSite, mc: MatchContext) -> bool:
    """The call's function hands a callable of its own to the data pipeline: a lambda, a
    function or an instance of a project class (local or not, ``MultiScaleTrans()`` included),
    or a value we cannot resolve, in an op list or given to ``.map``/``.batch``
    (``operations=``, ``per_batch_map=``)/``Compose``. Such an op may do the work a rule looks
    for (a numpy/cv2 normalisation). A local function passed to ``value_and_grad`` is not one
    (training code often builds pipelines and steps side by side)."""
    p = mc.p
    facts = p.files[site.fi]
    scope = site.call.scope
    lambdas = {i for i, f in enumerate(facts.funcs) if f.parent == scope and f.kind == "lambda"}
    defs = {f.name for f in facts.funcs if f.parent == scope and f.kind in ("function", "class")}

    def local(e: Any) -> bool:
        return (e[0] == "lambda" and e[1] in lambdas) or (e[0] == "name" and e[1] in defs)

    def custom(e: Any) -> bool:
        if local(e):
            return True
        if e[0] not in ("name", "attr", "call"):
            return False
        vals: Iterable[Any] = p.expand_params(p.values(site.fi, scope, e)) or (None,)
        for v in vals:
            if isinstance(v, (Func, Cls)) or (isinstance(v, Obj) and isinstance(v.type, Cls)) or \
                    (isinstance(v, Bound) and isinstance(v.func, Func)) or not isinstance(v, (Obj, Ext, Bound, Const)):
                return True
        return False

    def ops(e: Any, depth: int = 0) -> List[Any]:
        """The ops an argument stands for: a list literal's elements, a name bound to op lists
        (``trans = [...]``, ``trans += [...]``, ``trans.append(op)``), or the argument itself."""
        if depth > 4:
            return [e]
        if e[0] == "seq":
            return [x for el in e[2] for x in ops(el, depth + 1)]
        if e[0] == "binop" and e[1] == "+":
            return ops(e[2], depth + 1) + ops(e[3], depth + 1)
        if e[0] == "name" and not local(e):
            srcs = p.defining_exprs(site.fi, scope, e)
            if srcs and all(x[2] is not None and x[2][0] in ("seq", "binop") for x in srcs):
                out = [x for src in srcs for x in ops(src[2], depth + 1)]
                out += [facts.calls[cid].args[0].value for cid in range(len(facts.calls))
                        if facts.calls[cid].scope == scope and facts.calls[cid].args
                        and facts.calls[cid].dotted in (f"{e[1]}.append", f"{e[1]}.extend")]
                return out
        return [e]

    for a in facts.assigns:
        if a.scope == scope and a.value[0] == "seq" and any(local(x) for x in a.value[2]):
            return True
    for cid, c in enumerate(facts.calls):
        if c.scope != scope:
            continue
        last = (c.dotted or "").rsplit(".", 1)[-1]
        for arg in c.args:
            if arg.value[0] == "seq" and any(local(x) for x in arg.value[2]):
                return True
            mapped = arg.keyword in ("operations", "per_batch_map") or \
                (arg.keyword is None and last in ("map", "Compose"))
            if mapped and any(custom(x) for x in ops(arg.value)):
                return True
    return False


def _runs(site: CallSite, mc: MatchContext, globs: Any) -> bool:
    """The project function or cell method the call runs contains a call matching ``globs``."""
    p = mc.p
    for f, _bound in p.call_targets(site.fi, site.cid):
        facts = p.files[f.file]
        if any(c.scope == f.index and globs.any(p.call_names(f.file, cid)) for cid, c in enumerate(facts.calls)):
            return True
    return False


def _maps_code_mentioning(site: CallSite, mc: MatchContext, rx: Any) -> bool:
    """The call's function maps project code over the data (``.map(operations=f)``,
    ``.batch(per_batch_map=f)``) whose code uses a name matching ``rx``: a mapped function that
    keeps only this rank's slice shards by hand."""
    facts = mc.p.files[site.fi]
    scope = site.call.scope
    for c in facts.calls:
        if c.scope != scope:
            continue
        last = (c.dotted or "").rsplit(".", 1)[-1]
        for a in c.args:
            if a.keyword in ("operations", "per_batch_map") or (a.keyword is None and last == "map"):
                items = a.value[2] if a.value[0] == "seq" else [a.value]
                if any(code_matches(mc, site.fi, scope, x, None, rx) for x in items):
                    return True
    return False


def code_scopes(mc: MatchContext, fi: int, scope: int, e: Any, depth: int = 2) -> List[Tuple[int, int]]:
    """The project code behind a value: a function (a generator's body), a lambda, the
    methods of a project class or instance — and the project functions they call, ``depth``
    levels down (bounded)."""
    p = mc.p
    out: List[Tuple[int, int]] = []

    def add_class(c: Cls) -> None:
        for k in p.project_mro(c):
            cf = p.files[k.file].classes[k.index]
            for m in cf.methods.values():
                if (k.file, m) not in out:
                    out.append((k.file, m))

    vals = set(p.expand_params(p.values(fi, scope, e)))
    if e[0] == "call":
        for f, _bound in p.call_targets(fi, e[1]):
            fact = p.files[f.file].funcs[f.index]
            if fact.kind == "method" and fact.name == "__init__" and fact.cls >= 0:
                add_class(Cls(f.file, fact.cls))
            elif (f.file, f.index) not in out:
                out.append((f.file, f.index))
    for v in sorted(vals, key=repr):
        if isinstance(v, Func):
            out.append((v.file, v.index))
        elif isinstance(v, Bound) and isinstance(v.func, Func):
            out.append((v.func.file, v.func.index))
        elif isinstance(v, Cls):
            add_class(v)
        elif isinstance(v, Obj) and isinstance(v.type, Cls):
            add_class(v.type)
    return p.callee_closure(out, depth, cap=64)


def _code_matches(mc: MatchContext, site: CallSite, a: ArgFact, globs: Any, rx: Any) -> bool:
    """Some call in the code behind argument ``a`` answers to ``globs``, or (``rx``) some name,
    attribute or parameter it uses matches (in call arguments, assigned names and values)."""
    return code_matches(mc, site.fi, site.call.scope, a.value, globs, rx)


def code_matches(mc: MatchContext, fi: int, scope: int, e: Any, globs: Any, rx: Any) -> bool:
    p = mc.p
    for sfi, sscope in code_scopes(mc, fi, scope, e):
        facts = p.files[sfi]
        f = facts.funcs[sscope]
        if rx is not None and any(rx.search(x.name) for x in f.params):
            return True
        for cid, c in enumerate(facts.calls):
            if c.scope != sscope:
                continue
            if globs is not None and globs.any(p.call_names(sfi, cid)):
                return True
            if rx is not None and any(rx.search(t) for t in [c.dotted or ""] + [x.text for x in c.args]):
                return True
        if rx is not None:
            for a2 in facts.assigns:
                if a2.scope == sscope and (rx.search(_target_text(a2.target)) or (
                        a2.value[0] not in ("param", "import", "def", "class")
                        and any(rx.search(n) for n in _names_read(a2.value, facts)))):
                    return True
    return False


def _target_text(t: Any) -> str:
    if t[0] == "name":
        return str(t[1])
    if t[0] == "attr":
        return str(t[2])
    return ""


def _record_related(site: CallSite, mc: MatchContext, hit: Tuple[int, int]) -> None:
    """``{related}`` for messages: the other call a predicate found, with its place."""
    p = mc.p
    call = p.files[hit[0]].calls[hit[1]]
    site.data.setdefault("related", f"`{call.dotted or p.call_names(*hit)[0]}(...)` ({p.files[hit[0]].path}:{call.line})")
