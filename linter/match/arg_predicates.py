"""Argument predicates: a rule's ``where`` tests on one argument of a matched call — missing or
positional, kind, source text and name, values, the calls that make it (through networks and
sequential containers), generators, project code, complements, subclass instances, training
state, the words it is computed from, edits, and the code behind it.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from linter.compiler.build import ArgPred
from linter.facts.ir import iter_returns
from linter.facts.model import ArgFact, Expr
from linter.index.values import Bound, Cls, Ext, Func, Obj
from linter.match.context import CallSite, MatchContext
from linter.match.project_code import code_matches
from linter.match.values import _record, _record_position, arg_kind, arg_name, arg_values, value_passes
from linter.program.roles import _RUN_BY_INSTANCE
from linter.program.training import training_state


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
    if pred.from_gradient is not None:
        if a is None or _from_gradient(mc, site.fi, site.call.scope, a.value, 0) != pred.from_gradient:
            return False
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


def _code_matches(mc: MatchContext, site: CallSite, a: ArgFact, globs: Any, rx: Any) -> bool:
    """Some call in the code behind argument ``a`` answers to ``globs``, or (``rx``) some name,
    attribute or parameter it uses matches (in call arguments, assigned names and values)."""
    return code_matches(mc, site.fi, site.call.scope, a.value, globs, rx)


_GRAD_MAKERS = ("value_and_grad", ".grad", "mindspore.ops.GradOperation.__call__")
_CLIPS = ("mindspore.ops.clip_by_global_norm", "mindspore.ops.clip_by_value", "mindspore.ops.clip_by_norm",
          "mindspore.nn.ClipByNorm.__call__")


def _from_gradient(mc: MatchContext, fi: int, scope: int, e: Any, depth: int) -> bool:
    """``e`` comes only from calls of gradient functions (``grad_fn = value_and_grad(...)``;
    ``GradOperation(...)(net, weights)(x)``), possibly clipped on the way."""
    if depth > 4:
        return False
    calls, complete = mc.origin_calls(fi, scope, e)
    if (not calls or not complete) and e[0] == "name" and e[2]:
        # `loss, grads = grad_fn(x, y)`: an element of what a gradient function returns
        values = [mc.p.files[fi].assigns[aid].value for aid in e[2]]
        if all(v[0] == "unpack" and v[1][0] == "call" for v in values):
            calls, complete = [(fi, v[1][1]) for v in values], True
    if not calls or not complete:
        return False
    for cfi, ccid in calls:
        call = mc.p.files[cfi].calls[ccid]
        names = mc.p.call_names(cfi, ccid)
        if any(n in _CLIPS for n in names):
            first = next((x for x in call.args if x.keyword is None and not x.star), None)
            if first is None or not _from_gradient(mc, cfi, call.scope, first.value, depth + 1):
                return False
            continue
        makers, made = mc.origin_calls(cfi, call.scope, call.func) if call.func[0] != "call" \
            else ([(cfi, call.func[1])], True)
        if not (makers and made and all(any(n.endswith(_GRAD_MAKERS) for n in mc.p.call_names(mfi, mcid))
                                        for mfi, mcid in makers)):
            return False
    return True
