"""ViT-Tiny and two conv-stem variants. Layers come from `.common`, which star-imports `.layers`."""
from .common import *  # noqa: F401,F403  -- nn, ops, Parameter, initializer, TruncatedNormal, Block, ...
from .convert import Stem


class PatchEmbed(nn.Cell):
    """Non-overlapping patches -> tokens."""

    def __init__(self, img_size=224, patch_size=16, in_chans=3, embed_dim=192):
        super(PatchEmbed, self).__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size,  # trap: has_bias=True
                              pad_mode='valid', has_bias=True)

    def construct(self, x):
        x = self.proj(x)
        b, c, h, w = x.shape
        return x.reshape(b, c, h * w).transpose(0, 2, 1)


class ConvPatchEmbed(nn.Cell):
    """Two stride-2 convs then 1/4-resolution tokens (early-convolution ViT)."""

    def __init__(self, img_size=224, in_chans=3, embed_dim=192):
        super(ConvPatchEmbed, self).__init__()
        self.num_patches = (img_size // 4) ** 2
        self.proj = nn.SequentialCell([
            nn.Conv2d(in_chans, embed_dim // 2, 3, stride=2, pad_mode='pad', padding=1),  # trap: next element is BatchNorm2d
            nn.BatchNorm2d(embed_dim // 2),
            nn.GELU(approximate=False),
            nn.Conv2d(embed_dim // 2, embed_dim, 3, stride=2, pad_mode='pad', padding=1),  # trap: last element, use not followed
        ])

    def construct(self, x):
        x = self.proj(x)
        b, c, h, w = x.shape
        return x.reshape(b, c, h * w).transpose(0, 2, 1)


class VisionTransformer(nn.Cell):
    """ViT with a class token; dropout values copied from the timm config (drop probabilities)."""

    def __init__(self, num_classes=1000, embed_dim=192, depth=12, num_heads=3, mlp_ratio=4.,
                 embed_layer=None, num_patches=None):
        super(VisionTransformer, self).__init__()
        self.patch_embed = embed_layer if embed_layer is not None else PatchEmbed(embed_dim=embed_dim)
        num_patches = num_patches or self.patch_embed.num_patches
        self.cls_token = Parameter(initializer(TruncatedNormal(0.02), (1, 1, embed_dim)), name="cls_token")
        self.pos_embed = Parameter(initializer(TruncatedNormal(0.02), (1, num_patches + 1, embed_dim)),
                                   name="pos_embed")
        self.pos_drop = nn.Dropout(0.1)  # expect: API101
        self.blocks = nn.SequentialCell([Block(embed_dim, num_heads, mlp_ratio, qkv_bias=True, drop=0.1)
                                         for _ in range(depth)])
        self.norm = nn.LayerNorm((embed_dim,), epsilon=1e-6)
        self.head = nn.Dense(embed_dim, num_classes)
        self.tile = ops.Tile()
        self.concat = ops.Concat(axis=1)

    def construct(self, x):
        x = self.patch_embed(x)
        cls = self.tile(self.cls_token, (x.shape[0], 1, 1))
        x = self.concat((cls, x)) + self.pos_embed
        x = self.blocks(self.pos_drop(x))
        x = self.norm(x)
        return self.head(x[:, 0])


def vit_tiny(num_classes=1000):
    return VisionTransformer(num_classes=num_classes)


def vit_tiny_conv(num_classes=1000):
    return VisionTransformer(num_classes=num_classes, embed_layer=ConvPatchEmbed(224, 3, 192))


def vit_hybrid_tiny(num_classes=1000):
    stem = nn.SequentialCell([Stem(3, 64), PatchEmbed(112, 8, 128, 192)])
    return VisionTransformer(num_classes=num_classes, embed_layer=stem, num_patches=(112 // 8) ** 2)
