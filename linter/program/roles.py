"""Stage 3c: the program model — entry scripts, what each program really does (training,
evaluation, inference, export, data preparation, conversion), reachability, and whether a
data pipeline is built for training — all from ``rules/roles.yaml``.

A program is an entry script with everything it reaches. Its roles come from evidence: the
calls it reaches (a parameter update makes it a training program); file names only break
ties. Every role keeps the call that decided it, for messages and for ``audit``.

Reachability is answered backwards: from the few calls a question is about, through the
call sites of their enclosing functions, up to the module code of entry scripts. That
touches only the functions on those paths instead of resolving every call of a project.
A ``construct``/``forward``/``call`` method (or any method nobody calls by name, such as a
callback hook) runs where its instances are called or, failing that, built.

:class:`Roles` is assembled from its parts, one module each, over the state they share
(:mod:`linter.program.role_state`: the project, the role spec, the memo tables):

* :mod:`linter.program.role_spec` — the role names and the compiled ``roles.yaml``;
* :mod:`linter.program.entries` — entry scripts, import closures, ``__main__`` guards, step calls;
* :mod:`linter.program.reaching` — the entries reaching a function, over its callers;
* :mod:`linter.program.registries` — functions and classes used as values, constructions;
* :mod:`linter.program.evidence` — the roles of a program from the calls it reaches;
* :mod:`linter.program.pipelines` — the training or evaluation role of data pipelines.
"""
from __future__ import annotations

from linter.program.entries import Entries
from linter.program.evidence import Evidence
from linter.program.pipelines import Pipelines
from linter.program.reaching import _RUN_BY_INSTANCE, Reaching
from linter.program.registries import Registries
from linter.program.role_spec import EVALUATION, EXPORT, INFERENCE, TRAINING, RoleSpec, Site

__all__ = ["EVALUATION", "EXPORT", "INFERENCE", "TRAINING", "_RUN_BY_INSTANCE", "RoleSpec", "Roles", "Site"]
"""``Roles``, and the names other modules take from here (defined in its parts)."""


class Roles(Entries, Reaching, Registries, Evidence, Pipelines):
    """The roles of a project's programs, their entry scripts and reachability, and the roles of
    their data pipelines."""
