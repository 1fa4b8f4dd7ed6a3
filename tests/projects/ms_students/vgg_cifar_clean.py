"""VGG-11-BN on CIFAR-10, ported from a PyTorch script; trained with Model.train (clean port).

Porting notes: Conv2d bias and padding written out (MindSpore defaults differ), Dropout(p=...) by
keyword, BatchNorm left at the MindSpore default momentum (0.9 == torch 0.1).
"""
import argparse

import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision
from mindspore import nn
from mindspore.train import Model, LossMonitor, TimeMonitor, ModelCheckpoint, CheckpointConfig

CFG_VGG11 = [64, 'M', 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M']
DROP_PROB = 0.5  # torch: nn.Dropout(p=0.5)


def make_features(cfg):
    layers = []
    in_channels = 3
    for v in cfg:
        if v == 'M':
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        else:
            layers += [nn.Conv2d(in_channels, v, 3, pad_mode='pad', padding=1, has_bias=True),  # trap: bias on, and BN follows
                       nn.BatchNorm2d(v, momentum=0.9),  # trap: MindSpore convention
                       nn.ReLU()]
            in_channels = v
    return nn.SequentialCell(layers)


class VGG(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = make_features(CFG_VGG11)
        self.flatten = nn.Flatten()
        self.classifier = nn.SequentialCell([
            nn.Dense(512, 512), nn.ReLU(), nn.Dropout(p=DROP_PROB),  # trap: p= keyword
            nn.Dense(512, 512), nn.ReLU(), nn.Dropout(keep_prob=1 - DROP_PROB),  # trap: keep_prob = 1 - p
            nn.Dense(512, num_classes),
        ])

    def construct(self, x):
        return self.classifier(self.flatten(self.features(x)))


def create_cifar_dataset(data_dir, training, batch_size):
    usage = "train" if training else "test"
    data_set = ds.Cifar10Dataset(data_dir, usage=usage, shuffle=training)  # trap: shuffle=training (True for the train call)
    trans = []
    if training:
        trans += [vision.RandomCrop((32, 32), (4, 4, 4, 4)), vision.RandomHorizontalFlip(prob=0.5)]
    trans += [vision.Rescale(1.0 / 255.0, 0.0),
              vision.Normalize([0.4914, 0.4822, 0.4465], [0.2470, 0.2435, 0.2616]),
              vision.HWC2CHW()]
    data_set = data_set.map(operations=trans, input_columns="image")
    data_set = data_set.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return data_set.batch(batch_size, drop_remainder=training)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="cifar-10-batches-bin")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    ms.set_seed(args.seed)
    ms.set_context(mode=ms.GRAPH_MODE, device_target="GPU")
    train_ds = create_cifar_dataset(args.data_dir, training=True, batch_size=args.batch_size)
    test_ds = create_cifar_dataset(args.data_dir, training=False, batch_size=256)  # trap: test split unshuffled
    steps = train_ds.get_dataset_size()

    net = VGG(num_classes=10)
    lr = nn.cosine_decay_lr(0.0, args.lr, steps * args.epochs, steps, args.epochs)
    opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9, weight_decay=5e-4)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={'acc'})
    ckpt_cb = ModelCheckpoint(prefix="vgg11_bn", directory="./ckpt",
                              config=CheckpointConfig(save_checkpoint_steps=steps, keep_checkpoint_max=5))
    model.train(args.epochs, train_ds, callbacks=[TimeMonitor(steps), LossMonitor(50), ckpt_cb])
    print("test:", model.eval(test_ds))


if __name__ == "__main__":
    main()
