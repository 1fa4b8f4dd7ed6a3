"""Stage 3b: the project index — linked facts of every file, queried lazily by the rules.

Nothing here walks the whole project up front: rules ask for the qualified names of the
calls they care about (found through :attr:`FileFacts.callee_index`), and the index resolves
names, receivers, constants and call sites on demand, memoising every answer. That keeps a
warm re-link cheap and makes the cost proportional to what the rules look at.

:class:`Project` is assembled from its parts, one module each, over the state they share
(:mod:`linter.index.state`: the facts, the memo tables, the question being answered):

* :mod:`linter.index.evaluation` — the values of expressions, names, imports and attributes;
* :mod:`linter.index.classes` — class bases, MRO, subclasses and attribute lookup on classes;
* :mod:`linter.index.calls` — what a call runs and returns, and the names it answers to;
* :mod:`linter.index.records` — configurations loaded by project functions, argparse namespaces;
* :mod:`linter.index.callers` — call sites of a function and what its parameters receive;
* :mod:`linter.index.constants` — constant propagation with provenance.
"""
from __future__ import annotations

from linter.index.callers import BoundArgs, Callers, bind_args
from linter.index.calls import Calls
from linter.index.classes import Classes
from linter.index.constants import ARGPARSE_DEFAULT, CONFIG_VALUE, NO_COMMAND_LINE, Constants
from linter.index.evaluation import Evaluation
from linter.index.records import Records
from linter.index.state import _ARITH

__all__ = ["ARGPARSE_DEFAULT", "CONFIG_VALUE", "NO_COMMAND_LINE", "_ARITH", "BoundArgs", "Project", "bind_args"]
"""``Project``, and the names other modules take from here (defined in its parts)."""


class Project(Evaluation, Classes, Calls, Records, Callers, Constants):
    """Every file's facts plus the lazy resolution machinery."""
