#!/usr/bin/env python3
""" ImageNet Training Script (timm style, trimmed)

Supports native AMP (torch.amp) or NVIDIA apex AMP, gradient clipping,
ImageFolder or tar-shard (webdataset layout) training data.
"""
import argparse
import glob
import os
import time
from contextlib import suppress
from functools import partial

import torch
import torch.nn as nn
import torchvision
from torchvision import datasets

import utils
from data import TarShardStream, create_loader, create_transform
from utils import ApexScaler, NativeScaler, NativeScalerWithGradNormCount

try:
    from apex import amp
    has_apex = True
except ImportError:
    has_apex = False

parser = argparse.ArgumentParser(description="PyTorch ImageNet Training")
parser.add_argument("data_dir", metavar="DIR", help="path to dataset")
parser.add_argument("--dataset", default="folder", choices=["folder", "wds"])
parser.add_argument("--model", default="resnet50", type=str)
parser.add_argument("--num-classes", type=int, default=1000)
parser.add_argument("-b", "--batch-size", type=int, default=128)
parser.add_argument("--epochs", type=int, default=300)
parser.add_argument("--lr", type=float, default=0.4)
parser.add_argument("--weight-decay", type=float, default=2e-5)
parser.add_argument("--clip-grad", type=float, default=None, metavar="NORM")
parser.add_argument("--clip-mode", type=str, default="norm", help='"norm" or "value"')
parser.add_argument("--amp", action="store_true", default=False)
parser.add_argument("--amp-impl", default="native", type=str, help='"native" or "apex"')
parser.add_argument("--log-grad-norm", action="store_true", default=False)
parser.add_argument("--smoothing", type=float, default=0.1)
parser.add_argument("--seed", type=int, default=42)
parser.add_argument("-j", "--workers", type=int, default=8)
parser.add_argument("--log-interval", type=int, default=50)
parser.add_argument("--output", default="./output", type=str)


def main():
    args = parser.parse_args()
    args.distributed = int(os.environ.get("WORLD_SIZE", 1)) > 1
    args.rank = int(os.environ.get("RANK", 0))
    args.world_size = int(os.environ.get("WORLD_SIZE", 1))
    if args.distributed:
        torch.distributed.init_process_group(backend="nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    device = torch.device("cuda")

    utils.random_seed(args.seed, args.rank)

    model = torchvision.models.get_model(args.model, num_classes=args.num_classes)
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True,
                                weight_decay=args.weight_decay)

    amp_autocast = suppress  # do nothing
    loss_scaler = None
    if args.amp and args.amp_impl == "apex":
        assert has_apex, "apex requested but not installed"
        model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
        loss_scaler = ApexScaler()
    elif args.amp:
        amp_autocast = partial(torch.autocast, device_type=device.type, dtype=torch.float16)
        loss_scaler = NativeScalerWithGradNormCount() if args.log_grad_norm else NativeScaler()

    if args.distributed:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[torch.cuda.current_device()])

    if args.dataset == "wds":
        shards = sorted(glob.glob(os.path.join(args.data_dir, "train-*.tar")))
        dataset_train = TarShardStream(shards, transform=create_transform(is_training=True),
                                       rank=args.rank, world_size=args.world_size, seed=args.seed)
        loader_train = torch.utils.data.DataLoader(dataset_train, batch_size=args.batch_size, num_workers=args.workers, pin_memory=True)  # trap: IterableDataset shuffles itself
    else:
        dataset_train = datasets.ImageFolder(os.path.join(args.data_dir, "train"),
                                             transform=create_transform(is_training=True))
        loader_train = create_loader(dataset_train, args.batch_size, is_training=True,
                                     num_workers=args.workers, distributed=args.distributed)
    dataset_eval = datasets.ImageFolder(os.path.join(args.data_dir, "val"), transform=create_transform())
    loader_eval = create_loader(dataset_eval, args.batch_size * 2, is_training=False,
                                num_workers=args.workers, distributed=args.distributed)

    train_loss_fn = nn.CrossEntropyLoss(label_smoothing=args.smoothing).to(device)
    validate_loss_fn = nn.CrossEntropyLoss().to(device)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    best_metric = None
    for epoch in range(args.epochs):
        if hasattr(loader_train.sampler, "set_epoch"):
            loader_train.sampler.set_epoch(epoch)
        elif hasattr(dataset_train, "set_epoch"):
            dataset_train.set_epoch(epoch)
        train_one_epoch(epoch, model, loader_train, optimizer, train_loss_fn, args, device,
                        amp_autocast=amp_autocast, loss_scaler=loss_scaler)
        eval_metrics = validate(model, loader_eval, validate_loss_fn, args, device, amp_autocast=amp_autocast)
        lr_scheduler.step()
        if best_metric is None or eval_metrics["top1"] > best_metric:
            best_metric = eval_metrics["top1"]
            if args.rank == 0:
                os.makedirs(args.output, exist_ok=True)
                torch.save({"epoch": epoch, "state_dict": model.state_dict()},
                           os.path.join(args.output, "model_best.pth.tar"))
    print(f"*** Best metric: {best_metric}")


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, args, device,
                    amp_autocast=suppress, loss_scaler=None):
    losses_m = utils.AverageMeter()
    model.train()
    end = time.time()
    for batch_idx, (input, target) in enumerate(loader):
        input, target = input.to(device), target.to(device)
        with amp_autocast():
            output = model(input)  # trap: model.train() at the top of the epoch
            loss = loss_fn(output, target)
        optimizer.zero_grad()
        if loss_scaler is not None:
            loss_scaler(loss, optimizer, clip_grad=args.clip_grad, clip_mode=args.clip_mode,  # trap: scaling and clipping both happen inside __call__; any finding belongs there
                        parameters=model.parameters())
        else:
            loss.backward()
            if args.clip_grad is not None:
                utils.dispatch_clip_grad(model.parameters(), value=args.clip_grad, mode=args.clip_mode)  # trap: no loss scaler on this path
            optimizer.step()
        torch.cuda.synchronize()
        losses_m.update(loss.item(), input.size(0))
        if batch_idx % args.log_interval == 0 and args.rank == 0:
            print(f"Train: {epoch} [{batch_idx}] Loss: {losses_m.val:.4f} ({losses_m.avg:.4f}) "
                  f"Time: {time.time() - end:.3f}s")
        end = time.time()


def validate(model, loader, loss_fn, args, device, amp_autocast=suppress):
    losses_m = utils.AverageMeter()
    top1_m = utils.AverageMeter()
    top5_m = utils.AverageMeter()
    model.eval()
    with torch.no_grad():
        for input, target in loader:
            input, target = input.to(device), target.to(device)
            with amp_autocast():
                output = model(input)  # trap: model.eval() above
            loss = loss_fn(output, target)
            acc1, acc5 = utils.accuracy(output, target, topk=(1, 5))
            losses_m.update(loss.item(), input.size(0))
            top1_m.update(acc1.item(), output.size(0))
            top5_m.update(acc5.item(), output.size(0))
    return {"loss": losses_m.avg, "top1": top1_m.avg, "top5": top5_m.avg}


if __name__ == "__main__":
    main()
