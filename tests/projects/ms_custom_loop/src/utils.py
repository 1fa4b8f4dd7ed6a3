"""Helpers shared by train.py and export.py: seeding, evaluation, meters."""
import random

import numpy as np
import mindspore


def seed_everything(seed=42):
    """Seed python, numpy and MindSpore (initializers, ops and the dataset pipeline)."""
    random.seed(seed)
    np.random.seed(seed)
    mindspore.set_seed(seed)


class AverageMeter:
    """Running average of a scalar."""

    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.sum += float(value) * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def evaluate(net, dataset, loss_fn):
    """Top-1 accuracy and mean loss on `dataset`. Switches the network to inference mode."""
    net.set_train(False)
    correct, total = 0, 0
    loss_meter = AverageMeter()
    for data, label in dataset.create_tuple_iterator():
        logits = net(data)  # trap: set_train(False) above
        loss_meter.update(loss_fn(logits, label).asnumpy(), label.shape[0])
        correct += int((logits.argmax(1) == label).asnumpy().sum())
        total += label.shape[0]
    return correct / total, loss_meter.avg
