"""The documentation is checked like code: README.md stays a front page, every relative link in
README.md, CHANGELOG.md and docs/ resolves (the file, and the heading or anchor it names), and every
code sample parses — YAML, TOML, JSON and Python blocks load or compile, every `trainlint ...` command
shown is accepted by the CLI's own argument parser (a renamed option breaks the test, not the reader),
all of them run on a copy of examples/ (placeholder paths such as `path/to/repo` stand for a
folder of it), and the outputs the pages show are what the
commands print (the README's sample here; compare, audit and editor patterns in their own tests)."""
from __future__ import annotations

import glob
import json
import os
import re
import shlex
import sys
from typing import Dict, Iterator, List, Set, Tuple

import pytest
import yaml

from linter.cli import _parser
from tests.conftest import ROOT

PAGES = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "CHANGELOG.md")] \
    + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + sorted(glob.glob(os.path.join(ROOT, "docs", "rules", "*.md")))
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _text(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _prose(text: str) -> str:
    """The page without its code blocks (a link inside a sample is not a link)."""
    return _FENCE.sub("", text)


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def _anchors(path: str) -> Set[str]:
    text = _prose(_text(path))
    out = {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.*)$", text, re.M)}
    out |= set(re.findall(r'<a id="([^"]+)"', text))
    return out


def test_generated_pages_are_fresh() -> None:
    """docs/framework-facts.md and docs/rules/*.md are rendered from data; no stale or stray page."""
    from linter.docsgen import RULES_DIR, pages

    want = pages()
    stale = [os.path.relpath(p, ROOT) for p, text in want.items() if not os.path.exists(p) or _text(p) != text]
    assert stale == [], "run `python -m linter.docsgen`"
    stray = [p for p in glob.glob(os.path.join(RULES_DIR, "*.md")) if p not in want]
    assert stray == []


def test_the_readme_is_a_front_page() -> None:
    text = _text(os.path.join(ROOT, "README.md"))
    assert len(text) <= 15_000, len(text)
    for needed in ("## Quickstart", "## What it finds", "## Four ways to use it", "## Documentation"):
        assert needed in text
    linked = set(_LINK.findall(text))
    for page in glob.glob(os.path.join(ROOT, "docs", "*.md")):
        assert f"docs/{os.path.basename(page)}" in linked, f"README does not link {page}"


def _links() -> Iterator[Tuple[str, str]]:
    for page in PAGES:
        for target in _LINK.findall(_prose(_text(page))):
            if "://" not in target and not target.startswith("mailto:"):
                yield page, target


def test_every_relative_link_resolves() -> None:
    anchors: Dict[str, Set[str]] = {}
    broken: List[str] = []
    for page, target in _links():
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        where = f"{os.path.relpath(page, ROOT)} → {target}"
        if not os.path.exists(dest):
            broken.append(where + " (no such file)")
            continue
        if anchor and dest.endswith(".md"):
            if dest not in anchors:
                anchors[dest] = _anchors(dest)
            if anchor not in anchors[dest]:
                broken.append(where + " (no such heading)")
    assert broken == []


def _blocks(lang: str) -> Iterator[Tuple[str, str]]:
    for page in PAGES:
        for m in _FENCE.finditer(_text(page)):
            if m.group(1) == lang:
                yield os.path.relpath(page, ROOT), m.group(2)


def _toml_loads(text: str) -> object:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib   # a dependency on Python < 3.11
    return tomllib.loads(text)


_LOADERS = {"yaml": yaml.safe_load, "toml": _toml_loads, "json": json.loads,
            "python": lambda text: compile(text, "<docs>", "exec", dont_inherit=True)}


@pytest.mark.parametrize("lang", sorted(_LOADERS))
def test_data_samples_load(lang: str) -> None:
    """YAML, TOML, JSON and Python blocks parse (JSON excerpts marked with `...` or `//` are skipped)."""
    bad = []
    checked = 0
    for page, block in _blocks(lang):
        if lang == "json" and ("..." in block or "//" in block):
            continue
        checked += 1
        try:
            _LOADERS[lang](block)
        except Exception as exc:  # noqa: BLE001 - each loader has its own error type
            bad.append(f"{page}: {str(exc).splitlines()[0]}")
    assert bad == []
    assert checked >= 1


def _commands() -> Iterator[Tuple[str, List[str]]]:
    for lang in ("bash", "sh", ""):
        for page, block in _blocks(lang):
            for line in block.splitlines():
                line = line.strip()
                if not line.startswith("trainlint "):
                    continue
                if lang == "" and "  " in line[10:].split("#")[0].strip() and not line[10:].startswith(("check ", "audit ")):
                    continue   # a usage synopsis (`trainlint rules [--format table|json]   list the rules`)
                cmd = re.split(r"\s(?:[|<>]|2>|&&|;|#)", " " + line)[0].strip()
                try:
                    argv = shlex.split(cmd)[1:]
                except ValueError:
                    continue
                if any(a.startswith("[") or a in ("...", "ID", "FILE|DIR") or "|" in a for a in argv):
                    continue   # a synopsis with placeholders
                yield page, argv


def test_every_trainlint_command_shown_is_accepted_by_the_cli() -> None:
    parser = _parser()
    checked, bad = 0, []
    for page, argv in _commands():
        checked += 1
        try:
            parser.parse_args(argv)
        except SystemExit:
            bad.append(f"{page}: trainlint {' '.join(argv)}")
    assert bad == []
    assert checked >= 10


def test_the_readme_output_sample_is_what_check_prints() -> None:
    """The sample at the top of the README: each finding's `path:line:col: ID [item] severity:` head
    is printed by `trainlint check examples/ --format concise` today."""
    import io

    from linter.cli import main

    text = _text(os.path.join(ROOT, "README.md"))
    sample = next(m.group(2) for m in _FENCE.finditer(text) if m.group(1) == "" and "API101" in m.group(2))
    heads = re.findall(r"^(examples/\S+:\d+:\d+: [A-Z]+\d+ \[[a-z]+\.\d+\] \w+:)", sample, re.M)
    assert len(heads) >= 2
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        main(["check", "examples", "--format", "concise", "--no-cache", "--isolated"], out, err)
    finally:
        os.chdir(cwd)
    printed = out.getvalue()
    assert [h for h in heads if h not in printed] == []


# What the pages write for "your code", and what stands for it in a copy of examples/: every command
# shown runs, not only those whose paths happen to exist.
_PLACEHOLDERS = {
    "path/to/repo": ".", "models/": ".", "zoo": ".",
    "torch_ref/": "pytorch_amp", "ms_port/": "mindspore_port",
    "src/model.py": "mindspore_port/src/model.py", "path/to/train.py": "mindspore_port/train.py",
}


def _stand_in(argv: List[str]) -> List[str]:
    return [_PLACEHOLDERS.get(a, a) for a in argv]


def test_every_placeholder_shown_has_a_stand_in(monkeypatch) -> None:
    """A page that shows a new placeholder path must add it to `_PLACEHOLDERS` (or the command would
    only be parsed, never run)."""
    parser = _parser()
    monkeypatch.chdir(os.path.join(ROOT, "examples"))
    missing = []
    for page, argv in _commands():
        ns = parser.parse_args(_stand_in(argv))
        names = list(getattr(ns, "paths", None) or []) + [getattr(ns, n) for n in ("stdin_filename", "reference", "new")
                                                          if getattr(ns, n, None)]
        missing += [f"{page}: {p}" for p in names if not os.path.exists(p)]
    assert missing == []


def test_the_commands_shown_run_on_the_bundled_examples(tmp_path, monkeypatch) -> None:
    """Every `trainlint` command shown runs in a copy of examples/ (placeholder paths replaced by
    their stand-ins; an editor's `--stdin-filename NAME` gets NAME's text on standard input) without a
    usage, configuration or internal error (exit 0 or 1), in page order (a baseline written by one
    command is read by the next)."""
    import io
    import shutil

    from linter.cli import main

    work = tmp_path / "examples"
    shutil.copytree(os.path.join(ROOT, "examples"), work)
    parser = _parser()
    ran, bad = 0, []
    monkeypatch.chdir(work)
    for page, shown in _commands():
        argv = _stand_in(shown)
        ns = parser.parse_args(argv)
        name = getattr(ns, "stdin_filename", None)
        if name:
            with open(name, "rb") as fh:
                monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(fh.read()), encoding="utf-8"))
        out, err = io.StringIO(), io.StringIO()
        code = main(argv + ["--no-cache"], out, err)
        ran += 1
        if code not in (0, 1) or "Traceback" in err.getvalue():
            bad.append(f"{page}: trainlint {' '.join(shown)} -> {code}: {err.getvalue()[-300:]}")
        elif name and ": MP302 " not in out.getvalue() and ": API101 " not in out.getvalue():
            bad.append(f"{page}: trainlint {' '.join(shown)} printed no finding for the buffer: {out.getvalue()[:300]}")
    assert bad == []
    assert ran == len(list(_commands())) >= 10
