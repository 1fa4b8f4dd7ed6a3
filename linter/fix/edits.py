"""Edit operations: one finding + one :class:`FixSpec` → text replacements on the original source.

The file is re-parsed with libcst (positions and parents); the finding's call is found by its
span and every operation is computed as a replacement of a precise range of the original text.
Nothing outside those ranges is touched, so comments, blank lines and formatting survive, and
the same replacements are what JSON and SARIF report. Any operation that cannot be made
exactly (a keyword already present, a one-line ``if x: f()`` body, a missing binding) raises
:class:`NoFix`: no fix is offered rather than a doubtful one.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

import libcst as cst
from libcst.metadata import CodePosition, CodeRange

from linter.compiler.fixes import Binder, Edit, FixSpec, Unless, import_binding
from linter.facts.positions import all_positions
from linter.fix.template import TemplateError, render_expression, render_statement, substitute
from linter.fix.window import file_words
from linter.source.decode import line_starts

Body = Union[cst.Module, cst.IndentedBlock]


class NoFix(Exception):
    """This fix cannot be made here; the message says why (for ``--verbose``-style reports)."""


@dataclass(frozen=True)
class TextEdit:
    """Replace ``text[start:end]`` by ``content`` (offsets in characters)."""

    start: int
    end: int
    content: str


class _Parents:
    """Node → parent, read from the position pass (``get`` as on ``ParentNodeProvider``'s result)."""

    __slots__ = ("_by_id",)

    def __init__(self, by_id: Dict[int, cst.CSTNode]) -> None:
        self._by_id = by_id

    def get(self, node: cst.CSTNode, default: Optional[cst.CSTNode] = None) -> Optional[cst.CSTNode]:
        return self._by_id.get(id(node), default)


class _Ranges:
    """Node → ``CodeRange`` as libcst's ``PositionProvider`` gives it, computed by one lean
    codegen pass (:func:`linter.facts.positions.all_positions`, a quarter of the provider's
    cost: reports plan the fixes of every flagged file)."""

    __slots__ = ("_pos", "_nodes", "parents")

    def __init__(self, module: cst.Module) -> None:
        self._pos, self._nodes, by_id = all_positions(module)
        self.parents = _Parents(by_id)

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        line, col, end_line, end_col = self._pos[id(node)]
        return CodeRange(CodePosition(line, col), CodePosition(end_line, end_col))

    def items(self) -> Iterable[Tuple[cst.CSTNode, CodeRange]]:
        return ((self._nodes[k], CodeRange(CodePosition(p[0], p[1]), CodePosition(p[2], p[3])))
                for k, p in self._pos.items())

    def spans(self) -> Iterable[Tuple[cst.CSTNode, Tuple[int, int, int, int]]]:
        """(node, (line, column, end line, end column)) without building range objects."""
        return ((self._nodes[k], p) for k, p in self._pos.items())


class SourceFile:
    """A parsed file with the lookups fixes need (parsed once, shared by every fix of the file).

    ``parsed`` is what libcst parses when it is not ``text`` itself: a window of it
    (:mod:`linter.fix.window`), whose lines and columns are those of ``text``; ``partial``
    then says so, and :meth:`whole` gives the file parsed in full."""

    def __init__(self, text: str, parsed: Optional[str] = None) -> None:
        self.text = text
        self.partial = parsed is not None and parsed != text
        self.module = cst.parse_module(parsed if parsed is not None and self.partial else text)
        self.pos = _Ranges(self.module)
        self.line_starts = line_starts(text)
        self.newline = self.module.default_newline
        self._calls: Optional[List[Tuple[Tuple[int, int, int, int], cst.Call]]] = None
        self._call_at: Optional[Dict[Tuple[int, int, int, int], cst.Call]] = None
        self._whole: Optional["SourceFile"] = None

    def whole(self) -> "SourceFile":
        """This file parsed in full (itself when it is)."""
        if not self.partial:
            return self
        if self._whole is None:
            self._whole = SourceFile(self.text)
        return self._whole

    @property
    def parents(self) -> "_Parents":
        """Parent links, recorded by the same pass as the positions."""
        return self.pos.parents

    # ------------------------------------------------------------------ positions
    def offset(self, line: int, column: int) -> int:
        """Offset of a 1-based line and 0-based column."""
        if line - 1 >= len(self.line_starts):
            return len(self.text)
        return self.line_starts[line - 1] + column

    def span(self, node: cst.CSTNode) -> Tuple[int, int]:
        r = self.pos[node]
        return self.offset(r.start.line, r.start.column), self.offset(r.end.line, r.end.column)

    def line_start_after(self, line: int) -> int:
        """Offset of the start of the line after ``line`` (the end of the text if none)."""
        return self.line_starts[line] if line < len(self.line_starts) else len(self.text)

    def code(self, node: cst.CSTNode) -> str:
        s, e = self.span(node)
        return self.text[s:e]

    def call_at(self, line: int, column: int, end_line: int, end_column: int) -> Optional[cst.Call]:
        """The call a finding points at (finding columns are 1-based, end exclusive)."""
        if self._call_at is None:
            self._call_at = {(ln, col + 1, end_ln, end_col + 1): node for (ln, col, end_ln, end_col), node in self.calls()}
        return self._call_at.get((line, column, end_line, end_column))

    def calls(self) -> List[Tuple[Tuple[int, int, int, int], cst.Call]]:
        """Every call with its span (line, column, end line, end column; 0-based columns), in
        visiting order: by start, an outer call before the inner one that starts with it."""
        if self._calls is None:
            self._calls = sorted(((p, node) for node, p in self.pos.spans() if isinstance(node, cst.Call)),
                                 key=lambda pn: (pn[0][0], pn[0][1], -pn[0][2], -pn[0][3]))
        return self._calls

    # ------------------------------------------------------------------ structure
    def statement_of(self, node: cst.CSTNode) -> Tuple[cst.BaseStatement, Body]:
        """The statement holding ``node`` and the block that lists it."""
        cur: cst.CSTNode = node
        while True:
            parent = self.parents.get(cur)
            if parent is None:
                raise NoFix("not inside a statement")
            if isinstance(parent, cst.SimpleStatementSuite):
                raise NoFix("the statement shares its line with a compound statement header")
            if isinstance(cur, (cst.SimpleStatementLine, cst.BaseCompoundStatement)) and isinstance(parent, (cst.Module, cst.IndentedBlock)):
                return cur, parent
            cur = parent

    def scope_of(self, node: Optional[cst.CSTNode], scope: str) -> cst.CSTNode:
        if node is None or scope == "file":
            return self.module
        cur: Optional[cst.CSTNode] = node
        while cur is not None and not isinstance(cur, (cst.FunctionDef, cst.Lambda)):
            cur = self.parents.get(cur)
        return cur if isinstance(cur, cst.FunctionDef) else self.module

    def indent_of(self, stmt: cst.CSTNode) -> str:
        r = self.pos[stmt]
        start = self.line_starts[r.start.line - 1]
        prefix = self.text[start:start + r.start.column]
        if prefix.strip():
            raise NoFix("the statement does not start its line")
        return prefix

    def calls_in(self, scope: cst.CSTNode) -> List[cst.Call]:
        """The calls inside ``scope`` in visiting order (outer before inner), read from the
        position pass rather than by walking the tree again."""
        if scope is self.module:
            return [node for _, node in self.calls()]
        r = self.pos[scope]
        lo, hi = (r.start.line, r.start.column), (r.end.line, r.end.column)
        return [node for (line, col, end_line, end_col), node in self.calls()
                if lo <= (line, col) and (end_line, end_col) <= hi]


# ---------------------------------------------------------------------------- bindings
def _glob(pattern: str) -> "re.Pattern[str]":
    parts = [re.escape(p) for p in pattern.split("*")]
    return re.compile(r"[A-Za-z_][A-Za-z0-9_.]*".join(parts) + r"\Z")


def _callee(src: SourceFile, call: cst.Call) -> str:
    return re.sub(r"\s+", "", src.module.code_for_node(call.func))


def _take(src: SourceFile, call: cst.Call, take: str) -> Optional[str]:
    if take == "receiver":
        return src.module.code_for_node(call.func.value) if isinstance(call.func, cst.Attribute) else None
    key = take[4:]
    if key.isdigit():
        positional = [a for a in call.args if a.keyword is None and not a.star]
        i = int(key)
        return src.code(positional[i].value) if i < len(positional) else None
    for a in call.args:
        if a.keyword is not None and a.keyword.value == key:
            return src.code(a.value)
    return None


def _result_method(src: SourceFile, call: cst.Call, method: str) -> bool:
    parent = src.parents.get(call)
    return isinstance(parent, cst.Attribute) and parent.value is call and parent.attr.value == method


def bind(src: SourceFile, binders: Sequence[Binder], node: Optional[cst.CSTNode], values: Dict[str, str]) -> None:
    for b in binders:
        rx = _glob(substitute(b.call, values))
        found = set()
        for call in src.calls_in(src.scope_of(node, b.scope)):
            if not rx.match(_callee(src, call)):
                continue
            if b.result_method and not _result_method(src, call, b.result_method):
                continue
            text = _take(src, call, b.take)
            if text is None:
                raise NoFix(f"`{b.name}`: a matching call has no {b.take}")
            found.add(text)
        if len(found) != 1:
            raise NoFix(f"`{b.name}` is {'not found' if not found else 'ambiguous: ' + ', '.join(sorted(found))}")
        values[b.name] = found.pop()


def check_unless(src: SourceFile, unless: Sequence[Unless], node: Optional[cst.CSTNode], values: Dict[str, str]) -> None:
    for u in unless:
        rx = _glob(substitute(u.call, values))
        for call in src.calls_in(src.scope_of(node, u.scope)):
            if rx.match(_callee(src, call)):
                raise NoFix(f"the code already calls `{_callee(src, call)}`")


# ---------------------------------------------------------------------------- operations
def _keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _need_call(call: Optional[cst.Call]) -> cst.Call:
    if call is None:
        raise NoFix("the reported call was not found in the source")
    return call


def _append_keyword(src: SourceFile, call: cst.Call, text: str) -> TextEdit:
    if any(a.star == "**" for a in call.args):
        raise NoFix("the call passes **kwargs, which may already hold this keyword")
    if call.args:
        last = call.args[-1]
        _, end = src.span(last.value)
        return TextEdit(end, end, f", {text}")
    _, end = src.span(call)
    close = src.text.rfind(")", 0, end)
    return TextEdit(close, close, text)


def set_keyword(src: SourceFile, call: cst.Call, name: str, value: str) -> List[TextEdit]:
    arg = _keyword(call, name)
    if arg is not None:
        s, e = src.span(arg.value)
        return [TextEdit(s, e, value)] if src.text[s:e] != value else []
    return [_append_keyword(src, call, f"{name}={value}")]


def rename_keyword(src: SourceFile, call: cst.Call, old: str, new: str, value: Optional[str]) -> List[TextEdit]:
    arg = _keyword(call, old)
    if arg is None:
        raise NoFix(f"no `{old}=` argument")
    if _keyword(call, new) is not None:
        raise NoFix(f"`{new}=` is already passed")
    assert arg.keyword is not None
    ks, ke = src.span(arg.keyword)
    out = [TextEdit(ks, ke, new)]
    if value is not None:
        s, e = src.span(arg.value)
        out.append(TextEdit(s, e, value))
    return out


def remove_keyword(src: SourceFile, call: cst.Call, name: str) -> List[TextEdit]:
    arg = _keyword(call, name)
    if arg is None:
        raise NoFix(f"no `{name}=` argument")
    i = list(call.args).index(arg)
    assert arg.keyword is not None
    start, _ = src.span(arg.keyword)
    _, end = src.span(arg.value)
    if i > 0:                                   # `f(a, k=1)`: from the end of the previous argument
        _, start = src.span(call.args[i - 1].value)
    elif len(call.args) > 1:                    # `f(k=1, b)`: up to the next argument
        end, _ = src.span(call.args[1].keyword or call.args[1].value)
        if call.args[1].star:
            end -= len(call.args[1].star)
    elif isinstance(arg.comma, cst.Comma):      # `f(k=1,)`
        end = src.text.index(",", end) + 1
    return [TextEdit(start, end, "")]


def replace_argument(src: SourceFile, call: cst.Call, arg_name: str, value: str, keyword: Optional[str],
                     data: Dict[str, str]) -> List[TextEdit]:
    arg = _keyword(call, arg_name)
    if arg is None:
        pos = data.get(f"{arg_name}.position")
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if pos is None or int(pos) >= len(positional):
            raise NoFix(f"argument `{arg_name}` not found")
        arg = positional[int(pos)]
        idx = list(call.args).index(arg)
        if any(a.star == "*" for a in call.args[:idx]):
            raise NoFix("a *args before the argument makes its position uncertain")
        if keyword is not None:
            if any(a.keyword is None and not a.star for a in call.args[idx + 1:]) or any(a.star == "*" for a in call.args[idx + 1:]):
                raise NoFix(f"positional arguments follow `{arg_name}`: it cannot become a keyword")
            if _keyword(call, keyword) is not None:
                raise NoFix(f"`{keyword}=` is already passed")
            value = f"{keyword}={value}"
    elif keyword is not None and keyword != arg_name:
        if _keyword(call, keyword) is not None:
            raise NoFix(f"`{keyword}=` is already passed")
        assert arg.keyword is not None
        s, _ = src.span(arg.keyword)
        _, e = src.span(arg.value)
        return [TextEdit(s, e, f"{keyword}={value}")]
    s, e = src.span(arg.value)
    return [TextEdit(s, e, value)] if src.text[s:e] != value else []


def _insert_line(src: SourceFile, offset: int, indent: str, stmt: str) -> TextEdit:
    if offset >= len(src.text) and src.text and not src.text.endswith(("\n", "\r")):
        return TextEdit(offset, offset, src.newline + indent + stmt)
    return TextEdit(offset, offset, indent + stmt + src.newline)


def insert_before(src: SourceFile, node: cst.CSTNode, stmt: str) -> List[TextEdit]:
    st, _ = src.statement_of(node)
    indent = src.indent_of(st)
    line = src.pos[st].start.line
    return [_insert_line(src, src.line_starts[line - 1], indent, stmt)]


def insert_after(src: SourceFile, node: cst.CSTNode, stmt: str) -> List[TextEdit]:
    st, _ = src.statement_of(node)
    indent = src.indent_of(st)
    return [_insert_line(src, src.line_start_after(src.pos[st].end.line), indent, stmt)]


def move_after(src: SourceFile, node: cst.CSTNode, until: str) -> List[TextEdit]:
    st, body = src.statement_of(node)
    if not isinstance(st, cst.SimpleStatementLine):
        raise NoFix("only a simple statement can be moved")
    stmts = list(body.body)
    i = stmts.index(st)
    rx = re.compile(until)
    target = next((t for t in stmts[i + 1:] if rx.search(src.module.code_for_node(t))), None)
    if target is None:
        raise NoFix("no later statement in the same block matches")
    r = src.pos[st]
    start = src.line_starts[r.start.line - 1]
    end = src.line_start_after(r.end.line)
    text = src.text[start:end]
    if not text.endswith(("\n", "\r")):
        raise NoFix("the statement ends the file")
    at = src.line_start_after(src.pos[target].end.line)
    if at >= len(src.text) and not src.text.endswith(("\n", "\r")):
        text = src.newline + text.rstrip("\r\n")
    return [TextEdit(start, end, ""), TextEdit(at, at, text)]


def _top_position(src: SourceFile) -> Tuple[int, int]:
    """Where new top-level code may go: after the docstring and ``__future__`` imports
    (offset, index in the module body)."""
    body = list(src.module.body)
    i = 0
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 \
            and isinstance(body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        i = 1
    while i < len(body) and _is_future(body[i]):
        i += 1
    if i == 0:
        if not body:
            return len(src.text), 0
        return src.line_starts[src.pos[body[0]].start.line - 1], 0
    return src.line_start_after(src.pos[body[i - 1]].end.line), i


def _is_future(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, cst.ImportFrom) and isinstance(s.module, cst.Name) and s.module.value == "__future__" for s in stmt.body)


def _is_import(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def existing_import(src: SourceFile, module: str, name: Optional[str]) -> Optional[str]:
    """The name under which a top-level import already provides ``module`` (or ``module.name``)."""
    for stmt in src.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for s in stmt.body:
            if name is None and isinstance(s, cst.Import):
                for alias in s.names:
                    dotted = src.module.code_for_node(alias.name)
                    if dotted == module:
                        return alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else module
                    if alias.asname is None and dotted.startswith(module + ".") and "." not in module:
                        return module
            if name is not None and isinstance(s, cst.ImportFrom) and s.module is not None and not s.relative \
                    and src.module.code_for_node(s.module) == module and not isinstance(s.names, cst.ImportStar):
                for alias in s.names:
                    if isinstance(alias.name, cst.Name) and alias.name.value == name:
                        return alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
    return None


def add_import(src: SourceFile, edit: Edit, values: Dict[str, str]) -> List[TextEdit]:
    assert edit.module is not None
    have = existing_import(src, edit.module, edit.name)
    key = import_binding(edit)
    if have is not None:
        values[key] = have
        return []
    if edit.existing_only:
        raise NoFix(f"the file does not import {edit.module}")
    values[key] = edit.name or edit.module
    stmt = f"from {edit.module} import {edit.name}" if edit.name else f"import {edit.module}"
    offset, _ = _top_position(src)
    return [_insert_line(src, offset, "", stmt)]


def insert_after_imports(src: SourceFile, line: int, stmt: str) -> List[TextEdit]:
    body = list(src.module.body)
    anchor = None
    for s in body:
        if src.pos[s].start.line >= line:
            break
        if _is_import(s) and not _is_future(s):
            anchor = s
    if anchor is None:
        offset, _ = _top_position(src)
    else:
        offset = src.line_start_after(src.pos[anchor].end.line)
    return [_insert_line(src, offset, "", stmt)]


# ---------------------------------------------------------------------------- one fix
def fix_edits(src: SourceFile, spec: FixSpec, span: Tuple[int, int, int, int], data: Dict[str, str]) -> List[TextEdit]:
    """The replacements one fix makes, merged and sorted; raises :class:`NoFix`."""
    if data.get("group.at") == "cause":
        return cause_edits(src, spec, span, data)
    if src.partial and not window_serves(spec):
        src = src.whole()
    call = src.call_at(*span)
    if call is None and src.partial and any(x.scope != "file" for x in spec.binders + spec.unless):
        # not at a call: its function-scope searches cover the whole file, not just the window
        src = src.whole()
        call = src.call_at(*span)
    values = {k: v for k, v in data.items() if isinstance(v, str)}
    try:
        bind(src, spec.binders, call, values)
        check_unless(src, spec.unless, call, values)
        out: List[Tuple[TextEdit, int]] = []
        for order, e in enumerate(spec.edits):
            for te in _one(src, e, call, span, values):
                out.append((te, order))
    except TemplateError as exc:
        raise NoFix(str(exc)) from None
    return merge(t for t, _ in sorted(out, key=lambda x: (x[0].start, x[1])))


_LITERALS = (cst.Integer, cst.Float, cst.UnaryOperation, cst.SimpleString, cst.Name)


def cause_edits(src: SourceFile, spec: FixSpec, span: Tuple[int, int, int, int], data: Dict[str, str]) -> List[TextEdit]:
    """A fix made once at the definition several uses share (``BN_MOMENTUM = 0.1`` for five
    BatchNorms, :mod:`linter.match.group`): the finding's span is that definition's literal,
    and only ``replace-argument`` of the grouped argument can be made there — its template is
    rendered with the literal in place of the argument (``1 - {momentum}`` → ``0.9``). Any other
    operation changes the calls themselves: no fix is offered at the definition."""
    arg = data.get("group.arg")
    line, col, end_line, end_col = span
    want = (line, col - 1, end_line, end_col - 1)
    node = next((n for n, p in src.whole().pos.spans() if p == want and isinstance(n, _LITERALS)), None)
    if node is None:
        raise NoFix("the shared value is not one literal at its definition")
    whole = src.whole()
    values = {k: v for k, v in data.items() if isinstance(v, str)}
    values[arg or ""] = whole.code(node)
    out: List[TextEdit] = []
    try:
        for e in spec.edits:
            if e.op != "replace-argument" or e.arg != arg or e.value is None or e.to is not None:
                raise NoFix(f"`{e.op}` changes each call, not the value they share")
            new = render_expression(e.value, values)
            start, end = whole.span(node)
            if whole.text[start:end] != new:
                out.append(TextEdit(start, end, new))
    except TemplateError as exc:
        raise NoFix(str(exc)) from None
    return out


def window_serves(spec: FixSpec) -> bool:
    """Whether a window of the file (:mod:`linter.fix.window`) answers this fix as the whole
    file would: ``move-after`` looks at later statements of a block, which may be top-level."""
    return all(e.op != "move-after" for e in spec.edits) and file_globs(spec) is not None


def file_globs(spec: FixSpec) -> Optional[List[str]]:
    """The names a window must keep for this fix's file-scope searches (None: it cannot)."""
    return file_words([b.call for b in spec.binders if b.scope == "file"] +
                      [u.call for u in spec.unless if u.scope == "file"])


def _one(src: SourceFile, e: Edit, call: Optional[cst.Call], span: Tuple[int, int, int, int],
         values: Dict[str, str]) -> List[TextEdit]:
    if e.op == "set-keyword":
        assert e.name is not None and e.value is not None
        return set_keyword(src, _need_call(call), e.name, render_expression(e.value, values))
    if e.op == "rename-keyword":
        assert e.name is not None and e.to is not None
        return rename_keyword(src, _need_call(call), e.name, e.to,
                              render_expression(e.value, values) if e.value is not None else None)
    if e.op == "remove-keyword":
        assert e.name is not None
        return remove_keyword(src, _need_call(call), e.name)
    if e.op == "replace-argument":
        assert e.arg is not None and e.value is not None
        return replace_argument(src, _need_call(call), e.arg, render_expression(e.value, values), e.to, values)
    if e.op == "insert-before":
        assert e.template is not None
        return insert_before(src, _need_call(call), render_statement(e.template, values))
    if e.op == "insert-after":
        assert e.template is not None
        return insert_after(src, _need_call(call), render_statement(e.template, values))
    if e.op == "move-after":
        assert e.until is not None
        return move_after(src, _need_call(call), e.until)
    if e.op == "add-import":
        return add_import(src, e, values)
    assert e.op == "insert-after-imports" and e.template is not None
    return insert_after_imports(src, span[0], render_statement(e.template, values))


def merge(edits: Iterable[TextEdit]) -> List[TextEdit]:
    """Sorted edits with insertions at one point joined (in order); overlapping ones refused."""
    out: List[TextEdit] = []
    for t in edits:
        if out and t.start == out[-1].start == out[-1].end == t.end:
            out[-1] = TextEdit(t.start, t.end, out[-1].content + t.content)
            continue
        if out and t.start < out[-1].end:
            raise NoFix("the edits of this fix overlap")
        out.append(t)
    return out


def apply_edits(text: str, edits: Sequence[TextEdit]) -> str:
    parts: List[str] = []
    pos = 0
    for t in sorted(edits, key=lambda t: (t.start, t.end)):
        parts.append(text[pos:t.start])
        parts.append(t.content)
        pos = t.end
    parts.append(text[pos:])
    return "".join(parts)

