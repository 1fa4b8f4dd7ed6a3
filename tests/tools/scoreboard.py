"""Compare trainlint's findings on tests/projects/* with the `# expect:` markers (dev aid)."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from linter.api import check_paths  # noqa: E402
from linter.engine.packs import load_packs  # noqa: E402
from linter.testing import expected_marks  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "projects")


def project_marks(project: str):
    files = []
    for dirpath, _dirs, names in os.walk(project):
        for n in names:
            if n.endswith(".py"):
                p = os.path.join(dirpath, n)
                files.append((os.path.relpath(p, project), open(p, encoding="utf-8").read()))
    return expected_marks(files)


def main() -> int:
    packs = load_packs()
    if packs.errors:
        for e in packs.errors:
            print("RULE ERROR", e)
        return 2
    only = set(sys.argv[1:])
    rule_ids = {r.id for r in packs.rules}
    total_missing = total_extra = 0
    for name in sorted(os.listdir(ROOT)):
        proj = os.path.join(ROOT, name)
        if not os.path.isdir(proj) or (only and name not in only):
            continue
        exp = {m for m in project_marks(proj) if m[2] in rule_ids}
        res = check_paths([proj], packs, cwd=proj)
        got = {(f.path, f.span.line, f.rule) for f in res.findings}
        msgs = {(f.path, f.span.line, f.rule): f.message for f in res.findings}
        missing = sorted(exp - got)
        extra = sorted(got - exp)
        total_missing += len(missing)
        total_extra += len(extra)
        print(f"== {name}: expected {len(exp)}, got {len(got)}, missing {len(missing)}, unexpected {len(extra)}")
        for m in missing:
            print("   MISSING   ", m)
        for m in extra:
            print("   UNEXPECTED", m, msgs[m][:160])
        for e in res.errors:
            print("   ERROR", e.path, e.line, e.kind.value, e.message[:200])
    print(f"TOTAL missing {total_missing} unexpected {total_extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
