"""The project code behind a value — a function, a lambda, the methods of a project class or
instance, and the project functions they call — and whether it calls or names something; the
names an expression reads.
"""
from __future__ import annotations

from typing import Any, List, Tuple

from linter.index.values import Bound, Cls, Func, Obj
from linter.match.context import MatchContext


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
