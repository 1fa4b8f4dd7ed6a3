"""One place where the configuration file and the command line are merged into the settings
of a run (command line wins; ``select`` layers as in Ruff)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence

from linter.core.model import Severity
from linter.engine.packs import RulePacks, load_packs_cached
from linter.engine.units import Options
from linter.settings.config import Config, ConfigError, find_config, load_config
from linter.settings.installed import parse_target, resolve
from linter.settings.selection import Layer, ids_matching, known_selector, selected_ids
from linter.source.discover import DEFAULT_EXCLUDE, DEFAULT_INCLUDE, Walk
from linter.source.gitignore import compile_pattern


class RuleErrors(Exception):
    """Rule files that failed to load (each error names its file, line and JSON path)."""

    def __init__(self, errors: Sequence[object]) -> None:
        self.errors = list(errors)
        super().__init__("; ".join(map(str, self.errors)))


@dataclass
class CliOverrides:
    """What the command line says (None/empty = not given)."""

    select: Optional[List[str]] = None
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    rules: List[str] = field(default_factory=list)
    no_default_rules: bool = False
    target_version: List[str] = field(default_factory=list)
    format: Optional[str] = None
    lang: Optional[str] = None
    config: Optional[str] = None
    isolated: bool = False
    force_exclude: bool = False
    strict_suppressions: bool = False
    baseline: Optional[str] = None
    jobs: Optional[int] = None
    no_cache: bool = False
    cache_dir: Optional[str] = None
    max_file_size: Optional[float] = None
    fail_on: Optional[str] = None
    show_info: bool = False


@dataclass
class Settings:
    config: Config
    packs: RulePacks
    options: Options
    walk: Walk
    format: str
    lang: str
    baseline: Optional[str]
    ran: FrozenSet[str]
    """Ids of the rules that run."""
    run_key: Optional[str] = None
    """Digest of everything besides the input files that decides the findings (result cache)."""
    fail_on: Severity = Severity.WARNING
    """The lowest severity whose findings fail the run (exit 1)."""
    show_info: bool = False
    """Whether the text formats show ``info`` findings (the machine formats always carry them)."""


def config_for(paths: Sequence[str], cwd: str, explicit: Optional[str], isolated: bool) -> Config:
    if isolated:
        return Config(root=cwd)
    if explicit:
        path = os.path.abspath(os.path.join(cwd, explicit))
        if not os.path.isfile(path):
            raise ConfigError(explicit, "configuration file does not exist")
        return load_config(path)
    found = find_config(paths, cwd)
    return load_config(found[0]) if found else Config(root=cwd)


def per_file_ignores(config: Config, packs: RulePacks) -> Optional[Callable[[str], FrozenSet[str]]]:
    """A function abspath → rule ids ignored there. A pattern matches a file when it matches
    the file's path relative to the config file, or one of its directories (so ``tests``,
    ``tests/`` and ``tests/**`` all cover ``tests/unit/x.py``)."""
    if not config.per_file_ignores:
        return None
    table = []
    for glob, selectors in config.per_file_ignores:
        pat = compile_pattern(glob)
        if pat is not None:
            table.append((pat.regex, ids_matching(selectors, packs.rules)))

    def ignored(abspath: str) -> FrozenSet[str]:
        rel = os.path.relpath(abspath, config.root)
        if rel.startswith(".."):
            return frozenset()
        parts = rel.replace(os.sep, "/").split("/")
        prefixes = ["/".join(parts[:i]) for i in range(len(parts), 0, -1)]
        out: FrozenSet[str] = frozenset()
        for regex, ids in table:
            if any(regex.match(p) for p in prefixes):
                out |= ids
        return out

    return ignored


def resolve_settings(paths: Sequence[str], cwd: str, cli: CliOverrides) -> Settings:
    """Raises :class:`ConfigError` for a bad config, an unknown selector or version."""
    config = config_for(paths, cwd, cli.config, cli.isolated)
    where = config.path or "command line"
    cache = None
    if not cli.no_cache:
        # only when caching is on
        from linter.core.cache import Cache

        cache_dir = cli.cache_dir and os.path.abspath(os.path.join(cwd, cli.cache_dir))
        cache = Cache(cache_dir or config.cache_dir)
    packs = load_packs_cached(list(config.rules) + [os.path.abspath(os.path.join(cwd, d)) for d in cli.rules],
                              builtin=not (cli.no_default_rules or config.no_default_rules), cache=cache)
    if packs.errors:
        raise RuleErrors(packs.errors)
    for origin, selectors in (
        (where, (config.select or []) + config.extend_select + config.ignore
         + [s for _, sel in config.per_file_ignores for s in sel] + list(config.severity)),
        ("command line", (cli.select or []) + cli.extend_select + cli.ignore),
    ):
        for s in selectors:
            if s.upper() != "ALL" and not known_selector(s, packs.rules):
                raise ConfigError(origin, f"unknown rule selector {s!r} (use an id, id prefix, name, checklist id, "
                                          "framework or tag; see `trainlint rules`)")
    ran = selected_ids(packs.rules, [Layer(config.select, config.extend_select, config.ignore),
                                     Layer(cli.select, cli.extend_select, cli.ignore)])
    targets: Dict[str, str] = {}
    for item in cli.target_version:
        parsed = parse_target(item)
        if parsed is None:
            raise ConfigError("command line", f"--target-version expects FRAMEWORK=VERSION with FRAMEWORK one of "
                                              f"mindspore, pytorch, tensorflow; got {item!r}")
        targets[parsed[0]] = parsed[1]
    versions, sources = resolve(targets, config.target_version)
    severity: Dict[str, Severity] = {}
    for selector, level in config.severity.items():
        for rid in ids_matching([selector], packs.rules):
            severity[rid] = Severity(level)
    lang = cli.lang or config.lang or "en"
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.facts.batch import default_jobs

    jobs = cli.jobs if cli.jobs is not None else config.jobs if config.jobs is not None else default_jobs()
    options = Options(lang=lang, versions=versions, version_sources=sources, select=ran.__contains__,
                      per_file_ignores=per_file_ignores(config, packs), severity=severity,
                      strict_suppressions=cli.strict_suppressions or config.strict_suppressions,
                      jobs=max(1, jobs), cache=cache, max_file_size=_megabytes(
                          cli.max_file_size if cli.max_file_size is not None else config.max_file_size))
    walk = Walk(
        include=tuple(config.include if config.include is not None else DEFAULT_INCLUDE) + tuple(config.extend_include),
        exclude=tuple(config.exclude if config.exclude is not None else DEFAULT_EXCLUDE) + tuple(config.extend_exclude),
        exclude_base=config.root,
        respect_gitignore=config.respect_gitignore,
        force_exclude=cli.force_exclude or config.force_exclude,
    )
    baseline = os.path.abspath(os.path.join(cwd, cli.baseline)) if cli.baseline else config.baseline
    run_key = None
    if cache is not None:
        # only when caching is on
        from linter.core.cache import Cache, code_digest

        run_key = Cache.digest([
            packs.digest, code_digest("."), lang, repr(sorted(versions.items())), repr(sorted(sources.items())),
            repr(sorted(ran)), repr(sorted((k, v.value) for k, v in severity.items())),
            repr(config.per_file_ignores), config.root, repr(options.strict_suppressions),
            str(options.max_file_size)])
    return Settings(config, packs, options, walk, cli.format or config.format or "rich", lang, baseline, ran, run_key,
                    fail_on=Severity(cli.fail_on or config.fail_on or "warning"),
                    show_info=cli.show_info or config.show_info)


def _megabytes(mb: Optional[float]) -> int:
    # imported when this runs, not at start-up (a cached one-file check does not need it)
    from linter.facts.parse_file import DEFAULT_MAX_FILE_SIZE

    return DEFAULT_MAX_FILE_SIZE if mb is None else int(mb * 1024 * 1024)
