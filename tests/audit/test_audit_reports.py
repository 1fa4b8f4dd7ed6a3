"""The audit's outputs: self-contained HTML (structure, and once in headless Chromium), Markdown,
the rich terminal table, `--output`, exit codes, the progress bar, and a broken audit table."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
from html.parser import HTMLParser
from typing import Dict, List

import pytest

from linter.audit.run import audit_path
from linter.audit.render_html import write_html
from linter.audit.render_markdown import write_markdown
from linter.audit.render_text import write_rich
from linter.audit.spec import AuditSpecError, load_audit_spec
from linter.cli import main
from linter.engine.units import Options
from tests.conftest import ROOT, builtin_packs

ZOO = os.path.join("tests", "audit", "zoo")
_VOID = {"meta", "br", "hr", "img", "input", "link"}


@pytest.fixture(scope="module")
def zoo():
    return audit_path(ZOO, builtin_packs(), Options(), cwd=ROOT)


class _Tree(HTMLParser):
    """Collects ids, links, per-tag attributes and checks that tags are balanced."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: List[str] = []
        self.ids: List[str] = []
        self.links: List[str] = []
        self.resources: List[str] = []
        self.rows: List[Dict[str, str]] = []
        self.sections = 0
        self.errors: List[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if tag in ("script", "link", "img", "iframe") or "src" in a:
            self.resources.append(tag)
        if tag == "tr" and "item" in (a.get("class") or "").split():
            self.rows.append(a)
        if tag == "section":
            self.sections += 1
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in _VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unbalanced </{tag}> (open: {self.stack[-3:]})")
            return
        self.stack.pop()


def test_html_is_self_contained_and_structured(zoo, packs) -> None:
    out = io.StringIO()
    write_html(out, zoo, "en")
    html = out.getvalue()
    tree = _Tree()
    tree.feed(html)
    assert not tree.errors and tree.stack == []
    assert tree.resources == []                                  # no scripts, stylesheets or images
    assert "http://" not in html and "https://" not in html     # no network resources
    assert tree.sections == len(zoo.projects) == 4
    assert len(tree.rows) == 4 * len(packs.checklist)
    statuses = {r["class"].split()[1] for r in tree.rows}
    assert statuses == {"found", "manual", "no-issue", "not-applicable"}
    # the index links to every project's section
    assert all(link.lstrip("#") in tree.ids for link in tree.links if link.startswith("#"))
    assert len([link for link in tree.links if link.startswith("#")]) == 4
    # evidence is shown as file:line
    assert "tests/audit/zoo/models/ms_resnet/src/dataset.py:12" in html
    assert "<script" not in html.lower()


def test_html_escapes_source_text(tmp_path) -> None:
    (tmp_path / "train.py").write_text(
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader([1], shuffle=True)  # <script>alert(1)</script>\n", encoding="utf-8")
    result = audit_path(str(tmp_path), builtin_packs(), Options(), cwd=str(tmp_path))
    out = io.StringIO()
    write_html(out, result, "en")
    assert "<script>" not in out.getvalue() and "&lt;script&gt;" in out.getvalue()


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_html_renders_in_headless_chromium(zoo, tmp_path) -> None:
    path = tmp_path / "audit.html"
    with open(path, "w", encoding="utf-8") as fh:
        write_html(fh, zoo, "zh")
    proc = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", path.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert dom.count('class="item ') == 4 * 26      # the browser built every checklist row
    assert "迁移风险" in dom and "需人工检查" in dom


def test_markdown(zoo) -> None:
    out = io.StringIO()
    write_markdown(out, zoo, "en")
    md = out.getvalue()
    assert md.startswith("# trainlint audit: `tests/audit/zoo`")
    assert md.count("| dp.03 Training data not shuffled |") == 4
    assert "| ❌ found | MP301 tests/audit/zoo/models/torch_vit/tools/train.py:38 |" in md
    assert "| `tests/audit/zoo/models/torch_vit/model.py:25` | `torch.nn.BatchNorm1d` | momentum | `0.1` |" in md
    assert "`momentum=0.9` (meaning differs)" in md


def test_rich_plain(zoo) -> None:
    out = io.StringIO()
    write_rich(out, zoo, "en", color=False)
    text = out.getvalue()
    assert "\x1b[" not in text
    for p in zoo.projects:
        assert p.path in text
    assert "4 project(s), 12 file(s): 6 found" in text
    assert "tests/audit/zoo/models/torch_vit/tools/train.py:38:13 MP301 [mp.03]" in text


def _cli(args, cwd=ROOT):
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(args, out, err)
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def test_cli_output_file_and_exit_codes(tmp_path) -> None:
    target = tmp_path / "report.html"
    code, out, err = _cli(["audit", ZOO, "--format", "html", "--output", str(target), "--no-cache", "--isolated"])
    assert code == 1 and out == "" and "wrote" in err
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    code, _, _ = _cli(["audit", ZOO, "--format", "json", "--exit-zero", "--no-cache", "--isolated"])
    assert code == 0
    code, _, err = _cli(["audit", "no/such/dir"])
    assert code == 2 and "does not exist" in err
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "train.py").write_text("import torch\ntorch.manual_seed(0)\n", encoding="utf-8")
    code, out, err = _cli(["audit", str(clean), "--format", "markdown", "--no-cache", "--isolated"])
    assert code == 0, out + err
    # a train.py that updates no parameter is not a training program: roles come from evidence
    assert "no training entry" in out
    (clean / "train.py").write_text("import torch\ntorch.manual_seed(0)\nnet = torch.nn.Linear(2, 2)\n"
                                    "opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
                                    "for x in torch.zeros(3, 2):\n    net(x).sum().backward()\n    opt.step()\n",
                                    encoding="utf-8")
    code, out, err = _cli(["audit", str(clean), "--format", "markdown", "--no-cache", "--isolated"])
    assert code == 0, out + err
    assert "no training entry" not in out


def test_unparsable_file_is_reported_and_exit_2(tmp_path) -> None:
    (tmp_path / "train.py").write_text("import mindspore\nfrom helpers import x\n", encoding="utf-8")
    (tmp_path / "helpers.py").write_text("def x(:\n", encoding="utf-8")
    code, out, err = _cli(["audit", str(tmp_path), "--format", "json", "--no-cache", "--isolated"], cwd=str(tmp_path))
    assert code == 2
    import json

    d = json.loads(out)
    assert [e["kind"] for e in d["errors"]] == ["syntax"] and d["errors"][0]["path"] == "helpers.py"
    assert len(d["projects"]) == 1 and len(d["projects"][0]["items"]) == 26
    assert "helpers.py" in err


def test_no_progress_bar_when_not_a_terminal() -> None:
    code, out, err = _cli(["audit", ZOO, "--format", "json", "--no-cache", "--isolated"])
    assert "checking files" not in err and "\r" not in err


def test_broken_audit_table_is_reported_with_its_line(tmp_path, packs) -> None:
    src = os.path.join(ROOT, "rules", "audit.yaml")
    text = open(src, encoding="utf-8").read().replace("      - call: {name: [torch.utils.data.DataLoader], where: {arg: shuffle, value: {eq: true}}}",
                                                      "      - call: {nmae: [torch.utils.data.DataLoader]}")
    bad = tmp_path / "audit.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(AuditSpecError) as exc:
        load_audit_spec(packs.checklist, str(bad))
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "nmae" in t)
    assert f"audit.yaml:{line}:" in str(exc.value) and "nmae" in str(exc.value)
    missing = tmp_path / "missing.yaml"
    missing.write_text(open(src, encoding="utf-8").read().replace("  ds.02:", "  xx.02:"), encoding="utf-8")
    with pytest.raises(AuditSpecError, match="missing: ds.02"):
        load_audit_spec(packs.checklist, str(missing))


def test_docs_example_is_current() -> None:
    """The Markdown excerpt in docs/audit.md is what `audit examples/pytorch_amp` prints today."""
    text = open(os.path.join(ROOT, "docs", "audit.md"), encoding="utf-8").read()
    excerpt = text.split("<!-- audit-example:start -->\n", 1)[1].split("<!-- audit-example:end -->", 1)[0]
    rows = [r for r in excerpt.splitlines() if r.strip()]
    assert len(rows) > 5
    code, out, err = _cli(["audit", os.path.join("examples", "pytorch_amp"), "--format", "markdown", "--no-cache", "--isolated"])
    assert code == 1, err
    lines = set(out.splitlines())
    assert [r for r in rows if r not in lines] == []
