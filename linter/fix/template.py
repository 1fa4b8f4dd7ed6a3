"""Fix templates: ``{placeholder}`` substitution, then folding of literal arithmetic.

Substituted values are source text taken from the linted file. A value that is not an atom
(``a - b``) is parenthesised so ``1 - {x}`` keeps its meaning; then arithmetic whose operands
are all number literals is evaluated on the CST (never with ``eval``): ``1 - (1 - 0.9)``
becomes ``0.9``, printed without float noise.
"""
from __future__ import annotations

import re
from typing import Dict, Optional, Union, cast

import libcst as cst

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
          cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Tuple, cst.Dict, cst.Set, cst.Ellipsis)


class TemplateError(Exception):
    """The template cannot be rendered here (a missing value, a result that is not Python)."""


def _atomic(text: str) -> str:
    try:
        node = cst.parse_expression(text)
    except Exception:
        raise TemplateError(f"bound value {text!r} is not an expression") from None
    if isinstance(node, _ATOMS) or node.lpar:
        return text
    return f"({text})"


def substitute(template: str, values: Dict[str, str]) -> str:
    def repl(m: "re.Match[str]") -> str:
        key = m.group(1)
        v = values.get(key)
        if v is None or v == "" or v == "(default)":
            raise TemplateError(f"no value for {{{key}}}")
        return _atomic(v)

    return _PLACEHOLDER.sub(repl, template)


def format_number(v: Union[int, float]) -> str:
    if isinstance(v, float):
        r = round(v, 10)
        return repr(int(r)) + ".0" if r == int(r) and abs(r) < 1e15 else repr(r)
    return repr(v)


def _number(node: cst.BaseExpression) -> Optional[Union[int, float]]:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.Float):
        return float(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _number(node.expression)
        return -inner if inner is not None else None
    return None


class _Fold(cst.CSTTransformer):
    def leave_BinaryOperation(self, original: cst.BinaryOperation, updated: cst.BinaryOperation) -> cst.BaseExpression:
        a, b = _number(updated.left), _number(updated.right)
        if a is None or b is None:
            return updated
        op = updated.operator
        try:
            if isinstance(op, cst.Add):
                v: Union[int, float] = a + b
            elif isinstance(op, cst.Subtract):
                v = a - b
            elif isinstance(op, cst.Multiply):
                v = a * b
            elif isinstance(op, cst.Divide):
                v = a / b
            else:
                return updated
        except (ZeroDivisionError, OverflowError):
            return updated
        return _literal(v)

    def leave_UnaryOperation(self, original: cst.UnaryOperation, updated: cst.UnaryOperation) -> cst.BaseExpression:
        if isinstance(updated.operator, cst.Minus) and isinstance(updated.expression, (cst.Integer, cst.Float)) \
                and updated.expression.lpar:
            return updated.with_changes(expression=updated.expression.with_changes(lpar=[], rpar=[]))
        return updated


def _literal(v: Union[int, float]) -> cst.BaseExpression:
    """A literal node; a negative one is parenthesised so it stays correct as an operand."""
    text = format_number(abs(v))
    node: cst.BaseExpression = cst.Integer(text) if isinstance(v, int) else cst.Float(text)
    if v < 0:
        return cst.UnaryOperation(cst.Minus(), node, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node


def _strip_outer(node: cst.BaseExpression) -> cst.BaseExpression:
    if node.lpar and isinstance(node, (cst.Integer, cst.Float, cst.UnaryOperation, cst.Name, cst.Attribute)):
        return node.with_changes(lpar=[], rpar=[])
    return node


def render_expression(template: str, values: Dict[str, str]) -> str:
    text = substitute(template, values)
    try:
        node = cst.parse_expression(text)
    except Exception:
        raise TemplateError(f"{text!r} is not a Python expression") from None
    node = _strip_outer(cast(cst.BaseExpression, node.visit(_Fold())))
    return cst.Module([]).code_for_node(node)


def render_statement(template: str, values: Dict[str, str]) -> str:
    text = substitute(template, values)
    try:
        stmt = cst.parse_statement(text + "\n")
    except Exception:
        raise TemplateError(f"{text!r} is not a Python statement") from None
    if not isinstance(stmt, cst.SimpleStatementLine):
        raise TemplateError(f"{text!r} is not a simple statement")
    return cst.Module([]).code_for_node(cast(cst.CSTNode, stmt.visit(_Fold()))).rstrip("\n")
