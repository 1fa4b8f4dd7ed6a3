"""Which framework version's semantics to assume, and where that choice came from.

Order: ``--target-version`` on the command line, ``target-version`` in the config, the
version installed in the environment trainlint runs in (read from the name of its
``*.dist-info`` directory — the framework is never imported), else the version of the bundled signature tables. Messages
name the version and its source ("MindSpore 2.3 (config)").
"""
from __future__ import annotations

import os
import re
import sys
from typing import Dict, Mapping, Optional, Sequence, Tuple

# Distributions that provide each framework, most common first.
DISTRIBUTIONS: Dict[str, Tuple[str, ...]] = {
    "mindspore": ("mindspore", "mindspore-gpu", "mindspore-ascend", "mindspore-dev"),
    "pytorch": ("torch",),
    "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos", "tf-nightly"),
}
_VERSION = re.compile(r"^\d+(\.\d+){0,2}")


def installed_version(framework: str, paths: Optional[Sequence[str]] = None) -> Optional[str]:
    """The version of the framework installed on ``sys.path``, from its ``*.dist-info`` (or
    ``*.egg-info``) directory name — what ``importlib.metadata`` reads, without its import cost
    (this runs on every start-up)."""
    wanted = [d.replace("-", "_").lower() for d in DISTRIBUTIONS.get(framework, ())]
    found: Dict[str, str] = {}
    for entry in (paths if paths is not None else sys.path):
        for name in _listing(entry):
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            dist, _, version = name.rsplit(".", 1)[0].partition("-")
            key = dist.replace("-", "_").replace(".", "_").lower()
            if key in wanted and key not in found:
                m = _VERSION.match(version)
                if m:
                    found[key] = m.group(0)
        for key in wanted:
            if key in found:
                return found[key]
    return None


_LISTINGS: Dict[str, Tuple[str, ...]] = {}


def _listing(entry: str) -> Tuple[str, ...]:
    hit = _LISTINGS.get(entry)
    if hit is None:
        try:
            hit = tuple(os.listdir(entry or "."))
        except OSError:
            hit = ()
        _LISTINGS[entry] = hit
    return hit


def resolve(cli: Mapping[str, str], config: Mapping[str, str], detect: bool = True,
            paths: Optional[Sequence[str]] = None) -> Tuple[Dict[str, str], Dict[str, str]]:
    """(framework → version, framework → source label) for the frameworks with a known version;
    the others use the tables' default version (labelled "default" by the matcher)."""
    versions: Dict[str, str] = {}
    sources: Dict[str, str] = {}
    for fw in DISTRIBUTIONS:
        if fw in cli:
            versions[fw], sources[fw] = cli[fw], "--target-version"
        elif fw in config:
            versions[fw], sources[fw] = config[fw], "config"
        elif detect:
            v = installed_version(fw, paths)
            if v is not None:
                versions[fw], sources[fw] = v, "installed"
    return versions, sources


def parse_target(item: str) -> Optional[Tuple[str, str]]:
    """``mindspore=2.3`` → ("mindspore", "2.3"); None if malformed."""
    fw, sep, ver = item.partition("=")
    fw = {"torch": "pytorch", "tf": "tensorflow", "ms": "mindspore"}.get(fw.strip().lower(), fw.strip().lower())
    ver = ver.strip()
    if not sep or fw not in DISTRIBUTIONS or not _VERSION.match(ver):
        return None
    return fw, ver
