"""Transformer block built from the basic layers (everything comes in through the star import)."""
from .layers import *  # noqa: F401,F403  -- nn, ops, Parameter, Mlp, Attention, DropPath, ...


class Block(nn.Cell):
    """Pre-norm transformer block; `drop` is the torch/timm drop probability."""

    def __init__(self, dim, num_heads=3, mlp_ratio=4., qkv_bias=True, drop=0., attn_drop=0., drop_path=0.):
        super(Block, self).__init__()
        self.norm1 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.attn = Attention(dim, num_heads=num_heads, qkv_bias=qkv_bias, attn_drop=attn_drop, proj_drop=drop)
        self.drop = nn.Dropout(drop)  # expect: API101
        self.drop_path = DropPath(drop_path) if drop_path > 0. else Identity()
        self.norm2 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.mlp = Mlp(in_features=dim, hidden_features=int(dim * mlp_ratio), drop=drop)

    def construct(self, x):
        x = x + self.drop_path(self.drop(self.attn(self.norm1(x))))
        x = x + self.drop_path(self.mlp(self.norm2(x)))
        return x
