"""Conv stem ported from the torch reference (MindConverter output, then edited by hand),
plus helpers that build the torch twin and compare both forwards.

torch is imported only inside the helpers so that training machines without torch can import
this module; at module level `nn` is mindspore.nn.
"""
import numpy as np
import mindspore.nn as nn
from mindspore import Tensor


class Stem(nn.Cell):
    """conv7x7/2 -> BN -> ReLU -> conv3x3 -> BN -> ReLU -> 1x1 projection -> ReLU -> channel dropout."""

    def __init__(self, in_channels=3, out_channels=64, bn_momentum=0.1):
        super(Stem, self).__init__()
        self.conv1 = nn.Conv2d(in_channels=in_channels, out_channels=out_channels, kernel_size=(7, 7),  # trap: BN follows
                               stride=(2, 2), padding=(3, 3, 3, 3), pad_mode="pad", dilation=(1, 1), group=1,
                               has_bias=False)
        self.bn1 = nn.BatchNorm2d(num_features=out_channels, eps=9.999999747378752e-06,  # trap: converter output 0.9 in float32
                                  momentum=0.8999999761581421)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, pad_mode='pad', padding=1)  # trap: bn2 follows in construct
        self.bn2 = nn.BatchNorm2d(out_channels, momentum=1 - bn_momentum)  # trap: torch momentum converted (1 - 0.1)
        self.proj = nn.Conv2d(out_channels, out_channels * 2, kernel_size=1)  # expect: API111
        self.drop = nn.Dropout2d(0.1)  # trap: Dropout2d takes a drop probability

    def construct(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.relu(self.bn2(self.conv2(x)))
        x = self.relu(self.proj(x))
        return self.drop(x)


class StemClassifier(nn.Cell):
    """Stem + pooling + classifier, the unit checked against the torch reference."""

    def __init__(self, num_classes=10):
        super(StemClassifier, self).__init__()
        self.stem = Stem(3, 64)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(0.1)  # expect: API101
        self.fc = nn.Dense(128, num_classes)

    def construct(self, x):
        x = self.flatten(self.pool(self.stem(x)))
        return self.fc(self.dropout(x))


def build_torch_reference(num_classes=10):
    """Torch twin of StemClassifier (same layer order, torch defaults)."""
    import torch.nn as nn  # function-local: shadows mindspore.nn in this function only

    return nn.Sequential(
        nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False),
        nn.BatchNorm2d(64, momentum=0.1),  # trap: torch convention
        nn.ReLU(inplace=True),
        nn.Conv2d(64, 64, 3, padding=1),  # trap: torch Conv2d, bias on by default
        nn.BatchNorm2d(64),
        nn.ReLU(inplace=True),
        nn.Conv2d(64, 128, kernel_size=1),  # trap: torch Conv2d followed by ReLU
        nn.ReLU(inplace=True),
        nn.Dropout2d(0.1),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.1),  # trap: torch Dropout(p)
        nn.Linear(128, num_classes),
    )


def compare_with_torch(ms_net, torch_net, x_np, atol=1e-4):
    """Run both nets in inference mode on the same input; return (allclose, max abs diff)."""
    import torch

    ms_net.set_train(False)
    torch_net.eval()
    with torch.no_grad():
        expected = torch_net(torch.from_numpy(x_np)).numpy()  # trap: torch_net.eval() above
    actual = ms_net(Tensor(x_np)).asnumpy()
    diff = float(np.abs(actual - expected).max())
    return diff <= atol, diff
