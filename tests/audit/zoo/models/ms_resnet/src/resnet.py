"""A ResNet block as ported from a PyTorch reference."""
from mindspore import nn


class BasicBlock(nn.Cell):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, pad_mode="pad", padding=1)
        self.bn1 = nn.BatchNorm2d(cout, momentum=0.1)  # expect: API121
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, pad_mode="pad", padding=1)
        self.bn2 = nn.BatchNorm2d(cout)

    def construct(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + x)


class ResNet(nn.Cell):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7, stride=2, pad_mode="pad", padding=3)
        self.bn = nn.BatchNorm2d(64)
        self.blocks = nn.SequentialCell([BasicBlock(64, 64), BasicBlock(64, 64)])
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(64, num_classes)

    def construct(self, x):
        x = self.blocks(self.bn(self.stem(x)))
        return self.fc(self.flatten(self.pool(x)))
