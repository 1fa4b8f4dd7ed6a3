"""Generated documentation: ``python -m linter.docsgen`` rewrites the pages that are rendered
from data, so they cannot drift from it (tests compare the committed pages with a fresh render).

* ``docs/framework-facts.md`` from ``docs/framework-facts.yaml``: the framework defaults and
  semantics the rules rely on, each with the version it was verified on.
"""
from __future__ import annotations

import os
import sys
from typing import Any, Dict, List

import yaml

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


def pages() -> Dict[str, str]:
    """Path → the text it must have."""
    return {FACTS_MD: render_facts(load_facts())}


def main(argv: List[str]) -> int:
    check = "--check" in argv
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
