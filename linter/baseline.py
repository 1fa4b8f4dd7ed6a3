"""Stage 6b: baselines — adopt trainlint on an existing repository, report only new findings.

A finding's fingerprint survives line shifts: it hashes the rule, the file (POSIX path
relative to the baseline file's directory, so the baseline works from any working directory),
the flagged statement's source with whitespace normalised, and the occurrence index among
identical (rule, file, statement) triples — so two identical bugs in one file are two
entries, and fixing one of them leaves exactly one.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from typing import Callable, List, Sequence, Tuple

from linter import __version__
from linter.core.atomic import write_atomic
from linter.core.digest import sha256
from linter.core.model import Finding

FORMAT = 1


class BaselineError(Exception):
    def __init__(self, path: str, message: str) -> None:
        self.path, self.message = path, message
        super().__init__(f"{path}: {message}")


def normalise(text: str) -> str:
    return " ".join(text.split())


def fingerprints(findings: Sequence[Finding], text_of: Callable[[Finding], str], base: str,
                 abspath_of: Callable[[Finding], str]) -> List[str]:
    """One fingerprint per finding (same order). ``text_of`` gives the flagged statement's
    source; ``base`` is the directory file paths are made relative to."""
    seen: Counter = Counter()
    order = sorted(range(len(findings)), key=lambda i: findings[i].sort_key())
    result = [""] * len(findings)
    for i in order:
        f = findings[i]
        rel = os.path.relpath(abspath_of(f), base).replace(os.sep, "/")
        key = (f.rule, rel, normalise(text_of(f)))
        index = seen[key]
        seen[key] += 1
        digest = sha256("\0".join(key + (str(index),)).encode("utf-8", "surrogatepass")).hexdigest()
        result[i] = digest[:32]
    return result


@dataclass
class Baseline:
    path: str
    entries: Counter
    """fingerprint → how many times it is recorded."""

    @property
    def base(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))


def load_baseline(path: str) -> Baseline:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except OSError as exc:
        raise BaselineError(path, f"cannot read baseline: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(path, f"not a trainlint baseline (invalid JSON at line {exc.lineno}: {exc.msg})") from None
    if not isinstance(doc, dict) or doc.get("trainlint_baseline") != FORMAT or not isinstance(doc.get("findings"), list):
        raise BaselineError(path, f"not a trainlint baseline (expected {{\"trainlint_baseline\": {FORMAT}, \"findings\": [...]}}; "
                                  "write one with `trainlint check --write-baseline FILE`)")
    entries: Counter = Counter()
    for i, e in enumerate(doc["findings"]):
        if not isinstance(e, dict) or not isinstance(e.get("fingerprint"), str):
            raise BaselineError(path, f"findings[{i}] has no fingerprint")
        entries[e["fingerprint"]] += 1
    return Baseline(path, entries)


def write_baseline(path: str, findings: Sequence[Finding], prints: Sequence[str],
                   abspath_of: Callable[[Finding], str]) -> None:
    base = os.path.dirname(os.path.abspath(path))
    rows = []
    for f, fp in zip(findings, prints):
        shown = os.path.relpath(abspath_of(f), base).replace(os.sep, "/")
        rows.append({"fingerprint": fp, "rule": f.rule, "path": shown, "line": f.span.line, "message": f.message})
    rows.sort(key=lambda r: (r["path"], r["line"], r["rule"], r["fingerprint"]))
    doc = {"trainlint_baseline": FORMAT, "created_by": f"trainlint {__version__}",
           "note": "Findings recorded here are not reported by `trainlint check --baseline`. "
                   "Lines are informational; matching uses the fingerprints.",
           "findings": rows}
    write_atomic(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def filter_new(findings: Sequence[Finding], prints: Sequence[str], baseline: Baseline) -> Tuple[List[Finding], int, int]:
    """(findings not in the baseline, how many were in it, baseline entries no longer found)."""
    left = Counter(baseline.entries)
    new: List[Finding] = []
    matched = 0
    for f, fp in zip(findings, prints):
        if left[fp] > 0:
            left[fp] -= 1
            matched += 1
        else:
            new.append(f)
    return new, matched, sum(left.values())
