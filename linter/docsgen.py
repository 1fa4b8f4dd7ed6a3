"""Generated documentation: ``python -m linter.docsgen`` rewrites the pages that are rendered
from data, so they cannot drift from it (tests compare the committed pages with a fresh render).

* ``docs/framework-facts.md`` from ``docs/framework-facts.yaml``: the framework defaults and
  semantics the rules rely on, each with the version it was verified on;
* ``docs/rules/<ID>.md`` and ``docs/rules/index.md`` from the rule files: one reference page per rule.
"""
from __future__ import annotations

import os
import re
import sys
from typing import Any, Dict, List

import yaml

from linter.compiler.fixes import fix_docs
from linter.engine.packs import load_packs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACTS_YAML = os.path.join(ROOT, "docs", "framework-facts.yaml")
FACTS_MD = os.path.join(ROOT, "docs", "framework-facts.md")

CONCEPTS = {
    "convolution": "Convolution", "dense": "Dense / Linear", "dropout": "Dropout", "normalization": "Normalization",
    "pooling": "Pooling", "activations": "Activations", "losses": "Losses", "embedding-rnn": "Embedding and RNN",
    "optimizers": "Optimizers and weight decay", "seeds": "Seeds and determinism", "data": "Data pipeline",
    "modes": "Train/eval mode and execution mode", "amp": "Mixed precision and loss scaling",
    "clipping": "Gradient clipping", "interpolation": "Interpolation", "attention": "Attention",
    "initializers": "Initializers",
}
_FRAMEWORKS = (("mindspore", "MindSpore"), ("pytorch", "PyTorch"), ("tensorflow", "TensorFlow / Keras"))


_FENCE_LANG = {".py": "python", ".ipynb": "json", ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".sh": "bash",
               ".md": "markdown", ".toml": "toml"}
"""Code fence language of an example file, by its extension (a README beside the code is not Python)."""


def load_facts(path: str = FACTS_YAML) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _default(block: Dict[str, Any]) -> str:
    parts: List[str] = []
    if "param" in block:
        parts.append(f"`{block['param']}={_value(block['default'])}`")
    for k, v in (block.get("also") or {}).items():
        parts.append(f"`{k}={_value(v)}`")
    return ", ".join(parts) if parts else "—"


def _value(v: Any) -> str:
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, str) and v != "<required>":
        return repr(v)
    return str(v)


def render_facts(data: Dict[str, Any]) -> str:
    """The markdown page of the facts (deterministic: same data, same text)."""
    meta = data.get("meta") or {}
    out = [
        "# Framework facts",
        "",
        "<!-- Generated from docs/framework-facts.yaml by `python -m linter.docsgen`; do not edit. -->",
        "",
        "The defaults and semantics of MindSpore, PyTorch and TensorFlow (Keras) APIs that trainlint's rules rely",
        "on, one entry per fact, each with the framework version it was verified on. Rules cite an entry by its id",
        "(`trainlint explain API121` → `docs/framework-facts.md#batchnorm-momentum`). The optional test",
        "`python -m pytest -m frameworks tests/frameworks` re-checks every signature default against the installed",
        "libraries; `run` means the behaviour was measured by executing code on CPU, `sig` read with",
        "`inspect.signature`, `ast` read from the installed source, `src` read in the installed source, `doc`",
        "documented only.",
        "",
    ]
    versions = meta.get("versions") or {}
    if versions:
        out += ["Verified on: " + "; ".join(f"{k} {v}" for k, v in versions.items()) + ".", ""]
    entries = data["entries"]
    order = list(CONCEPTS)
    concepts = sorted({e["concept"] for e in entries}, key=lambda c: (order.index(c) if c in order else len(order), c))
    out += ["Sections: " + " · ".join(f"[{CONCEPTS.get(c, c)}](#{c})" for c in concepts), ""]
    for c in concepts:
        out += [f'<a id="{c}"></a>', "", f"## {CONCEPTS.get(c, c)}", ""]
        for e in (x for x in entries if x["concept"] == c):
            out += [f'<a id="{e["id"]}"></a>', "", f"### {e['id']}", ""]
            out += ["| framework | API | default | meaning |", "|---|---|---|---|"]
            for key, label in _FRAMEWORKS:
                block = e["frameworks"].get(key)
                if block is None:
                    continue
                meaning = _cell(block.get("meaning", ""))
                if block.get("history"):
                    meaning += f" **History:** {_cell(block['history'])}"
                out.append(f"| {label} | `{block['api']}` | {_default(block)} | {meaning} |")
            out.append("")
            if e.get("risk"):
                out += [f"Risk: {e['risk']}", ""]
            verified = e.get("verified_with") or {}
            if verified:
                out += ["Verified: " + "; ".join(f"{k} {v}" for k, v in verified.items()) + ".", ""]
            if e.get("source"):
                out += ["Source: " + "; ".join(str(s) for s in e["source"]) + ".", ""]
    return "\n".join(out).rstrip("\n") + "\n"


RULES_DIR = os.path.join(ROOT, "docs", "rules")
_FACT_REF = re.compile(r"docs/framework-facts\.md(#[a-z0-9-]+)?(?: \(([^)]*)\))?")


def _reference(ref: str) -> str:
    """A rule's reference, with the framework facts it cites as links."""
    def link(m: "re.Match[str]") -> str:
        if m.group(2):
            ids = [i.strip() for i in m.group(2).split(",")]
            return "framework facts: " + ", ".join(
                f"[{i}](../framework-facts.md#{i.split(':')[0]})" if "*" not in i else i for i in ids)
        return f"[framework facts](../framework-facts.md{m.group(1) or ''})"
    return _FACT_REF.sub(link, ref)


def render_rule_page(rule: Any, packs: Any) -> str:
    """One rule's reference page (English; `trainlint explain ID --lang zh` prints Chinese)."""
    item = packs.checklist.get(rule.checklist, {})
    out = [f"# {rule.id} `{rule.name}`", "",
           "<!-- Generated from the rule file by `python -m linter.docsgen`; do not edit. -->", "",
           f"**{rule.title['en']}**", "",
           f"Checklist item {rule.checklist} ({(item.get('title') or {}).get('en', '')}) · framework {rule.framework} · "
           f"severity {rule.severity}" + (" · opt-in" if not rule.default_on else "")
           + (f" · versions {rule.versions}" if rule.versions else "") + (f" · tags {', '.join(rule.tags)}" if rule.tags else ""),
           ""]
    titles = {"what": "What it does", "why": "Why it hurts accuracy", "fix": "How to fix it",
              "known_problems": "Known problems"}
    for key, title in titles.items():
        if key in rule.docs:
            out += [f"## {title}", "", str(rule.docs[key]["en"]).strip(), ""]
    if rule.fixes:
        out += ["## Automatic fix", ""] + [f"- {line}" for line in fix_docs(rule.fixes, "en")] + [""]
    refs = rule.docs.get("references") or []
    if refs:
        out += ["## References", ""] + [f"- {_reference(str(r))}" for r in refs] + [""]
    for kind, title in (("invalid", "Example (reported)"), ("valid", "Not reported")):
        ex = next((e for e in rule.examples if e.kind == kind), None)
        if ex is None:
            continue
        out += [f"## {title}", ""]
        for path, code in ex.files:
            if len(ex.files) > 1:
                out.append(f"`{path}`:")
                out.append("")
            out += ["```" + _FENCE_LANG.get(os.path.splitext(path)[1].lower(), "text"), code.rstrip(), "```", ""]
    rel = os.path.relpath(rule.path, ROOT).replace(os.sep, "/")
    out += [f"Rule file: [{rel}](../../{rel})", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def render_rule_index(rules: List[Any]) -> str:
    out = ["# Rule reference", "",
           "<!-- Generated from the rule files by `python -m linter.docsgen`; do not edit. -->", "",
           "One page per rule, generated from its YAML file (what `trainlint explain ID` prints). What each rule",
           "reports and the look-alikes it stays silent on, in one overview: [../rules.md](../rules.md).", "",
           "| id | name | checklist | framework | severity | what |", "|---|---|---|---|---|---|"]
    for r in sorted(rules, key=lambda r: r.id):
        out.append(f"| [{r.id}]({r.id}.md) | `{r.name}` | {r.checklist} | {r.framework} | {r.severity} | {r.title['en']} |")
    return "\n".join(out) + "\n"


def pages() -> Dict[str, str]:
    """Path → the text it must have."""
    packs = load_packs()
    out = {FACTS_MD: render_facts(load_facts()), os.path.join(RULES_DIR, "index.md"): render_rule_index(packs.rules)}
    for rule in packs.rules:
        out[os.path.join(RULES_DIR, f"{rule.id}.md")] = render_rule_page(rule, packs)
    return out


def main(argv: List[str]) -> int:
    check = "--check" in argv
    if not check:
        os.makedirs(RULES_DIR, exist_ok=True)
    stale = []
    for path, text in pages().items():
        try:
            with open(path, encoding="utf-8") as fh:
                current = fh.read()
        except OSError:
            current = None
        if current == text:
            continue
        stale.append(os.path.relpath(path, ROOT))
        if not check:
            with open(path, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
    verb = "out of date" if check else "written"
    for p in stale:
        print(f"{p}: {verb}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
