"""ResNet (model-zoo layout): conv/bn helpers, residual blocks, backbone and a conv head."""
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore.common.initializer import HeNormal, TruncatedNormal

from src import config


def _conv3x3(in_channel, out_channel, stride=1):
    return nn.Conv2d(in_channel, out_channel, kernel_size=3, stride=stride,  # trap: helper-made conv, BN follows in every block
                     padding=0, pad_mode='same', weight_init=HeNormal(mode='fan_out', nonlinearity='relu'))


def _conv1x1(in_channel, out_channel, stride=1):
    return nn.Conv2d(in_channel, out_channel, kernel_size=1, stride=stride,  # trap: helper-made conv, BN follows in every block
                     padding=0, pad_mode='same', weight_init=HeNormal(mode='fan_out', nonlinearity='relu'))


def _bn(channel, res_base=False):
    if res_base:
        # res_base keeps the torch reference's BN settings
        return nn.BatchNorm2d(channel, eps=config.BN_EPS, momentum=config.BN_MOMENTUM,  # expect: API121
                              gamma_init=1, beta_init=0, moving_mean_init=0, moving_var_init=1)
    return nn.BatchNorm2d(channel, eps=1e-4, momentum=0.9,  # trap: MindSpore convention
                          gamma_init=1, beta_init=0, moving_mean_init=0, moving_var_init=1)


def _bn_last(channel):
    return nn.BatchNorm2d(channel, eps=1e-4, momentum=0.9,
                          gamma_init=0, beta_init=0, moving_mean_init=0, moving_var_init=1)


def _fc(in_channel, out_channel):
    return nn.Dense(in_channel, out_channel, has_bias=True, weight_init=TruncatedNormal(0.01), bias_init=0)


class ResidualBlockBase(nn.Cell):
    """Basic block (resnet18/34)."""
    expansion = 1

    def __init__(self, in_channel, out_channel, stride=1, res_base=True):
        super(ResidualBlockBase, self).__init__()
        self.conv1 = _conv3x3(in_channel, out_channel, stride=stride)
        self.bn1d = _bn(out_channel, res_base)
        self.conv2 = _conv3x3(out_channel, out_channel, stride=1)
        self.bn2d = _bn(out_channel, res_base)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        self.down_sample_layer = None
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell([
                nn.Conv2d(in_channel, out_channel, kernel_size=1, stride=stride, pad_mode='same'),  # trap: next element is a BatchNorm2d
                nn.BatchNorm2d(out_channel, eps=1e-4, momentum=0.9)
            ])

    def construct(self, x):
        identity = x
        out = self.conv1(x)
        out = self.bn1d(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2d(out)
        if self.down_sample:
            identity = self.down_sample_layer(identity)
        out = out + identity
        out = self.relu(out)
        return out


class ResidualBlock(nn.Cell):
    """Bottleneck block (resnet50/101/152)."""
    expansion = 4

    def __init__(self, in_channel, out_channel, stride=1, res_base=False):
        super(ResidualBlock, self).__init__()
        channel = out_channel // self.expansion
        self.conv1 = _conv1x1(in_channel, channel, stride=1)
        self.bn1 = _bn(channel, res_base)
        self.conv2 = _conv3x3(channel, channel, stride=stride)
        self.bn2 = _bn(channel, res_base)
        self.conv3 = _conv1x1(channel, out_channel, stride=1)
        self.bn3 = _bn_last(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        self.down_sample_layer = None
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell([
                nn.Conv2d(in_channel, out_channel, kernel_size=1, stride=stride, pad_mode='same',  # trap: next element is a BatchNorm2d
                          weight_init=HeNormal(mode='fan_out', nonlinearity='relu')),
                nn.BatchNorm2d(out_channel, eps=1e-4, momentum=0.9)
            ])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.down_sample:
            identity = self.down_sample_layer(identity)
        return self.relu(out + identity)


class ConvHead(nn.Cell):
    """1x1 conv 'neck' + global pooling + dropout + classifier (torch ref: Conv2d(..., 1) with bias)."""

    def __init__(self, in_channel, num_classes, dropout=0.0):
        super(ConvHead, self).__init__()
        self.conv = nn.Conv2d(in_channel, 1280, kernel_size=1)  # expect: API111
        self.relu = nn.ReLU()
        self.mean = ops.ReduceMean(keep_dims=True)
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(dropout)  # expect: API101
        self.fc = _fc(1280, num_classes)

    def construct(self, x):
        x = self.conv(x)
        x = self.relu(x)
        x = self.mean(x, (2, 3))
        x = self.flatten(x)
        x = self.dropout(x)
        return self.fc(x)


class ResNet(nn.Cell):
    """ResNet backbone + ConvHead."""

    def __init__(self, block, layer_nums, in_channels, out_channels, strides, num_classes,
                 dropout=0.0, res_base=False):
        super(ResNet, self).__init__()
        if not len(layer_nums) == len(in_channels) == len(out_channels) == 4:
            raise ValueError("the length of layer_num, in_channels, out_channels list must be 4!")
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, pad_mode='pad', padding=3,  # trap: bn1 follows in construct
                               weight_init=HeNormal(mode='fan_out', nonlinearity='relu'))
        self.bn1 = nn.BatchNorm2d(64, eps=1e-4, momentum=0.9)
        self.relu = ops.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        self.layer1 = self._make_layer(block, layer_nums[0], in_channels[0], out_channels[0], strides[0], res_base)
        self.layer2 = self._make_layer(block, layer_nums[1], in_channels[1], out_channels[1], strides[1], res_base)
        self.layer3 = self._make_layer(block, layer_nums[2], in_channels[2], out_channels[2], strides[2], res_base)
        self.layer4 = self._make_layer(block, layer_nums[3], in_channels[3], out_channels[3], strides[3], res_base)
        self.head = ConvHead(out_channels[3], num_classes, dropout=dropout)

    def _make_layer(self, block, layer_num, in_channel, out_channel, stride, res_base):
        layers = [block(in_channel, out_channel, stride=stride, res_base=res_base)]
        for _ in range(1, layer_num):
            layers.append(block(out_channel, out_channel, stride=1, res_base=res_base))
        return nn.SequentialCell(layers)

    def construct(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu(x)
        c1 = self.maxpool(x)
        c2 = self.layer1(c1)
        c3 = self.layer2(c2)
        c4 = self.layer3(c3)
        c5 = self.layer4(c4)
        return self.head(c5)


def resnet18(class_num=10):
    """ResNet18 aligned with the torch reference (res_base)."""
    return ResNet(ResidualBlockBase, [2, 2, 2, 2], [64, 64, 128, 256], [64, 128, 256, 512],
                  [1, 2, 2, 2], class_num, dropout=config.HEAD_DROPOUT, res_base=True)


def resnet50(class_num=1001):
    """ResNet50."""
    return ResNet(ResidualBlock, [3, 4, 6, 3], [64, 256, 512, 1024], [256, 512, 1024, 2048],
                  [1, 2, 2, 2], class_num, dropout=config.HEAD_DROPOUT)
