"""Stage 5e: one cause, one finding.

Five BatchNorms built with one ``BN_MOMENTUM = 0.1`` are one mistake with one fix: the rule
matched each call, and each call's argument value came from the same definition (recorded by
the value tests as ``cause.<arg>``, :data:`linter.match.values.CAUSE`). For rules that
declare ``report.group_by_cause``, the matches sharing a definition and a value become one
finding: at the definition when the value itself is what is wrong and the definition is in a
linted Python file (``at: cause``), otherwise at the first use; every use is a related place,
and the members are kept on the finding so a fix can reach them.

A single use stays where it was (the call is where the API is). What decides a group is
only what the value tests recorded: a literal written at the call, values from several
definitions, or a value whose definition is unknown leave the findings apart.
"""
from __future__ import annotations

import dataclasses
import math
import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from linter.core.model import Finding, Span
from linter.match.predicates import CAUSE

GROUP_AT = "group.at"
"""Finding data on a grouped finding: ``cause`` (reported at the definition) or ``first-use``."""
GROUP_ARG = "group.arg"
"""Finding data on a grouped finding: the argument whose shared value makes the group."""
GROUP_CAUSE, GROUP_VALUE = "group.cause", "group.value"
"""Finding data on a grouped finding: ``path:line`` of the shared definition, and the value."""

_WORDS = {
    "en": {
        "cause": "This value reaches {n} calls (the related places): one finding, fixed here once.",
        "first-use": "The same value ({value} at {cause}) reaches {n} calls (the related places): one finding for all of them.",
        "value": "the value they share",
        "pipeline": "These {n} datasets are joined into one pipeline here (the related places): one finding for the "
                    "pipeline. Shuffle once, after the join (shuffling each source on its own would misalign the samples "
                    "a zip pairs).",
    },
    "zh": {
        "cause": "该取值被 {n} 处调用使用（见相关位置）：合并为一个问题，在此处修改一次即可。",
        "first-use": "同一取值（{value}，位于 {cause}）被 {n} 处调用使用（见相关位置）：合并为一个问题报告。",
        "value": "它们共享的取值",
        "pipeline": "这 {n} 个数据集在此处合并为一个数据管道（见相关位置）：按一个问题报告。请在合并之后统一混洗一次"
                    "（分别混洗各个数据源会打乱 zip 配对的样本）。",
    },
}


def group_by_cause(findings: Sequence[Finding], grouping: Dict[str, Tuple[str, ...]], sources: Dict[str, Optional[str]],
                   may_report: Callable[[str, str], bool], lang: str = "en") -> List[Finding]:
    """``grouping``: rule id → (argument, ``cause`` | ``first-use``) for the rules that group;
    ``sources``: the linted files' texts (a definition is reported in one of them only);
    ``may_report(path, rule)``: whether a finding of ``rule`` may stand in ``path`` (per-file
    ignores). Findings keep their order; a group takes the place of its first member."""
    groups: Dict[Tuple[str, str, str], List[Finding]] = {}
    keys: List[Optional[Tuple[str, str, str]]] = []
    for f in findings:
        how = grouping.get(f.rule)
        cause = f.data.get(f"{CAUSE}{how[0]}") if how else None
        key = (f.rule, cause, f.data.get(f"{CAUSE}{how[0]}.value", "")) if how and cause else None
        keys.append(key)
        if key is not None:
            groups.setdefault(key, []).append(f)
    out: List[Finding] = []
    done = set()
    for f, key in zip(findings, keys):
        members = groups.get(key) if key is not None else None
        if members is None or len(members) < 2:
            out.append(f)
            continue
        if key in done:
            continue
        done.add(key)
        arg, at = grouping[f.rule]
        assert key is not None
        out.append(_grouped(members, arg, at, key[1], key[2], sources, may_report, lang))
    return out


def _grouped(members: List[Finding], arg: str, at: str, cause: str, value: str, sources: Dict[str, Optional[str]],
             may_report: Callable[[str, str], bool], lang: str) -> Finding:
    members = sorted(members, key=Finding.sort_key)
    top = min(members, key=lambda m: m.severity.rank)   # the most severe; the first of them
    words = _WORDS.get(lang, _WORDS["en"])
    path, _, line_text = cause.rpartition(":")
    line = int(line_text) if line_text.isdigit() else 0
    text = sources.get(path)
    data = dict(top.data)
    data.update({GROUP_ARG: arg, GROUP_CAUSE: cause, GROUP_VALUE: value})
    related = [(m.path, m.span.line, _note(m, arg, top)) for m in members]
    if at == "cause" and text is not None and not path.endswith(".ipynb") and line and may_report(path, top.rule):
        data[GROUP_AT] = "cause"
        span = literal_span(text, line, value)
        message = f"{top.message} {words['pipeline' if arg == 'pipeline' else 'cause'].format(n=len(members))}"
        return dataclasses.replace(top, path=path, span=span, message=message, related=tuple(related), data=data,
                                   cell=None, members=tuple(members))
    data[GROUP_AT] = "first-use"
    first = members[0]
    message = f"{top.message} {words['first-use'].format(n=len(members), value=value, cause=cause)}"
    cause_place = [(path, line, f"{words['value']}: {value}")] if line else []
    return dataclasses.replace(top, path=first.path, span=first.span, cell=first.cell, message=message,
                               related=tuple(cause_place + related[1:]), data=data, members=tuple(members))


def _note(m: Finding, arg: str, top: Finding) -> str:
    """What a related place shows: the call as written, and its severity where it differs."""
    callee = m.data.get("callee", "")
    if arg == "pipeline":
        return f"`{callee}(...)`" if m.severity is top.severity else f"`{callee}(...)` ({m.severity.value})"
    written = m.data.get(arg, "")
    call = f"`{callee}({written if f'{arg}.position' in m.data else f'{arg}={written}'})`" if callee and written else m.rule
    return call if m.severity is top.severity else f"{call} ({m.severity.value})"


_NUMBER = re.compile(r"(?<![\w.])(?:-\s*)?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?(?![\w.])")


def literal_span(text: str, line: int, value: str) -> Span:
    """Where ``value`` (as :func:`repr` writes it) is written on ``line``: the one literal on the
    line equal to it; else the line itself (its code, without indentation)."""
    lines = text.splitlines()
    code = lines[line - 1] if 0 < line <= len(lines) else ""
    hits = [m.span() for m in _literals(code, value)]
    if len(hits) == 1:
        start, end = hits[0]
        return Span(line, start + 1, line, end + 1)
    body = code.split("#", 1)[0].rstrip()
    indent = len(body) - len(body.lstrip())
    return Span(line, indent + 1, line, max(indent + 1, len(body)) + 1)


def _literals(code: str, value: str):
    try:
        number = float(value)
    except ValueError:
        number = None
    if number is not None and value not in ("True", "False"):
        for m in _NUMBER.finditer(code):
            try:
                written = float(m.group().replace(" ", "").replace("_", ""))
            except ValueError:
                continue
            if math.isclose(written, number, rel_tol=1e-6, abs_tol=1e-12):
                yield m
        return
    yield from re.finditer(r"(?<![\w.])" + re.escape(value) + r"(?![\w.])", code)
