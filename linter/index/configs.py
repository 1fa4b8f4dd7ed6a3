"""Stage 3 (program model): configuration files as input.

Model zoos keep hyper-parameters in YAML (``default_config.yaml`` and its variants) or JSON,
read by a helper (``src/model_utils/config.py``: ``config = get_config()``) that merges them
with argparse. A call of such a helper evaluates to a record whose fields are the keys of the
file it loads by default *and* of its variants (the YAML files beside it, or in a
``config``/``configs`` folder beside it, that share most of its keys): what the shipped
configurations can make a value. Each value keeps its file and line as provenance.

Files are read through the run's probes (``read``/``listdir``), so a cached result is
re-validated against them; parsing uses ``yaml.safe_load`` semantics only (nothing in a
configuration file is executed).
"""
from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Optional, Tuple

CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
MAX_CONFIG_BYTES = 256 * 1024
"""Larger files are data (annotations, vocabularies), not configuration."""


class ConfigMap:
    """One mapping of a configuration file: key → (value, line). Values are scalars, tuples
    (lists) or nested :class:`ConfigMap`."""

    __slots__ = ("path", "items", "_repr")

    def __init__(self, path: str, items: Dict[str, Tuple[Any, int]]) -> None:
        self.path = path
        self.items = items
        self._repr: Optional[str] = None

    def __repr__(self) -> str:
        # values are ordered by their repr (deterministic output), asked very often: kept
        if self._repr is None:
            self._repr = f"ConfigMap({self.path!r}, {sorted(self.items)!r})"
        return self._repr


def parse_config(path: str, data: bytes) -> Optional[ConfigMap]:
    """The first document of a YAML file (the zoo's files hold config, help and choices as
    three documents) or a JSON object, with the line of every key; None when the file is not
    a mapping or does not parse."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if path.endswith(".json"):
        try:
            obj = json.loads(text)
        except ValueError:
            return None
        return _from_json(path, obj, text) if isinstance(obj, dict) else None
    try:
        # imported where it is used: PyYAML is slow to import (start-up time)
        import yaml

        loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        loader = loader_cls(text)
        try:
            node = loader.get_node() if loader.check_node() else None
            if node is None or not isinstance(node, yaml.MappingNode):
                return None
            return _from_node(path, node, loader)
        finally:
            loader.dispose()
    except Exception:   # a broken or exotic YAML file is not configuration we can use
        return None


def _from_node(path: str, node: Any, loader: Any) -> ConfigMap:
    # imported where it is used: PyYAML is slow to import (start-up time)
    import yaml

    items: Dict[str, Tuple[Any, int]] = {}
    for knode, vnode in node.value:
        if not isinstance(knode, yaml.ScalarNode):
            continue
        key = str(knode.value)
        line = knode.start_mark.line + 1
        if isinstance(vnode, yaml.MappingNode):
            items[key] = (_from_node(path, vnode, loader), line)
        else:
            try:
                value = loader.construct_object(vnode, deep=True)
            except Exception:
                continue
            items[key] = (_freeze(value), line)
    return ConfigMap(path, items)


def _from_json(path: str, obj: Dict[str, Any], text: str) -> ConfigMap:
    lines = text.splitlines()
    items: Dict[str, Tuple[Any, int]] = {}
    for key, value in obj.items():
        needle = json.dumps(str(key))
        line = next((i for i, ln in enumerate(lines, 1) if needle in ln), 1)
        items[str(key)] = (_from_json(path, value, text) if isinstance(value, dict) else _freeze(value), line)
    return ConfigMap(path, items)


def _freeze(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return None   # a mapping inside a list: not a value rules compare
    return v


class ConfigStore:
    """Parsed configuration files of a run, read through the run's probes."""

    def __init__(self, read: Callable[[str], Optional[bytes]], listdir: Callable[[str], Tuple[str, ...]],
                 parsed: Optional[Dict[str, Optional[ConfigMap]]] = None) -> None:
        self.read = read
        self.listdir = listdir
        self._parsed: Dict[str, Optional[ConfigMap]] = parsed if parsed is not None else {}
        """Path → its parsed contents (a memo table of the project's store when it has one)."""

    def load(self, path: str) -> Optional[ConfigMap]:
        hit = self._parsed.get(path, _MISSING)
        if hit is not _MISSING:
            return hit  # type: ignore[return-value]
        data = self.read(path)
        out = parse_config(path, data) if data is not None and len(data) <= MAX_CONFIG_BYTES else None
        self._parsed[path] = out
        return out

    def variants(self, default: str) -> List[ConfigMap]:
        """The default file and the shipped files that configure the same program: YAML/JSON
        files beside it or in a ``config``/``configs`` folder beside it sharing at least half
        of its keys (``resnet50_imagenet2012_config.yaml`` beside ``default_config.yaml``)."""
        base = self.load(default)
        if base is None:
            return []
        keys = set(base.items)
        out = [base]
        folder = os.path.dirname(default)
        places = [folder] + [os.path.join(folder, d) for d in ("config", "configs")]
        for place in places:
            for name in self.listdir(place):
                path = os.path.join(place, name)
                if path == default or not name.lower().endswith(CONFIG_SUFFIXES):
                    continue
                other = self.load(path)
                if other is not None and len(keys) >= 3 and len(keys & set(other.items)) * 2 >= len(keys):
                    out.append(other)
        return out


_MISSING = object()
