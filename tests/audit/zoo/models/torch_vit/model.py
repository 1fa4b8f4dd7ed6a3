"""A small ViT-style classifier."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, heads, drop=0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=drop, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Dropout(drop), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x), self.norm1(x), self.norm1(x))[0]
        return x + self.mlp(self.norm2(x))


class ViT(nn.Module):
    def __init__(self, dim=192, depth=4, heads=3, num_classes=100):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, kernel_size=4, stride=4)
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.bn = nn.BatchNorm1d(dim, momentum=0.1)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.pool(self.patch(x)).flatten(2).transpose(1, 2)
        x = self.norm(self.blocks(x)).mean(1)
        return self.head(self.bn(x))
