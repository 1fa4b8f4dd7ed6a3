"""CI output formats: SARIF 2.1.0 (validated against the official OASIS schema in
tests/data), GitHub Actions annotations and JUnit XML, fed with real findings from the
built-in rules plus hand-made ones for the awkward cases (escaping, notebooks, related
locations, fingerprints)."""
from __future__ import annotations

import copy
import dataclasses
import io
import json
import os
import re
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Tuple
from urllib.parse import unquote

import jsonschema
import pytest

from linter import __version__
from linter.api import check_sources
from linter.engine.packs import RulePacks
from linter.core.model import CellSpan, Diagnostic, ErrorKind, Finding, Severity, Span
from linter.engine.units import Options, RunResult
from linter.report import concise, github, junit, sarif

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.path.join(ROOT, "tests", "data", "sarif-schema-2.1.0.json")

TORCH_BN = "import torch.nn as nn\nbn = nn.BatchNorm2d(64, momentum=0.9)\nprint(bn)  # a script: its code runs\n"
SPACE_PATH = "my project/train step.py"
NOTEBOOK = "notebooks/explore data.ipynb"


def _amp_example() -> str:
    with open(os.path.join(ROOT, "examples", "pytorch_amp", "train.py"), encoding="utf-8") as fh:
        return fh.read()


@pytest.fixture(scope="module")
def run_en(packs: RulePacks) -> RunResult:
    """Errors and warnings from the AMP example, a path with spaces and a syntax error."""
    r = check_sources({"train.py": _amp_example(), SPACE_PATH: TORCH_BN, "broken.py": "def f(:\n"}, packs)
    assert {f.severity for f in r.findings} == {Severity.ERROR, Severity.WARNING}
    assert any(f.path == SPACE_PATH for f in r.findings)
    assert [e.kind for e in r.errors] == [ErrorKind.SYNTAX]
    return r


@pytest.fixture(scope="module")
def run_zh(packs: RulePacks) -> RunResult:
    r = check_sources({"train.py": TORCH_BN}, packs, Options(lang="zh"))
    assert r.findings and re.search("[\u4e00-\u9fff]", r.findings[0].message)
    return r


def notebook_finding(base: Finding) -> Finding:
    """``span`` is the position in the raw .ipynb text, ``cell`` the one users see."""
    return dataclasses.replace(base, path=NOTEBOOK, span=Span(40, 9, 40, 24), cell=CellSpan(3, Span(2, 5, 2, 20)))


def extras(run: RunResult) -> List[Finding]:
    """Real findings dressed up with what no built-in rule produces yet."""
    base = run.findings[0]
    return [
        notebook_finding(base),
        dataclasses.replace(base, path="src/net.py", related=(("src/model.py", 12, "BatchNorm2d built here"),)),
        dataclasses.replace(base, path="src/fp.py", data={**base.data, "fingerprint": "0f3a9c"}),
        dataclasses.replace(base, path="/abs/dir x/train.py", severity=Severity.INFO),
    ]


WARNING_ONLY = Diagnostic(ErrorKind.ENCODING, "legacy.py", "not UTF-8; decoded as latin-1", fatal=False)


# ---------------------------------------------------------------------------------------- SARIF
@pytest.fixture(scope="module")
def validator() -> Any:
    with open(SCHEMA, encoding="utf-8") as fh:
        schema = json.load(fh)
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    cls = jsonschema.validators.validator_for(schema)
    assert cls is jsonschema.Draft7Validator  # what the vendored file declares
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def sarif_roundtrip(findings: List[Finding], errors: List[Diagnostic], packs: RulePacks, lang: str = "en") -> Dict:
    """What ``write`` prints, parsed back: that is what code-scanning uploads see."""
    out = io.StringIO()
    sarif.write(out, findings, errors, packs.rules, lang)
    assert out.getvalue().endswith("}\n")
    return json.loads(out.getvalue())


def assert_valid(validator: Any, doc: Dict) -> None:
    problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    assert problems == []


def test_sarif_valid_against_official_schema(validator, run_en, run_zh, packs):
    everything = sarif_roundtrip(run_en.findings + extras(run_en), run_en.errors + [WARNING_ONLY], packs)
    assert_valid(validator, everything)
    assert_valid(validator, sarif_roundtrip(run_zh.findings, run_zh.errors, packs, "zh"))
    assert_valid(validator, sarif_roundtrip([], [], packs))


@pytest.mark.parametrize("break_it", [
    lambda d: d["runs"][0]["results"][0].pop("message"),
    lambda d: d["runs"][0]["results"][0].__setitem__("level", "info"),
    lambda d: d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"].__setitem__("startLine", 0),
    lambda d: d["runs"][0]["invocations"][0].pop("executionSuccessful"),
    lambda d: d["runs"][0]["tool"]["driver"]["rules"][0].pop("id"),
    lambda d: d.__setitem__("version", "2.0.0"),
], ids=["no-message", "info-level", "line-0", "no-execution-flag", "rule-without-id", "wrong-version"])
def test_schema_rejects_broken_documents(validator, run_en, packs, break_it):
    doc = sarif.document(run_en.findings, run_en.errors, packs.rules)
    assert validator.is_valid(doc)
    broken = copy.deepcopy(doc)
    break_it(broken)
    assert not validator.is_valid(broken)


def test_sarif_lists_every_rule_that_ran_even_without_results(packs):
    doc = sarif.document([], [], packs.rules)
    assert doc["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json" and doc["version"] == "2.1.0"
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"], driver["informationUri"]) == ("trainlint", __version__, sarif.INFORMATION_URI)
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["results"] == []
    assert run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]
    assert [d["id"] for d in driver["rules"]] == [r.id for r in packs.rules]
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for rule, desc in zip(packs.rules, driver["rules"]):
        assert desc["name"] == rule.name
        assert desc["shortDescription"] == {"text": rule.title["en"]}
        assert desc["fullDescription"]["text"] == rule.docs["what"]["en"].strip()
        assert desc["defaultConfiguration"] == {"level": levels[rule.severity]}
        assert desc["properties"] == {"tags": list(rule.tags), "checklist": rule.checklist, "framework": rule.framework}
        md, text = desc["help"]["markdown"], desc["help"]["text"]
        for heading in ("What it does", "Why it hurts accuracy", "How to fix it"):
            assert f"## {heading}\n" in md and f"{heading}\n" in text
        assert rule.docs["fix"]["en"].strip() in text and "##" not in text


def test_sarif_results_point_at_rules_and_spans(run_en, packs):
    doc = sarif.document(run_en.findings, run_en.errors, packs.rules)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    levels = {Severity.ERROR: "error", Severity.WARNING: "warning"}
    assert len(run["results"]) == len(run_en.findings)
    for f, res in zip(run_en.findings, run["results"]):
        assert res["ruleId"] == f.rule == rules[res["ruleIndex"]]["id"]
        assert res["level"] == levels[f.severity]
        assert res["message"] == {"text": f.message}
        (loc,) = res["locations"]
        phys = loc["physicalLocation"]
        assert phys["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert unquote(phys["artifactLocation"]["uri"]) == f.path
        assert phys["region"] == {"startLine": f.span.line, "startColumn": f.span.column,
                                  "endLine": f.span.end_line, "endColumn": f.span.end_column}
        assert res["properties"] == {"checklist": f.checklist, "framework": f.framework}
        assert "partialFingerprints" not in res and "relatedLocations" not in res
    spaced = next(r for r in run["results"] if "project" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
    assert spaced["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20project/train%20step.py"


URI_CHARS = re.compile(r"[A-Za-z0-9\-._~%!$&'()*+,;=:@/]*")


@pytest.mark.parametrize("path,uri", [
    ("train.py", "train.py"),
    ("my project/train step.py", "my%20project/train%20step.py"),
    ("./src/../src/a#b?.py", "src/a%23b%3F.py"),
    ("c:odd.py", "c%3Aodd.py"),  # would otherwise read as a URI scheme
    ("训练/100%.py", "%E8%AE%AD%E7%BB%83/100%25.py"),
])
def test_sarif_relative_paths_become_encoded_posix_uris(path, uri):
    loc = sarif.artifact_location(path)
    assert loc == {"uri": uri, "uriBaseId": "%SRCROOT%"}
    assert URI_CHARS.fullmatch(loc["uri"])


def test_sarif_absolute_paths_become_file_uris():
    assert sarif.artifact_location("/abs/dir x/train.py") == {"uri": "file:///abs/dir%20x/train.py"}


def test_sarif_notebook_related_fingerprint_and_info(run_en, packs):
    nb, rel, fp, info = extras(run_en)
    results = sarif.document([nb, rel, fp, info], [], packs.rules)["runs"][0]["results"]
    assert results[0]["properties"] == {"checklist": nb.checklist, "framework": nb.framework, "cell": 3, "cell_line": 2,
                                        "cell_column": 5, "cell_end_line": 2, "cell_end_column": 20}
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 40, "startColumn": 9, "endLine": 40, "endColumn": 24}
    assert results[1]["relatedLocations"] == [{
        "id": 1, "message": {"text": "BatchNorm2d built here"},
        "physicalLocation": {"artifactLocation": {"uri": "src/model.py", "uriBaseId": "%SRCROOT%"},
                             "region": {"startLine": 12}}}]
    assert results[2]["partialFingerprints"] == {"trainlint/v1": "0f3a9c"}
    assert all("partialFingerprints" not in r for r in (results[0], results[1], results[3]))
    assert results[3]["level"] == "note"
    assert results[3]["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "file:///abs/dir%20x/train.py"}


def test_sarif_chinese(run_zh, packs):
    out = io.StringIO()
    sarif.write(out, run_zh.findings, [], packs.rules, "zh")
    text = out.getvalue()
    doc = json.loads(text)
    run = doc["runs"][0]
    f = run_zh.findings[0]
    assert run["language"] == "zh"
    assert run["results"][0]["message"]["text"] == f.message
    assert json.dumps(f.message, ensure_ascii=False) in text  # UTF-8 text, not \u escapes
    desc = run["tool"]["driver"]["rules"][run["results"][0]["ruleIndex"]]
    rule = next(r for r in packs.rules if r.id == f.rule)
    assert desc["shortDescription"]["text"] == rule.title["zh"]
    assert desc["help"]["markdown"].startswith("## 检查内容\n")


def test_sarif_diagnostics_become_notifications(run_en, packs):
    (syntax,) = run_en.errors
    inv = sarif.document([], run_en.errors, packs.rules)["runs"][0]["invocations"]
    assert inv == [{"executionSuccessful": False, "toolExecutionNotifications": [{
        "level": "error", "message": {"text": syntax.message}, "descriptor": {"id": "syntax"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": "broken.py", "uriBaseId": "%SRCROOT%"},
                                            "region": {"startLine": syntax.line, "startColumn": syntax.column}}}]}]}]
    inv = sarif.document([], [WARNING_ONLY], packs.rules)["runs"][0]["invocations"]
    assert inv[0]["executionSuccessful"] is True
    (note,) = inv[0]["toolExecutionNotifications"]
    assert note["level"] == "warning" and note["descriptor"] == {"id": "encoding"}
    assert note["locations"] == [{"physicalLocation": {"artifactLocation": {"uri": "legacy.py", "uriBaseId": "%SRCROOT%"}}}]


# --------------------------------------------------------------------------------------- GitHub
def _unescape(text: str, prop: bool) -> str:
    if prop:
        text = text.replace("%3A", ":").replace("%2C", ",")
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def parse_command(line: str) -> Tuple[str, Dict[str, str], str]:
    """What the Actions runner does with a workflow-command line."""
    m = re.fullmatch(r"::(\w+)(?: ([^:]*))?::(.*)", line)
    assert m, line
    props = dict(kv.split("=", 1) for kv in m.group(2).split(",")) if m.group(2) else {}
    return m.group(1), {k: _unescape(v, True) for k, v in props.items()}, _unescape(m.group(3), False)


def github_lines(findings: List[Finding], errors: List[Diagnostic], lang: str = "en") -> List[str]:
    out = io.StringIO()
    github.write(out, findings, errors, [], lang)
    assert out.getvalue().endswith("\n")
    return out.getvalue().splitlines()


def test_github_escapes_message_and_properties():
    f = Finding(path="src/a,b:c.py", span=Span(3, 5, 4, 9), rule="API122", name="torch-batchnorm-inverted-momentum",
                checklist="api.01", framework="pytorch", severity=Severity.ERROR,
                message="100% sure: a, b\nsecond line\r\nthird")
    (line,) = github_lines([f], [])
    assert line == ("::error file=src/a%2Cb%3Ac.py,line=3,col=5,endLine=4,endColumn=9,"
                    "title=API122 [api.01] torch-batchnorm-inverted-momentum::100%25 sure: a, b%0Asecond line%0D%0Athird")
    assert parse_command(line) == ("error", {"file": "src/a,b:c.py", "line": "3", "col": "5", "endLine": "4",
                                             "endColumn": "9", "title": "API122 [api.01] torch-batchnorm-inverted-momentum"},
                                   f.message)
    assert github.escape_property("a:b,c%\r\n") == "a%3Ab%2Cc%25%0D%0A"
    assert github.escape_data("a:b,c%\r\n") == "a:b,c%25%0D%0A"


def test_github_real_findings_and_diagnostic(run_en):
    lines = github_lines(run_en.findings, run_en.errors)
    assert len(lines) == len(run_en.findings) + len(run_en.errors)
    for f, line in zip(run_en.findings, lines):
        cmd, props, message = parse_command(line)
        assert cmd == {Severity.ERROR: "error", Severity.WARNING: "warning"}[f.severity]
        assert props == {"file": f.path, "line": str(f.span.line), "col": str(f.span.column),
                         "endLine": str(f.span.end_line), "endColumn": str(f.span.end_column),
                         "title": f"{f.rule} [{f.checklist}] {f.name}"}
        assert message == f.message
    assert any(line.startswith("::error file=my project/train step.py,") for line in lines)
    (syntax,) = run_en.errors
    assert lines[-1] == f"::error file=broken.py,line={syntax.line},col={syntax.column}::syntax: {syntax.message}"


def test_github_info_notice_warning_diagnostic_and_notebook(run_en):
    nb, _, _, info = extras(run_en)
    lines = github_lines([info, nb], [WARNING_ONLY])
    assert lines[0].startswith("::notice file=/abs/dir x/train.py,")
    cmd, props, message = parse_command(lines[1])
    assert (props["file"], props["line"], props["col"], props["endLine"], props["endColumn"]) == (NOTEBOOK, "40", "9", "40", "24")
    assert message == f"cell 3, line 2: {nb.message}"
    assert lines[2] == "::warning file=legacy.py::encoding: not UTF-8; decoded as latin-1"
    zh = github_lines([nb], [], "zh")
    assert parse_command(zh[0])[2].startswith("第 3 个单元格第 2 行: ")


def test_github_chinese(run_zh):
    (line,) = github_lines(run_zh.findings, [], "zh")
    assert parse_command(line)[2] == run_zh.findings[0].message
    assert run_zh.findings[0].message in line  # only %, CR and LF are escaped


# ---------------------------------------------------------------------------------------- JUnit
def junit_tree(findings: List[Finding], errors: List[Diagnostic], lang: str = "en") -> Tuple[str, ET.Element]:
    out = io.StringIO()
    junit.write(out, findings, errors, [], lang)
    text = out.getvalue()
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    return text, ET.fromstring(text.encode("utf-8"))


def counts(el: ET.Element) -> Tuple[int, int, int]:
    return int(el.get("tests", -1)), int(el.get("failures", -1)), int(el.get("errors", -1))


def test_junit_counts_and_contents(run_en):
    _, root = junit_tree(run_en.findings, run_en.errors)
    assert root.tag == "testsuites" and root.get("name") == "trainlint"
    assert counts(root) == (len(run_en.findings) + 1, len(run_en.findings), 1)
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert set(suites) == {"train.py", SPACE_PATH, "broken.py"}
    for path, suite in suites.items():
        mine = [f for f in run_en.findings if f.path == path]
        assert counts(suite) == (len(mine) + (path == "broken.py"), len(mine), int(path == "broken.py"))
        for f, case in zip(mine, suite.findall("testcase")):
            assert case.get("classname") == path
            assert case.get("name") == f"{f.rule} {f.name} at {f.span.line}:{f.span.column}"
            (failure,) = list(case)
            assert (failure.tag, failure.get("type"), failure.get("message")) == ("failure", f.rule, f.message)
            assert failure.text == concise.finding_line(f)
    (case,) = suites["broken.py"].findall("testcase")
    (error,) = list(case)
    (syntax,) = run_en.errors
    assert (error.tag, error.get("type"), error.get("message")) == ("error", "syntax", syntax.message)
    assert error.text == concise.error_line(syntax)


def test_junit_escaping_and_chinese():
    message = 'a < b && c > "d" \'e\' 训练精度 — 😀\nsecond line\x07'
    f = Finding(path='dir/<odd> & "q".py', span=Span(1, 1, 1, 5), rule="API101", name="mindspore-dropout-keep-prob",
                checklist="api.01", framework="mindspore", severity=Severity.ERROR, message=message)
    text, root = junit_tree([f], [])
    assert "训练精度 — 😀" in text  # UTF-8 text, not character references
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == 'dir/<odd> & "q".py'
    failure = suite.find("testcase/failure")
    assert failure is not None
    # The bell character cannot exist in XML 1.0; it is spelled out, everything else survives.
    assert failure.get("message") == message.replace("\x07", "\\x07")
    assert failure.text == concise.finding_line(f).replace("\x07", "\\x07")


def test_junit_chinese_run(run_zh):
    text, root = junit_tree(run_zh.findings, [], "zh")
    f = run_zh.findings[0]
    assert root.find("testsuite/testcase/failure").get("message") == f.message
    assert f.message in text


def test_junit_empty_run_still_reports_one_passing_case():
    _, root = junit_tree([], [])
    assert counts(root) == (1, 0, 0)
    (case,) = root.findall("testsuite/testcase")
    assert list(case) == []


def test_junit_notebook_and_warning_only(run_en):
    nb = notebook_finding(run_en.findings[0])
    _, root = junit_tree([nb], [WARNING_ONLY])
    assert counts(root) == (2, 1, 0)
    case = root.find(f"testsuite[@name='{NOTEBOOK}']/testcase")
    assert case.get("name") == f"{nb.rule} {nb.name} at cell 3:2:5"
    assert case.find("failure").text == concise.finding_line(nb)
    warn = root.find("testsuite[@name='legacy.py']/testcase")
    assert [child.tag for child in warn] == ["system-err"]
    assert warn.find("system-err").text == concise.error_line(WARNING_ONLY)
