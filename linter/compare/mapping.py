"""Compare: the mapping tables (``rules/mappings/compare.yaml``) and the messages
(``compare.messages.yaml``), read safely, validated against a JSON Schema and indexed by API.

The tables are data so that a new framework spelling, parameter rename or convention is a YAML
edit, reviewed like a rule; a malformed table stops the run with the file, line and path of the
problem instead of producing a silently wrong comparison.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from linter.compiler.load import RuleFileError, YamlDoc, builtin_pack, read_yaml
from linter.index.apis import Param, parse_params

SECTIONS = ("layers", "dropout", "optimizers", "schedules", "losses", "clipping", "loss_scalers", "amp",
            "seeds", "datasets", "loaders", "transforms", "loops")
TRANSFORMS = ("one_minus", "ntuple", "map", "sqrt", "product", "pair", "pad4", "p_or_one_minus", "torch_padding",
              "ms_padding", "keras_padding", "stride_or_kernel", "truthy", "all", "dtype_name", "suffix", "unit",
              "scheduler_steps", "torch_shuffle", "scale")
LANGS = ("en", "zh")

_SPEC = {
    "oneOf": [
        {"type": "string", "minLength": 1},
        {"type": "object", "additionalProperties": False, "minProperties": 1,
         "properties": {
             "from": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}]},
             "transform": {"enum": list(TRANSFORMS)},
             "const": {},
             "write": {"type": "string"},
             "n": {"type": "integer", "minimum": 1, "maximum": 3},
             "values": {"type": "object"},
             "unit": {"type": "string"},
             "text": {"type": "string"},
             "none": {},
             "transpose": {"type": "boolean"},
             "factor": {"type": "number"},
         }},
    ]
}
_API = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "map": {"type": "object", "additionalProperties": _SPEC},
        "facts": {"type": "object"},
        "input_scale": {"type": "number", "exclusiveMinimum": 0},
        "factor": {"type": "number", "exclusiveMinimum": 0},
        "factor_from": {"type": "string"},
        "when": {"type": "string"},
        "implies": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}
_KIND = {
    "type": "object", "additionalProperties": False, "required": ["params", "apis"],
    "properties": {
        "params": {"type": "array", "items": {"type": "string"}},
        "post": {"type": "object", "additionalProperties": _SPEC},
        "role": {"enum": ["normalize", "rescale", "augment", "preprocess"]},
        "apis": {"type": "object", "minProperties": 1, "additionalProperties": _API},
        "suggest": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {"type": "string"}}},
    },
}
TABLE_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "trainlint compare mapping tables",
    "type": "object", "additionalProperties": False, "required": ["version"] + list(SECTIONS),
    "properties": dict({"version": {"const": 1},
                        "signatures": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}},
                       **{s: {"type": "object", "additionalProperties": _KIND} for s in SECTIONS}),
}
_TEXT = {"type": "object", "required": list(LANGS), "additionalProperties": False,
         "properties": {lang: {"type": "string", "minLength": 1} for lang in LANGS}}
MESSAGES_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "trainlint compare messages",
    "type": "object", "additionalProperties": False, "required": ["version", "verdicts", "headings", "advice", "hints"],
    "properties": {
        "version": {"const": 1},
        "verdicts": {"type": "object", "additionalProperties": _TEXT,
                     "required": ["match", "mismatch", "unknown", "only-reference", "only-new"]},
        "headings": {"type": "object", "additionalProperties": _TEXT,
                     "required": ["title", "key", "reference", "new", "verdict", "advice", "summary", "clean",
                                  "default", "unresolved", "unresolved_parts", "computed_by", "one_of", "warnings"]},
        "advice": {"type": "object", "additionalProperties": _TEXT,
                   "required": ["mismatch_write", "mismatch", "only_reference_write", "only_reference", "only_new",
                                "unknown", "unknown_units"]},
        "hints": {"type": "object", "additionalProperties": _TEXT},
    },
}


class MappingError(Exception):
    """A mapping or messages file that cannot be used: names the file, line and JSON path."""


@dataclass(frozen=True)
class ApiEntry:
    """How one API expresses one canonical kind."""

    section: str
    kind: str
    qual: str
    spec: Dict[str, Any]
    params: Tuple[str, ...]
    post: Dict[str, Any]
    kind_spec: Dict[str, Any]


@dataclass
class Tables:
    data: Dict[str, Any]
    messages: Dict[str, Any]
    signatures: Dict[str, Tuple[Param, ...]] = field(default_factory=dict)
    by_api: Dict[str, List[ApiEntry]] = field(default_factory=dict)

    def entries(self, names: Sequence[str]) -> List[ApiEntry]:
        """Entries for the first of ``names`` (most specific first) that has any."""
        for n in names:
            hit = self.by_api.get(n)
            if hit:
                return hit
        return []

    def apis_of(self, section: str, kind: str) -> Dict[str, Any]:
        return self.data[section][kind]["apis"]

    def text(self, group: str, key: str, lang: str) -> str:
        block = self.messages[group].get(key) or {}
        return str(block.get(lang) or block.get("en") or key)


def mappings_dir() -> str:
    """``rules/mappings`` of a checkout, or ``linter/_packs/mappings`` of an installed wheel."""
    return os.path.join(builtin_pack(), "mappings")


def _validate(doc: YamlDoc, schema: Dict[str, Any]) -> None:
    import jsonschema  # lazily: only a compare run pays for it

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(doc.data), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if errors:
        err = errors[0]
        path = list(err.absolute_path)
        pointer = "/" + "/".join(str(p) for p in path)
        line = doc.line_of(path)
        where = f"{doc.path}:{line}" if line else doc.path
        raise MappingError(f"{where}: invalid mapping table: {err.message} (at {pointer})")


def load_tables(directory: Optional[str] = None) -> Tables:
    """Read and validate ``compare.yaml`` and ``compare.messages.yaml`` (raise :class:`MappingError`)."""
    d = directory or mappings_dir()
    docs = []
    for name, schema in (("compare.yaml", TABLE_SCHEMA), ("compare.messages.yaml", MESSAGES_SCHEMA)):
        path = os.path.join(d, name)
        try:
            doc = read_yaml(path)
        except RuleFileError as exc:
            raise MappingError(str(exc)) from None
        _validate(doc, schema)
        docs.append(doc)
    tables = Tables(docs[0].data, docs[1].data)
    for qual, items in (tables.data.get("signatures") or {}).items():
        try:
            tables.signatures[qual] = parse_params(items)
        except ValueError as exc:   # pragma: no cover - parse_params is lenient
            raise MappingError(f"{docs[0].path}: bad signature of {qual}: {exc}") from None
    for section in SECTIONS:
        for kind, kspec in tables.data[section].items():
            params = tuple(kspec["params"])
            for qual, aspec in kspec["apis"].items():
                entry = ApiEntry(section, kind, qual, aspec or {}, params, kspec.get("post") or {}, kspec)
                tables.by_api.setdefault(qual, []).append(entry)
    return tables


_TABLES: Optional[Tables] = None


def builtin_tables() -> Tables:
    """The shipped tables, loaded once per process."""
    global _TABLES
    if _TABLES is None:
        _TABLES = load_tables()
    return _TABLES
