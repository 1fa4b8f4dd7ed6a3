"""``trainlint audit``: fill in the accuracy checklist for every project of a tree.

    0 spec      rules/audit.yaml → applicability, evidence probes, facts   (spec.py)
    1 check     the engine's own run over the whole tree (discover → facts → index → rules →
                suppressions), keeping the project index                 (linter.engine.run)
    2 projects  entry scripts and their import closures                    (projects.py)
    3 decide    per project and item: found / no-issue / not-applicable / manual (decide.py)
    4 inventory migration risks: API uses whose counterpart differs       (inventory.py)
    5 render    rich / markdown / html / json                              (render_*.py)

One engine run serves every project: a file shared by several projects is parsed once, and its
findings are listed in each project that imports it.
"""

# The package itself imports nothing: `trainlint check` builds the audit sub-command's parser
# and must not pay for the audit machinery (start-up time of one-file runs). See run.py.
