"""A small VGG-style CNN with BatchNorm and Dropout for CIFAR-10."""
import mindspore.nn as nn


class ShortcutBlock(nn.Cell):
    """conv -> (+ identity) -> BN -> ReLU."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, pad_mode='same')  # trap: BN follows after the add
        self.bn = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x) + x))


class SimpleCNN(nn.Cell):
    """Three conv stages, global pooling, dropout and a linear classifier."""

    def __init__(self, num_classes=10, drop_rate=0.3):
        super().__init__()
        self.features = nn.SequentialCell([
            nn.Conv2d(3, 64, 3, pad_mode='pad', padding=1), nn.BatchNorm2d(64), nn.ReLU(),  # trap: conv -> BN
            nn.Conv2d(64, 64, 3, pad_mode='pad', padding=1), nn.BatchNorm2d(64), nn.ReLU(),  # trap: conv -> BN
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(64, 128, 3, pad_mode='pad', padding=1), nn.BatchNorm2d(128), nn.ReLU(),  # trap: conv -> BN
            ShortcutBlock(128),
            nn.MaxPool2d(kernel_size=2, stride=2),
        ])
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(p=drop_rate)  # trap: p= is the drop probability
        self.classifier = nn.Dense(128, num_classes)

    def construct(self, x):
        x = self.features(x)
        x = self.flatten(self.pool(x))
        x = self.dropout(x)
        return self.classifier(x)
