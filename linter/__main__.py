"""`python -m linter` runs the same entry point as the `trainlint` console script."""
from linter.entry import main

raise SystemExit(main())
