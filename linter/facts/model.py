"""The rule-independent fact model of one source file (picklable, no CST inside).

Expressions are encoded as small tuples whose first item is a tag; they are cheap to build,
to pickle into the cache and to walk:

=================================  ===============================================
``("const", value)``               a literal (numbers folded: ``-0.1``, ``1e-5``)
``("name", id, defs)``             a name load; ``defs`` = ids of the local bindings
                                   (:class:`AssignFact`) that may reach it; ``()`` =
                                   not bound in this scope (global, builtin, closure)
``("attr", base, attr)``           attribute access
``("call", call_id)``              a call, see :class:`CallFact`
``("binop", op, left, right)``     ``+ - * / // % ** @ & | ^ << >>``
``("unary", op, operand)``         ``- + ~ not``
``("boolop", op, values)``         ``and`` / ``or``
``("compare", ops, operands)``     ``a < b == c``
``("ifexp", test, body, orelse)``  conditional expression
``("seq", kind, elts)``            tuple/list/set literal (kind ``tuple|list|set``)
``("dict", keys, values)``         dict literal (``None`` key = ``**spread``)
``("subscript", value, index)``    ``value[index]``
``("comp", kind, elt, gens)``      comprehension; gens = ((target, iter), ...)
``("lambda", func_index)``         a lambda (its body is a :class:`FuncFact`)
``("star", value)``                ``*value`` inside a literal
``("fstr", parts)``                f-string (the expressions inside)
``("await"|"yield", value)``       await / yield (value may be None)
``("other", kind)``                anything else (kind = libcst node type)
=================================  ===============================================

Values bound by assignments (:attr:`AssignFact.value`) may also be synthetic:
``("param", func_index, name)``, ``("import", import_index)``, ``("def", func_index)``,
``("class", class_index)``, ``("iter", expr)`` (an element of iterating ``expr``),
``("enter", expr)`` (``with expr as target``), ``("unpack", expr, index)`` (an element of
tuple unpacking) and ``("except", expr)``.

Function bodies are kept as a small statement IR (tuples too) so that flow rules can follow
branches and loops without the CST:

``("expr", sid, e)``, ``("assign", sid, assign_ids)``, ``("return", sid, e|None)``,
``("if", sid, test, then_block, else_block)``, ``("for", sid, assign_ids, iter, body, orelse)``,
``("while", sid, test, body, orelse)``, ``("with", sid, ((ctx, assign_ids), ...), body)``,
``("try", sid, body, handlers, orelse, final)``, ``("branches", sid, e, blocks)`` (match),
``("raise", sid, e|None)``, ``("break", sid)``, ``("continue", sid)``, ``("def", sid, func)``,
``("class", sid, cls)``, ``("import", sid, assign_ids)``. A block is a tuple of statements;
``sid`` indexes :attr:`FileFacts.stmts`.
"""
from __future__ import annotations

from array import array
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Tuple

Expr = Tuple[Any, ...]
Stmt = Tuple[Any, ...]
Block = Tuple[Stmt, ...]

FACTS_FORMAT = 2
"""Bumped whenever the layout below changes, so cached facts are re-extracted."""


class StmtPositions:
    """(line, column) of each statement, as one flat array of ints: a file has thousands of
    statements, and a tuple of two ints per statement costs ~8× the memory."""

    __slots__ = ("_flat",)

    def __init__(self, flat: Iterable[int] = ()) -> None:
        self._flat = array("i", flat)

    def append(self, pos: Tuple[int, int]) -> None:
        self._flat.extend(pos)

    def __len__(self) -> int:
        return len(self._flat) // 2

    def __getitem__(self, i: int) -> Tuple[int, int]:
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._flat[2 * i], self._flat[2 * i + 1]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StmtPositions) and self._flat == other._flat

    def __reduce__(self) -> Tuple[Any, ...]:
        return (StmtPositions, (self._flat,))


class ArgFact(NamedTuple):
    keyword: Optional[str]
    star: str
    """``""``, ``"*"`` or ``"**"``."""
    value: Expr
    text: str
    """Source text of the value (without ``keyword=``)."""
    line: int
    column: int
    end_line: int
    end_column: int


class CallFact(NamedTuple):
    func: Expr
    """The callee expression."""
    dotted: Optional[str]
    """Callee as written when it is a dotted name (``nn.Dropout``, ``self.conv``), else None."""
    args: Tuple[ArgFact, ...]
    line: int
    column: int
    end_line: int
    end_column: int
    scope: int
    """Index of the enclosing :class:`FuncFact` (0 = module body)."""
    stmt: int
    """Index of the enclosing statement in :attr:`FileFacts.stmts`."""


class ParamFact(NamedTuple):
    name: str
    kind: str
    """``posonly``, ``pos``, ``varargs``, ``kwonly`` or ``varkw``."""
    default: Optional[Expr]
    assign: int
    """The synthetic :class:`AssignFact` that binds the parameter."""


class AssignFact(NamedTuple):
    target: Expr
    """``("name", id, ())``, ``("attr", base, attr)`` or ``("subscript", ...)``."""
    value: Expr
    scope: int
    stmt: int
    line: int


class ImportFact(NamedTuple):
    module: str
    """Dotted module as written (without leading dots)."""
    name: Optional[str]
    """Imported name for ``from m import name``; ``"*"`` for star imports; None for ``import m``."""
    asname: Optional[str]
    level: int
    """Number of leading dots of a relative import."""
    scope: int
    line: int

    @property
    def bound_name(self) -> str:
        if self.asname:
            return self.asname
        if self.name is not None:
            return self.name
        return self.module.split(".", 1)[0]


class FuncFact(NamedTuple):
    name: str
    qualname: str
    """Dotted path inside the module: ``Net.construct``, ``main.inner``; ``<module>`` for 0."""
    kind: str
    """``module``, ``function``, ``method``, ``class`` (a class body) or ``lambda``."""
    parent: int
    """Enclosing scope index (-1 for the module)."""
    cls: int
    """Owning class index for methods and class bodies, else -1."""
    params: Tuple[ParamFact, ...]
    decorators: Tuple[Expr, ...]
    line: int
    end_line: int
    body: Block
    defs: Dict[str, Tuple[int, ...]]
    """Every binding of each name in this scope, in source order (flow-insensitive)."""
    is_generator: bool


class ClassFact(NamedTuple):
    name: str
    qualname: str
    bases: Tuple[Expr, ...]
    scope: int
    """Scope the class statement is in."""
    body: int
    """The :class:`FuncFact` of the class body."""
    methods: Dict[str, int]
    attrs: Dict[str, Tuple[int, ...]]
    """``self.<attr> = ...`` bindings made in any method, by attribute name."""
    line: int


class FileFacts(NamedTuple):
    path: str
    digest: str
    """Hash of the decoded source; the cache key."""
    funcs: List[FuncFact]
    classes: List[ClassFact]
    calls: List[CallFact]
    assigns: List[AssignFact]
    imports: List[ImportFact]
    stmts: StmtPositions
    """(line, column) of each statement."""
    callee_index: Dict[str, Tuple[int, ...]]
    """Last segment of the callee (``Dropout`` for ``nn.Dropout``) → call ids; rule dispatch."""
    pragmas: List[Tuple[int, str]]
    """(line, comment text) of every ``# trainlint:`` comment."""
    lines: int
    has_main_guard: bool
    mentions_pytorch: bool = False
    """The text names PyTorch (:data:`linter.facts.mentions.PYTORCH_MENTION`): ported code keeps
    its reference's imports or quotes it in comments."""
