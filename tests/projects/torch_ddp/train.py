"""DDP training: torchrun --nproc_per_node=8 train.py --data-path /datasets/imagenet"""
import argparse
import os

import torch
import torch.distributed as dist
import torchvision
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader

from engine import evaluate, train_one_epoch, train_one_epoch_bf16
from presets import build_transform, eval_transform, train_transform


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-path", default="/datasets/imagenet")
    parser.add_argument("--epochs", default=90, type=int)
    parser.add_argument("--bf16", action="store_true")
    args = parser.parse_args()
    torch.manual_seed(0)
    dist.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)

    train_set = torchvision.datasets.ImageFolder(os.path.join(args.data_path, "train"), train_transform())
    val_set = torchvision.datasets.ImageFolder(os.path.join(args.data_path, "val"), eval_transform())
    extra_set = torchvision.datasets.ImageFolder(os.path.join(args.data_path, "extra"), build_transform(True))
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=8, drop_last=True)  # expect: DP502
    val_loader = DataLoader(val_set, batch_size=128, shuffle=False, num_workers=8)  # trap: validation loader
    sampler = torch.utils.data.distributed.DistributedSampler(extra_set)
    extra_loader = DataLoader(extra_set, batch_size=64, sampler=sampler, num_workers=8)  # trap: DistributedSampler

    model = torchvision.models.resnet50().to(device)
    model = DDP(model, device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        if args.bf16:
            train_one_epoch_bf16(model, train_loader, optimizer, device)
        else:
            train_one_epoch(model, train_loader, optimizer, device)
        train_one_epoch(model, extra_loader, optimizer, device)
        print(evaluate(model, val_loader, device))


if __name__ == "__main__":
    main()
