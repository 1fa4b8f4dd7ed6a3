"""Train / eval loops used by train.py."""
import math
import sys
import time

import torch

from utils import AverageMeter, accuracy, mixup_data


def train_one_epoch(model, loader, optimizer, scaler, criterion, device, epoch, args):
    # NOTE: relies on the model being in train mode already (it is, on the first epoch)
    loss_meter = AverageMeter("loss")
    top1 = AverageMeter("acc1")
    end = time.time()
    for i, (images, target) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)

        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=args.amp):
            output = model(images)  # expect: API204
            loss = criterion(output, target)

        if not math.isfinite(loss.item()):
            print(f"Loss is {loss.item()}, stopping training")
            sys.exit(1)

        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        if args.clip_grad is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)  # expect: MP301
        scaler.step(optimizer)
        scaler.update()

        acc1, = accuracy(output, target, topk=(1,))
        loss_meter.update(loss.item(), images.size(0))
        top1.update(acc1.item(), images.size(0))
        if i % args.print_freq == 0:
            print(
                f"Epoch [{epoch}][{i}/{len(loader)}] {loss_meter} {top1} "
                f"lr {optimizer.param_groups[0]['lr']:.4f} time {time.time() - end:.2f}s"
            )
            end = time.time()
    return loss_meter.avg


def train_one_epoch_mixup(model, loader, optimizer, scaler, criterion, device, epoch, args):
    model.train()
    loss_meter = AverageMeter("loss")
    for i, (images, target) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)
        images, targets_a, targets_b, lam = mixup_data(images, target, args.mixup)

        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=args.amp):
            output = model(images)  # trap: model.train() at the top of this function
            loss = lam * criterion(output, targets_a) + (1 - lam) * criterion(output, targets_b)

        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        if args.clip_grad:
            # grads are scaled by the loss scale; unscale in place before clipping
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)  # trap: unscale_ just before
        scaler.step(optimizer)
        scaler.update()

        loss_meter.update(loss.item(), images.size(0))
        if i % args.print_freq == 0:
            print(f"Epoch [{epoch}][{i}/{len(loader)}] mixup {loss_meter}")
    return loss_meter.avg


def validate(model, loader, criterion, device, args):
    model.eval()
    loss_meter = AverageMeter("val_loss")
    top1 = AverageMeter("acc1")
    top5 = AverageMeter("acc5")
    with torch.no_grad():
        for images, target in loader:
            images = images.to(device, non_blocking=True)
            target = target.to(device, non_blocking=True)
            with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=args.amp):
                output = model(images)  # trap: model.eval() at the top of validate
                loss = criterion(output, target)
            acc1, acc5 = accuracy(output, target, topk=(1, 5))
            n = images.size(0)
            loss_meter.update(loss.item(), n)
            top1.update(acc1.item(), n)
            top5.update(acc5.item(), n)
    print(f" * Acc@1 {top1.avg:.3f} Acc@5 {top5.avg:.3f} loss {loss_meter.avg:.4f}")
    return top1.avg
