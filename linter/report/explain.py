"""``trainlint explain ID``: a rule's documentation, rendered from its YAML (Ruff's skeleton:
what it does, why it is bad, how to fix it, known problems, examples)."""
from __future__ import annotations

from typing import List

from linter.compiler.build import CompiledRule
from linter.compiler.fixes import fix_docs
from linter.engine.packs import RulePacks

HEADINGS = {
    "en": {"what": "What it does", "why": "Why it hurts accuracy", "fix": "How to fix it", "known_problems": "Known problems",
           "references": "References", "bad": "Example (reported)", "good": "Use instead / not reported", "checklist": "Checklist item",
           "file": "Rule file", "autofix": "Automatic fix (`trainlint check --fix`)"},
    "zh": {"what": "检查内容", "why": "为什么影响精度", "fix": "如何修复", "known_problems": "已知局限",
           "references": "参考", "bad": "示例（会报告）", "good": "正确写法 / 不会报告", "checklist": "检查项", "file": "规则文件",
           "autofix": "自动修复（`trainlint check --fix`）"},
}


def localized(block: object, lang: str) -> str:
    if isinstance(block, dict):
        return str(block.get(lang) or block.get("en") or "")
    return str(block or "")


def render_rule(rule: CompiledRule, packs: RulePacks, lang: str = "en") -> str:
    h = HEADINGS.get(lang, HEADINGS["en"])
    out: List[str] = []
    out.append(f"{rule.id} {rule.name}: {localized(rule.title, lang)}")
    item = packs.checklist.get(rule.checklist, {})
    out.append(f"{h['checklist']}: {rule.checklist} {localized(item.get('title'), lang)}")
    out.append(f"framework: {rule.framework}   severity: {rule.severity}"
               + (f"   versions: {rule.versions}" if rule.versions else "")
               + (f"   tags: {', '.join(rule.tags)}" if rule.tags else ""))
    out.append("")
    for key in ("what", "why", "fix", "known_problems"):
        if key in rule.docs:
            out.append(f"## {h[key]}")
            out.append(localized(rule.docs[key], lang).strip())
            out.append("")
    if rule.fixes:

        out.append(f"## {h['autofix']}")
        out += [f"- {line}" for line in fix_docs(rule.fixes, lang)]
        out.append("")
    refs = rule.docs.get("references") or []
    if refs:
        out.append(f"## {h['references']}")
        out += [f"- {r}" for r in refs]
        out.append("")
    for kind, title in (("invalid", h["bad"]), ("valid", h["good"])):
        ex = next((e for e in rule.examples if e.kind == kind), None)
        if ex is None:
            continue
        out.append(f"## {title}")
        for path, code in ex.files:
            if len(ex.files) > 1:
                out.append(f"# {path}")
            out.append(code.rstrip())
        out.append("")
    out.append(f"{h['file']}: {rule.path}")
    return "\n".join(out) + "\n"
