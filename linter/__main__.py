"""`python -m linter` runs the same entry point as the `trainlint` console script."""
from linter.cli import main

raise SystemExit(main())
