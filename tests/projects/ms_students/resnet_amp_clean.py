"""Small ResNet with AMP + dynamic loss scaling and gradient clipping, custom loop (clean port).

Ported from a torch.cuda.amp script: `scaler.unscale_(opt)` before `clip_grad_norm_` became
`loss_scaler.unscale(grads)` before `ops.clip_by_global_norm`; `model.train()` became
`net.set_train()` at the top of every epoch.
"""
import argparse
import glob
import os

import numpy as np
import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn, ops, amp, set_seed


class NpyFolder:
    """Random-access source (root/<class>/<id>.npy), i.e. a torch map-style Dataset."""

    def __init__(self, root):
        self.files = sorted(glob.glob(os.path.join(root, "*", "*.npy")))
        classes = sorted({os.path.basename(os.path.dirname(f)) for f in self.files})
        self.class_to_idx = {c: i for i, c in enumerate(classes)}

    def __getitem__(self, index):
        path = self.files[index]
        image = np.load(path).astype(np.float32)
        return image, np.int32(self.class_to_idx[os.path.basename(os.path.dirname(path))])

    def __len__(self):
        return len(self.files)


class BasicBlock(nn.Cell):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, pad_mode='pad', padding=1, has_bias=False)  # trap: BN follows
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, pad_mode='pad', padding=1, has_bias=False)  # trap: BN follows
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()

    def construct(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + x)


class SmallResNet(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, pad_mode='pad', padding=1, has_bias=False)  # trap: has_bias=False written explicitly
        self.relu = nn.ReLU()
        self.layer1 = BasicBlock(32)
        self.down = nn.Conv2d(32, 64, 3, stride=2, pad_mode='pad', padding=1, has_bias=True)  # trap: bias on, then ReLU
        self.layer2 = BasicBlock(64)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(p=0.1)  # trap: p= is the drop probability
        self.fc = nn.Dense(64, num_classes)

    def construct(self, x):
        x = self.layer1(self.relu(self.stem(x)))
        x = self.layer2(self.relu(self.down(x)))
        x = self.flatten(self.pool(x))
        return self.fc(self.dropout(x))


def evaluate(net, dataset):
    net.set_train(False)
    correct, total = 0, 0
    for data, label in dataset.create_tuple_iterator():
        pred = net(data).argmax(1)  # trap: set_train(False) above
        correct += int((pred == label).sum().asnumpy())
        total += label.shape[0]
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="data/npy_images")
    parser.add_argument("--num_classes", type=int, default=10)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--clip", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=3407)
    args = parser.parse_args()

    set_seed(args.seed)
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="GPU")
    train_ds = ds.GeneratorDataset(NpyFolder(os.path.join(args.data_dir, "train")),  # trap: random-access source, shuffled by default
                                   column_names=["image", "label"], num_parallel_workers=4)
    train_ds = train_ds.batch(args.batch_size, drop_remainder=True)
    val_ds = ds.GeneratorDataset(NpyFolder(os.path.join(args.data_dir, "val")),  # trap: validation split
                                 column_names=["image", "label"], shuffle=False)
    val_ds = val_ds.batch(256)

    net = amp.auto_mixed_precision(SmallResNet(args.num_classes), "O2")
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(net.trainable_params(), learning_rate=args.lr, momentum=0.9, weight_decay=1e-4)
    loss_scaler = amp.DynamicLossScaler(scale_value=2 ** 12, scale_factor=2, scale_window=500)

    def forward_fn(data, label):
        return loss_scaler.scale(loss_fn(net(data), label))

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    def train_step(data, label):
        loss, grads = grad_fn(data, label)
        loss = loss_scaler.unscale(loss)
        grads = loss_scaler.unscale(grads)
        is_finite = amp.all_finite(grads)
        if is_finite:
            grads = ops.clip_by_global_norm(grads, args.clip)  # trap: unscaled two lines above
            optimizer(grads)
        loss_scaler.adjust(is_finite)
        return loss

    best = 0.0
    for epoch in range(args.epochs):
        net.set_train()
        for step, (data, label) in enumerate(train_ds.create_tuple_iterator()):
            loss = train_step(data, label)  # trap: set_train() at the top of every epoch
            if step % 50 == 0:
                print(f"epoch {epoch} step {step} loss {loss.asnumpy():.4f}")
        acc = evaluate(net, val_ds)
        if acc > best:
            best = acc
            ms.save_checkpoint(net, "best.ckpt")
        print(f"epoch {epoch}: val acc {acc:.4f} (best {best:.4f})")


if __name__ == "__main__":
    main()
