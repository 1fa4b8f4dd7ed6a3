import mindspore.nn as nn


class SmallNet(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3)
        self.bn = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.fc = nn.Dense(16, num_classes)

    def construct(self, x):
        x = self.relu(self.bn(self.conv(x)))
        return self.fc(x.mean((2, 3)))
