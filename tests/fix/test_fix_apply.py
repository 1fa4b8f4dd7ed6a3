"""Applying fixes: conflicts wait for the next round, broken results are refused with a
message, files are written atomically, diffs are unified diffs."""
from __future__ import annotations

import os
import stat
import textwrap

from linter.api import check_sources
from linter.compiler.fixes import Edit, FixSpec
from linter.engine.packs import load_packs
from linter.core.atomic import write_atomic
from linter.fix.apply import Fix, apply, unified_diff
from linter.fix.edits import TextEdit
from linter.fix.run import fix_loop
from linter.core.model import Finding, Severity, Span
from linter.engine.units import Options
from linter.testing import fix_sources


def _finding(line: int, rule: str = "X001") -> Finding:
    return Finding("a.py", Span(line, 1, line, 2), rule, "x", "api.01", "mindspore", Severity.ERROR, "m")


def _fix(line: int, start: int, end: int, content: str, safe: bool = True) -> Fix:
    spec = FixSpec("safe" if safe else "unsafe", (("en", "t"),), (("en", "r"),), (Edit("set-keyword", name="a", value="1"),))
    return Fix(_finding(line), spec, (TextEdit(start, end, content),))


def test_overlapping_fixes_apply_the_first_and_leave_the_rest() -> None:
    text = "x = 1\ny = 2\n"
    a, b, c = _fix(1, 4, 5, "10"), _fix(1, 4, 5, "20"), _fix(2, 10, 11, "30")
    new, applied, refused = apply(text, [b, a, c], unsafe=False)
    assert new == "x = 20\ny = 30\n"          # b (first in source order, then rule) and c; a waits
    assert len(applied) == 2 and not refused
    touching = _fix(1, 5, 5, "0")             # an insertion where another edit ends also waits
    assert apply(text, [a, touching], unsafe=False)[0] == "x = 10\ny = 2\n"


def test_unsafe_fixes_need_the_flag() -> None:
    text = "x = 1\n"
    fx = _fix(1, 4, 5, "2", safe=False)
    assert apply(text, [fx], unsafe=False)[0] == text
    assert apply(text, [fx], unsafe=True)[0] == "x = 2\n"


def test_a_fix_that_breaks_the_file_is_refused() -> None:
    text = "x = f(1)\n"
    fine = _fix(1, 6, 7, "1,")
    assert apply(text, [fine], unsafe=False)[0] == "x = f(1,)\n"
    bad = _fix(1, 4, 8, "f(p=1, 2)")          # positional after keyword
    new, applied, refused = apply(text, [bad], unsafe=False)
    assert new == text and not applied
    assert refused and "would not parse" in refused[0].message
    outside = _fix(1, 0, 0, "return 1\n")     # libcst parses it; Python's compiler does not
    new, applied, refused = apply(text, [outside, _fix(1, 6, 7, "2")], unsafe=False)
    assert new == "x = f(2)\n" and [a.edits[0].content for a in applied] == ["2"]
    assert "would not compile: 'return' outside function" in refused[0].message


CONTRIVED = """\
id: TST901
name: tst-contrived-fix
checklist: api.01
framework: mindspore
severity: warning
title: {en: "t", zh: "t"}
message: {en: "`{callee}` m", zh: "`{callee}` m"}
docs: {what: {en: w, zh: w}, why: {en: w, zh: w}, fix: {en: w, zh: w}}
match:
  call: {name: [mindspore.nn.Dropout]}
fix:
  applicability: safe
  title: {en: "return it", zh: "return it"}
  reason: {en: "a test", zh: "a test"}
  edits:
    - {op: insert-before, template: "return {callee}"}
examples:
  invalid:
    - |
      from mindspore import nn
      d = nn.Dropout(p=0.1)  # expect: TST901
  valid:
    - |
      x = 1
"""


def test_refusal_with_a_contrived_rule_pack(tmp_path) -> None:
    """A template that is a statement, but not one that compiles where it goes (`return` at
    module level): the fix is refused with a message and nothing changes."""
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "tst-contrived-fix.yaml").write_text(CONTRIVED, encoding="utf-8")
    packs = load_packs([str(pack)])
    assert not packs.errors
    rule = next(r for r in packs.rules if r.id == "TST901")
    src = {"m.py": "from mindspore import nn\nd = nn.Dropout(p=0.1)\n"}
    outcome = fix_sources(src, packs, [rule], unsafe=True)
    assert outcome.fixed == {}
    assert [r.rule for r in outcome.refusals] == ["TST901"]
    assert "'return' outside function" in outcome.refusals[0].message
    assert len(outcome.result.findings) == 1          # the finding remains


def test_rounds_reach_a_fixed_point_and_count() -> None:
    packs = load_packs()
    src = {"m.py": textwrap.dedent("""\
        import mindspore.nn as nn
        a = nn.Dropout(keep_prob=0.9)
        b = nn.Dropout(keep_prob=0.8)
        bn = nn.BatchNorm2d(8, momentum=0.1)
        """)}
    options = Options(select=lambda rid: rid in ("API105", "API121"))
    outcome = fix_loop(lambda ov: check_sources({**src, **ov}, packs, options), packs.rules, unsafe=False)
    assert outcome.applied == {"API105": 2}
    assert outcome.fixed["m.py"].splitlines()[1:3] == ["a = nn.Dropout(p=0.1)", "b = nn.Dropout(p=0.2)"]
    assert [f.rule for f in outcome.result.findings] == ["API121"]   # unsafe: remains
    outcome = fix_loop(lambda ov: check_sources({**src, **ov}, packs, options), packs.rules, unsafe=True)
    assert outcome.applied == {"API105": 2, "API121": 1} and not outcome.result.findings


def test_write_atomic_keeps_mode_and_leaves_no_temp_file(tmp_path) -> None:
    target = tmp_path / "train.py"
    target.write_text("old\n")
    os.chmod(target, 0o750)
    write_atomic(str(target), "new 中文\n")
    assert target.read_bytes() == "new 中文\n".encode("utf-8")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o750
    assert os.listdir(tmp_path) == ["train.py"]


def test_write_atomic_gives_a_new_file_the_umask_mode(tmp_path) -> None:
    """A new file (a baseline) is readable like one `open()` creates, not 0600 like its temp file."""
    old = os.umask(0o022)
    try:
        write_atomic(str(tmp_path / "baseline.json"), "{}\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "baseline.json").st_mode) == 0o644
    assert os.listdir(tmp_path) == ["baseline.json"]


def test_unified_diff() -> None:
    d = unified_diff("src/m.py", "a\nb\n", "a\nc\n")
    assert d.startswith("--- a/src/m.py\n+++ b/src/m.py\n@@ -1,2 +1,2 @@\n")
    assert "-b\n+c\n" in d
    assert unified_diff("m.py", "a", "b").endswith("\\ No newline at end of file\n")
