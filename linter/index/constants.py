"""Constant propagation with provenance: the constant values an expression may take — through
bindings, attributes, records, configuration files and call sites, with where each is written
and how it got there — numeric vectors (pixel means and stds), and the expressions that may
define a name or an attribute.

One part of :class:`~linter.index.project.Project`, the one the rules' value predicates ask;
it answers from the other parts and none of them asks it.
"""
from __future__ import annotations

import os
from typing import Callable, FrozenSet, List, Optional, Tuple

from linter.facts.model import Expr
from linter.index.configs import ConfigMap
from linter.index.state import _ARITH, _MAX_DEPTH, ProjectState
from linter.index.values import Cls, Func, Mod, Obj, Param, Record, Valued, ordered


def _display(path: str) -> str:
    """A configuration file's path as reports show it: relative to the working directory."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


ARGPARSE_DEFAULT = "argparse default"
NO_COMMAND_LINE = " (parse_args is given its arguments: the command line is not read)"
"""Appended to an argparse default's ``via`` when ``parse_args(args=[...])`` (a notebook's
``parse_args(args=[])``) makes the defaults, and the literal list, all the option can be."""
"""Provenance of a value read from an argparse default: a command-line option may override it."""
CONFIG_VALUE = "config: "
"""How a value read from a configuration file says so (followed by its key)."""
_HELPER_FOLDERS = ("src", "model_utils", "utils", "config", "configs", "tools", "common")
"""Folders of a model's helper modules: its program is the folder above them."""


def _eval_with(e: Expr, name: str, x: float, leaf: Callable[[Expr], Optional[float]]) -> Optional[float]:
    """Arithmetic over one variable ``name`` = ``x`` (a comprehension's element) and other
    leaves, which ``leaf`` resolves to one number (or None)."""
    tag = e[0]
    if tag == "name" and e[1] == name:
        return x
    if tag == "unary" and e[1] == "-":
        v = _eval_with(e[2], name, x, leaf)
        return None if v is None else -v
    if tag == "binop" and e[1] in _ARITH:
        a, b = _eval_with(e[2], name, x, leaf), _eval_with(e[3], name, x, leaf)
        if a is None or b is None:
            return None
        try:
            r = _ARITH[e[1]](a, b)
        except (ArithmeticError, ValueError):
            return None
        return None if r is None or isinstance(r, complex) else float(r)
    return leaf(e)


class Constants(ProjectState):
    """Constant values with provenance, numeric vectors and defining expressions."""

    # ------------------------------------------------------------------ constant propagation
    def constants(self, fi: int, scope: int, e: Expr, depth: int = 0) -> Tuple[List[Valued], bool]:
        """Constant values ``e`` may take, with provenance; the flag says all paths are known.

        Follows local and module bindings, attributes of project modules, classes, records
        (``EasyDict``, argparse defaults), parameters (through call sites, or the default
        when no call site is known) and arithmetic over all combinations.

        Memoised per expression (and hypothesis) unless the depth bound or a cycle cut the
        answer short: a value reached through many definitions and call sites (a library's
        configuration objects) was otherwise recomputed for every path to it, exponentially.
        """
        tag = e[0]
        if tag == "const":
            return [Valued(e[1], self.files[fi].path, 0, "")], True
        key = (fi, scope, id(e))
        hit = self._consts.get(key)
        if hit is not None:
            return list(hit[0]), hit[1]
        if depth > _MAX_DEPTH or key in self._const_active:
            self._const_cuts += 1
            return [], False
        cuts = self._const_cuts
        self._const_active.add(key)
        try:
            vals, known = self._constants_uncached(fi, scope, e, depth)
        finally:
            self._const_active.discard(key)
        if self._const_cuts == cuts:
            self._consts[key] = (tuple(vals), known)
        return vals, known

    def _constants_uncached(self, fi: int, scope: int, e: Expr, depth: int) -> Tuple[List[Valued], bool]:
        tag = e[0]
        h = self.store.hypothesis
        if h.pinned:
            pin = h.pin(id(e))
            if pin is not None:
                return list(pin), True
        if tag == "config":
            value, line = e[1].items[e[2]]
            if isinstance(value, ConfigMap):
                return [], False
            return [Valued(value, _display(e[1].path), line, f"{CONFIG_VALUE}{e[2]}")], True
        if tag in ("binop", "unary"):
            return self._const_arith(fi, scope, e, depth)
        if tag == "ifexp":
            a, ka = self.constants(fi, scope, e[2], depth + 1)
            b, kb = self.constants(fi, scope, e[3], depth + 1)
            return a + b, ka and kb
        if tag == "call":
            call = self.files[fi].calls[e[1]]
            names = self.call_names(fi, e[1])
            if names and names[0] in ("builtins.float", "builtins.int") and len(call.args) == 1:
                vals, known = self.constants(fi, call.scope, call.args[0].value, depth + 1)
                conv = float if names[0].endswith("float") else int
                out = []
                for v in vals:
                    try:
                        out.append(v._replace(value=conv(v.value)))
                    except (TypeError, ValueError):
                        known = False
                return out, known
            return [], False
        if tag in ("name", "attr"):
            return self._const_ref(fi, scope, e, depth)
        if tag == "subscript" and e[2][0] == "const" and isinstance(e[2][1], int):
            # `args.scale[0]` with `scale: [2]` in the configuration
            vals, known = self.constants(fi, scope, e[1], depth + 1)
            out = []
            for v in vals:
                if isinstance(v.value, tuple) and -len(v.value) <= e[2][1] < len(v.value):
                    out.append(v._replace(value=v.value[e[2][1]]))
                else:
                    known = False
            return out, known and bool(out)
        return [], False

    def vector(self, fi: int, scope: int, e: Expr, depth: int = 0) -> Optional[Tuple[float, ...]]:
        """The one numeric vector ``e`` stands for, or None: a list/tuple of constants, a name bound
        to one (on every path), or ``[x * k for x in V]`` — how pixel means and stds are written."""
        if depth > _MAX_DEPTH:
            return None
        tag = e[0]
        def number(x: Expr) -> Optional[float]:
            vals, known = self.constants(fi, scope, x, depth + 1)
            nums = {v.value for v in vals}
            if not known or len(nums) != 1:
                return None
            v = nums.pop()
            return float(v) if type(v) in (int, float) else None

        if tag == "seq":
            items = [number(el) for el in e[2]]
            nums = [v for v in items if v is not None]
            return tuple(nums) if len(nums) == len(items) else None
        if tag in ("name", "attr"):
            found = set()
            for sfi, sscope, sexpr, _, _ in self.defining_exprs(fi, scope, e):
                found.add(self.vector(sfi, sscope, sexpr, depth + 1) if sexpr is not None else None)
            return found.pop() if len(found) == 1 else None
        if tag == "comp" and e[1] in ("list", "tuple", "generator") and len(e[3]) == 1:
            target, it = e[3][0]
            base = self.vector(fi, scope, it, depth + 1)
            if base is None or target[0] != "name":
                return None
            out: List[float] = []
            for x in base:
                y = _eval_with(e[2], target[1], x, number)
                if y is None:
                    return None
                out.append(y)
            return tuple(out)
        return None

    def _const_arith(self, fi: int, scope: int, e: Expr, depth: int) -> Tuple[List[Valued], bool]:
        if e[0] == "unary":
            vals, known = self.constants(fi, scope, e[2], depth + 1)
            out = []
            for v in vals:
                if e[1] == "-" and type(v.value) in (int, float):
                    out.append(v._replace(value=-v.value))
                elif e[1] == "not":
                    out.append(v._replace(value=not v.value))
                else:
                    known = False
            return out, known
        fn = _ARITH.get(e[1])
        left, kl = self.constants(fi, scope, e[2], depth + 1)
        right, kr = self.constants(fi, scope, e[3], depth + 1)
        out = []
        known = kl and kr and fn is not None
        for a in left[:8]:
            for b in right[:8]:
                if fn is None or type(a.value) not in (int, float) or type(b.value) not in (int, float):
                    known = False
                    continue
                try:
                    r = fn(a.value, b.value)
                except (ArithmeticError, ValueError):
                    r = None
                if r is None:
                    known = False
                    continue
                src = a if a.via or a.line else b
                out.append(Valued(r, src.path, src.line, src.via))
        return out, known

    def _const_ref(self, fi: int, scope: int, e: Expr, depth: int) -> Tuple[List[Valued], bool]:
        """Constants behind a name or attribute: follow bindings to their defining expressions."""
        sources = self.defining_exprs(fi, scope, e)
        if not sources:
            return [], False
        out: List[Valued] = []
        known = True
        for sfi, sscope, sexpr, line, via in sources:
            if sexpr is None:
                known = False
                continue
            vals, k = self.constants(sfi, sscope, sexpr, depth + 1)
            known = known and k
            for v in vals:
                if not v.line:
                    v = Valued(v.value, self.files[sfi].path, line, via)
                elif via and not v.via:
                    # Keep where the literal is written, and say how it got here.
                    v = v._replace(via=via)
                out.append(v)
        return out, known

    def defining_exprs(self, fi: int, scope: int, e: Expr) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        """Expressions that may define the value of a name/attribute: (file, scope, expr, line, via)."""
        if e[0] == "name":
            ids = e[2]
            if not ids:
                return self._free_defs(fi, scope, e[1])
            return [d for aid in ids for d in self._assign_defs(fi, aid)]
        if e[0] == "attr":
            out: List[Tuple[int, int, Optional[Expr], int, str]] = []
            for base in ordered(self.expand_params(self.values(fi, scope, e[1]))):
                if isinstance(base, Mod):
                    out += self._global_defs(base.file, e[2])
                elif isinstance(base, Record):
                    via = f"{ARGPARSE_DEFAULT} of --{e[2]}" if base.kind == "argparse" else ""
                    if via and self._reads_no_command_line(base):
                        via += NO_COMMAND_LINE
                    for fname, (rfi, rscope, expr) in base.fields:
                        if fname == e[2]:
                            line = expr[1].items[expr[2]][1] if expr[0] == "config" else self._expr_line(rfi, expr, base)
                            out.append((rfi, rscope, expr, line, via))
                    if base.kind in ("argparse", "config"):
                        out += self._record_writes(base, e[2])
                elif isinstance(base, (Cls, Obj)):
                    c = base if isinstance(base, Cls) else base.type
                    if isinstance(c, Cls):
                        out += self._class_defs(c, e[2], instance=isinstance(base, Obj))
                else:
                    out.append((fi, scope, None, 0, ""))
            return out
        return []

    def _reads_no_command_line(self, rec: Record) -> bool:
        """The parse_args call that made ``rec`` is given an empty list (``parse_args(args=[])``,
        ``parse_args([])``): the command line is not read, the defaults are the values."""
        if rec.call < 0:
            return False
        call = self.files[rec.file].calls[rec.call]
        given = next((a for a in call.args if a.keyword == "args"), None) or \
            next((a for a in call.args if a.keyword is None and not a.star), None)
        return given is not None and given.value[0] == "seq" and not given.value[2]

    def _expr_line(self, fi: int, expr: Expr, rec: Record) -> int:
        if expr[0] == "call":
            return self.files[fi].calls[expr[1]].line
        return self.files[rec.file].calls[rec.call].line if rec.call >= 0 else 0

    def _record_writes(self, rec: Record, name: str) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        """Values the program writes into a parsed namespace or loaded configuration after the
        fact (``args.pad_mode = "CONSTANT"`` on Ascend, ``config.run_distribute = False``): the
        field may hold them as well as its default (flow-insensitive, so never fewer values)."""
        writes = self._built.get("writes")
        if writes is None:
            writes = {}
            for wfi, facts in enumerate(self.files):
                for aid, a in enumerate(facts.assigns):
                    if a.target[0] == "attr":
                        writes.setdefault(a.target[2], []).append((wfi, aid))
            self._built["writes"] = writes
        key = ("writes", rec, name)
        hit = self._written.get(key)
        if hit is not None:
            return hit
        if key in self._active:
            return []
        # only the program around the record writes into it: files under its model folder (the
        # folder of the module, above `src/`, `model_utils/`, ... helpers)
        d = os.path.dirname(self.abspaths[rec.file]) if rec.file >= 0 else ""
        while os.path.basename(d) in _HELPER_FOLDERS:
            d = os.path.dirname(d)
        self._active.add(key)
        try:
            out: List[Tuple[int, int, Optional[Expr], int, str]] = []
            for wfi, aid in writes.get(name, ()):
                if not self.abspaths[wfi].startswith(d + os.sep):
                    continue
                a = self.files[wfi].assigns[aid]
                if rec in self.expand_params(self.values(wfi, a.scope, a.target[1])):
                    out.append((wfi, a.scope, a.value, a.line, ""))
        finally:
            self._active.discard(key)
        self._written[key] = out
        return out

    def _assign_defs(self, fi: int, aid: int) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        a = self.files[fi].assigns[aid]
        v = a.value
        tag = v[0]
        if tag == "param":
            return self._param_defs(Param(fi, v[1], v[2]))
        if tag == "import":
            imp = self.files[fi].imports[v[1]]
            if imp.name is not None:
                target = self.file_of(fi, imp.module, imp.level)
                if target is not None and target >= 0:
                    return self._global_defs(target, imp.name)
            return [(fi, a.scope, None, a.line, "")]  # a module or an external name: no constant
        if tag in ("def", "class", "iter", "except", "enter"):
            return [(fi, a.scope, None, a.line, "")]
        if tag == "unpack":
            src = v[1]
            if src[0] == "seq" and isinstance(v[2], int) and v[2] < len(src[2]):
                return [(fi, a.scope, src[2][v[2]], a.line, "")]
            return [(fi, a.scope, None, a.line, "")]
        return [(fi, a.scope, v, a.line, "")]

    def _free_defs(self, fi: int, scope: int, name: str) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        funcs = self.files[fi].funcs
        f = funcs[scope]
        if scope != 0 and f.defs.get(name):
            return [d for aid in f.defs[name] for d in self._assign_defs(fi, aid)]
        p = f.parent
        while p > 0:
            pf = funcs[p]
            if pf.kind != "class" and pf.defs.get(name):
                return [d for aid in pf.defs[name] for d in self._assign_defs(fi, aid)]
            p = pf.parent
        return self._global_defs(fi, name)

    def _global_defs(self, fi: int, name: str, seen: FrozenSet[int] = frozenset()) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        ids = self.files[fi].funcs[0].defs.get(name)
        if ids:
            key = ("globaldefs", fi, name)
            if key in self._active:
                # an import cycle (`from b import x` in a, `from a import x` in b — common where
                # many projects' same-named modules meet): the name has no value along it
                self._partial += 1
                return [(fi, 0, None, 0, "")]
            self._active.add(key)
            try:
                return [d for aid in ids for d in self._assign_defs(fi, aid)]
            finally:
                self._active.discard(key)
        for imp in reversed(self._star_imports(fi)):
            target = self.file_of(fi, imp.module, imp.level)
            if target is not None and target >= 0 and target not in seen:
                found = self._global_defs(target, name, seen | {fi})
                if found:
                    return found
        return []

    def _class_defs(self, c: Cls, name: str, instance: bool) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        for k in self.project_mro(c):
            cf = self.files[k.file].classes[k.index]
            if instance and cf.attrs.get(name):
                return [d for aid in cf.attrs[name] for d in self._assign_defs(k.file, aid)]
            ids = self.files[k.file].funcs[cf.body].defs.get(name)
            if ids:
                return [d for aid in ids for d in self._assign_defs(k.file, aid)]
        return []

    def _param_defs(self, p: Param) -> List[Tuple[int, int, Optional[Expr], int, str]]:
        fact = self.files[p.file].funcs[p.func]
        param = next((x for x in fact.params if x.name == p.name), None)
        if param is None:
            return []
        h = self.store.hypothesis
        assume = h.assumed
        if p.name in assume:
            return [(p.file, p.func, ("const", assume[p.name]), fact.line, f"assuming {p.name}={assume[p.name]!r}")]
        out: List[Tuple[int, int, Optional[Expr], int, str]] = []
        sites = self.callers(Func(p.file, p.func))
        if h.site_filter is not None and sites:
            # deciding a branch: call sites no program runs (`resnet18(res_base=True)` when only
            # resnet50 is built) do not make the branch live; all of them when none is run
            live = [x for x in sites if h.site_filter(x[0], x[1])]
            sites = live or sites
        where = fact.qualname
        for cfi, cid, bound in sites:
            call = self.files[cfi].calls[cid]
            a = bound.get(p.name)
            if a is not None:
                out.append((cfi, call.scope, a.value, a.line, f"passed to '{p.name}' at {self.files[cfi].path}:{call.line}"))
            elif bound.uncertain:
                out.append((cfi, call.scope, None, call.line, ""))
            elif param.default is not None:
                out.append((p.file, fact.parent, param.default, fact.line,
                            f"default of parameter '{p.name}' of {where} (call at {self.files[cfi].path}:{call.line})"))
            else:
                out.append((cfi, call.scope, None, call.line, ""))
        if not sites:
            # No call site is known (the function may be called through a dynamic dispatch):
            # its default is not evidence of the value actually used.
            out.append((p.file, fact.parent, None, fact.line, ""))
        return out
