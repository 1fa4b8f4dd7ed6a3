"""The role names and the compiled ``rules/roles.yaml`` (:class:`RoleSpec`): which calls perform
each role's steps, which file names, words and flags name a role.

The rule packs carry a :class:`RoleSpec` (:mod:`linter.engine.packs`, cached by pickling), so this
module needs nothing of the program model.
"""
from __future__ import annotations

import re
from typing import Any, Dict, FrozenSet, Tuple

from linter.core.globs import GlobSet, Regex

TRAINING = "training"
EVALUATION = "evaluation"
INFERENCE = "inference"
EXPORT = "export"

Site = Tuple[int, int]
"""(file index, scope index): a function (or module body when scope is 0)."""


class RoleSpec:
    """The compiled contents of ``roles.yaml``."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.steps: Dict[str, GlobSet] = {}
        """Every call that performs (part of) a role: for training, updates, gradients and untyped updates."""
        self.file_names: Dict[str, Regex] = {}
        self.updates = GlobSet(())
        self.gradients = GlobSet(())
        self.untyped_updates = GlobSet(())
        self.optimizers = GlobSet(())
        """Classes whose construction takes the parameters they update (first argument)."""
        self.parameter_methods: FrozenSet[str] = frozenset()
        """Methods/properties that read a network's parameters (``trainable_params``)."""
        self.standalone_parameters = GlobSet(())
        """Constructors of a parameter made on its own (``mindspore.Parameter``): it owns itself."""
        for role, spec in (data.get("roles") or {}).items():
            if role == TRAINING:
                self.updates = GlobSet(spec.get("updates", ()))
                self.gradients = GlobSet(spec.get("gradients", ()))
                self.untyped_updates = GlobSet(spec.get("untyped_updates", ()))
                self.optimizers = GlobSet(spec.get("optimizers", ()))
                self.parameter_methods = frozenset(spec.get("parameters", ()))
                self.standalone_parameters = GlobSet(spec.get("standalone_parameters", ()))
                self.steps[role] = GlobSet(tuple(spec.get("updates", ())) + tuple(spec.get("gradients", ()))
                                           + tuple(spec.get("untyped_updates", ())) + tuple(spec.get("steps", ())))
            else:
                self.steps[role] = GlobSet(spec.get("steps", ()))
            if spec.get("file_names"):
                self.file_names[role] = Regex(spec["file_names"], re.I)
        words = data.get("words") or {}
        self.train_words = Regex(words.get("training", r"(^|_)train(_|$)"), re.I)
        self.eval_words = Regex(words.get("evaluation", r"(^|_)(eval|val|test)(_|$)"), re.I)
        self.display_words = Regex(words.get("display", r"(^|_)(show|plot|vis)(_|$)"), re.I)
        flags = data.get("flags") or {}
        self.train_flags = frozenset(flags.get("training_bool", ()))
        self.eval_flags = frozenset(flags.get("evaluation_bool", ()))
        self.split_flags = frozenset(flags.get("split_string", ()))
        self.train_values = frozenset(flags.get("training_values", ()))
        self.eval_values = frozenset(flags.get("evaluation_values", ()))
        self.split_keywords = Regex(flags.get("split_keywords", "^$"), re.I)
