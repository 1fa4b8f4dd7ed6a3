"""Blocks using mindspore.mint (torch-aligned defaults) next to classic mindspore.nn / ops layers."""
import mindspore
from mindspore import mint, nn, ops


class MintConvBlock(nn.Cell):
    """conv -> BN -> ReLU with mint layers; BN settings copied from the old nn.BatchNorm2d version."""

    def __init__(self, in_channels, out_channels):
        super(MintConvBlock, self).__init__()
        self.conv = mint.nn.Conv2d(in_channels, out_channels, 3, padding=1)
        self.bn = mint.nn.BatchNorm2d(out_channels, momentum=0.9)  # expect: API123
        self.act = mint.nn.ReLU()
        self.conv_out = mint.nn.Conv2d(out_channels, out_channels, 1)  # trap: mint Conv2d has bias=True
        self.bn_out = mint.nn.BatchNorm2d(out_channels, momentum=0.1)  # trap: torch convention is right for mint
        self.drop = mindspore.mint.nn.Dropout(0.1)  # trap: mint Dropout takes p

    def construct(self, x):
        x = self.act(self.bn(self.conv(x)))
        x = self.act(self.conv_out(x))
        return self.drop(self.bn_out(x))


class SpatialDropConv(nn.Cell):
    """conv -> ReLU -> channel dropout."""

    def __init__(self, channels):
        super(SpatialDropConv, self).__init__()
        self.conv = nn.Conv2d(channels, channels, 3, pad_mode='same', has_bias=True)  # trap: bias requested explicitly
        self.act = nn.ReLU()
        self.drop2d = nn.Dropout2d(0.1)  # trap: Dropout2d takes p

    def construct(self, x):
        return self.drop2d(self.act(self.conv(x)))


class SeqEncoder(nn.Cell):
    """2-layer LSTM encoder with functional dropout on its outputs."""

    def __init__(self, input_size, hidden_size, num_layers=2, dropout=0.1):
        super(SeqEncoder, self).__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers=num_layers, batch_first=True,  # trap: LSTM dropout is a drop probability
                            dropout=dropout)
        self.proj = nn.Dense(hidden_size, hidden_size)

    def construct(self, x):
        out, _ = self.lstm(x)
        out = ops.dropout(out, p=0.1, training=self.training)  # trap: ops.dropout takes p
        return self.proj(out)


class LegacyHighway(nn.Cell):
    """Highway layer ported from the MindSpore 1.x version of this repo, which stored keep_prob."""

    def __init__(self, dim, keep_prob=0.9):
        super(LegacyHighway, self).__init__()
        self.keep_prob = keep_prob
        self.transform = nn.Dense(dim, dim, activation='relu')
        self.gate = nn.Dense(dim, dim, activation='sigmoid')

    def construct(self, x):
        h = ops.dropout(self.transform(x), p=self.keep_prob, training=self.training)  # expect: API102
        t = self.gate(x)
        return h * t + x * (1 - t)
