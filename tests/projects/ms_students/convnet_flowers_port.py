"""A small ConvNet + MLP head on the Flowers dataset, ported from a PyTorch script (student work).

Several PyTorch defaults were carried over literally: pooling without stride, the torch AdamW
replaced by nn.AdamWeightDecay, CrossEntropyLoss replaced by SoftmaxCrossEntropyWithLogits.
"""
import argparse

import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
from mindspore import nn, ops
from mindspore.common.initializer import TruncatedNormal, Zero
from mindspore.train import Model, LossMonitor

POOL = 2  # torch: nn.MaxPool2d(2)


class ConvNet(nn.Cell):
    def __init__(self, num_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn1 = nn.BatchNorm2d(32)
        self.pool1 = nn.MaxPool2d(kernel_size=POOL)  # expect: API131
        self.conv2 = nn.Conv2d(32, 64, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn2 = nn.BatchNorm2d(64)
        self.pool2 = nn.MaxPool2d(kernel_size=2, stride=2)  # trap: stride written out
        self.spp = nn.MaxPool2d(kernel_size=5, pad_mode="same")  # trap: size-preserving SPP pooling, stride 1 intended
        self.gap = nn.AvgPool2d(kernel_size=7)  # trap: global pooling over the 7x7 map
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(64, 128, weight_init=Zero(), bias_init="zeros")  # expect: WI101
        self.act = nn.GELU(approximate=False)
        self.head = nn.Dense(128, num_classes, weight_init="zeros", bias_init="zeros")  # trap: zero-init classifier (logits go to the loss)
        self.proj = nn.Dense(64, 64, weight_init=TruncatedNormal(0.02), bias_init="zeros")  # trap: zero bias only

    def construct(self, x):
        x = self.pool1(self.relu(self.bn1(self.conv1(x))))
        x = self.pool2(self.relu(self.bn2(self.conv2(x))))
        x = self.flatten(self.gap(x + self.spp(x)))
        x = self.proj(x)
        return self.head(self.act(self.fc1(x)))


class MultiLabelLoss(nn.Cell):
    """Auxiliary multi-label head loss (attributes of the flower)."""
    def __init__(self):
        super().__init__()
        self.sigmoid = nn.Sigmoid()
        self.bce = nn.BCEWithLogitsLoss()

    def construct(self, logits, attrs):
        probs = self.sigmoid(logits)
        return self.bce(probs, attrs)  # expect: CG401


class DistillLoss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ce = nn.CrossEntropyLoss()

    def construct(self, student_logits, teacher_logits):
        soft = ops.softmax(teacher_logits / 4.0, axis=-1)
        return self.ce(student_logits, soft)  # trap: soft targets from a softmax are correct


def create_dataset(data_dir, batch_size, training):
    data = ds.ImageFolderDataset(data_dir)  # trap: shuffles by default
    trans = [vision.Decode(), vision.Resize((28, 28)), vision.Normalize(mean=[127.5] * 3, std=[127.5] * 3), vision.HWC2CHW()]
    return data.map(trans, input_columns="image").batch(batch_size, drop_remainder=training)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="flowers/train")
    parser.add_argument("--pretrained", default="")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()

    ms.set_seed(1)
    net = ConvNet()
    if args.pretrained:
        param_not_load, _ = ms.load_param_into_net(net, ms.load_checkpoint(args.pretrained))  # trap: result checked
        assert not [p for p in param_not_load if not p.startswith("head.")], param_not_load
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    opt = nn.AdamWeightDecay(net.trainable_params(), learning_rate=args.lr)  # expect: API151
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"acc"})  # trap: reduction "none" under an Adam-type optimizer (its step does not grow with the summed loss)
    model.train(args.epochs, create_dataset(args.data_dir, 32, True), callbacks=[LossMonitor()])


if __name__ == "__main__":
    main()
