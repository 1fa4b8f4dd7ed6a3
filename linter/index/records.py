"""Where record values (:class:`~linter.index.values.Record`) come from: the configuration file
a project function loads by default (a YAML/JSON file its module names, found next to it),
record-like calls (``EasyDict(lr=0.1)``) and ``parser.parse_args()`` (the defaults of the
``add_argument`` calls on that parser).

One part of :class:`~linter.index.project.Project`; reading and merging configuration files is
:mod:`linter.index.configs`.
"""
from __future__ import annotations

import os
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from linter.facts.model import CallFact
from linter.index.configs import CONFIG_SUFFIXES, ConfigMap
from linter.index.state import _UNK, ProjectState
from linter.index.values import Func, Obj, Record, Value

_CONFIG_READERS = frozenset({"load", "safe_load", "load_all", "safe_load_all", "full_load", "full_load_all"})


class Records(ProjectState):
    """Configurations loaded by project functions, record-like calls and argparse namespaces."""

    # ------------------------------------------------------------------ configuration files
    def config_loader(self, f: Func) -> Optional[str]:
        """The configuration file a project function loads by default, when it (or a project
        function it calls, three levels down) reads YAML/JSON (``yaml.load``, ``json.load``)
        and its module names a ``.yaml``/``.yml``/``.json`` file that exists (relative to the
        module, as ``os.path.join(current_dir, "../default_config.yaml")`` does)."""
        key = (f.file, f.index)
        if key in self._loaders:
            return self._loaders[key]
        self._loaders[key] = None
        out = None
        if self._reads_config(f):
            out = self._default_config(f.file)
        self._loaders[key] = out
        return out

    def _reads_config(self, f: Func) -> bool:
        for sfi, sscope in self.callee_closure([(f.file, f.index)], 3):
            for cid, c in enumerate(self.files[sfi].calls):
                if c.scope != sscope:
                    continue
                last = (c.dotted or "").rsplit(".", 1)[-1]
                if last in _CONFIG_READERS and any(n.split(".", 1)[0] in ("yaml", "json") or n.startswith("?.")
                                                   for n in self.call_names(sfi, cid)):
                    return True
        return False

    def _default_config(self, fi: int) -> Optional[str]:
        facts = self.files[fi]
        here = os.path.dirname(self.abspaths[fi])
        texts: List[str] = []
        for c in facts.calls:
            for a in c.args:
                if a.value[0] == "const" and isinstance(a.value[1], str):
                    texts.append(a.value[1])
        for asg in facts.assigns:
            if asg.value[0] == "const" and isinstance(asg.value[1], str):
                texts.append(asg.value[1])
        for t in texts:
            if not t.lower().endswith(CONFIG_SUFFIXES) or "\n" in t or len(t) > 300:
                continue
            for base in (here, os.path.dirname(here), os.path.dirname(os.path.dirname(here))):
                cand = os.path.normpath(os.path.join(base, t))
                if self._exists(cand) and self.configs.load(cand) is not None:
                    return cand
        # The default names a file of a `config/` folder that this copy does not ship (a
        # benchmark folder keeping only `resnet50_imagenet2012_Boost_config.yaml` while the
        # helper still defaults to `resnet50_cifar10_config.yaml`): the scripts pass one of the
        # files that are there, so those are the configurations.
        for t in texts:
            if not t.lower().endswith(CONFIG_SUFFIXES) or "\n" in t or len(t) > 300:
                continue
            for base in (here, os.path.dirname(here), os.path.dirname(os.path.dirname(here))):
                folder = os.path.dirname(os.path.normpath(os.path.join(base, t)))
                if os.path.basename(folder) not in ("config", "configs"):
                    continue
                for name in sorted(self.configs.listdir(folder)):
                    path = os.path.join(folder, name)
                    if name.lower().endswith(CONFIG_SUFFIXES) and self.configs.load(path) is not None:
                        return path
        return None

    def _loaded_config(self, default: str, fi: int, cid: int) -> FrozenSet[Value]:
        variants = self.configs.variants(default)
        if not variants:
            return _UNK
        fields: List[Tuple[str, Tuple[int, int, Any]]] = []
        for cmap in variants:
            fields += [(k, (fi, 0, ("config", cmap, k))) for k in sorted(cmap.items)]
        return frozenset((Record(tuple(fields), fi, cid, "config"),))

    def _config_record(self, cmap: ConfigMap, fi: int, cid: int) -> Record:
        return Record(tuple((k, (fi, 0, ("config", cmap, k))) for k in sorted(cmap.items)), fi, cid, "config")

    def _record(self, fi: int, call: CallFact, cid: int, spec: Dict[str, Any]) -> Record:
        fields: List[Tuple[str, Tuple[int, int, Any]]] = []
        for a in call.args:
            if a.keyword is not None:
                fields.append((a.keyword, (fi, call.scope, a.value)))
            elif a.star == "" and a.value[0] == "dict":
                for k, v in zip(a.value[1], a.value[2]):
                    if k is not None and k[0] == "const" and isinstance(k[1], str):
                        fields.append((k[1], (fi, call.scope, v)))
        return Record(tuple(fields), fi, cid)

    def _argparse_record(self, parser: Obj, fi: int, cid: int) -> Record:
        """``parser.parse_args()`` → the defaults of the ``add_argument`` calls on that parser."""
        fields: List[Tuple[str, Tuple[int, int, Any]]] = []
        pfi = parser.file
        if pfi < 0:
            return Record((), fi, cid, "argparse")
        facts = self.files[pfi]
        for acid in facts.callee_index.get("add_argument", ()):
            c = facts.calls[acid]
            recv = [v for v in self.values(pfi, c.scope, c.func[1]) if isinstance(v, Obj)] if c.func[0] == "attr" else []
            if not any(r.origin == parser.origin for r in recv):
                continue
            dest = None
            default: Any = ("const", None)
            kind = None
            for a in c.args:
                if a.keyword is None and a.value[0] == "const" and isinstance(a.value[1], str):
                    if dest is None or a.value[1].startswith("--"):
                        dest = a.value[1].lstrip("-").replace("-", "_")
                elif a.keyword == "dest" and a.value[0] == "const":
                    dest = str(a.value[1])
                elif a.keyword == "default":
                    default = a.value
                elif a.keyword == "type" and a.value[0] == "name" and a.value[1] in ("int", "float"):
                    kind = a.value[1]
                elif a.keyword == "action" and a.value[0] == "const" and a.value[1] in ("store_true", "store_false") \
                        and default == ("const", None):
                    default = ("const", a.value[1] == "store_false")
            if kind and default[0] == "const" and isinstance(default[1], str):
                # argparse applies `type` to a string default: `type=float, default="0.1"` is 0.1
                try:
                    default = ("const", int(default[1]) if kind == "int" else float(default[1]))
                except ValueError:
                    pass
            if dest:
                fields.append((dest, (pfi, c.scope, default)))
        return Record(tuple(fields), fi, cid, "argparse")
