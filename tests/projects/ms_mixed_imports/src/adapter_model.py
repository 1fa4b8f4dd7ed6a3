"""Classifier head written against MSAdapter (torch API running on MindSpore), plus a native
MindSpore copy used for graph-mode export."""
import msadapter.pytorch as torch
import msadapter.pytorch.nn as nn
import mindspore.nn as mnn


class AdapterHead(nn.Module):
    """torch-style head; every default and argument follows torch semantics under the adapter."""

    def __init__(self, in_channels=128, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, in_channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(in_channels, momentum=0.1)  # trap: adapter BatchNorm uses the torch convention
        self.act = nn.ReLU()
        self.conv2 = nn.Conv2d(in_channels, in_channels, 1)  # trap: adapter Conv2d has bias=True like torch
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(0.1)  # trap: adapter Dropout takes p (torch semantics)
        self.fc = nn.Linear(in_channels, num_classes)

    def forward(self, x):
        x = self.act(self.bn(self.conv(x)))
        x = self.act(self.conv2(x))
        x = torch.flatten(self.pool(x), 1)
        return self.fc(self.drop(x))


class NativeHead(mnn.Cell):
    """The same head with real MindSpore cells (aliased as mnn)."""

    def __init__(self, in_channels=128, num_classes=10):
        super(NativeHead, self).__init__()
        self.pool = mnn.AdaptiveAvgPool2d(1)
        self.flatten = mnn.Flatten()
        self.drop = mnn.Dropout(0.1)  # expect: API101
        self.fc = mnn.Dense(in_channels, num_classes)

    def construct(self, x):
        return self.fc(self.drop(self.flatten(self.pool(x))))
