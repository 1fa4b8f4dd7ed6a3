"""What ``trainlint check`` does with a finished run: fingerprints, baseline, statistics and
dispatch to the output format. Kept out of the CLI so editor integrations can reuse it."""
from __future__ import annotations

import json
import os
from collections import Counter
from typing import TYPE_CHECKING, Any, Dict, List, Optional, TextIO, Tuple

from linter.core.model import Diagnostic, ErrorKind, Finding, Severity
from linter.engine.units import RunResult

if TYPE_CHECKING:
    from linter.settings.resolve import Settings


class Report:
    def __init__(self, result: RunResult, settings: "Settings", cwd: str) -> None:
        self.result = result
        self.settings = settings
        self.cwd = cwd
        self.findings: List[Finding] = list(result.findings)
        self.errors: List[Diagnostic] = list(result.errors)
        self.baseline_info: Optional[Dict[str, Any]] = None
        self.fixable: Optional[Tuple[int, int]] = None
        """(findings with a safe fix, with an unsafe fix), when fixes were looked for."""
        self.fixed: Optional[int] = None
        """Fixes applied by this run (``--fix``); the hint to use ``--fix`` is then not shown."""
        base = settings.config.root if settings.config.path else cwd
        for f, fp in zip(self.findings, self._prints(base)):
            f.data["fingerprint"] = fp

    # ------------------------------------------------------------------ fingerprints and baseline
    def _abspath(self, f: Finding) -> str:
        return os.path.abspath(os.path.join(self.cwd, f.path))

    def _prints(self, base: str) -> List[str]:
        # imported when this runs, not at start-up (a cached one-file check does not need it)
        from linter.baseline import fingerprints

        return fingerprints(self.findings, self.result.flagged_text, base, self._abspath)

    def write_baseline(self, path: str) -> int:
        """Record every current finding; returns how many."""
        # imported when this runs, not at start-up (a cached one-file check does not need it)
        from linter.baseline import write_baseline

        base = os.path.dirname(os.path.abspath(path))
        write_baseline(path, self.findings, self._prints(base), self._abspath)
        return len(self.findings)

    def apply_baseline(self) -> None:
        if not self.settings.baseline:
            return
        # imported when this runs, not at start-up (a cached one-file check does not need it)
        from linter.baseline import filter_new, load_baseline

        bl = load_baseline(self.settings.baseline)
        new, matched, stale = filter_new(self.findings, self._prints(bl.base), bl)
        self.findings = new
        self.baseline_info = {"path": os.path.relpath(bl.path, self.cwd), "matched": matched, "stale": stale}

    # ------------------------------------------------------------------ outcome
    @property
    def fatal(self) -> bool:
        return any(e.fatal for e in self.errors)

    @property
    def failing(self) -> bool:
        """Exit code 1: findings at or above ``fail_on`` (``warning`` by default: ``info`` is true
        but minor and never blocks a commit), or anything checked with a caveat (a fallback
        decoding, an imported module that could not be analysed) — a run is never "clean" when
        something was not checked as written. Problems with suppression comments count only
        with ``--strict-suppressions``."""
        if any(f.severity.at_least(self.settings.fail_on) for f in self.findings):
            return True
        strict = self.settings.options.strict_suppressions
        return any(strict or e.kind is not ErrorKind.SUPPRESSION for e in self.errors)

    # ------------------------------------------------------------------ output
    def _rules(self) -> list:
        return [r for r in self.settings.packs.rules if r.id in self.settings.ran]

    def write_errors(self, out: TextIO) -> None:
        # imported when this runs, not at start-up (a cached one-file check does not need it)
        from linter.report.common import error_line

        for e in self.errors:
            out.write(error_line(e) + "\n")

    def shown(self) -> Tuple[List[Finding], int]:
        """The findings the text formats show, and how many ``info`` findings they leave out
        (all of them unless ``--show-info``, or ``--fail-on info``: a run never fails on findings
        it does not show; the machine formats carry every finding)."""
        if self.settings.show_info or self.settings.fail_on is Severity.INFO:
            return self.findings, 0
        shown = [f for f in self.findings if f.severity is not Severity.INFO]
        return shown, len(self.findings) - len(shown)

    def write(self, out: TextIO, quiet: bool = False) -> None:
        fmt, lang = self.settings.format, self.settings.lang
        findings, errors = self.findings, self.errors
        if fmt == "json":
            # the chosen output format only (start-up time: rich for the rich format)
            from linter.report import json_format

            extra: Dict[str, Any] = {"suppressed": self.result.suppressed, "context_files": self.result.context_files}
            if self.baseline_info is not None:
                extra["baseline"] = self.baseline_info
            json_format.write(out, findings, errors, self.result.files, extra)
        elif fmt == "concise":
            # the chosen output format only
            from linter.report import concise

            shown, hidden = self.shown()
            concise.write(out, shown, errors, hidden=0 if quiet else hidden, lang=lang)
        elif fmt == "sarif":
            # the chosen output format only
            from linter.report import sarif

            sarif.write(out, findings, errors, self._rules(), lang)
        elif fmt == "github":
            # the chosen output format only
            from linter.report import github

            github.write(out, findings, errors, self._rules(), lang)
        elif fmt == "junit":
            # the chosen output format only
            from linter.report import junit

            junit.write(out, findings, errors, self._rules(), lang, fail_on=self.settings.fail_on)
        else:
            # the chosen output format only
            from linter.report import text

            shown, hidden = self.shown()
            text.write(out, shown, errors, self.result.files, self.result, self.settings.packs.checklist, lang,
                       quiet=quiet, baseline=self.baseline_info, fixable=self.fixable if self.fixed is None else None,
                       hidden_info=hidden)

    def statistics(self, out: TextIO) -> None:
        """Findings per rule, most frequent first (Ruff's ``--statistics``), each with its count
        per severity: every level is counted, ``info`` included."""
        by_rule = {r.id: r for r in self.settings.packs.rules}
        counts = Counter(f.rule for f in self.findings)
        levels: Dict[str, Counter] = {}
        for f in self.findings:
            levels.setdefault(f.rule, Counter())[f.severity.value] += 1
        rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        order = [s.value for s in Severity]
        if self.settings.format == "json":
            json.dump([{"rule": rid, "name": by_rule[rid].name if rid in by_rule else rid,
                        "checklist": by_rule[rid].checklist if rid in by_rule else "", "count": n,
                        "by_severity": {lv: levels[rid][lv] for lv in order if levels[rid][lv]}} for rid, n in rows],
                      out, indent=2, ensure_ascii=False)
            out.write("\n")
            return
        width = max((len(str(n)) for _, n in rows), default=1)
        for rid, n in rows:
            r = by_rule.get(rid)
            split = ", ".join(f"{levels[rid][lv]} {lv}" for lv in order if levels[rid][lv])
            out.write(f"{n:>{width}}  {rid:<7} {('[' + r.checklist + ']') if r else '':<9} {r.name if r else ''}"
                      f"  ({split})\n")
        self.write_errors(out)
