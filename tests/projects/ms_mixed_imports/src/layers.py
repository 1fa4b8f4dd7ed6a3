"""Basic layers shared by the ViT models (MindSpore). No __all__: `from .layers import *` re-exports nn/ops too."""
import numpy as np
from mindspore import nn, ops, Parameter, Tensor
from mindspore import dtype as mstype
from mindspore.common.initializer import initializer, TruncatedNormal, Zero, One


class Identity(nn.Cell):
    """Pass-through."""

    def construct(self, x):
        return x


class DropPath(nn.Cell):
    """Stochastic depth per sample (drop_prob = probability of dropping the residual branch)."""

    def __init__(self, drop_prob=0.0):
        super(DropPath, self).__init__()
        self.keep_prob = 1.0 - drop_prob

    def construct(self, x):
        if not self.training or self.keep_prob == 1.0:
            return x
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        random_tensor = ops.floor(self.keep_prob + ops.rand(shape, dtype=x.dtype))
        return x / self.keep_prob * random_tensor


class Mlp(nn.Cell):
    """Dense -> GELU -> Dense with dropout (timm Mlp)."""

    def __init__(self, in_features, hidden_features=None, out_features=None, act_layer=nn.GELU, drop=0.):
        super(Mlp, self).__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Dense(in_features, hidden_features)
        self.act = act_layer(approximate=False)
        self.fc2 = nn.Dense(hidden_features, out_features)
        self.drop = nn.Dropout(p=drop)  # trap: p= keyword is the drop probability

    def construct(self, x):
        x = self.drop(self.act(self.fc1(x)))
        return self.drop(self.fc2(x))


class Attention(nn.Cell):
    """Multi-head self attention."""

    def __init__(self, dim, num_heads=8, qkv_bias=False, attn_drop=0., proj_drop=0.):
        super(Attention, self).__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = Tensor(head_dim ** -0.5, mstype.float32)
        self.qkv = nn.Dense(dim, dim * 3, has_bias=qkv_bias)
        self.attn_drop = nn.Dropout(keep_prob=1.0 - attn_drop)  # trap: keep_prob keyword, 1 - drop
        self.proj = nn.Dense(dim, dim)
        self.proj_drop = nn.Dropout(1.0 - proj_drop)  # trap: 1 - drop probability
        self.softmax = nn.Softmax(axis=-1)

    def construct(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, c // self.num_heads).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = ops.matmul(q, k.swapaxes(-2, -1)) * self.scale
        attn = self.attn_drop(self.softmax(attn))
        x = ops.matmul(attn, v).transpose(0, 2, 1, 3).reshape(b, n, c)
        return self.proj_drop(self.proj(x))


def init_dense_weights(cell):
    """Truncated-normal Dense weights and zero biases, as in timm's _init_weights."""
    for _, sub in cell.cells_and_names():
        if isinstance(sub, nn.Dense):
            sub.weight.set_data(initializer(TruncatedNormal(0.02), sub.weight.shape, sub.weight.dtype))
            if sub.bias is not None:
                sub.bias.set_data(initializer(Zero(), sub.bias.shape, sub.bias.dtype))
        elif isinstance(sub, nn.LayerNorm):
            sub.gamma.set_data(initializer(One(), sub.gamma.shape, sub.gamma.dtype))
            sub.beta.set_data(initializer(Zero(), sub.beta.shape, sub.beta.dtype))
    return int(np.sum([p.size for p in cell.trainable_params()]))
