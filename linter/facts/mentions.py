"""What a file's text says about where its code comes from, read once with the file's facts."""
from __future__ import annotations

import re

PYTORCH_MENTION = re.compile(r"(?i)(?<![a-z])pytorch(?![a-z_])|^\s*(?:import|from)\s+torch\b|(?<![\w.])torch\.\w", re.M)
"""A mention of PyTorch: the word ("a MindSpore port of the PyTorch code", "基于PyTorch"), an
import of ``torch``, or a ``torch.`` name (in code, or in a comment quoting the reference)."""
