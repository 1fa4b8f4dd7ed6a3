"""A small ViT ported from a PyTorch reference (timm-style blocks)."""
from mindspore import nn, ops


class Mlp(nn.Cell):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Dense(dim, hidden)
        self.act = nn.GELU()  # expect: API161
        self.fc2 = nn.Dense(hidden, dim)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Attention(nn.Cell):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Dense(dim, dim * 3)
        self.proj = nn.Dense(dim, dim)
        self.softmax = nn.Softmax(axis=-1)

    def construct(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = self.softmax(ops.matmul(q, k.swapaxes(-2, -1)) * (c // self.heads) ** -0.5)
        return self.proj(ops.matmul(attn, v).transpose(0, 2, 1, 3).reshape(b, n, c))


class Block(nn.Cell):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm((dim,), epsilon=1e-6)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm((dim,))  # expect: API162
        self.mlp = Mlp(dim, dim * 4)

    def construct(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class PatchEmbed(nn.Cell):
    def __init__(self, dim, patch=16):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch, stride=patch, has_bias=True)

    def construct(self, x):
        x = ops.gelu(self.proj(x))  # the exact form: the reference's F.gelu
        b, c, h, w = x.shape
        return x.reshape(b, c, h * w).transpose(0, 2, 1)


class ViT(nn.Cell):
    def __init__(self, dim=192, depth=4, heads=3, num_classes=10):
        super().__init__()
        self.embed = PatchEmbed(dim)
        self.blocks = nn.SequentialCell([Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm((dim,), epsilon=1e-6)
        self.head = nn.Dense(dim, num_classes)

    def construct(self, x):
        x = self.norm(self.blocks(self.embed(x)))
        return self.head(x.mean(axis=1))
