"""trainlint: find accuracy bugs in deep-learning training scripts, statically."""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
