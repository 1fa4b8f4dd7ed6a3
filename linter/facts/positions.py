"""Stage 2a: libcst Module → positions of the nodes facts need, in one codegen pass.

libcst's ``PositionProvider`` resolves a position for every node through the metadata
machinery; on real model code that costs about twice the parse itself. Code generation
alone visits every node in source order for a fraction of that, so we run it with a
codegen state that counts lines and columns and records only the node types the fact
extractor asks for. This relies on ``CodegenState`` and ``record_syntactic_position``,
the same (stable since libcst 0.3) hooks ``PositionProvider`` is built on.
"""
from __future__ import annotations

from typing import Any, Dict, FrozenSet, Optional, Tuple, cast

import libcst as cst
from libcst._nodes.internal import CodegenState

Pos = Tuple[int, int, int, int]
"""(line, column, end_line, end_column); lines 1-based, columns 0-based characters."""


class _NullContext:
    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NULL = _NullContext()


class _Record:
    """Context manager that stores the syntactic range of one node."""

    __slots__ = ("state", "key", "line", "column")

    def __init__(self, state: "_PositionState", key: int) -> None:
        self.state = state
        self.key = key
        self.line = 0
        self.column = 0

    def __enter__(self) -> None:
        self.line = self.state.line
        self.column = self.state.column

    def __exit__(self, *exc: object) -> None:
        st = self.state
        st.positions[self.key] = (self.line, self.column, st.line, st.column)


class _PositionState(CodegenState):
    __slots__ = ("line", "column", "positions", "wanted")

    def __init__(self, module: cst.Module, wanted: FrozenSet[type]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line = 1
        self.column = 0
        self.positions: Dict[int, Pos] = {}
        self.wanted = wanted

    def add_indent_tokens(self) -> None:
        tokens = self.indent_tokens
        self.tokens.extend(tokens)
        for tok in tokens:
            self.column += len(tok)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            # "\r\n" counts once; a lone "\r" is a newline too (as in libcst's own provider).
            self.line += value.count("\n") + value.count("\r") - value.count("\r\n")
            tail = value.rsplit("\n", 1)[-1].rsplit("\r", 1)[-1]
            self.column = len(tail)
        else:
            self.column += len(value)

    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: Optional[cst.CSTNode] = None,
        end_node: Optional[cst.CSTNode] = None,
    ) -> Any:
        if type(node) in self.wanted:
            return _Record(self, id(node))
        return _NULL


def compute_positions(module: cst.Module, wanted: FrozenSet[type]) -> Dict[int, Pos]:
    """Return ``{id(node): (line, col, end_line, end_col)}`` for nodes whose type is wanted."""
    state = _PositionState(module, wanted)
    module._codegen(state)
    return state.positions


class _FullRecord(_Record):
    """Like :class:`_Record`, with ``start_node``/``end_node`` hoisting as libcst's provider
    (a statement ends where its last child ends, not after the newline)."""

    __slots__ = ("node", "start_node", "end_node")

    def __init__(self, state: "_FullState", node: cst.CSTNode, start_node: Optional[cst.CSTNode],
                 end_node: Optional[cst.CSTNode]) -> None:
        super().__init__(state, id(node))
        self.node = node
        self.start_node = start_node
        self.end_node = end_node

    def __exit__(self, *exc: object) -> None:
        st = cast(_FullState, self.state)
        pos = st.positions
        start = (self.line, self.column) if self.start_node is None else pos[id(self.start_node)][:2]
        end = (st.line, st.column) if self.end_node is None else pos[id(self.end_node)][2:]
        pos[self.key] = start + end
        st.nodes[self.key] = self.node


class _FullState(_PositionState):
    """Positions of every node, equal to libcst's ``PositionProvider``: the syntactic range
    where a node records one, else the whitespace-inclusive range of its code generation; and
    each node's parent (code generation emits a node inside its parent's), equal to
    ``ParentNodeProvider`` without a second walk."""

    __slots__ = ("nodes", "parents", "_open")

    def __init__(self, module: cst.Module) -> None:
        super().__init__(module, frozenset())
        self.nodes: Dict[int, cst.CSTNode] = {}
        self.parents: Dict[int, cst.CSTNode] = {}
        self._open: list = []
        """(node, start line, start column) of the nodes being generated, innermost last."""

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self._open:
            self.parents.setdefault(id(node), self._open[-1][0])
        self._open.append((node, self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        _, line, column = self._open.pop()
        key = id(node)
        if key not in self.positions:
            self.positions[key] = (line, column, self.line, self.column)
            self.nodes[key] = node

    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: Optional[cst.CSTNode] = None,
        end_node: Optional[cst.CSTNode] = None,
    ) -> Any:
        return _FullRecord(self, node, start_node, end_node)


def all_positions(module: cst.Module) -> Tuple[Dict[int, Pos], Dict[int, cst.CSTNode], Dict[int, cst.CSTNode]]:
    """Every node's position (as libcst's ``PositionProvider`` gives it, at about half its
    cost: no metadata wrapper, no ``CodeRange`` objects), the nodes by ``id``, and each node's
    parent by the node's ``id`` (the module has none)."""
    state = _FullState(module)
    module._codegen(state)
    return state.positions, state.nodes, state.parents
