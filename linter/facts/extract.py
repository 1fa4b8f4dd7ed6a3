"""Stage 2b: decoded source → :class:`FileFacts` (one libcst parse, one pass; no rule knowledge).

The extractor walks statements and expressions recursively and records calls (with bound
argument expressions and positions), bindings (assignments, imports, parameters, loop and
``with`` targets), functions, classes and a statement IR of every body. Name loads carry the
local bindings that may reach them, computed on the fly: a straight-line assignment replaces
earlier bindings, branches are merged at their join. That keeps later stages (constant
propagation, receiver typing, flow rules) to dictionary lookups.

This module walks the statements: the scopes and their bindings, functions, classes, lambdas
and the statement IR, then assembles the file's facts (with its ``# trainlint:`` comments).
Expressions — calls among them — are :mod:`linter.facts.expressions`.
"""
from __future__ import annotations

import io
import re
import tokenize
from bisect import bisect_right
from sys import intern
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

import libcst as cst

from linter.core.digest import blake2b
from linter.facts.expressions import _BINOPS, _NOT_LITERAL, Expressions, _literal
from linter.facts.model import (
    AssignFact,
    Block,
    CallFact,
    ClassFact,
    Expr,
    FileFacts,
    FuncFact,
    ImportFact,
    ParamFact,
    Stmt,
    StmtPositions,
)
from linter.facts.mentions import PYTORCH_MENTION
from linter.facts.positions import Pos, compute_positions

__all__ = ["WANTED", "_NOT_LITERAL", "_literal", "extract"]
"""``extract`` and the names other modules take from here (literals are decoded in
:mod:`linter.facts.expressions`)."""

_SMALL_STATEMENTS = (
    cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Return, cst.Raise, cst.Assert,
    cst.Import, cst.ImportFrom, cst.Del, cst.Pass, cst.Break, cst.Continue, cst.Global,
    cst.Nonlocal,
)
_COMPOUND_STATEMENTS = (cst.If, cst.For, cst.While, cst.With, cst.Try, cst.FunctionDef, cst.ClassDef)
_OPTIONAL = tuple(getattr(cst, n) for n in ("TryStar", "Match", "TypeAlias") if hasattr(cst, n))

WANTED: FrozenSet[type] = frozenset(
    (cst.Call, cst.Arg, cst.Lambda) + _SMALL_STATEMENTS + _COMPOUND_STATEMENTS + _OPTIONAL
)

_PRAGMA = re.compile(r"#\s*trainlint\s*:[^\n\r]*")


class _Frame:
    """Bindings of the scope being extracted."""

    __slots__ = ("index", "env", "defs", "cls", "self_name", "is_class_body", "methods", "generator")

    def __init__(self, index: int, cls: int = -1, self_name: Optional[str] = None,
                 is_class_body: bool = False) -> None:
        self.index = index
        self.env: Dict[str, Tuple[int, ...]] = {}
        self.defs: Dict[str, Tuple[int, ...]] = {}
        self.cls = cls
        self.self_name = self_name
        self.is_class_body = is_class_body
        self.methods: Dict[str, int] = {}
        self.generator = False


def _merge(a: Dict[str, Tuple[int, ...]], b: Dict[str, Tuple[int, ...]]) -> Dict[str, Tuple[int, ...]]:
    out = dict(a)
    for name, ids in b.items():
        cur = out.get(name)
        if cur is None:
            out[name] = ids
        elif cur != ids:
            out[name] = cur + tuple(i for i in ids if i not in cur)
    return out


class _Extractor(Expressions):
    def __init__(self, source: str, positions: Dict[int, Pos]) -> None:
        self.source = source
        self.pos = positions
        starts = [0]
        for m in re.finditer(r"\r\n|\r|\n", source):
            starts.append(m.end())
        self.line_starts = starts
        self.funcs: List[Optional[FuncFact]] = []
        self.classes: List[Optional[ClassFact]] = []
        self.calls: List[CallFact] = []
        self.assigns: List[AssignFact] = []
        self.imports: List[ImportFact] = []
        self.stmts = StmtPositions()
        self.callee_index: Dict[str, List[int]] = {}
        self._names: Dict[Tuple[str, Tuple[int, ...]], Expr] = {}
        self._attrs: Dict[Tuple[int, str], Expr] = {}
        self._consts: Dict[Tuple[type, Any], Expr] = {}
        self.frame = _Frame(0)
        self.frames: List[_Frame] = []
        self.sid = 0
        self.line = 1
        self.has_main_guard = False
        self._stmt_handlers: Dict[type, Callable[[Any], Optional[Stmt]]] = {
            cst.Assign: self._assign, cst.AnnAssign: self._annassign, cst.AugAssign: self._augassign,
            cst.Expr: self._exprstmt, cst.Return: self._return, cst.Raise: self._raise,
            cst.Assert: self._assert, cst.Import: self._import, cst.ImportFrom: self._importfrom,
            cst.If: self._if, cst.For: self._for, cst.While: self._while, cst.With: self._with,
            cst.Try: self._try, cst.FunctionDef: self._funcdef, cst.ClassDef: self._classdef,
            cst.Break: self._break, cst.Continue: self._continue, cst.Del: self._del,
        }
        if hasattr(cst, "TryStar"):
            self._stmt_handlers[cst.TryStar] = self._try
        if hasattr(cst, "Match"):
            self._stmt_handlers[cst.Match] = self._match
        self._expr_handlers: Dict[type, Callable[[Any], Expr]] = {
            cst.Name: self._name, cst.Attribute: self._attribute, cst.Call: self._call,
            cst.Integer: self._number, cst.Float: self._number, cst.Imaginary: self._number,
            cst.SimpleString: self._string, cst.ConcatenatedString: self._concat,
            cst.FormattedString: self._fstring, cst.BinaryOperation: self._binop,
            cst.UnaryOperation: self._unary, cst.BooleanOperation: self._boolop,
            cst.Comparison: self._compare, cst.IfExp: self._ifexp, cst.Tuple: self._seq,
            cst.List: self._seq, cst.Set: self._seq, cst.Dict: self._dict,
            cst.Subscript: self._subscript, cst.ListComp: self._comp, cst.SetComp: self._comp,
            cst.GeneratorExp: self._comp, cst.DictComp: self._comp, cst.Lambda: self._lambda,
            cst.Await: self._await, cst.Yield: self._yield, cst.NamedExpr: self._namedexpr,
            cst.Ellipsis: self._ellipsis,
        }

    # ------------------------------------------------------------------ helpers
    def _position(self, node: cst.CSTNode) -> Pos:
        p = self.pos.get(id(node))
        if p is None:
            return (self.line, 0, self.line, 0)
        return p

    def _new_stmt(self, node: cst.CSTNode) -> int:
        p = self.pos.get(id(node))
        if p is not None:
            self.line = p[0]
            self.stmts.append((p[0], p[1] + 1))
        else:
            self.stmts.append((self.line, 1))
        self.sid = len(self.stmts) - 1
        return self.sid

    def _slice(self, p: Pos) -> str:
        starts = self.line_starts
        if p[0] - 1 >= len(starts) or p[2] - 1 >= len(starts):
            return ""
        return self.source[starts[p[0] - 1] + p[1]: starts[p[2] - 1] + p[3]]

    def _bind_name(self, name: str, value: Expr) -> int:
        f = self.frame
        aid = len(self.assigns)
        self.assigns.append(AssignFact(("name", name, ()), value, f.index, self.sid, self.line))
        f.env[name] = (aid,)
        f.defs[name] = f.defs.get(name, ()) + (aid,)
        return aid

    def _bind_target(self, target: Any, value: Expr) -> List[int]:
        """``target`` is a ``cst.BaseExpression`` (typed loosely: it is tested by exact type, the
        fast check here, which the type checker does not narrow)."""
        t = type(target)
        if t is cst.Name:
            return [self._bind_name(target.value, value)]
        if t is cst.Tuple or t is cst.List:
            out: List[int] = []
            for i, el in enumerate(target.elements):
                if isinstance(el, cst.StarredElement):
                    out += self._bind_target(el.value, ("unpack", value, None))
                else:
                    out += self._bind_target(el.value, ("unpack", value, i))
            return out
        if t is cst.StarredElement:
            return self._bind_target(target.value, ("unpack", value, None))
        texpr = self.expr(target)
        f = self.frame
        aid = len(self.assigns)
        self.assigns.append(AssignFact(texpr, value, f.index, self.sid, self.line))
        if t is cst.Attribute and f.self_name is not None and f.cls >= 0:
            base = target.value
            if type(base) is cst.Name and base.value == f.self_name:
                # Collected per class and attached when the class body ends.
                pending = self._class_attrs.setdefault(f.cls, {})
                attr = target.attr.value
                pending[attr] = pending.get(attr, ()) + (aid,)
        return [aid]

    # ------------------------------------------------------------------ blocks
    def block(self, body: Any) -> Block:
        out: List[Stmt] = []
        if isinstance(body, cst.SimpleStatementSuite):
            statements: Sequence[Any] = body.body
        else:
            statements = body.body
        for st in statements:
            if isinstance(st, cst.SimpleStatementLine):
                for small in st.body:
                    r = self.statement(small)
                    if r is not None:
                        out.append(r)
            else:
                r = self.statement(st)
                if r is not None:
                    out.append(r)
        return tuple(out)

    def statement(self, node: cst.CSTNode) -> Optional[Stmt]:
        handler = self._stmt_handlers.get(type(node))
        if handler is None:
            # pass, global, type aliases...: nothing to model, but calls inside still count.
            self._new_stmt(node)
            self._walk_children(node)
            return None
        return handler(node)

    def _walk_children(self, node: cst.CSTNode) -> None:
        """Visit sub-expressions of an unmodelled node so the calls inside are still seen."""
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self.expr(child)
            elif isinstance(child, (cst.BaseSuite, cst.SimpleStatementLine)):
                if isinstance(child, cst.SimpleStatementLine):
                    for small in child.body:
                        self.statement(small)
                else:
                    self.block(child)
            else:
                self._walk_children(child)

    # ------------------------------------------------------------------ statements
    def _assign(self, node: cst.Assign) -> Stmt:
        sid = self._new_stmt(node)
        value = self.expr(node.value)
        ids: List[int] = []
        for t in node.targets:
            ids += self._bind_target(t.target, value)
        return ("assign", sid, tuple(ids))

    def _annassign(self, node: cst.AnnAssign) -> Stmt:
        sid = self._new_stmt(node)
        if node.value is None:
            return ("expr", sid, ("other", "annotation"))
        value = self.expr(node.value)
        return ("assign", sid, tuple(self._bind_target(node.target, value)))

    def _augassign(self, node: cst.AugAssign) -> Stmt:
        sid = self._new_stmt(node)
        op = _BINOPS.get(type(node.operator).__name__.replace("Assign", ""), "?")
        current = self.expr(node.target)
        value = ("binop", op, current, self.expr(node.value))
        return ("assign", sid, tuple(self._bind_target(node.target, value)))

    def _exprstmt(self, node: cst.Expr) -> Stmt:
        sid = self._new_stmt(node)
        return ("expr", sid, self.expr(node.value))

    def _return(self, node: cst.Return) -> Stmt:
        sid = self._new_stmt(node)
        return ("return", sid, None if node.value is None else self.expr(node.value))

    def _raise(self, node: cst.Raise) -> Stmt:
        sid = self._new_stmt(node)
        return ("raise", sid, None if node.exc is None else self.expr(node.exc))

    def _assert(self, node: cst.Assert) -> Stmt:
        sid = self._new_stmt(node)
        test = self.expr(node.test)
        if node.msg is not None:
            self.expr(node.msg)
        return ("expr", sid, test)

    def _del(self, node: cst.Del) -> Stmt:
        sid = self._new_stmt(node)
        return ("expr", sid, self.expr(node.target))

    def _break(self, node: cst.Break) -> Stmt:
        return ("break", self._new_stmt(node))

    def _continue(self, node: cst.Continue) -> Stmt:
        return ("continue", self._new_stmt(node))

    def _import(self, node: cst.Import) -> Stmt:
        sid = self._new_stmt(node)
        ids: List[int] = []
        for alias in node.names:
            module = intern(_dotted_text(alias.name))
            asname = _asname(alias)
            iid = len(self.imports)
            imp = ImportFact(module, None, asname, 0, self.frame.index, self.line)
            self.imports.append(imp)
            ids.append(self._bind_name(imp.bound_name, ("import", iid)))
        return ("import", sid, tuple(ids))

    def _importfrom(self, node: cst.ImportFrom) -> Stmt:
        sid = self._new_stmt(node)
        module = "" if node.module is None else intern(_dotted_text(node.module))
        level = len(node.relative)
        ids: List[int] = []
        if isinstance(node.names, cst.ImportStar):
            self.imports.append(ImportFact(module, "*", None, level, self.frame.index, self.line))
            return ("import", sid, ())
        for alias in node.names:
            name = intern(_dotted_text(alias.name))
            iid = len(self.imports)
            imp = ImportFact(module, name, _asname(alias), level, self.frame.index, self.line)
            self.imports.append(imp)
            ids.append(self._bind_name(imp.bound_name, ("import", iid)))
        return ("import", sid, tuple(ids))

    def _if(self, node: cst.If) -> Stmt:
        sid = self._new_stmt(node)
        test = self.expr(node.test)
        if not self.frames and _is_main_test(test):
            self.has_main_guard = True
        f = self.frame
        before = dict(f.env)
        then = self.block(node.body)
        after_then = f.env
        f.env = dict(before)
        orelse: Block = ()
        if node.orelse is not None:
            if isinstance(node.orelse, cst.If):
                r = self._if(node.orelse)
                orelse = (r,)
            else:
                orelse = self.block(node.orelse.body)
        f.env = _merge(after_then, f.env)
        return ("if", sid, test, then, orelse)

    def _loop_body(self, run: Callable[[], Block]) -> Block:
        f = self.frame
        before = dict(f.env)
        body = run()
        f.env = _merge(before, f.env)
        return body

    def _for(self, node: cst.For) -> Stmt:
        sid = self._new_stmt(node)
        it = self.expr(node.iter)
        ids: List[int] = []

        def run() -> Block:
            ids.extend(self._bind_target(node.target, ("iter", it)))
            return self.block(node.body)

        body = self._loop_body(run)
        orelse = self.block(node.orelse.body) if node.orelse is not None else ()
        return ("for", sid, tuple(ids), it, body, orelse)

    def _while(self, node: cst.While) -> Stmt:
        sid = self._new_stmt(node)
        test = self.expr(node.test)
        body = self._loop_body(lambda: self.block(node.body))
        orelse = self.block(node.orelse.body) if node.orelse is not None else ()
        return ("while", sid, test, body, orelse)

    def _with(self, node: cst.With) -> Stmt:
        sid = self._new_stmt(node)
        items = []
        for item in node.items:
            ctx = self.expr(item.item)
            ids: Tuple[int, ...] = ()
            if item.asname is not None:
                ids = tuple(self._bind_target(item.asname.name, ("enter", ctx)))
            items.append((ctx, ids))
        body = self.block(node.body)
        return ("with", sid, tuple(items), body)

    def _try(self, node: Any) -> Stmt:
        sid = self._new_stmt(node)
        f = self.frame
        before = dict(f.env)
        body = self.block(node.body)
        joined = _merge(before, f.env)
        envs = [f.env]
        handlers = []
        for h in node.handlers:
            f.env = dict(joined)
            if h.type is not None:
                exc = self.expr(h.type)
            else:
                exc = ("other", "bare-except")
            if h.name is not None:
                self._bind_target(h.name.name, ("except", exc))
            handlers.append(self.block(h.body))
            envs.append(f.env)
        f.env = envs[0]
        orelse = self.block(node.orelse.body) if node.orelse is not None else ()
        envs[0] = f.env
        merged = envs[0]
        for e in envs[1:]:
            merged = _merge(merged, e)
        f.env = merged
        final = self.block(node.finalbody.body) if node.finalbody is not None else ()
        return ("try", sid, body, tuple(handlers), orelse, final)

    def _match(self, node: Any) -> Stmt:
        sid = self._new_stmt(node)
        subject = self.expr(node.subject)
        f = self.frame
        before = dict(f.env)
        merged = dict(before)
        blocks = []
        for case in node.cases:
            f.env = dict(before)
            self._walk_children(case.pattern)
            if case.guard is not None:
                self.expr(case.guard)
            blocks.append(self.block(case.body))
            merged = _merge(merged, f.env)
        f.env = merged
        return ("branches", sid, subject, tuple(blocks))

    def _params(self, params: cst.Parameters, index: int) -> List[Tuple[str, str, Optional[Expr]]]:
        """Evaluate defaults in the enclosing scope; return (name, kind, default)."""
        out: List[Tuple[str, str, Optional[Expr]]] = []

        def add(p: cst.Param, kind: str) -> None:
            default = None if p.default is None else self.expr(p.default)
            out.append((p.name.value, kind, default))

        for p in params.posonly_params:
            add(p, "posonly")
        for p in params.params:
            add(p, "pos")
        if isinstance(params.star_arg, cst.Param):
            add(params.star_arg, "varargs")
        for p in params.kwonly_params:
            add(p, "kwonly")
        if params.star_kwarg is not None:
            add(params.star_kwarg, "varkw")
        return out

    def _push(self, frame: _Frame) -> None:
        self.frames.append(self.frame)
        self.frame = frame

    def _pop(self) -> _Frame:
        frame = self.frame
        self.frame = self.frames.pop()
        return frame

    def _bind_params(self, index: int, raw: List[Tuple[str, str, Optional[Expr]]]) -> Tuple[ParamFact, ...]:
        return tuple(
            ParamFact(intern(name), kind, default, self._bind_name(name, ("param", index, name)))
            for name, kind, default in raw
        )

    def _funcdef(self, node: cst.FunctionDef) -> Stmt:
        sid = self._new_stmt(node)
        line = self.line
        decorators = tuple(self.expr(d.decorator) for d in node.decorators)
        index = len(self.funcs)
        self.funcs.append(None)
        raw = self._params(node.params, index)
        outer = self.frame
        name = node.name.value
        qual = self._qualname(outer, index, name)
        is_method = outer.is_class_body
        static = any(d[0] == "name" and d[1] == "staticmethod" for d in decorators)
        self_name = raw[0][0] if (is_method and raw and not static) else None
        frame = _Frame(index, cls=outer.cls if is_method else -1, self_name=self_name)
        self._push(frame)
        params = self._bind_params(index, raw)
        body = self.block(node.body)
        self._pop()
        end = self._position(node)[2]
        kind = "method" if is_method else "function"
        self.funcs[index] = FuncFact(name, qual, kind, outer.index, frame.cls, params, decorators,
                                     line, end, body, frame.defs, frame.generator)
        if is_method:
            outer.methods[name] = index
        self._bind_name(name, ("def", index))
        return ("def", sid, index)

    def _qualname(self, outer: _Frame, index: int, name: str) -> str:
        """Dotted path inside the module; remembered so nested scopes can extend it."""
        qual = name if outer.index == 0 else self._quals[outer.index] + "." + name
        self._quals[index] = qual
        return qual

    def _classdef(self, node: cst.ClassDef) -> Stmt:
        sid = self._new_stmt(node)
        line = self.line
        decorators = tuple(self.expr(d.decorator) for d in node.decorators)
        bases = tuple(self.expr(a.value) for a in node.bases)
        for kw in node.keywords:
            self.expr(kw.value)
        cidx = len(self.classes)
        self.classes.append(None)
        body_index = len(self.funcs)
        self.funcs.append(None)
        outer = self.frame
        qual = self._qualname(outer, body_index, node.name.value)
        frame = _Frame(body_index, cls=cidx, is_class_body=True)
        self._push(frame)
        body = self.block(node.body)
        self._pop()
        end = self._position(node)[2]
        self.funcs[body_index] = FuncFact(node.name.value, qual, "class", outer.index, cidx, (), decorators,
                                          line, end, body, frame.defs, False)
        self.classes[cidx] = ClassFact(node.name.value, qual, bases, outer.index, body_index,
                                       frame.methods, self._class_attrs.pop(cidx, {}), line)
        self._bind_name(node.name.value, ("class", cidx))
        return ("class", sid, cidx)

    def _lambda(self, node: cst.Lambda) -> Expr:
        index = len(self.funcs)
        self.funcs.append(None)
        raw = self._params(node.params, index)
        outer = self.frame
        line = self._position(node)[0]
        qual = self._qualname(outer, index, "<lambda>")
        frame = _Frame(index)
        self._push(frame)
        params = self._bind_params(index, raw)
        body = (("return", self.sid, self.expr(node.body)),)
        self._pop()
        self.funcs[index] = FuncFact("<lambda>", qual, "lambda", outer.index, -1,
                                     params, (), line, line, body, frame.defs, False)
        return ("lambda", index)

    # ------------------------------------------------------------------ entry
    def run(self, module: cst.Module) -> None:
        self._class_attrs: Dict[int, Dict[str, Tuple[int, ...]]] = {}
        self._quals: Dict[int, str] = {0: "<module>"}
        self.funcs.append(None)
        body = self.block(module)
        end = max(1, len(self.line_starts))
        self.funcs[0] = FuncFact("<module>", "<module>", "module", -1, -1, (), (), 1, end, body,
                                 self.frame.defs, False)


def _is_main_test(test: Expr) -> bool:
    """``__name__ == "__main__"`` in either order."""
    if test[0] != "compare" or test[1] != ("==",):
        return False
    a, b = test[2]
    return ({a[0], b[0]} == {"name", "const"}
            and (a[:2] == ("name", "__name__") or b[:2] == ("name", "__name__"))
            and ("__main__" in (a[1], b[1])))


def _dotted_text(node: Any) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return _dotted_text(node.value) + "." + node.attr.value
    return ""


def _asname(alias: cst.ImportAlias) -> Optional[str]:
    if alias.asname is None:
        return None
    name = alias.asname.name
    return name.value if isinstance(name, cst.Name) else None


def _pragmas(source: str, starts: List[int]) -> List[Tuple[int, str]]:
    """``# trainlint: ...`` comments with their lines. Only real comments count (a docstring
    that shows a suppression is not one), so the source is tokenized — only when it
    mentions trainlint at all."""
    out: List[Tuple[int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                m = _PRAGMA.search(tok.string)
                if m:
                    out.append((tok.start[0], m.group(0)))
        return out
    except (tokenize.TokenError, SyntaxError):
        # libcst accepted what tokenize did not (rare): fall back to a textual scan.
        return [(bisect_right(starts, m.start()), m.group(0)) for m in _PRAGMA.finditer(source)]


def extract(path: str, source: str, module: Optional[cst.Module] = None) -> FileFacts:
    """Parse ``source`` (unless a parsed ``module`` is given) and extract its facts.

    Raises ``libcst.ParserSyntaxError`` for invalid Python; callers turn it into a
    diagnostic.
    """
    if module is None:
        module = cst.parse_module(source)
    positions = compute_positions(module, WANTED)
    ex = _Extractor(source, positions)
    ex.run(module)
    pragmas = _pragmas(source, ex.line_starts) if "trainlint" in source else []
    digest = blake2b(source.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    facts = FileFacts(
        path=path,
        digest=digest,
        funcs=ex.funcs,  # type: ignore[arg-type]  # every slot is filled by now
        classes=ex.classes,  # type: ignore[arg-type]
        calls=ex.calls,
        assigns=ex.assigns,
        imports=ex.imports,
        stmts=ex.stmts,
        callee_index={k: tuple(v) for k, v in ex.callee_index.items()},
        pragmas=pragmas,
        lines=len(ex.line_starts),
        has_main_guard=ex.has_main_guard,
        mentions_pytorch=bool(PYTORCH_MENTION.search(source)),
    )
    # The extractor refers to itself through its dispatch table of bound methods; breaking
    # that cycle lets reference counting free the per-file scaffolding at once instead of
    # leaving it to the cyclic garbage collector.
    ex.__dict__.clear()
    return facts
