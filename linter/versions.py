"""Which framework version's semantics to assume, and where that choice came from.

Order: ``--target-version`` on the command line, ``target-version`` in the config, the
version installed in the environment trainlint runs in (read from package metadata — the
framework is never imported), else the version of the bundled signature tables. Messages
name the version and its source ("MindSpore 2.3 (config)").
"""
from __future__ import annotations

import re
from typing import Dict, Mapping, Optional, Tuple

# Distributions that provide each framework, most common first.
DISTRIBUTIONS: Dict[str, Tuple[str, ...]] = {
    "mindspore": ("mindspore", "mindspore-gpu", "mindspore-ascend", "mindspore-dev"),
    "pytorch": ("torch",),
    "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-macos", "tf-nightly"),
}
_VERSION = re.compile(r"^\d+(\.\d+){0,2}")


def installed_version(framework: str) -> Optional[str]:
    from importlib import metadata

    for dist in DISTRIBUTIONS.get(framework, ()):
        try:
            v = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
        except Exception:  # a broken installation must not break linting
            continue
        m = _VERSION.match(v or "")
        if m:
            return m.group(0)
    return None


def resolve(cli: Mapping[str, str], config: Mapping[str, str],
            detect: bool = True) -> Tuple[Dict[str, str], Dict[str, str]]:
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
            v = installed_version(fw)
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
