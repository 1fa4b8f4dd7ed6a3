"""Distributed ResNet training with Model.train and a loss-scale manager."""
import argparse

import mindspore as ms
from mindspore import nn
from mindspore.communication import init, get_rank, get_group_size
from mindspore.train import Model, LossMonitor

from common.seeding import seed_everything
from src.dataset import create_train_dataset
from src.resnet import ResNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data/imagenet/train")
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    seed_everything(1)
    init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    dataset = create_train_dataset(args.data, 32, get_group_size(), get_rank())
    net = ResNet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")  # evidence: cg.04
    opt = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9, weight_decay=1e-4)
    scale = ms.FixedLossScaleManager(1024, drop_overflow_update=False)  # evidence: mp.02
    model = Model(net, loss_fn=loss, optimizer=opt, amp_level="O2", loss_scale_manager=scale)  # evidence: cg.05
    model.train(args.epochs, dataset, callbacks=[LossMonitor()])  # evidence: api.02


if __name__ == "__main__":
    main()
