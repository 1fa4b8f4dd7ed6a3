"""JUnit XML (``--format junit``), for CI dashboards that only understand test reports.

One ``<testsuite>`` per file with findings or diagnostics, one ``<testcase>`` per finding —
failing when the finding is at or above ``--fail-on`` (``warning`` by default), passing with
the finding in ``<system-out>`` below it, as the exit code has it — an ``<error>`` per fatal diagnostic (the file was not fully checked). Non-fatal
diagnostics are warnings about *how* a file was checked, so they are reported as passing
test cases with the warning in ``<system-err>``: counting them as errors would fail the
dashboard for a run whose exit code is clean. A run with nothing to report still emits one
passing test case, so the dashboard shows that trainlint ran.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Dict, List, Sequence, TextIO, Tuple

from linter.compiler.build import CompiledRule
from linter.core.model import Diagnostic, Finding, Severity
from linter.report.common import error_line, finding_line

# Characters XML 1.0 cannot carry at all (even escaped); lone surrogates cannot be encoded.
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _clean(text: str) -> str:
    """Make ``text`` representable in XML; ElementTree escapes ``<&"`` but writes control
    characters through, producing a file parsers reject."""
    return _ILLEGAL.sub(lambda m: _spelled(ord(m.group())), text)


def _spelled(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _finding_case(f: Finding, fails: bool) -> ET.Element:
    # Notebooks: the position users see is inside the cell (the body line says the same).
    c = f.cell
    where = f"cell {c.cell}:{c.span.line}:{c.span.column}" if c is not None else f"{f.span.line}:{f.span.column}"
    case = ET.Element("testcase", classname=_clean(f.path), name=_clean(f"{f.rule} {f.name} at {where}"))
    if fails:
        failure = ET.SubElement(case, "failure", message=_clean(f.message), type=f.rule)
        failure.text = _clean(finding_line(f))
    else:
        ET.SubElement(case, "system-out").text = _clean(finding_line(f))
    return case


def _diagnostic_case(e: Diagnostic) -> ET.Element:
    name = f"trainlint {e.kind.value}"
    if e.line is not None:
        name += f" at {e.line}" + (f":{e.column}" if e.column is not None else "")
    case = ET.Element("testcase", classname=_clean(e.path or "trainlint"), name=_clean(name))
    if e.fatal:
        err = ET.SubElement(case, "error", message=_clean(e.message), type=e.kind.value)
        err.text = _clean(error_line(e))
    else:
        ET.SubElement(case, "system-err").text = _clean(error_line(e))
    return case


def document(findings: List[Finding], errors: List[Diagnostic], lang: str = "en",
             fail_on: Severity = Severity.WARNING) -> ET.Element:
    """``lang`` is unused (messages arrive translated); kept for a uniform signature."""
    suites: Dict[str, List[Tuple[ET.Element, str]]] = {}
    for f in findings:
        fails = f.severity.at_least(fail_on)
        suites.setdefault(f.path, []).append((_finding_case(f, fails), "failure" if fails else "pass"))
    for e in errors:
        suites.setdefault(e.path or "trainlint", []).append((_diagnostic_case(e), "error" if e.fatal else "pass"))
    if not suites:
        ok = ET.Element("testcase", classname="trainlint", name="no findings")
        suites["trainlint"] = [(ok, "pass")]
    root = ET.Element("testsuites", name="trainlint")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for path in sorted(suites):
        cases = suites[path]
        counts = {"tests": len(cases), "failures": sum(1 for _, k in cases if k == "failure"),
                  "errors": sum(1 for _, k in cases if k == "error")}
        suite = ET.SubElement(root, "testsuite", {"name": _clean(path), **{k: str(v) for k, v in counts.items()}})
        suite.extend(case for case, _ in cases)
        for k, v in counts.items():
            totals[k] += v
    for k, v in totals.items():
        root.set(k, str(v))
    return root


def to_string(findings: List[Finding], errors: List[Diagnostic], lang: str = "en",
              fail_on: Severity = Severity.WARNING) -> str:
    root = document(findings, errors, lang, fail_on)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write(out: TextIO, findings: List[Finding], errors: List[Diagnostic], rules: Sequence[CompiledRule] = (),
          lang: str = "en", fail_on: Severity = Severity.WARNING) -> None:
    """``out`` must be opened as UTF-8: the declaration says so. ``rules`` is accepted for a
    uniform signature; JUnit has nowhere to put rule metadata."""
    out.write(to_string(findings, errors, lang, fail_on))
