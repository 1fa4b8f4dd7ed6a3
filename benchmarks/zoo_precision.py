#!/usr/bin/env python3
"""Measure precision on a real repository: draw findings to judge, then score the judgements.

    trainlint check CHECKOUT --format json --exit-zero > findings.json
    python benchmarks/zoo_precision.py sample findings.json --root CHECKOUT --per-rule 10 --seed 7 > to-judge.jsonl
    # judge every line by reading the code: "verdict" true | noise | false, "reason" one line
    python benchmarks/zoo_precision.py score findings.json judged.jsonl [more.jsonl ...]

`sample` draws, per rule, a random sample of the warnings and errors (info findings are not what a
user is asked to act on); findings in files with the same content (one model copied into several
folders) count once. `score` prints, per rule, the judged findings that are still warnings or
errors in `findings.json` (true / noise / false) and the precision weighted by how often each rule
fires. Use a new seed after changing rules, so they are measured on findings they were not tuned on.
"""
from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import random
import sys
from typing import Dict, List, Tuple

Key = Tuple[str, int, str]


def _load(path: str) -> List[dict]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)["findings"]


def _warned(findings: List[dict]) -> List[dict]:
    return [f for f in findings if f.get("severity") in ("warning", "error")]


def sample(args: argparse.Namespace) -> int:
    digests: Dict[str, str] = {}

    def digest(path: str) -> str:
        if path not in digests:
            try:
                with open(os.path.join(args.root, path), "rb") as fh:
                    digests[path] = hashlib.sha256(fh.read()).hexdigest()
            except OSError:
                digests[path] = path
        return digests[path]

    by_rule: Dict[str, List[dict]] = collections.defaultdict(list)
    seen = set()
    for f in _warned(_load(args.findings)):
        if args.rules and not any(f["rule"].startswith(r) for r in args.rules.split(",")):
            continue
        key = (f["rule"], digest(f["path"]), f["line"])
        if key not in seen:
            seen.add(key)
            by_rule[f["rule"]].append(f)
    rng = random.Random(args.seed)
    for rule in sorted(by_rule):
        pool = sorted(by_rule[rule], key=lambda f: (f["path"], f["line"]))
        for f in rng.sample(pool, min(args.per_rule, len(pool))):
            print(json.dumps({"path": f["path"], "line": f["line"], "rule": rule, "severity": f["severity"],
                              "message": f["message"], "verdict": "", "reason": ""}, ensure_ascii=False))
    print("per rule: " + ", ".join(f"{r} {len(v)}" for r, v in sorted(by_rule.items())), file=sys.stderr)
    return 0


def score(args: argparse.Namespace) -> int:
    current = {(f["path"], f["line"], f["rule"]): f["severity"] for f in _warned(_load(args.findings))}
    fired = collections.Counter(rule for (_p, _l, rule) in current)
    verdicts: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    done = set()
    for path in args.judged:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                row = json.loads(line)
                if "rule" not in row:
                    continue   # a header line (the regression file's commit and method)
                where = row.get("path") or os.path.relpath(row["file"], args.root or os.getcwd())
                key: Key = (where, row["line"], row["rule"])
                if key in done or key not in current or row.get("verdict") not in ("true", "noise", "false"):
                    continue   # judged twice, or no longer a warning (fixed, or now info)
                done.add(key)
                verdicts[row["rule"]][row["verdict"]] += 1
    print("| rule | warnings | judged | true | noise | false | precision |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    weighted = total = 0.0
    for rule in sorted(fired):
        v = verdicts[rule]
        n = sum(v.values())
        precision = v["true"] / n if n else None
        shown = f"{precision:.0%}" if precision is not None else "—"
        print(f"| {rule} | {fired[rule]} | {n} | {v['true']} | {v['noise']} | {v['false']} | {shown} |")
        if precision is not None:
            weighted += fired[rule] * precision
            total += fired[rule]
    if total:
        print(f"\nweighted by findings: {weighted / total:.1%} of {int(total)} warnings and errors "
              f"in judged rules ({sum(fired.values())} in all)")
    return 0


def main(argv: List[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sample", help="draw findings to judge")
    s.add_argument("findings")
    s.add_argument("--root", required=True, help="the folder trainlint checked (paths are relative to it)")
    s.add_argument("--per-rule", type=int, default=10)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--rules", default="", help="comma-separated ids or prefixes")
    c = sub.add_parser("score", help="precision of judged findings against a run")
    c.add_argument("findings")
    c.add_argument("judged", nargs="+", help="JSON lines with path (or absolute file), line, rule, verdict")
    c.add_argument("--root", default="", help="where absolute `file` paths are made relative to")
    args = ap.parse_args(argv)
    return sample(args) if args.command == "sample" else score(args)


if __name__ == "__main__":
    sys.exit(main())
