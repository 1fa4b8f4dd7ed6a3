"""Heads written for MindSpore from the start: one GELU form, one epsilon (traps)."""
from mindspore import nn


class ProjectionHead(nn.Cell):
    def __init__(self, dim, out):
        super().__init__()
        self.norm = nn.LayerNorm((dim,))
        self.fc = nn.Dense(dim, out)
        self.act = nn.GELU()

    def construct(self, x):
        return self.act(self.fc(self.norm(x)))
