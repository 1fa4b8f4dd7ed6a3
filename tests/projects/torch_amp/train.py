"""Image classification training with native AMP.

Adapted from the torchvision classification reference
(references/classification/train.py), trimmed to single node / torchrun.

    torchrun --nproc_per_node=8 train.py --data-path /datasets/imagenet --amp --clip-grad 5.0
"""
import argparse
import datetime
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn

from datasets import build_train_loader, build_val_loader
from engine import train_one_epoch, train_one_epoch_mixup, validate
from utils import build_model, save_checkpoint, set_seed


def get_args_parser(add_help=True):
    parser = argparse.ArgumentParser(description="AMP image classification training", add_help=add_help)
    parser.add_argument("--data-path", default="/datasets/imagenet", type=str, help="dataset path")
    parser.add_argument("--model", default="resnet50", type=str, help="torchvision model name")
    parser.add_argument("--num-classes", default=1000, type=int)
    parser.add_argument("--device", default="cuda", type=str)
    parser.add_argument("-b", "--batch-size", default=128, type=int, help="images per gpu")
    parser.add_argument("--epochs", default=90, type=int, metavar="N")
    parser.add_argument("-j", "--workers", default=8, type=int, metavar="N")
    parser.add_argument("--lr", default=0.1, type=float, help="initial learning rate")
    parser.add_argument("--momentum", default=0.9, type=float, metavar="M")
    parser.add_argument("--wd", "--weight-decay", default=1e-4, type=float, dest="weight_decay")
    parser.add_argument("--label-smoothing", default=0.1, type=float)
    parser.add_argument("--mixup", default=0.0, type=float, help="mixup alpha, 0 disables mixup")
    parser.add_argument("--clip-grad", default=None, type=float, help="max gradient norm (default: off)")
    parser.add_argument("--amp", action="store_true", help="use torch.amp mixed precision")
    parser.add_argument("--print-freq", default=50, type=int)
    parser.add_argument("--output-dir", default="./checkpoints", type=str)
    parser.add_argument("--resume", default="", type=str, help="path of checkpoint")
    parser.add_argument("--start-epoch", default=0, type=int, metavar="N")
    parser.add_argument("--seed", default=42, type=int)
    return parser


def main(args):
    set_seed(args.seed)
    args.distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if args.distributed:
        dist.init_process_group(backend="nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    device = torch.device(args.device)
    torch.backends.cudnn.benchmark = True
    os.makedirs(args.output_dir, exist_ok=True)

    train_loader = build_train_loader(args)
    val_loader = build_val_loader(args)

    print(f"Creating model {args.model}")
    model = build_model(args.model, args.num_classes)
    model.to(device)
    model_without_ddp = model
    if args.distributed:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[torch.cuda.current_device()])
        model_without_ddp = model.module

    criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)
    optimizer = torch.optim.SGD(
        model.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.weight_decay
    )
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)

    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu", weights_only=False)
        model_without_ddp.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
        scaler.load_state_dict(checkpoint["scaler"])
        args.start_epoch = checkpoint["epoch"] + 1

    best_acc1 = 0.0
    print("Start training")
    start_time = time.time()
    for epoch in range(args.start_epoch, args.epochs):  # expect: WI302
        if args.distributed:
            train_loader.sampler.set_epoch(epoch)
        if args.mixup > 0:
            train_one_epoch_mixup(model, train_loader, optimizer, scaler, criterion, device, epoch, args)
        else:
            train_one_epoch(model, train_loader, optimizer, scaler, criterion, device, epoch, args)
        lr_scheduler.step()

        # validate() switches the model to eval mode; train_one_epoch never switches it back
        acc1 = validate(model, val_loader, criterion, device, args)

        is_best = acc1 > best_acc1
        best_acc1 = max(acc1, best_acc1)
        state = {
            "model": model_without_ddp.state_dict(),
            "optimizer": optimizer.state_dict(),
            "lr_scheduler": lr_scheduler.state_dict(),
            "scaler": scaler.state_dict(),
            "epoch": epoch,
            "args": args,
        }
        save_checkpoint(state, is_best, args.output_dir)

    total_time = time.time() - start_time
    total_time_str = str(datetime.timedelta(seconds=int(total_time)))
    print(f"Training time {total_time_str}, best acc@1 {best_acc1:.3f}")


if __name__ == "__main__":
    args = get_args_parser().parse_args()
    main(args)
