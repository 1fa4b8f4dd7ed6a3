"""TextCNN on a sentiment corpus, ported from a PyTorch script that used
nn.CrossEntropyLoss (mean) with SGD(lr=0.1, momentum=0.9) at batch size 64.

Porting note: CrossEntropyLoss became SoftmaxCrossEntropyWithLogits, whose reduction defaults to
'none' in MindSpore, and the torch learning rate was kept.
"""
import argparse

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn, ops
from mindspore.train import Model, LossMonitor


class TextCNN(nn.Cell):
    def __init__(self, vocab_size=20000, embed=128, num_classes=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed)
        self.conv = nn.Conv1d(embed, 100, 3, has_bias=True)  # trap: bias written out
        self.relu = nn.ReLU()
        self.fc = nn.Dense(100, num_classes)

    def construct(self, x):
        h = self.relu(self.conv(self.embedding(x).transpose(0, 2, 1)))
        return self.fc(ops.max(h, axis=2)[0])


def create_dataset(path, batch_size):
    data = ds.MindDataset(path, shuffle=True)
    return data.batch(batch_size, drop_remainder=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="sentiment.mindrecord")
    args = parser.parse_args()
    ms.set_seed(0)
    net = TextCNN()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"acc"})  # expect: API141
    model.train(10, create_dataset(args.data, 64), callbacks=[LossMonitor()])


if __name__ == "__main__":
    main()
