"""The unit of work of a run and what a run returns: options, and the result every report
format reads."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, List, Optional, Tuple

from linter.core.model import Diagnostic, Finding, Severity, Span
from linter.core.observer import Observer
from linter.facts.parse_file import DEFAULT_MAX_FILE_SIZE
from linter.source.decode import source_lines

if TYPE_CHECKING:
    from linter.core.cache import Cache
    from linter.facts.ahead import ParseAhead
    from linter.match.context import MatchContext
    from linter.source.notebooks import Notebook


@dataclass
class Options:
    lang: str = "en"
    versions: Dict[str, str] = field(default_factory=dict)
    version_sources: Dict[str, str] = field(default_factory=dict)
    select: Optional[Callable[[str], bool]] = None
    """Rule filter (by id); None = every loaded rule."""
    per_file_ignores: Optional[Callable[[str], FrozenSet[str]]] = None
    """Rule ids not reported in a file (by absolute path), from the config."""
    severity: Dict[str, Severity] = field(default_factory=dict)
    """Rule id → the severity its findings are reported with (config overrides)."""
    strict_suppressions: bool = False
    jobs: int = 1
    """Worker processes for parsing and matching (1 = all in this process)."""
    cache: Optional["Cache"] = None
    """Facts cache (None = parse everything)."""
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    """Bytes; larger files are reported (kind ``limit``) and not parsed."""
    observer: Optional[Observer] = None
    """Receives stage and rule timings and progress ticks (``--profile``, the progress bar)."""
    freeze_facts: bool = True
    """Freeze parsed facts out of the garbage collector's reach (one project per run); off
    when a many-project tree is checked project by project and each project is freed."""
    rule_workers: bool = True
    """Run each rule in a forked worker on a large project (see :mod:`linter.match`); off for
    the projects of a many-project tree, which are small and may run in workers themselves."""
    parse_ahead: Optional["ParseAhead"] = None
    """A parser process the command line started early, for the first files to parse."""


@dataclass
class RunResult:
    findings: List[Finding]
    errors: List[Diagnostic]
    files: int
    """Files linted (context files excluded)."""
    context_files: int = 0
    suppressed: int = 0
    sources: Dict[str, str] = field(default_factory=dict)
    """Text of the linted files that have findings (for reports that show source lines)."""

    notebooks: Dict[str, Notebook] = field(default_factory=dict)
    """Notebooks that have findings (for showing the cell's lines)."""
    context: Optional[MatchContext] = field(default=None, repr=False)
    """The project index and roles the rules ran on, when the caller asked to keep them
    (``audit`` asks more questions of it); never cached."""
    _lines: Dict[Any, List[str]] = field(default_factory=dict, repr=False)

    def lines_for(self, f: Finding) -> Tuple[List[str], Span]:
        """The lines of the file (of the cell, for notebooks) a finding is in, and its span
        in them; ``([], span)`` when the text is not kept."""
        nb = self.notebooks.get(f.path)
        if nb is not None and f.cell is not None:
            key = (f.path, f.cell.cell)
            lines = self._lines.get(key)
            if lines is None:
                lines = self._lines[key] = source_lines(nb.cell_source(f.cell.cell))
            return lines, f.cell.span
        src = self.sources.get(f.path)
        if src is None:
            return [], f.span
        lines = self._lines.get(f.path)
        if lines is None:
            lines = self._lines[f.path] = source_lines(src)
        return lines, f.span

    def flagged_text(self, f: Finding) -> str:
        """The full source lines a finding spans (baseline fingerprints)."""
        lines, span = self.lines_for(f)
        return "\n".join(lines[span.line - 1:span.end_line])
