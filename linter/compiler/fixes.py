"""Stage 4d: a rule's ``fix:`` block → :class:`FixSpec` variants (data only; applied by ``linter/fix``).

A fix is a list of edit operations with ``{placeholder}`` templates, marked ``safe`` or
``unsafe`` with a reason. A rule may declare several variants; the first whose ``when``
predicate holds on the matched call (call rules only) and whose bindings resolve is offered.
Everything a fix declaration can get wrong (an unknown op, a placeholder no match binds, a
template that is not Python) is reported here, before any file is linted.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import AbstractSet, Any, Dict, List, Optional, Sequence, Set, Tuple

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")

OPS = ("set-keyword", "rename-keyword", "remove-keyword", "replace-argument", "insert-before", "insert-after",
       "move-after", "add-import", "insert-after-imports")
EXPRESSION_OPS = ("set-keyword", "rename-keyword", "replace-argument")
STATEMENT_OPS = ("insert-before", "insert-after", "insert-after-imports")


@dataclass(frozen=True)
class Binder:
    """Bind ``name`` to the text of a call's receiver or argument, found on the CST of the
    finding's function (or file): every call matching ``call`` must agree, else no fix."""

    name: str
    call: str
    """Glob on the callee as written (``*`` = any dotted name), may use earlier bindings."""
    take: str
    """``receiver`` or ``arg:N`` (positional index) or ``arg:NAME`` (keyword)."""
    result_method: Optional[str] = None
    scope: str = "function"


@dataclass(frozen=True)
class Unless:
    """No fix when the function (or file) has a call matching this glob."""

    call: str
    scope: str = "function"


@dataclass(frozen=True)
class Edit:
    op: str
    name: Optional[str] = None
    """set-keyword / remove-keyword: the keyword; rename-keyword: the old keyword (``from``)."""
    to: Optional[str] = None
    """rename-keyword: the new keyword; replace-argument: write the value as ``to=value``."""
    arg: Optional[str] = None
    """replace-argument: the bound argument (as the rule's predicates name it)."""
    value: Optional[str] = None
    """An expression template."""
    template: Optional[str] = None
    """A statement template."""
    until: Optional[str] = None
    """move-after: regex on the source of the later sibling statement to move after."""
    module: Optional[str] = None
    bind: Optional[str] = None
    existing_only: bool = False


@dataclass(frozen=True)
class FixSpec:
    applicability: str
    """``safe`` (applied by ``--fix``) or ``unsafe`` (also needs ``--unsafe-fixes``)."""
    title: Tuple[Tuple[str, str], ...]
    reason: Tuple[Tuple[str, str], ...]
    edits: Tuple[Edit, ...]
    when: Any = None
    binders: Tuple[Binder, ...] = ()
    unless: Tuple[Unless, ...] = ()

    def text(self, which: str, lang: str) -> str:
        d = dict(self.title if which == "title" else self.reason)
        return d.get(lang) or d.get("en", "")

    @property
    def safe(self) -> bool:
        return self.applicability == "safe"


def compile_fixes(builder: Any, node: Any, kind: str, data_keys: AbstractSet[str]) -> Tuple[FixSpec, ...]:
    """``node`` is the rule's ``fix`` value (one object or a list of variants)."""
    items = node if isinstance(node, list) else [node]
    prefix = ["fix"]
    out: List[FixSpec] = []
    for i, item in enumerate(items):
        path = prefix + ([i] if isinstance(node, list) else [])
        when = None
        if "when" in item:
            if kind != "call":
                raise builder.fail(path + ["when"], "`when` is only available for `call` rules (it tests the matched call)")
            when = builder.pred(item["when"], path + ["when"])
        known = set(data_keys)
        binders = []
        for j, b in enumerate(item.get("bind", ())):
            _check_placeholders(builder, b["call"], known, path + ["bind", j, "call"])
            take = b.get("take", "receiver")
            if take != "receiver" and not re.fullmatch(r"arg:[A-Za-z0-9_]+", take):
                raise builder.fail(path + ["bind", j, "take"], "take must be `receiver` or `arg:N` / `arg:NAME`")
            binders.append(Binder(b["name"], b["call"], take, b.get("result_method"), b.get("scope", "function")))
            known.add(b["name"])
        unless = []
        for j, u in enumerate(item.get("unless", ())):
            _check_placeholders(builder, u["call"], known, path + ["unless", j, "call"])
            unless.append(Unless(u["call"], u.get("scope", "function")))
        edits = []
        for j, e in enumerate(item["edits"]):
            ep = path + ["edits", j]
            edit = _edit(builder, e, ep)
            if edit.op == "add-import":
                known.add(import_binding(edit))
            for text, key in ((edit.value, "value"), (edit.template, "template")):
                if text is not None:
                    _check_placeholders(builder, text, known, ep + [key])
                    _check_syntax(builder, text, edit.op, ep + [key])
            edits.append(edit)
        out.append(FixSpec(
            applicability=item["applicability"], title=tuple(sorted(item["title"].items())),
            reason=tuple(sorted(item["reason"].items())), edits=tuple(edits), when=when,
            binders=tuple(binders), unless=tuple(unless)))
    return tuple(out)


def import_binding(edit: Edit) -> str:
    """The placeholder an ``add-import`` binds: ``bind``, else the imported name, else the module."""
    return edit.bind or edit.name or edit.module or ""


def _edit(builder: Any, e: Dict[str, Any], path: Sequence[Any]) -> Edit:
    op = e["op"]
    need = {"set-keyword": ("name", "value"), "rename-keyword": ("from", "to"), "remove-keyword": ("name",),
            "replace-argument": ("arg", "value"), "insert-before": ("template",), "insert-after": ("template",),
            "move-after": ("until",), "add-import": ("module",), "insert-after-imports": ("template",)}[op]
    for key in need:
        if key not in e:
            raise builder.fail(list(path), f"`{op}` needs `{key}`")
    if op == "move-after":
        builder.regex(e["until"], list(path) + ["until"])
    if op == "add-import" and e.get("name") and "." in e["name"]:
        raise builder.fail(list(path) + ["name"], "`name` is one imported name (use `module` for the dotted part)")
    return Edit(op=op, name=e.get("from") if op == "rename-keyword" else e.get("name"),
                to=e.get("to") if op == "rename-keyword" else e.get("keyword"),
                arg=e.get("arg"), value=e.get("value"), template=e.get("template"), until=e.get("until"),
                module=e.get("module"), bind=e.get("bind"), existing_only=bool(e.get("existing_only", False)))


def _check_placeholders(builder: Any, text: str, known: Set[str], path: Sequence[Any]) -> None:
    for m in _PLACEHOLDER.finditer(text):
        key = m.group(1)
        if key not in known and key.split(".")[0] not in known:
            raise builder.fail(list(path), f"unknown placeholder {{{key}}} in a fix template: use an argument the rule "
                                           f"tests, a `bind` name or an `add-import` binding ({', '.join(sorted(known)) or 'none'})")


def _check_syntax(builder: Any, text: str, op: str, path: Sequence[Any]) -> None:
    """With every placeholder replaced by a name, the template must be Python (checked by
    Python's own parser: the rule compiler never needs libcst)."""

    probe = _PLACEHOLDER.sub("_x", text)
    try:
        if op in EXPRESSION_OPS:
            ast.parse(probe.strip(), mode="eval")
        else:
            tree = ast.parse(probe.strip() + "\n")
            if len(tree.body) != 1:
                raise SyntaxError("not one statement")
    except (SyntaxError, ValueError):
        raise builder.fail(list(path), f"fix template {text!r} is not a Python "
                                       f"{'expression' if op in EXPRESSION_OPS else 'statement'}") from None


def fix_docs(fixes: Sequence[FixSpec], lang: str) -> List[str]:
    """One line per variant, for ``trainlint explain`` and the docs."""
    return [f"[{f.applicability}] {f.text('title', lang)} — {f.text('reason', lang)}" for f in fixes]
