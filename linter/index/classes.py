"""Project classes: their bases (project classes and framework classes, nearest first), their
project MRO and subclasses, and attribute lookup on a class, an instance and ``super()``.

One part of :class:`~linter.index.project.Project`, separate because inheritance is a question
of its own: rules ask it directly (what a class derives from, which classes derive from it).
"""
from __future__ import annotations

from typing import FrozenSet, List, Optional, Sequence, Set, Tuple

from linter.index.state import _UNK, ProjectState
from linter.index.values import Bound, Cls, Ext, Func, Obj, Super, Value, ordered


class Classes(ProjectState):
    """Bases, MRO, subclasses and attribute lookup of project classes."""

    def class_bases(self, c: Cls) -> Tuple[Value, ...]:
        hit = self._class_bases.get(c)
        if hit is not None:
            return hit
        self._class_bases[c] = ()
        cf = self.files[c.file].classes[c.index]
        out: List[Value] = []
        for b in cf.bases:
            for v in ordered(self.values(c.file, cf.scope, b)):
                if isinstance(v, (Cls, Ext)):
                    out.append(v)
        result = tuple(out)
        self._class_bases[c] = result
        return result

    def framework_bases(self, c: Cls) -> Tuple[str, ...]:
        """Framework classes ``c`` derives from (through project bases), nearest first."""
        hit = self._fw_bases.get(c)
        if hit is not None:
            return hit
        self._fw_bases[c] = ()
        out: List[str] = []
        for b in self.class_bases(c):
            quals: Sequence[str] = self.apis.mro(b.qual) if isinstance(b, Ext) else self.framework_bases(b)  # type: ignore[arg-type]
            for q in quals:
                if q not in out:
                    out.append(q)
        result = tuple(out)
        self._fw_bases[c] = result
        return result

    def subclasses(self, c: Cls) -> List[Cls]:
        """Project classes deriving from ``c`` (transitively), in file/class order. The
        reverse index of every class's project bases is built on the first question."""
        index = self._built.get("subclasses")
        if index is None:
            index = {}
            for fi, facts in enumerate(self.files):
                for ci, cf in enumerate(facts.classes):
                    if not cf.bases:
                        continue
                    k = Cls(fi, ci)
                    for b in self.class_bases(k):
                        if isinstance(b, Cls) and b != k:
                            index.setdefault(b, []).append(k)
            self._built["subclasses"] = index
        out: List[Cls] = []
        todo = [c]
        while todo:
            for k in index.get(todo.pop(), ()):
                if k not in out and k != c:
                    out.append(k)
                    todo.append(k)
        return sorted(out)

    def project_mro(self, c: Cls) -> List[Cls]:
        out = [c]
        i = 0
        while i < len(out):
            for b in self.class_bases(out[i]):
                if isinstance(b, Cls) and b not in out:
                    out.append(b)
            i += 1
        return out

    def class_attr(self, c: Cls, name: str, recv: Optional[Value]) -> FrozenSet[Value]:
        for k in self.project_mro(c):
            cf = self.files[k.file].classes[k.index]
            m = cf.methods.get(name)
            if m is not None:
                fv = Func(k.file, m)
                return frozenset((Bound(fv, recv),)) if recv is not None else frozenset((fv,))
            ids = self.files[k.file].funcs[cf.body].defs.get(name)
            if ids:
                return self._union_bindings(k.file, ids)
        for q in self.framework_bases(c):
            qual, _api = self.apis.method(q, name)
            ext = Ext(qual)
            return frozenset((Bound(ext, recv),)) if recv is not None else frozenset((ext,))
        return _UNK

    def instance_attr(self, obj: Obj, name: str) -> FrozenSet[Value]:
        t = obj.type
        if isinstance(t, Ext):
            qual, _api = self.apis.method(t.qual, name)
            return frozenset((Bound(Ext(qual), obj),))
        for k in self.project_mro(t):
            cf = self.files[k.file].classes[k.index]
            ids = cf.attrs.get(name)
            if ids:
                return self._union_bindings(k.file, ids)
        return self.class_attr(t, name, obj)

    def super_attr(self, s: Super, name: str) -> FrozenSet[Value]:
        c = Cls(s.file, s.cls)
        out: Set[Value] = set()
        for b in self.class_bases(c):
            if isinstance(b, Cls):
                out |= self.class_attr(b, name, s.recv)
            elif isinstance(b, Ext):
                qual, _api = self.apis.method(b.qual, name)
                out.add(Bound(Ext(qual), s.recv))
            if out:
                break
        return frozenset(out) if out else _UNK
