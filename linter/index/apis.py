"""Framework API tables (``rules/apis/*.yaml``): aliases, signatures, kinds, hierarchies.

The tables are data, generated from the installed libraries where possible
(``tests/frameworks/gen_api_tables.py``) and checked against them by the optional
``frameworks`` tests. A signature lists parameters compactly: ``name`` (required),
``name=default``, ``*args``, ``**kwargs``, ``*`` (keyword-only marker) and ``/``
(positional-only marker). Defaults are YAML scalars; a default that is not a literal is
written as a string starting with ``=`` (``dtype==mstype.float32``).
"""
from __future__ import annotations

import ast
import fnmatch
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from linter.core.versions import version_in

NO_DEFAULT = object()
"""Marker for a required parameter."""


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    """``posonly``, ``pos``, ``varargs``, ``kwonly`` or ``varkw``."""
    default: Any = NO_DEFAULT

    @property
    def required(self) -> bool:
        return self.default is NO_DEFAULT and self.kind in ("posonly", "pos", "kwonly")


def parse_params(items: Sequence[str]) -> Tuple[Param, ...]:
    """Parse the compact parameter list of a table entry."""
    out: List[Param] = []
    kind = "pos"
    for raw in items:
        item = str(raw).strip()
        if item == "/":
            out = [Param(p.name, "posonly", p.default) for p in out]
            continue
        if item == "*":
            kind = "kwonly"
            continue
        if item.startswith("**"):
            out.append(Param(item[2:], "varkw"))
            continue
        if item.startswith("*"):
            out.append(Param(item[1:], "varargs"))
            kind = "kwonly"
            continue
        if "=" in item:
            name, _, default_text = item.partition("=")
            out.append(Param(name.strip(), kind, _parse_default(default_text.strip())))
        else:
            out.append(Param(item, kind))
    return tuple(out)


class Expression(str):
    """A default that is not a literal (kept as source text)."""


def _parse_default(text: str) -> Any:
    if text.startswith("="):
        return Expression(text[1:])
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return Expression(text)


@dataclass
class Api:
    qualname: str
    kind: str
    """``class``, ``function`` or ``method``."""
    params: Optional[Tuple[Param, ...]] = None
    returns: str = ""
    """``instance`` (classes), ``derived`` (a new object of the receiver's type, same lineage),
    ``derived-items`` (a list of such objects), ``derived-all`` (joins the lineages of the
    receiver and of every object argument, list elements included: zip, concat), ``self``,
    ``receiver-type`` or a qualified type name; empty = unknown."""
    bases: Tuple[str, ...] = ()
    versions: Tuple[Tuple[str, Tuple[Param, ...]], ...] = ()
    """(range, params) pairs overriding ``params`` for those framework versions."""
    call_method: str = ""
    """For classes: the method an instance call runs (``construct``, ``forward``, ``call``)."""

    def signature(self, version: Optional[Tuple[int, ...]]) -> Optional[Tuple[Param, ...]]:
        if version is not None:
            for spec, params in self.versions:
                if version_in(version, spec):
                    return params
        return self.params


@dataclass
class Framework:
    name: str
    roots: Tuple[str, ...]
    default_version: str
    aliases: List[Tuple[str, str]] = field(default_factory=list)


class ApiTables:
    """All frameworks' tables, with alias canonicalisation and base-class lookups."""

    def __init__(self, docs: Iterable[Tuple[str, Dict[str, Any]]]) -> None:
        self.apis: Dict[str, Api] = {}
        self.frameworks: Dict[str, Framework] = {}
        self._aliases: List[Tuple[str, str, bool]] = []
        self.callables: Dict[str, Dict[str, Any]] = {}
        """Higher-order helpers (partial application, element-wise map, dispatch registries)."""
        self.mode_dependent: Dict[str, Tuple[str, ...]] = {}
        """framework → globs of layers whose behaviour depends on train/eval mode."""
        self.factories: Dict[str, str] = {}
        """Name glob → the type its calls return (model factories of zoos: ``timm.create_model``)."""
        # Generated signature files come first so hand-written entries can override them.
        ordered = sorted(docs, key=lambda d: (not d[0].endswith(".signatures.yaml"), d[0]))
        raw: Dict[str, Dict[str, Any]] = {}
        for _path, doc in ordered:
            self._load_meta(doc)
            for qual, entry in (doc.get("apis") or {}).items():
                merged = raw.setdefault(qual, {})
                for k, v in (entry or {}).items():
                    if k == "methods":
                        merged.setdefault("methods", {}).update(v or {})
                    else:
                        merged[k] = v
        for qual, entry in raw.items():
            self._add(qual, entry)
            defined = entry.get("defined_in")
            if defined and defined != qual:
                self._aliases.append((defined, qual, False))
        # Longest prefix first so that the most specific alias wins.
        self._aliases.sort(key=lambda a: (-len(a[0]), a[0]))
        self._alias_by_src: Dict[str, List[Tuple[str, bool]]] = {}
        for src, dst, wildcard in self._aliases:
            self._alias_by_src.setdefault(src, []).append((dst, wildcard))
        self._canon_cache: Dict[str, str] = {}
        self._mro_cache: Dict[str, Tuple[str, ...]] = {}
        self._segments: Dict[Tuple[str, ...], FrozenSet[str]] = {}
        self._callable_globs = [(k, v) for k, v in sorted(self.callables.items()) if "*" in k or "?" in k]
        self._factory_globs = sorted(self.factories.items())

    def _load_meta(self, doc: Dict[str, Any]) -> None:
        fw = doc.get("framework")
        if fw:
            self.frameworks[fw] = Framework(fw, tuple(doc.get("roots", ())), str(doc.get("default_version", "")))
            if doc.get("mode_dependent"):
                self.mode_dependent[fw] = tuple(doc["mode_dependent"])
        for alias in doc.get("aliases", ()):
            src = alias["from"]
            wildcard = src.endswith(".*")
            self._aliases.append((src[:-2] if wildcard else src, alias["to"], wildcard))
        for qual, entry in (doc.get("callables") or {}).items():
            self.callables[qual] = entry or {}
        for glob, returns in (doc.get("factories") or {}).items():
            self.factories[glob] = str(returns)

    def _add(self, qual: str, entry: Dict[str, Any]) -> None:
        params = parse_params(entry["params"]) if "params" in entry else None
        versions = tuple((v["range"], parse_params(v["params"])) for v in entry.get("versions", ()))
        kind = entry.get("kind") or ("class" if qual.rsplit(".", 1)[-1][:1].isupper() else "function")
        returns = entry.get("returns", "instance" if kind == "class" else "")
        self.apis[qual] = Api(qual, kind, params, returns, tuple(entry.get("bases", ())), versions,
                              entry.get("call_method", ""))
        for mname, mentry in (entry.get("methods") or {}).items():
            self._add(f"{qual}.{mname}", dict(mentry or {}, kind="method"))

    # ------------------------------------------------------------------ names
    def canonical(self, qual: str) -> str:
        """Rewrite aliases (``mindspore.ops.operations.X`` → ``mindspore.ops.X``)."""
        hit = self._canon_cache.get(qual)
        if hit is not None:
            return hit
        out = qual
        by_src = self._alias_by_src
        for _ in range(4):  # aliases may chain; bounded so a bad table cannot loop
            new = self._rewrite_once(out, by_src)
            if new is None or new == out:
                break
            out = new
        self._canon_cache[qual] = out
        return out

    @staticmethod
    def _rewrite_once(out: str, by_src: Dict[str, List[Tuple[str, bool]]]) -> Optional[str]:
        """Apply the alias with the longest matching prefix (looked up prefix by prefix,
        longest first — not by scanning every alias)."""
        parts = out.split(".")
        for n in range(len(parts), 0, -1):
            entries = by_src.get(".".join(parts[:n]))
            if not entries:
                continue
            rest = out[len(".".join(parts[:n])):]
            for dst, wildcard in entries:
                if wildcard:
                    # drop exactly one (submodule) segment after the prefix — only when a
                    # name follows it: `optim.adam.Adam` → `Adam`, but `optim.Adam` stays
                    _seg, dot, tail = rest[1:].partition(".")
                    if not dot or not tail:
                        continue
                    return dst + "." + tail
                return dst + rest
        return None

    def framework_of(self, qual: str) -> Optional[str]:
        root = qual.split(".", 1)[0]
        for fw in self.frameworks.values():
            if root in fw.roots or any(qual == r or qual.startswith(r + ".") for r in fw.roots):
                return fw.name
        return None

    def get(self, qual: str) -> Optional[Api]:
        return self.apis.get(qual)

    def is_class(self, qual: str) -> bool:
        api = self.apis.get(qual)
        if api is not None:
            return api.kind == "class"
        last = qual.rsplit(".", 1)[-1]
        return last[:1].isupper() and not last.isupper()

    def mro(self, qual: str) -> Tuple[str, ...]:
        """``qual`` followed by its framework bases, nearest first."""
        hit = self._mro_cache.get(qual)
        if hit is not None:
            return hit
        out: List[str] = [qual]
        queue = [qual]
        while queue:
            cur = queue.pop(0)
            api = self.apis.get(cur)
            if api is None:
                continue
            for b in api.bases:
                if b not in out:
                    out.append(b)
                    queue.append(b)
        result = tuple(out)
        self._mro_cache[qual] = result
        return result

    def subclass_segments(self, globs: Any) -> FrozenSet[str]:
        """Last segments of the framework classes deriving from ``globs`` (a GlobSet):
        callee-index keys under which their constructions are filed (``Momentum`` for
        ``mindspore.nn.Optimizer``)."""
        hit = self._segments.get(globs.globs)
        if hit is None:
            hit = frozenset(q.rsplit(".", 1)[-1] for q, api in self.apis.items()
                            if api.kind == "class" and globs.any(self.mro(q)))
            self._segments[globs.globs] = hit
        return hit

    def callable_kind(self, names: Iterable[str]) -> str:
        """``partial``, ``map``, ``dispatcher``, ``record``... of the first name listed in
        ``callables`` (keys may be globs such as ``*.hyper_map``); empty when none is."""
        for n in names:
            spec = self.callables.get(n)
            if spec is not None:
                return str(spec.get("kind", ""))
        for n in names:
            for key, spec in self._callable_globs:
                if fnmatch.fnmatchcase(n, key):
                    return str(spec.get("kind", ""))
        return ""

    def factory_type(self, qual: str) -> str:
        """The type returned by a factory function matching a ``factories`` glob ('' if none)."""
        for glob, returns in self._factory_globs:
            if fnmatch.fnmatchcase(qual, glob):
                return returns
        return ""

    def call_method(self, type_qual: str) -> str:
        """The method an instance call of ``type_qual`` (or a subclass) runs; ``__call__`` if unknown."""
        for t in self.mro(type_qual):
            api = self.apis.get(t)
            if api is not None and api.call_method:
                return api.call_method
        return "__call__"

    def method(self, type_qual: str, name: str) -> Tuple[str, Optional[Api]]:
        """Qualified name and table entry of ``type.name``, looked up through the bases."""
        for t in self.mro(type_qual):
            api = self.apis.get(f"{t}.{name}")
            if api is not None:
                return api.qualname, api
        return f"{type_qual}.{name}", None
