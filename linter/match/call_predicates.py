"""Call predicates: a rule's ``where`` tests on a matched call as a whole — its name, function and
class, liveness, loops, reads, what its result and callee are used for, ``with`` blocks and
``if`` guards, the script and entry running it, counterpart calls with other constants, data ops
of its function, what it runs, other calls in its file or project, and the framework version.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, List, Optional, Tuple

from linter.compiler.build import CallPred
from linter.core.versions import parse_version, version_in
from linter.facts.ir import child_blocks, last_sid
from linter.index.values import Bound, Cls, Const, Ext, Func, Obj
from linter.match.context import CallSite, MatchContext
from linter.match.project_code import _names_read, code_matches
from linter.match.values import _num, _record_related, arg_values
from linter.program.training import training_state


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
    if pred.multi_device_launch is not None \
            and mc.multi_device_launch(site.fi, site.cid) is not pred.multi_device_launch:
        return False
    if pred.port_evidence is not None and mc.port_evidence(site.fi) is not pred.port_evidence:
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
