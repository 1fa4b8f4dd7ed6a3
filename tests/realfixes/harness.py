"""Real accuracy-bug fixes from public histories, as a regression suite.

Each line of ``fixes.jsonl`` is one fix: the repository, the commit with the bug and the commit that
fixed it, the file and line of the bug, its checklist item and the rule that should report it
(``rule`` empty: any rule of the item), what was wrong (``summary``) and how we know (``evidence``).
``expect`` records what trainlint does today: ``caught`` (reported as a warning or error before the
fix and gone after it) or ``missed`` (with ``why``: what the model lacks).

A fix is judged by checking out the project at both commits from a bare mirror (text files only;
nothing from the mirror is run) and running ``trainlint check --format json`` on each:

* *reported before*: a finding of the rule at the bug's file within ±3 lines of the line, or with
  such a place among its related places (for a missing call — no seed — anywhere in the file, as
  the rule reports it in the entry script);
* *cleared after*: no such finding at the mapped place in the fixed version (the line mapped through
  the file's diff, widened to the changed hunk).

Run ``python tests/realfixes/harness.py --mirrors DIR`` for the table (``--update`` rewrites the
``expect`` fields from the result), or ``python -m pytest -m realfixes`` (``TRAINLINT_MIRRORS=DIR``).
A mirror is ``git clone --mirror https://github.com/OWNER/NAME DIR/OWNER+NAME``.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
FIXES = os.path.join(HERE, "fixes.jsonl")
KEEP_EXT = (".py", ".ipynb", ".yaml", ".yml", ".json", ".sh", ".md", ".txt", ".cfg")
MAX_BLOB = 4 * 1024 * 1024   # larger files are data, not code (and absent from some snapshots)
WINDOW = 3
FILE_LEVEL_KINDS = {"missing-seed"}
SEV_RANK = {"error": 3, "warning": 2, "info": 1}


def load_fixes(path: str = FIXES) -> List[Dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def gitdir(mirrors: str, repo: str) -> Optional[str]:
    """The bare repository of ``repo`` under ``mirrors`` (``OWNER+NAME``, ``OWNER+NAME/repo`` or
    ``OWNER/NAME.git``), or None."""
    owner, name = repo.split("/", 1)
    for cand in (os.path.join(mirrors, f"{owner}+{name}", "repo"), os.path.join(mirrors, f"{owner}+{name}"),
                 os.path.join(mirrors, owner, f"{name}.git")):
        for g in (os.path.join(cand, ".git"), cand):
            if os.path.isfile(os.path.join(g, "HEAD")):
                return g
    return None


def _git(g: str, *args: str, data: Optional[bytes] = None) -> bytes:
    r = subprocess.run(["git", "--git-dir=" + g, *args], capture_output=True, input=data)
    if r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.decode(errors='replace')[:300]}")
    return r.stdout


def extract(g: str, commit: str, project_dir: str, dest: str) -> int:
    """Write the text files of ``project_dir`` at ``commit`` under ``dest`` (repository-relative
    paths); returns how many. Blobs go through one ``cat-file --batch`` and are checked against
    their recorded size, so a truncated read is never linted."""
    listing = _git(g, "ls-tree", "-r", "-z", "--long", commit, "--", *([project_dir] if project_dir else []))
    wanted: List[Tuple[str, str, int]] = []
    for rec in listing.split(b"\0"):
        meta, _, path = rec.partition(b"\t")
        parts = meta.split()
        if len(parts) < 4 or parts[1] != b"blob" or not parts[3].isdigit():
            continue
        p = path.decode("utf-8", errors="replace")
        if p.lower().endswith(KEEP_EXT) and int(parts[3]) <= MAX_BLOB:
            wanted.append((parts[2].decode(), p, int(parts[3])))
    if not wanted:
        return 0
    out = _git(g, "cat-file", "--batch", data="".join(sha + "\n" for sha, _, _ in wanted).encode())
    pos = n = 0
    for _sha, p, size in wanted:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if len(header) < 3 or header[1] == b"missing":
            continue
        blob = out[pos:pos + int(header[2])]
        pos += int(header[2]) + 1
        if len(blob) != size:
            continue
        full = os.path.join(dest, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.write(blob)
        n += 1
    return n


def run_trainlint(root: str, target: str) -> Tuple[List[Dict[str, Any]], List[Any]]:
    """Findings and errors of ``trainlint check target`` run in ``root`` (paths repository-relative)."""
    r = subprocess.run([sys.executable, "-m", "linter", "check", target or ".", "--format", "json", "--exit-zero",
                        "--no-cache", "--isolated"], capture_output=True, text=True, cwd=root)
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError:
        raise RuntimeError(f"trainlint printed no JSON (exit {r.returncode}): {r.stderr[-300:]}")
    return doc.get("findings", []), doc.get("errors", [])


def rules_of(fix: Dict[str, Any]) -> Set[str]:
    if fix.get("rule"):
        return {fix["rule"]}
    from linter.compiler.load import builtin_pack
    from linter.engine.packs import load_packs
    packs = load_packs([builtin_pack()])
    return {r.id for r in packs.rules if r.checklist == fix["item"]}


def _hunk(old: List[str], new: List[str], line: int) -> Tuple[int, int]:
    """The lines of ``new`` that stand where line ``line`` of ``old`` was: the line itself when
    unchanged, else the changed hunk containing it or nearest to it (at most 6 lines away)."""
    best: Optional[Tuple[int, int, int]] = None
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            if i1 <= line - 1 < i2:
                j = j1 + (line - 1 - i1) + 1
                best = best if best and best[0] == 0 else (1, j, j)
            continue
        d = 0 if i1 <= line - 1 < max(i2, i1 + 1) else min(abs(i1 - (line - 1)), abs(i2 - (line - 1)))
        if d <= 6 and (best is None or d < best[0]):
            best = (d, j1 + 1, max(j2, j1 + 1))
    if best is None:
        return line, line
    return best[1], best[2]


def _at(findings: Iterable[Dict[str, Any]], path: str, lo: int, hi: int, rules: Set[str]) -> List[Dict[str, Any]]:
    """Findings of ``rules`` at ``path`` between the lines, or naming such a place as related
    (a loss reported where it is called, its cause — the softmax ending the model — as related)."""
    def near(p: str, line: Any) -> bool:
        return os.path.normpath(p) == os.path.normpath(path) and lo <= int(line or 0) <= hi
    return [f for f in findings if f.get("rule") in rules and (
        near(f.get("path", ""), f.get("line")) or any(near(r.get("path", ""), r.get("line")) for r in f.get("related", ())))]


def evaluate(fix: Dict[str, Any], mirrors: str, workdir: Optional[str] = None) -> Dict[str, Any]:
    """Check one fix; the result says whether it was reported before (and how) and cleared after."""
    g = gitdir(mirrors, fix["repo"])
    if g is None:
        raise FileNotFoundError(f"no mirror of {fix['repo']} under {mirrors}")
    rules = rules_of(fix)
    res: Dict[str, Any] = {"id": fix["id"], "item": fix["item"], "rule": fix.get("rule", "")}
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        found = {}
        for side, commit in (("before", fix["bug_commit"]), ("after", fix["fix_commit"])):
            root = os.path.join(tmp, side)
            os.makedirs(root)
            extract(g, commit, fix.get("project_dir", ""), root)
            found[side], errors = run_trainlint(root, fix.get("project_dir", ""))
            if errors:
                res["errors_" + side] = len(errors)
    old = _git(g, "show", f"{fix['bug_commit']}:{fix['path']}").decode("utf-8", "replace").splitlines()
    try:
        new = _git(g, "show", f"{fix['fix_commit']}:{fix['path']}").decode("utf-8", "replace").splitlines()
    except RuntimeError:
        new = []   # the fix removed or moved the file
    line = int(fix["line"])
    whole = fix.get("kind") in FILE_LEVEL_KINDS
    before = _at(found["before"], fix["path"], *((0, 10 ** 9) if whole else (line - WINDOW, line + WINDOW)), rules)
    if not new:
        after: List[Dict[str, Any]] = []
    elif whole:
        after = _at(found["after"], fix["path"], 0, 10 ** 9, rules)
    else:
        lo, hi = _hunk(old, new, line)
        after = _at(found["after"], fix["path"], lo - WINDOW, hi + WINDOW, rules)
    sev = max((f["severity"] for f in before), key=lambda s: SEV_RANK.get(s, 0), default="")
    res.update(severity_before=sev, reported=sev in ("warning", "error"), cleared=not after,
               severity_after=max((f["severity"] for f in after), key=lambda s: SEV_RANK.get(s, 0), default=""))
    res["caught"] = bool(res["reported"] and res["cleared"])
    return res


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", default=os.environ.get("TRAINLINT_MIRRORS", ""), help="folder of bare mirrors")
    ap.add_argument("--only", default="", help="comma-separated fix ids")
    ap.add_argument("--update", action="store_true", help="rewrite the expect fields of fixes.jsonl")
    args = ap.parse_args(argv)
    if not args.mirrors:
        ap.error("--mirrors (or TRAINLINT_MIRRORS) is required")
    fixes = load_fixes()
    only = set(filter(None, args.only.split(",")))
    results = {}
    for fix in fixes:
        if only and fix["id"] not in only:
            continue
        try:
            r = evaluate(fix, args.mirrors)
        except (FileNotFoundError, RuntimeError) as exc:
            print(f"{fix['id']:<48} skipped: {exc}")
            continue
        results[fix["id"]] = r
        state = "caught" if r["caught"] else (
            f"reported ({r['severity_before']}) but not cleared" if r["reported"] else
            f"info only" if r["severity_before"] == "info" else "not reported")
        print(f"{fix['id']:<48} {fix['item']:<7} {r['rule'] or '(item)':<7} {state}")
    n = len(results)
    caught = sum(r["caught"] for r in results.values())
    items = {f["item"] for f in fixes if results.get(f["id"], {}).get("caught")}
    print(f"\n{caught} of {n} fixes caught (reported as warning/error before the fix, gone after), "
          f"{len(items)} checklist items")
    if args.update:
        with open(FIXES, "w", encoding="utf-8") as fh:
            for fix in fixes:
                if fix["id"] in results:
                    fix["expect"] = "caught" if results[fix["id"]]["caught"] else "missed"
                fh.write(json.dumps(fix, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
