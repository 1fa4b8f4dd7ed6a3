#!/usr/bin/env python3
"""Re-check the framework facts (docs/framework-facts.yaml) against installed frameworks.

Used by tests/frameworks/test_framework_facts.py (``python -m pytest -m frameworks tests/frameworks``)
and runnable on its own:

    python tests/frameworks/verify_facts.py [--yaml PATH] [--only mindspore,pytorch,tensorflow]
                                            [--no-source-fallback] [--strict] [--quiet]

For every entry in the YAML file and every framework block in it, the script
checks the recorded default:

* check: signature (the default)   - inspect.signature() of `api` (or of
  `signature_of` when given), parameter `param`, compared with `default`.
  Extra pairs in `also: {param: default}` are checked the same way.
* check: call                      - calls `api(*ctor_args, **ctor_kwargs)` and
  compares the result (or its attribute `attr`) with `default`.
* check: absent / present          - `api` must (not) resolve.
* check: none                      - documented or measured behaviour; reported
  as SKIP (no signature to compare).

A framework that cannot be imported is skipped, unless its package directory
is on sys.path: then signature checks fall back to reading the installed
source with the `ast` module (this is how a CUDA-only torch wheel that fails
to import can still be checked). Use --no-source-fallback to disable that.

Exit status: 0 when nothing mismatched, 1 when a mismatch or error was found
and --strict was given (without --strict the exit status is always 0).
"""
from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import math
import os
import sys
from enum import Enum

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_YAML = os.path.join(HERE, "..", "..", "docs", "framework-facts.yaml")

# framework key in the YAML -> top-level import name
FRAMEWORK_MODULES = {"mindspore": "mindspore", "pytorch": "torch", "tensorflow": "tensorflow"}
# API prefixes written in the YAML -> real top-level module
PREFIX_ALIASES = {"tf": "tensorflow", "ms": "mindspore"}
REQUIRED = "<required>"


class Missing(Exception):
    """Raised when an API or a parameter cannot be found."""


# --------------------------------------------------------------------------
# value comparison
# --------------------------------------------------------------------------
def _candidates(actual):
    """String forms under which an actual default may be written in the YAML."""
    forms = set()
    try:
        forms.add(str(actual))
        forms.add(repr(actual))
    except Exception:  # pragma: no cover - exotic objects
        pass
    if isinstance(actual, Enum):
        forms.update({actual.name, f"{type(actual).__name__}.{actual.name}", str(actual.value)})
    name = getattr(actual, "__name__", None)
    if name:
        forms.add(name)
        mod = getattr(actual, "__module__", None)
        if mod:
            forms.add(f"{mod}.{name}")
    return forms


def values_match(expected, actual) -> bool:
    if actual is inspect.Parameter.empty:
        return expected == REQUIRED
    if expected == REQUIRED:
        return False
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is bool and type(actual) is bool and expected == actual
    if expected is None or actual is None:
        return expected is None and actual is None
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(float(expected), float(actual), rel_tol=1e-9, abs_tol=0.0)
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        return len(expected) == len(actual) and all(values_match(e, a) for e, a in zip(expected, actual))
    if isinstance(actual, Enum):  # e.g. mindspore.dataset.Shuffle is a str-valued Enum
        return isinstance(expected, str) and expected in _candidates(actual)
    if isinstance(expected, str) and isinstance(actual, str):
        return expected == actual
    if isinstance(expected, str):
        return expected in _candidates(actual)
    return expected == actual


def fmt(value) -> str:
    if value is inspect.Parameter.empty:
        return REQUIRED
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= 40 else text[:37] + "..."


# --------------------------------------------------------------------------
# runtime (import) mode
# --------------------------------------------------------------------------
def split_api(api: str):
    parts = api.split(".")
    parts[0] = PREFIX_ALIASES.get(parts[0], parts[0])
    return parts


def resolve_runtime(api: str):
    parts = split_api(api)
    obj = importlib.import_module(parts[0])
    dotted = parts[0]
    for part in parts[1:]:
        dotted = f"{dotted}.{part}"
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module(dotted)
        except ImportError as exc:
            raise Missing(f"{api}: no attribute {part!r}") from exc
    return obj


def _params_from_ast_function(node: ast.FunctionDef):
    """{name: default} for an ast function node; values literal where possible."""
    out = {}
    args = node.args
    positional = list(args.posonlyargs) + list(args.args)
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for arg, dflt in zip(positional, defaults):
        out[arg.arg] = inspect.Parameter.empty if dflt is None else _ast_value(dflt)
    for arg, dflt in zip(args.kwonlyargs, args.kw_defaults):
        out[arg.arg] = inspect.Parameter.empty if dflt is None else _ast_value(dflt)
    out.pop("self", None)
    out.pop("cls", None)
    return out, bool(args.vararg or args.kwarg)


def _ast_value(node):
    try:
        return ast.literal_eval(node)
    except Exception:
        pass
    # 2**24, -1e-3 and similar arithmetic on literals
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        try:
            return eval(compile(ast.Expression(node), "<default>", "eval"), {"__builtins__": {}}, {})
        except Exception:
            pass
    return ast.unparse(node)


def _params_from_source(obj):
    """Parse the source of a class/function that hides its signature behind a decorator."""
    try:
        src = inspect.getsource(obj)
    except (OSError, TypeError):
        return None
    tree = ast.parse(_dedent(src))
    for node in ast.walk(tree):
        if inspect.isclass(obj) and isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__init__":
                    return _params_from_ast_function(item)
            return None
        if not inspect.isclass(obj) and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return _params_from_ast_function(node)
    return None


def _dedent(src: str) -> str:
    lines = src.splitlines()
    indent = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
    return "\n".join(l[indent:] for l in lines)


def runtime_params(obj):
    """Return ({param: default}, has_var_args) for a class or callable."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    target = inspect.unwrap(target)
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        sig = None
    params, has_var = {}, True
    if sig is not None:
        has_var = False
        for name, p in sig.parameters.items():
            if name in ("self", "cls"):
                continue
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                has_var = True
                continue
            params[name] = p.default
    return params, has_var


def runtime_default(api: str, param: str, signature_of: str | None = None):
    obj = resolve_runtime(signature_of or api)
    params, has_var = runtime_params(obj)
    if param in params:
        return params[param]
    if has_var:
        # decorated __init__ without functools.wraps, or an __init__(*args, **kwargs)
        # that forwards to a base class: read source, then walk the MRO.
        chain = inspect.getmro(obj) if inspect.isclass(obj) else (obj,)
        for klass in chain:
            if klass is object:
                continue
            if inspect.isclass(klass) and "__init__" not in vars(klass):
                continue
            parsed = _params_from_source(klass)
            if parsed and param in parsed[0]:
                return parsed[0][param]
            if inspect.isclass(klass):
                sub, _ = runtime_params(klass)
                if param in sub:
                    return sub[param]
    raise Missing(f"{signature_of or api}: no parameter {param!r}")


# --------------------------------------------------------------------------
# source (ast) mode, for packages that are installed but cannot be imported
# --------------------------------------------------------------------------
def package_root(top: str):
    for entry in sys.path:
        candidate = os.path.join(entry or os.getcwd(), top)
        if os.path.isfile(os.path.join(candidate, "__init__.py")):
            return candidate
    return None


class SourceIndex:
    def __init__(self, top: str, root: str):
        self.top, self.root, self.cache = top, root, {}

    def module_file(self, dotted: str):
        rel = dotted.split(".")[1:]
        base = os.path.join(self.root, *rel)
        for path in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(path):
                return path
        return None

    def tree(self, path):
        if path not in self.cache:
            with open(path, encoding="utf-8") as fh:
                self.cache[path] = ast.parse(fh.read(), filename=path)
        return self.cache[path]

    @staticmethod
    def _resolve_relative(module_dotted: str, is_pkg: bool, level: int, name: str | None):
        parts = module_dotted.split(".")
        if not is_pkg:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        return ".".join(parts + ([name] if name else []))

    def find(self, module_dotted: str, name: str, depth: int = 0):
        """Locate a top-level def/class `name` visible in module; returns (node, module_dotted)."""
        if depth > 12:
            return None
        path = self.module_file(module_dotted)
        if path is None:
            return None
        is_pkg = path.endswith("__init__.py")
        tree = self.tree(path)
        star_sources = []
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return node, module_dotted
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                src_mod = (self._resolve_relative(module_dotted, is_pkg, node.level, node.module)
                           if node.level else node.module)
                if not src_mod or not src_mod.startswith(self.top):
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        star_sources.append(src_mod)
                    elif (alias.asname or alias.name) == name:
                        found = self.find(src_mod, alias.name, depth + 1)
                        if found:
                            return found
                        sub = f"{src_mod}.{alias.name}"
                        if self.module_file(sub):
                            return ("module", sub)
            elif isinstance(node, ast.Assign) and depth < 12:
                for tgt in node.targets:
                    if isinstance(tgt, ast.Name) and tgt.id == name and isinstance(node.value, ast.Name):
                        found = self.find(module_dotted, node.value.id, depth + 1)
                        if found:
                            return found
        for src_mod in star_sources:
            found = self.find(src_mod, name, depth + 1)
            if found:
                return found
        return None

    def resolve(self, api: str):
        parts = split_api(api)
        # longest module prefix that exists as a file
        for cut in range(len(parts), 0, -1):
            mod = ".".join(parts[:cut])
            if self.module_file(mod) is None:
                continue
            rest = parts[cut:]
            if not rest:
                raise Missing(f"{api} is a module")
            found = self.find(mod, rest[0])
            if found is None:
                continue
            node, where = found
            if node == "module":
                return self.resolve(".".join([where] + rest[1:]))
            for attr in rest[1:]:
                if not isinstance(node, ast.ClassDef):
                    raise Missing(f"{api}: {attr!r} not found")
                nxt = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                       and n.name == attr]
                if not nxt:
                    raise Missing(f"{api}: {attr!r} not found in source")
                node = nxt[0]
            return node, where
        raise Missing(f"{api}: not found in source tree {self.root}")

    def default(self, api: str, param: str, _depth: int = 0):
        node, where = self.resolve(api)
        return self._default_in(node, where, param, _depth)

    def _default_in(self, node, where, param, depth):
        if depth > 8:
            raise Missing(f"{param!r}: inheritance too deep")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params, _ = _params_from_ast_function(node)
            if param in params:
                return params[param]
            raise Missing(f"no parameter {param!r}")
        init = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "__init__"]
        if init:
            params, has_var = _params_from_ast_function(init[0])
            if param in params:
                return params[param]
            if not has_var:
                raise Missing(f"no parameter {param!r}")
        for base in node.bases:
            base_name = ast.unparse(base).split(".")[-1]
            found = self.find(where, base_name)
            if found and found[0] != "module":
                try:
                    return self._default_in(found[0], found[1], param, depth + 1)
                except Missing:
                    continue
        raise Missing(f"no parameter {param!r}")


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------
def framework_state(key: str, allow_source: bool):
    top = FRAMEWORK_MODULES[key]
    try:
        mod = importlib.import_module(top)
        return "runtime", getattr(mod, "__version__", "?"), None
    except Exception as exc:  # ImportError, OSError from missing shared libraries, ...
        reason = f"{type(exc).__name__}: {str(exc).splitlines()[0][:80] if str(exc) else ''}"
        root = package_root(top) if allow_source else None
        if root:
            version = "?"
            vfile = os.path.join(root, "version.py")
            if os.path.isfile(vfile):
                for line in open(vfile, encoding="utf-8"):
                    if line.startswith("__version__"):
                        version = line.split("=", 1)[1].strip().strip("'\"")
            return "source", version, SourceIndex(top, root)
        return "absent", None, reason


def check_block(key, block, state, index):
    """Yield (label, expected, actual, status, note) rows for one framework block."""
    kind = block.get("check", "signature")
    api = block.get("api", "")
    if kind == "none":
        yield (api, "-", "-", "SKIP", "behavioural fact, no signature")
        return
    if kind not in ("signature", "call", "attribute", "absent", "present"):
        yield (api, "-", "-", "ERROR", f"unknown check kind {kind!r}")
        return
    if state == "source" and kind in ("call", "attribute", "absent", "present"):
        yield (api, "-", "-", "SKIP", f"'{kind}' needs an importable {key}")
        return
    if kind in ("absent", "present"):
        try:
            resolve_runtime(api)
            exists = True
        except (Missing, ImportError, AttributeError):
            exists = False
        ok = exists if kind == "present" else not exists
        yield (api, kind, "present" if exists else "absent", "MATCH" if ok else "MISMATCH", "")
        return
    if kind in ("call", "attribute"):
        attr = block.get("attr")
        args = block.get("ctor_args", [])
        label = f"{api}({', '.join(map(repr, args))})" + (f".{attr}" if attr else "")
        try:
            actual = resolve_runtime(api)(*args, **block.get("ctor_kwargs", {}))
            if attr:
                actual = getattr(actual, attr)
            status = "MATCH" if values_match(block["default"], actual) else "MISMATCH"
            yield (label, fmt(block["default"]), fmt(actual), status, "")
        except Exception as exc:
            yield (label, fmt(block["default"]), "-", "ERROR", f"{type(exc).__name__}: {exc}"[:90])
        return
    # signature checks
    pairs = []
    if "param" in block and "default" in block:
        pairs.append((block["param"], block["default"]))
    pairs.extend((block.get("also") or {}).items())
    target = block.get("signature_of")
    if not pairs:
        yield (api, "-", "-", "ERROR", "signature check without param/default")
        return
    for param, expected in pairs:
        label = f"{api}({param})"
        try:
            if state == "runtime":
                actual = runtime_default(api, param, target)
            else:
                actual = index.default(target or api, param)
            status = "MATCH" if values_match(expected, actual) else "MISMATCH"
            yield (label, fmt(expected), fmt(actual), status, "source/ast" if state == "source" else "")
        except Exception as exc:
            yield (label, fmt(expected), "-", "ERROR", f"{type(exc).__name__}: {exc}"[:90])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--yaml", default=DEFAULT_YAML)
    ap.add_argument("--only", default="mindspore,pytorch,tensorflow")
    ap.add_argument("--no-source-fallback", action="store_true")
    ap.add_argument("--strict", action="store_true", help="exit 1 on any mismatch or error")
    ap.add_argument("--quiet", action="store_true", help="print only non-matching rows and the summary")
    args = ap.parse_args(argv)

    try:
        import yaml  # PyYAML
    except ImportError:
        print("verify_facts.py needs PyYAML: pip install pyyaml", file=sys.stderr)
        return 2
    with open(args.yaml, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    entries = data["entries"] if isinstance(data, dict) else data
    wanted = [f.strip() for f in args.only.split(",") if f.strip()]

    states = {}
    for key in wanted:
        states[key] = framework_state(key, not args.no_source_fallback)
        mode, version, extra = states[key]
        if mode == "absent":
            print(f"# {key}: not importable ({extra}) -> skipped")
        else:
            print(f"# {key}: {version} ({'imported' if mode == 'runtime' else 'not importable; reading source with ast'})")

    rows = []
    for entry in entries:
        for key in wanted:
            block = (entry.get("frameworks") or {}).get(key)
            if not block:
                continue
            mode, _, index = states[key]
            if mode == "absent":
                rows.append((entry["id"], key, block.get("api", ""), "-", "-", "SKIP", "framework not installed"))
                continue
            for label, exp, act, status, note in check_block(key, block, mode, index):
                rows.append((entry["id"], key, label, exp, act, status, note))

    widths = [max(len(str(r[i])) for r in rows + [("id", "fw", "api(param)", "expected", "actual", "status", "note")])
              for i in range(7)]
    widths = [min(w, cap) for w, cap in zip(widths, (34, 10, 64, 28, 28, 8, 60))]

    def line(r):
        return "  ".join(str(c)[:w].ljust(w) for c, w in zip(r, widths)).rstrip()

    print(line(("id", "fw", "api(param)", "expected", "actual", "status", "note")))
    print(line(tuple("-" * w for w in widths)))
    for r in rows:
        if args.quiet and r[5] in ("MATCH", "SKIP"):
            continue
        print(line(r))
    counts = {}
    for r in rows:
        counts[r[5]] = counts.get(r[5], 0) + 1
    print()
    print("summary: " + ", ".join(f"{k}={counts.get(k, 0)}" for k in ("MATCH", "MISMATCH", "ERROR", "SKIP"))
          + f"  ({len(entries)} entries, {len(rows)} checks)")
    bad = counts.get("MISMATCH", 0) + counts.get("ERROR", 0)
    return 1 if (bad and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
