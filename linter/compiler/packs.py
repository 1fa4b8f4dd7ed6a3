"""Stage 4d: load every rule pack of a run (built-in first, then user packs) into one unit.

Problems are collected, not raised one at a time, so a user sees every broken rule file
of a pack at once; any problem makes the run stop before linting (exit code 2).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Sequence, Tuple

from linter.compiler.build import CompiledRule, build_rule, check_unique
from linter.compiler.load import RuleFileError, api_files, builtin_pack, read_yaml, rule_files
from linter.index.apis import ApiTables
from linter.index.roles import RoleSpec


@dataclass
class RulePacks:
    rules: List[CompiledRule]
    apis: ApiTables
    roles: RoleSpec
    checklist: Dict[str, Dict[str, Any]]
    """Checklist id → {title: {en, zh}, decidable: ...} from the built-in checklist.yaml."""
    errors: List[RuleFileError] = field(default_factory=list)
    dirs: Tuple[str, ...] = ()


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
    return RulePacks(rules, ApiTables(api_docs), RoleSpec(roles_data), checklist, errors, tuple(dirs))
