"""Audit report wording, in English and Chinese (one table for every output format)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict

from linter.audit.model import FOUND, MANUAL, NO_ISSUE, NOT_APPLICABLE

if TYPE_CHECKING:
    from linter.audit.model import AuditResult

_LABELS: Dict[str, Dict[str, str]] = {
    "title": {"en": "trainlint audit", "zh": "trainlint 审计"},
    "found": {"en": "found", "zh": "发现问题"},
    "no-issue": {"en": "no issue", "zh": "无问题"},
    "not-applicable": {"en": "not applicable", "zh": "不适用"},
    "manual": {"en": "manual", "zh": "需人工检查"},
    "project": {"en": "Project", "zh": "项目"},
    "projects": {"en": "Projects", "zh": "项目"},
    "entries": {"en": "Entry scripts", "zh": "入口脚本"},
    "frameworks": {"en": "Frameworks", "zh": "框架"},
    "files": {"en": "Files", "zh": "文件"},
    "item": {"en": "Item", "zh": "检查项"},
    "status": {"en": "Status", "zh": "状态"},
    "details": {"en": "Details", "zh": "详情"},
    "evidence": {"en": "Evidence", "zh": "证据"},
    "facts": {"en": "Facts", "zh": "提取的取值"},
    "how_to_check": {"en": "How to check", "zh": "检查方法"},
    "findings": {"en": "Findings", "zh": "问题"},
    "default": {"en": "(default)", "zh": "（默认值）"},
    "risks": {"en": "Migration risks", "zh": "迁移风险"},
    "risks_intro": {"en": "API uses whose {target} counterpart has a different default or meaning: write the value explicitly there.",
                    "zh": "以下 API 在 {target} 中的对应 API 默认值或含义不同：迁移时请显式写出取值。"},
    "no_risks": {"en": "No API use with a differing default or meaning was found.", "zh": "未发现默认值或含义不同的 API 用法。"},
    "location": {"en": "Location", "zh": "位置"},
    "api": {"en": "API", "zh": "API"},
    "parameter": {"en": "Parameter", "zh": "参数"},
    "value": {"en": "Value here", "zh": "此处取值"},
    "counterpart": {"en": "Counterpart (its default)", "zh": "对应 API（其默认值）"},
    "write": {"en": "Write there", "zh": "迁移时写作"},
    "kind_default": {"en": "default differs", "zh": "默认值不同"},
    "kind_meaning": {"en": "meaning differs", "zh": "含义不同"},
    "errors": {"en": "Files or rules that could not be checked", "zh": "无法检查的文件或规则"},
    "notes": {"en": "Notes", "zh": "说明"},
    "summary": {"en": "{projects} project(s), {files} file(s): {found} found, {manual} manual, {ok} no issue, {na} not applicable",
                "zh": "{projects} 个项目，{files} 个文件：发现问题 {found}，需人工检查 {manual}，无问题 {ok}，不适用 {na}"},
    "no_projects": {"en": "No Python files to audit.", "zh": "没有可审计的 Python 文件。"},
    "none": {"en": "none", "zh": "无"},
    "index": {"en": "Index", "zh": "目录"},
}


def label(key: str, lang: str, **kw: object) -> str:
    d = _LABELS[key]
    text = d.get(lang) or d["en"]
    return text.format(**kw) if kw else text


def summary_line(result: "AuditResult", lang: str) -> str:
    """``4 project(s), 12 file(s): 5 found, ...``: the same line in every format."""
    return label("summary", lang, projects=len(result.projects), files=result.files, found=result.count(FOUND),
                 manual=result.count(MANUAL), ok=result.count(NO_ISSUE), na=result.count(NOT_APPLICABLE))
