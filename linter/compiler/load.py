"""Stage 4b: find rule packs and read their YAML, remembering the line of every value.

Only the safe loaders are used (``yaml.SafeLoader`` or libyaml's ``CSafeLoader``):
nothing in a rule file is ever executed or imported.

A pack is a directory: rule files anywhere below it (one rule per ``*.yaml``), optional
API tables in ``apis/``, data tables for other commands in ``mappings/`` (``compare``), and,
for the built-in pack, ``roles.yaml`` and ``checklist.yaml``.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

Path = Tuple[Any, ...]
_SPECIAL = {"roles.yaml", "checklist.yaml", "audit.yaml"}
_DATA_DIRS = {"apis", "mappings"}
"""Directories of a pack that hold tables, not rules."""


class RuleFileError(Exception):
    """A rule file that cannot be used; carries file, line and JSON path."""

    def __init__(self, path: str, message: str, line: Optional[int] = None, pointer: str = "") -> None:
        self.path = path
        self.line = line
        self.pointer = pointer
        self.message = message
        where = f"{path}:{line}" if line else path
        at = f" (at {pointer})" if pointer else ""
        super().__init__(f"{where}: {message}{at}")


@dataclass
class YamlDoc:
    path: str
    data: Any
    lines: Dict[Path, int]

    def line_of(self, path: Iterable[Any]) -> Optional[int]:
        """Line of the value at ``path``, or of its nearest ancestor that has one."""
        p = tuple(path)
        while True:
            if p in self.lines:
                return self.lines[p]
            if not p:
                return None
            p = p[:-1]


def builtin_pack() -> str:
    """The shipped rules: inside the installed package, or ``rules/`` of a source checkout."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    installed = os.path.join(here, "_packs")
    if os.path.isdir(installed):
        return installed
    return os.path.join(os.path.dirname(here), "rules")


def read_yaml(path: str, text: Optional[str] = None) -> YamlDoc:
    """Parse one YAML file safely; raise :class:`RuleFileError` with the line of a syntax error."""
    if text is None:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise RuleFileError(path, f"cannot read: {exc}") from None
    import yaml  # here, not at import time: a run whose compiled rules are cached needs no YAML

    # One parse gives both the nodes (for line numbers) and the data; libyaml's loader when
    # present (4x faster). Both are *safe* loaders: only plain data is constructed.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise RuleFileError(path, f"invalid YAML: {problem}", line) from None
    finally:
        loader.dispose()
    lines: Dict[Path, int] = {}
    if node is not None:
        _index_lines(node, (), lines)
    return YamlDoc(path, _join_chinese(data), lines)


_CJK = "\u2e80-\u9fff\u3000-\u303f\uff00-\uffef"
_CJK_GAP = re.compile(f"(?<=[{_CJK}])[ \t]+(?=[{_CJK}])|(?<=[，。；：、！？])[ \t]+")


def _join_chinese(data: Any) -> Any:
    """Drop the spaces YAML folding (``>-``) puts where a Chinese text was wrapped: Chinese has
    no spaces between words, so "训练， 精度" must read "训练，精度". Only values under ``zh``."""
    if isinstance(data, dict):
        for k, v in data.items():
            if k == "zh" and isinstance(v, str):
                data[k] = _CJK_GAP.sub("", v)
            else:
                _join_chinese(v)
    elif isinstance(data, list):
        for v in data:
            _join_chinese(v)
    return data


def _index_lines(node: Any, path: Path, out: Dict[Path, int]) -> None:
    # imported where it is used: PyYAML is slow to import (start-up time)
    import yaml

    out[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            k = key.value
            out[path + (k,)] = key.start_mark.line + 1
            _index_lines(value, path + (k,), out)
            out[path + (k,)] = key.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index_lines(item, path + (i,), out)


def rule_files(pack: str) -> List[str]:
    """Rule files of a pack (sorted; API tables and pack metadata excluded)."""
    out: List[str] = []
    for dirpath, dirnames, filenames in os.walk(pack):
        dirnames[:] = sorted(d for d in dirnames if d not in _DATA_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if not (name.endswith(".yaml") or name.endswith(".yml")):
                continue
            if dirpath == pack and name in _SPECIAL:
                continue
            out.append(os.path.join(dirpath, name))
    return out


def api_files(pack: str) -> List[str]:
    d = os.path.join(pack, "apis")
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith((".yaml", ".yml")))
