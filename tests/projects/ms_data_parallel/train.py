"""Data-parallel training with a custom step (8 devices: `mpirun -n 8 python train.py --run_distribute`)."""
import argparse

import mindspore as ms
from mindspore import nn
from mindspore.communication import init, get_rank, get_group_size
from mindspore.context import ParallelMode

from src.dataset import create_dataset_cifar10, create_dataset_imagenet
from src.net import SmallNet
from src.train_step import ClipGradStep, TrainOneStep


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_path", default="/data/cifar10")
    parser.add_argument("--run_distribute", action="store_true")
    args = parser.parse_args()
    device_num, rank_id = 1, 0
    if args.run_distribute:
        init()
        device_num, rank_id = get_group_size(), get_rank()
        ms.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                     device_num=device_num)
    ms.set_seed(1 + rank_id)  # expect: WI304
    dataset = create_dataset_cifar10(args.data_path, do_train=True)
    imagenet = create_dataset_imagenet(args.data_path, do_train=True, device_num=device_num, rank_id=rank_id)
    net = SmallNet()
    net.to_float(ms.float16)  # expect: MP202
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    step = TrainOneStep(nn.WithLossCell(net, loss), opt)
    clip_step = ClipGradStep(nn.WithLossCell(net, loss), opt)
    step.set_train()
    clip_step.set_train()
    for epoch in range(90):
        for image, label in dataset.create_tuple_iterator():
            step(image, label)
        for image, label in imagenet.create_tuple_iterator():
            clip_step(image, label)


if __name__ == "__main__":
    main()
