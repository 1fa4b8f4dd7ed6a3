"""Stage 4d: load every rule pack of a run (built-in first, then user packs) into one unit.

Problems are collected, not raised one at a time, so a user sees every broken rule file
of a pack at once; any problem makes the run stop before linting (exit code 2).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from linter.compiler.build import CompiledRule, build_rule, check_unique
from linter.compiler.load import RuleFileError, api_files, builtin_pack, read_yaml, rule_files
from linter.index.apis import ApiTables
from linter.program.roles import RoleSpec

if TYPE_CHECKING:
    from linter.core.cache import Cache


@dataclass
class RulePacks:
    rules: List[CompiledRule]
    apis: ApiTables
    roles: RoleSpec
    checklist: Dict[str, Dict[str, Any]]
    """Checklist id → {title: {en, zh}, decidable: ...} from the built-in checklist.yaml."""
    errors: List[RuleFileError] = field(default_factory=list)
    dirs: Tuple[str, ...] = ()
    digest: str = ""
    """Digest of every file the packs were built from (and of the compiler): keys caches."""


def pack_files(dirs: Sequence[str]) -> List[str]:
    """Every file :func:`load_packs` reads for these directories, in reading order."""
    base = builtin_pack()
    out = [os.path.join(base, "roles.yaml"), os.path.join(base, "checklist.yaml")]
    for d in ([base] if base not in dirs else []) + list(dirs):
        out += api_files(d)
    for d in dirs:
        if os.path.isdir(d):
            out += rule_files(d)
    return out


PACKS_CODE = ("compiler", "schema", "index/apis.py", "program/role_spec.py")
"""The code compiled rule packs depend on: the compiler, the schema, the API tables and role spec."""


def packs_digest(dirs: Sequence[str]) -> str:
    """Digest of the rule files (names, sizes, modification times) and the compiler's code."""
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.core.cache import Cache, code_digest, stamp

    return Cache.digest([code_digest(*PACKS_CODE)]
                        + [stamp(path) for path in pack_files(dirs)])


def load_packs_cached(extra_dirs: Sequence[str] = (), builtin: bool = True, cache: Optional["Cache"] = None) -> RulePacks:
    """:func:`load_packs`, from the cache when no rule file (and no compiler source) changed:
    a warm start needs neither PyYAML nor jsonschema."""
    dirs = ([builtin_pack()] if builtin else []) + [os.path.abspath(d) for d in extra_dirs]
    if cache is None or not cache.enabled:
        return load_packs(extra_dirs, builtin)
    digest = packs_digest(dirs)
    hit = cache.get("packs", "v1", digest)
    if isinstance(hit, RulePacks):
        return hit
    packs = load_packs(extra_dirs, builtin)
    packs.digest = digest
    if not packs.errors:
        cache.put("packs", "v1", digest, packs)
    return packs


def load_packs(extra_dirs: Sequence[str] = (), builtin: bool = True, validate: bool = True) -> RulePacks:
    dirs: List[str] = ([builtin_pack()] if builtin else []) + [os.path.abspath(d) for d in extra_dirs]
    errors: List[RuleFileError] = []
    rules: List[CompiledRule] = []
    api_docs: List[Tuple[str, Dict[str, Any]]] = []
    base = builtin_pack()
    roles_data: Dict[str, Any] = {}
    checklist: Dict[str, Dict[str, Any]] = {}
    for meta, target in (("roles.yaml", "roles"), ("checklist.yaml", "checklist")):
        path = os.path.join(base, meta)
        try:
            data = read_yaml(path).data or {}
        except RuleFileError as exc:
            errors.append(exc)
            data = {}
        if target == "roles":
            roles_data = data
        else:
            checklist = data.get("items", {}) if isinstance(data, dict) else {}
    # The built-in API tables are needed even with --no-default-rules: they describe the frameworks.
    for d in ([base] if base not in dirs else []) + dirs:
        for path in api_files(d):
            try:
                api_docs.append((path, read_yaml(path).data or {}))
            except RuleFileError as exc:
                errors.append(exc)
    for d in dirs:
        if not os.path.isdir(d):
            errors.append(RuleFileError(d, "rule directory does not exist"))
            continue
        for path in rule_files(d):
            try:
                rules.append(build_rule(read_yaml(path), validate=validate))
            except RuleFileError as exc:
                errors.append(exc)
    try:
        check_unique(rules)
    except RuleFileError as exc:
        errors.append(exc)
    rules.sort(key=lambda r: r.id)
    return RulePacks(rules, ApiTables(api_docs), RoleSpec(roles_data), checklist, errors, tuple(dirs),
                     packs_digest(dirs))
