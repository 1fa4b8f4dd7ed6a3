"""Stage 5g: layer-order rules — a layer whose output is not next consumed by an allowed layer.

The successor of a layer is found two ways:

* in a sequential container (``nn.SequentialCell([...])``, ``nn.Sequential(...)``,
  ``keras.Sequential([...])``, or a list variable built with a literal or ``.append`` and
  passed to one): the next element;
* in data flow: the layer instance stored in ``self.<attr>`` (directly or returned by a
  helper) is called in a method; its result is followed to the next call that consumes it
  (through arithmetic and the rule's ``through`` calls), or to ``return``.

Only definite answers count: an unresolved consumer, a container's last element or a
layer used in a way that cannot be followed makes the rule stay silent.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from linter.compiler.build import CompiledRule, SequenceSpec
from linter.facts.ir import walk
from linter.facts.model import Expr, FileFacts
from linter.index.values import Obj
from linter.match.context import MatchContext
from linter.match.findings import make_finding
from linter.model import Finding

OK, BAD, UNKNOWN = "ok", "bad", "unknown"


def _nested_calls(e: Any, out: List[int]) -> None:
    """Calls directly inside ``e`` through arithmetic and literals (not inside other calls)."""
    if not isinstance(e, tuple) or not e:
        return
    tag = e[0]
    if tag == "call":
        out.append(e[1])
    elif tag == "binop":
        _nested_calls(e[2], out)
        _nested_calls(e[3], out)
    elif tag == "unary":
        _nested_calls(e[2], out)
    elif tag == "ifexp":
        _nested_calls(e[2], out)
        _nested_calls(e[3], out)
    elif tag == "seq":
        for x in e[2]:
            _nested_calls(x, out)
    elif tag == "star":
        _nested_calls(e[1], out)


def _names_in(e: Any, out: List[Tuple[str, Tuple[int, ...]]]) -> None:
    if not isinstance(e, tuple) or not e:
        return
    tag = e[0]
    if tag == "name":
        out.append((e[1], e[2]))
    elif tag == "binop":
        _names_in(e[2], out)
        _names_in(e[3], out)
    elif tag in ("unary",):
        _names_in(e[2], out)
    elif tag == "seq":
        for x in e[2]:
            _names_in(x, out)
    elif tag == "star":
        _names_in(e[1], out)


class _FileIndex:
    """Per-file lookups: who consumes a call's result, and who uses a binding."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.parent: Dict[int, int] = {}
        self.assign_of: Dict[int, int] = {}
        self.uses: Dict[int, List[int]] = {}
        self.returned: Set[int] = set()
        self.returned_defs: Set[int] = set()
        for pid, c in enumerate(facts.calls):
            for a in c.args:
                inner: List[int] = []
                _nested_calls(a.value, inner)
                for x in inner:
                    self.parent.setdefault(x, pid)
                names: List[Tuple[str, Tuple[int, ...]]] = []
                _names_in(a.value, names)
                for _n, defs in names:
                    for d in defs:
                        self.uses.setdefault(d, []).append(pid)
        for aid, a in enumerate(facts.assigns):
            inner = []
            _nested_calls(a.value, inner)
            for x in inner:
                self.assign_of.setdefault(x, aid)
        for f in facts.funcs:
            for st in walk(f.body):
                if st[0] == "return" and st[2] is not None:
                    inner = []
                    _nested_calls(st[2], inner)
                    self.returned.update(inner)
                    names = []
                    _names_in(st[2], names)
                    for _n, defs in names:
                        self.returned_defs.update(defs)
        # later binops that combine a binding into a new one (`out = x + identity`)
        self.rebound: Dict[int, List[int]] = {}
        for aid, a in enumerate(facts.assigns):
            if a.value[0] in ("binop", "unary", "name"):
                names = []
                _names_in(a.value, names)
                for _n, defs in names:
                    for d in defs:
                        self.rebound.setdefault(d, []).append(aid)


class _Sequence:
    def __init__(self, rule: CompiledRule, mc: MatchContext) -> None:
        self.rule = rule
        self.spec: SequenceSpec = rule.spec
        self.mc = mc
        self.p = mc.p
        self.idx: Dict[int, _FileIndex] = {}
        self._holders: Optional[Dict[Tuple[int, int], List[Tuple[int, int, str]]]] = None

    def index(self, fi: int) -> _FileIndex:
        hit = self.idx.get(fi)
        if hit is None:
            hit = _FileIndex(self.p.files[fi])
            self.idx[fi] = hit
        return hit

    def _is_sequential(self, fi: int, cid: int) -> bool:
        return self.p.apis.callable_kind(self.p.call_names(fi, cid)) == "sequential"

    def _classify_layer(self, fi: int, cid: int) -> Tuple[str, str]:
        """A successor call: allowed layer, something definite, or unknown."""
        for pat in self.spec.not_followed_by:
            if self.mc.match(pat, fi, cid) is not None:
                return OK, ""
        names = self.p.call_names(fi, cid)
        known = [n for n in names if self.p.apis.framework_of(n) and not n.startswith("?.")]
        if not known:
            return UNKNOWN, ""
        call = self.p.files[fi].calls[cid]
        return BAD, f"`{call.dotted or known[0]}` ({known[0].replace('.__call__', '')}, line {call.line})"

    # ------------------------------------------------------------------ containers
    def in_container(self, fi: int, cid: int) -> Optional[Tuple[str, str]]:
        idx = self.index(fi)
        facts = self.p.files[fi]
        parent = idx.parent.get(cid)
        elements: Optional[List[Any]] = None
        if parent is not None and self._is_sequential(fi, parent):
            elements = self._elements(fi, facts.calls[parent].args)
        else:
            aid = idx.assign_of.get(cid)
            if aid is not None:
                a = facts.assigns[aid]
                if a.value[0] == "seq" and a.target[0] == "name" and self._passed_to_sequential(fi, aid):
                    elements = list(a.value[2])
            if elements is None:
                elements = self._append_chain(fi, cid)
        if elements is None:
            return None
        for i, e in enumerate(elements):
            if e[0] == "call" and e[1] == cid:
                if i + 1 >= len(elements):
                    return UNKNOWN, ""
                nxt = elements[i + 1]
                if nxt[0] != "call":
                    return UNKNOWN, ""
                return self._classify_layer(fi, nxt[1])
        return None

    def _elements(self, fi: int, args: Sequence[Any]) -> List[Any]:
        if len(args) == 1 and args[0].value[0] == "seq":
            return list(args[0].value[2])
        return [a.value for a in args]

    def _passed_to_sequential(self, fi: int, aid: int) -> bool:
        for pid in self.index(fi).uses.get(aid, ()):
            if self._is_sequential(fi, pid):
                return True
        return False

    def _append_chain(self, fi: int, cid: int) -> Optional[List[Any]]:
        """``layers.append(conv); layers.append(bn)`` → the appended elements, in order."""
        facts = self.p.files[fi]
        parent = self.index(fi).parent.get(cid)
        if parent is None:
            return None
        pc = facts.calls[parent]
        if pc.func[0] != "attr" or pc.func[2] != "append" or pc.func[1][0] != "name":
            return None
        lst = pc.func[1][1]
        defs = set(pc.func[1][2])
        chain: List[Any] = []
        for c in facts.calls:
            if c.scope == pc.scope and c.func[0] == "attr" and c.func[2] == "append" and c.func[1][0] == "name" \
                    and c.func[1][1] == lst and set(c.func[1][2]) & defs and c.args:
                chain.append(c.args[0].value)
        if not any(self._passed_to_sequential(fi, d) for d in defs):
            return None
        return chain

    # ------------------------------------------------------------------ data flow
    def holders(self) -> Dict[Tuple[int, int], List[Tuple[int, int, str]]]:
        """origin of a layer object → (file, class, attribute) holding it as ``self.<attr>``."""
        if self._holders is None:
            out: Dict[Tuple[int, int], List[Tuple[int, int, str]]] = {}
            for fi, facts in enumerate(self.p.files):
                for ci, c in enumerate(facts.classes):
                    for attr, ids in c.attrs.items():
                        for aid in ids:
                            a = facts.assigns[aid]
                            if a.value[0] != "call":
                                continue
                            for v in self.p.values(fi, a.scope, a.value):
                                if isinstance(v, Obj):
                                    out.setdefault(v.origin, []).append((fi, ci, attr))
            self._holders = out
        return self._holders

    def in_dataflow(self, fi: int, cid: int) -> Tuple[str, str]:
        verdicts: List[Tuple[str, str]] = []
        for hfi, ci, attr in self.holders().get((fi, cid), ()):
            facts = self.p.files[hfi]
            cls = facts.classes[ci]
            for m in cls.methods.values():
                for ucid, c in enumerate(facts.calls):
                    if c.scope != m or c.func[0] != "attr" or c.func[2] != attr:
                        continue
                    base = c.func[1]
                    if base[0] != "name":
                        continue
                    f = facts.funcs[m]
                    if not f.params or base[1] != f.params[0].name:
                        continue
                    verdicts.append(self._follow_call(hfi, ucid, 0))
        if not verdicts:
            return UNKNOWN, ""
        if any(v == OK for v, _ in verdicts) or any(v == UNKNOWN for v, _ in verdicts):
            return (OK, "") if any(v == OK for v, _ in verdicts) else (UNKNOWN, "")
        return BAD, verdicts[0][1]

    def _follow_call(self, fi: int, cid: int, depth: int) -> Tuple[str, str]:
        """What consumes the result of call ``cid``."""
        if depth > 8:
            return UNKNOWN, ""
        idx = self.index(fi)
        parent = idx.parent.get(cid)
        if parent is not None:
            return self._consumer(fi, parent, depth)
        aid = idx.assign_of.get(cid)
        if aid is not None:
            return self._follow_def(fi, aid, depth)
        if cid in idx.returned:
            return BAD, "`return` (nothing normalizes it in this cell)"
        return UNKNOWN, ""

    def _consumer(self, fi: int, cid: int, depth: int) -> Tuple[str, str]:
        if self.spec.through is not None and self.spec.through.any(self.p.call_names(fi, cid)):
            return self._follow_call(fi, cid, depth + 1)
        return self._classify_layer(fi, cid)

    def _follow_def(self, fi: int, aid: int, depth: int) -> Tuple[str, str]:
        idx = self.index(fi)
        uses = sorted(set(idx.uses.get(aid, ())))
        if uses:
            return self._consumer(fi, uses[0], depth)
        for nxt in idx.rebound.get(aid, ()):
            if nxt != aid:
                return self._follow_def(fi, nxt, depth + 1)
        if aid in idx.returned_defs:
            return BAD, "`return` (nothing normalizes it in this cell)"
        return UNKNOWN, ""


def run_sequence_rule(rule: CompiledRule, mc: MatchContext, files: Sequence[int], lang: str) -> List[Finding]:
    spec: SequenceSpec = rule.spec
    seq = _Sequence(rule, mc)
    out: List[Finding] = []
    for fi, cid in mc.candidates(spec.layer, files):
        site = mc.match(spec.layer, fi, cid, framework=rule.framework)
        if site is None:
            continue
        verdict = seq.in_container(fi, cid)
        if verdict is None:
            verdict = seq.in_dataflow(fi, cid)
        if verdict[0] != BAD:
            continue
        call = site.call
        data = dict(site.data)
        data["callee"] = call.dotted or site.qual
        data["next"] = verdict[1]
        out.append(make_finding(rule, mc.p.files[fi].path, (call.line, call.column, call.end_line, call.end_column), data, lang))
    return out
