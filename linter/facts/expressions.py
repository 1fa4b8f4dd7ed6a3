"""The extractor's expressions: a libcst expression → an ``Expr`` tuple, recording each call
(its callee, arguments with their text and positions, scope and statement) on the way.

Names carry the local bindings that reach them; names, attribute chains and constants are shared
(one tuple per distinct value), literals are decoded without ``ast.literal_eval`` and literal
arithmetic is folded. A part of the extractor (:mod:`linter.facts.extract`), separate because
it keeps no scope of its own: the statement walk there opens the scopes (functions, classes,
lambdas) and keeps their bindings, which expressions read and extend through its helpers.
"""
from __future__ import annotations

import ast
import re
from sys import intern
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

import libcst as cst

from linter.facts.model import ArgFact, AssignFact, CallFact, Expr
from linter.facts.positions import Pos

if TYPE_CHECKING:
    from linter.facts.extract import _Frame

_BINOPS = {
    "Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/", "FloorDivide": "//",
    "Modulo": "%", "Power": "**", "MatrixMultiply": "@", "BitAnd": "&", "BitOr": "|",
    "BitXor": "^", "LeftShift": "<<", "RightShift": ">>",
}
_CMPOPS = {
    "Equal": "==", "NotEqual": "!=", "LessThan": "<", "GreaterThan": ">", "LessThanEqual": "<=",
    "GreaterThanEqual": ">=", "In": "in", "NotIn": "not in", "Is": "is", "IsNot": "is not",
}
_UNARY = {"Minus": "-", "Plus": "+", "BitInvert": "~", "Not": "not"}
_CONST_NAMES = {"True": True, "False": False, "None": None}
_INTERN_TEXT = 40
"""Argument texts up to this long (``x``, ``self.conv``, ``0.1``) repeat across a project and
are shared; longer ones rarely do."""
_KEYWORD_PREFIX = re.compile(r"\s*\**\s*(?:[A-Za-z_][A-Za-z0-9_]*\s*=(?!=)\s*)?")


def _fold(op: str, a: Any, b: Any) -> Any:
    """Fold literal arithmetic; raise on anything that is not plain numbers."""
    if type(a) not in (int, float) or type(b) not in (int, float):
        raise TypeError
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return a / b
    if op == "//":
        return a // b
    if op == "**" and abs(b) <= 64:
        return a ** b
    raise TypeError


def _dotted(e: Expr) -> Optional[str]:
    parts: List[str] = []
    while e[0] == "attr":
        parts.append(e[2])
        e = e[1]
    if e[0] != "name":
        return None
    parts.append(e[1])
    return ".".join(reversed(parts))


_NOT_LITERAL = object()
_LITERALS: Dict[str, Any] = {}
_PLAIN_STRING = re.compile(r"""(?is)([ru]?)('|")([^'"\\\n]*)\2""")


def _literal(text: str) -> Any:
    """The value of a number or string literal. ``evaluated_value`` (``ast.literal_eval``)
    allocates reference cycles on every call — a fifth of all garbage-collector work on a
    large tree — so common forms are decoded directly and the rest memoised."""
    hit = _LITERALS.get(text)
    if hit is not None:
        return hit
    c = text[:1]
    try:
        if c.isdigit() or c == ".":
            t = text.replace("_", "")
            last = t[-1:].lower()
            if last == "j":
                value: Any = complex(t)
            elif "." in t or ("e" in t.lower() and not t.lower().startswith("0x")):
                value = float(t)
            else:
                value = int(t, 0) if not (len(t) > 1 and t[0] == "0" and t[1].isdigit()) else int(t, 10)
        else:
            m = _PLAIN_STRING.fullmatch(text)
            if m:
                value = m.group(3)
            else:
                node = ast.parse(text, mode="eval").body  # acyclic, unlike literal_eval
                if not isinstance(node, ast.Constant):
                    return _NOT_LITERAL
                value = node.value
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL
    if len(_LITERALS) < 100_000 and len(text) < 200:
        _LITERALS[text] = value
    return value


class Expressions:
    """The expression half of the extractor (:class:`linter.facts.extract._Extractor`)."""

    if TYPE_CHECKING:
        # the extractor's state and binding helpers (linter/facts/extract.py)
        pos: Dict[int, Pos]
        frame: _Frame
        sid: int
        line: int
        calls: List[CallFact]
        assigns: List[AssignFact]
        callee_index: Dict[str, List[int]]
        _names: Dict[Tuple[str, Tuple[int, ...]], Expr]
        _attrs: Dict[Tuple[int, str], Expr]
        _consts: Dict[Tuple[type, Any], Expr]
        _expr_handlers: Dict[type, Callable[[Any], Expr]]
        def _position(self, node: cst.CSTNode) -> Pos: ...
        def _slice(self, p: Pos) -> str: ...
        def _walk_children(self, node: cst.CSTNode) -> None: ...
        def _bind_target(self, target: Any, value: Expr) -> List[int]: ...

    # ------------------------------------------------------------------ expressions
    def expr(self, node: cst.BaseExpression) -> Expr:
        handler = self._expr_handlers.get(type(node))
        if handler is not None:
            return handler(node)
        self._walk_children(node)
        return ("other", type(node).__name__)

    # Names, attribute chains and constants repeat all over a file; sharing one tuple per
    # distinct value (and interning identifiers) cuts the facts' memory by about a third.
    def _name(self, node: cst.Name) -> Expr:
        v = node.value
        if v in _CONST_NAMES:
            return ("const", _CONST_NAMES[v])
        defs = self.frame.env.get(v, ())
        key = (v, defs)
        hit = self._names.get(key)
        if hit is None:
            hit = self._names[key] = ("name", intern(v), defs)
        return hit

    def _attribute(self, node: cst.Attribute) -> Expr:
        base = self.expr(node.value)
        attr = node.attr.value
        if base[0] in ("name", "attr"):
            key = (id(base), attr)   # bases of these kinds are shared, so their id is stable
            hit = self._attrs.get(key)
            if hit is None:
                hit = self._attrs[key] = ("attr", base, intern(attr))
            return hit
        return ("attr", base, intern(attr))

    def _const(self, value: Any) -> Expr:
        key = (type(value), value)   # 1, 1.0 and True are equal but not the same constant
        try:
            hit = self._consts.get(key)
        except TypeError:
            return ("const", value)
        if hit is None:
            hit = self._consts[key] = ("const", value)
        return hit

    def _call(self, node: cst.Call) -> Expr:
        func = self.expr(node.func)
        args: List[ArgFact] = []
        for a in node.args:
            value = self.expr(a.value)
            p = self.pos.get(id(a))
            kw = intern(a.keyword.value) if a.keyword is not None else None
            if p is None:
                text = ""
                p = (self.line, 0, self.line, 0)
            else:
                text = self._slice(p)
                if kw is not None or a.star:
                    text = _KEYWORD_PREFIX.sub("", text, count=1)
                text = text.rstrip().rstrip(",").rstrip()
                if len(text) <= _INTERN_TEXT:
                    text = intern(text)
            args.append(ArgFact(kw, a.star, value, text, p[0], p[1] + 1, p[2], p[3] + 1))
        p = self._position(node)
        cid = len(self.calls)
        dotted = _dotted(func)
        if dotted is not None:
            dotted = intern(dotted)
        self.calls.append(CallFact(func, dotted, tuple(args), p[0], p[1] + 1, p[2], p[3] + 1,
                                   self.frame.index, self.sid))
        key = func[2] if func[0] == "attr" else func[1] if func[0] == "name" else "()"
        bucket = self.callee_index.get(key)
        if bucket is None:
            self.callee_index[key] = [cid]
        else:
            bucket.append(cid)
        return ("call", cid)

    def _number(self, node: Any) -> Expr:
        value = _literal(node.value)
        return self._const(value) if value is not _NOT_LITERAL else ("other", type(node).__name__)

    def _string(self, node: Any) -> Expr:
        value = _literal(node.value)
        return self._const(value) if value is not _NOT_LITERAL else ("other", "string")

    def _concat(self, node: cst.ConcatenatedString) -> Expr:
        """``"a" "b"`` folds to a constant; with an f-string part, keep the expressions inside.

        libcst nests a run of adjacent literals to the right, one level per literal; generated
        files (``pydoc_data/topics.py``) have thousands, so the run is walked as a loop."""
        sides: List[Expr] = [self.expr(node.left)]
        cur: Any = node.right
        while isinstance(cur, cst.ConcatenatedString):
            sides.append(self.expr(cur.left))
            cur = cur.right
        sides.append(self.expr(cur))
        if all(s[0] == "const" for s in sides) and len({type(s[1]) for s in sides}) == 1:
            return ("const", sides[0][1][:0].join(s[1] for s in sides))
        parts: List[Expr] = []
        for side in sides:
            if side[0] == "fstr":
                parts.extend(side[1])
        return ("fstr", tuple(parts))

    def _fstring(self, node: cst.FormattedString) -> Expr:
        parts = []
        for p in node.parts:
            if isinstance(p, cst.FormattedStringExpression):
                parts.append(self.expr(p.expression))
        return ("fstr", tuple(parts))

    def _binop(self, node: cst.BinaryOperation) -> Expr:
        op = _BINOPS.get(type(node.operator).__name__, "?")
        left = self.expr(node.left)
        right = self.expr(node.right)
        if left[0] == "const" and right[0] == "const":
            try:
                return ("const", _fold(op, left[1], right[1]))
            except Exception:
                pass
        return ("binop", op, left, right)

    def _unary(self, node: cst.UnaryOperation) -> Expr:
        op = _UNARY.get(type(node.operator).__name__, "?")
        operand = self.expr(node.expression)
        if operand[0] == "const" and type(operand[1]) in (int, float):
            if op == "-":
                return ("const", -operand[1])
            if op == "+":
                return operand
        if op == "not" and operand[0] == "const":
            return ("const", not operand[1])
        return ("unary", op, operand)

    def _boolop(self, node: cst.BooleanOperation) -> Expr:
        op = "and" if isinstance(node.operator, cst.And) else "or"
        return ("boolop", op, (self.expr(node.left), self.expr(node.right)))

    def _compare(self, node: cst.Comparison) -> Expr:
        operands = [self.expr(node.left)]
        ops = []
        for c in node.comparisons:
            ops.append(_CMPOPS.get(type(c.operator).__name__, "?"))
            operands.append(self.expr(c.comparator))
        return ("compare", tuple(ops), tuple(operands))

    def _ifexp(self, node: cst.IfExp) -> Expr:
        return ("ifexp", self.expr(node.test), self.expr(node.body), self.expr(node.orelse))

    def _seq(self, node: Any) -> Expr:
        kind = "tuple" if type(node) is cst.Tuple else "list" if type(node) is cst.List else "set"
        elts = []
        for el in node.elements:
            if isinstance(el, cst.StarredElement):
                elts.append(("star", self.expr(el.value)))
            else:
                elts.append(self.expr(el.value))
        return ("seq", kind, tuple(elts))

    def _dict(self, node: cst.Dict) -> Expr:
        keys: List[Optional[Expr]] = []
        values: List[Expr] = []
        for el in node.elements:
            if isinstance(el, cst.DictElement):
                keys.append(self.expr(el.key))
                values.append(self.expr(el.value))
            else:
                keys.append(None)
                values.append(self.expr(el.value))
        return ("dict", tuple(keys), tuple(values))

    def _subscript(self, node: cst.Subscript) -> Expr:
        value = self.expr(node.value)
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            return ("subscript", value, self.expr(node.slice[0].slice.value))
        for el in node.slice:
            self._walk_children(el)
        return ("subscript", value, ("other", "slice"))

    def _comp(self, node: Any) -> Expr:
        f = self.frame
        saved = dict(f.env)
        gens = []
        comp = node.for_in
        while comp is not None:
            it = self.expr(comp.iter)
            target_ids = self._bind_target(comp.target, ("iter", it))
            gens.append((self.assigns[target_ids[0]].target if target_ids else ("other", "target"), it))
            for cond in comp.ifs:
                self.expr(cond.test)
            comp = comp.inner_for_in
        if type(node) is cst.DictComp:
            elt: Expr = ("seq", "tuple", (self.expr(node.key), self.expr(node.value)))
            kind = "dict"
        else:
            elt = self.expr(node.elt)
            kind = "list" if type(node) is cst.ListComp else "set" if type(node) is cst.SetComp else "generator"
        f.env = saved
        return ("comp", kind, elt, tuple(gens))

    def _await(self, node: cst.Await) -> Expr:
        return ("await", self.expr(node.expression))

    def _yield(self, node: cst.Yield) -> Expr:
        self.frame.generator = True
        value = node.value
        if value is None:
            return ("yield", None)
        if isinstance(value, cst.From):
            return ("yield", self.expr(value.item))
        return ("yield", self.expr(value))

    def _namedexpr(self, node: cst.NamedExpr) -> Expr:
        value = self.expr(node.value)
        ids = self._bind_target(node.target, value)
        if isinstance(node.target, cst.Name):
            return ("name", node.target.value, tuple(ids))
        return value

    def _ellipsis(self, node: cst.Ellipsis) -> Expr:
        return ("const", ...)
