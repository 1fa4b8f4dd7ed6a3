"""Custom training loop (MindSpore 2.x functional API) with loss scaling and gradient clipping.

Stage 1 trains the whole network with a dynamic loss scale; stage 2 fine-tunes the classifier
with a static loss scale.
"""
import argparse
import os
import time

import mindspore as ms
from mindspore import nn, ops, amp

from src.dataset import create_dataset
from src.model import SimpleCNN
from src import utils
from src.utils import evaluate, AverageMeter


def parse_args():
    parser = argparse.ArgumentParser(description="CIFAR-10 custom loop")
    parser.add_argument("--data_dir", type=str, default="./cifar-10-batches-bin")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--finetune_epochs", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--max_grad_norm", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--device_target", type=str, default="GPU")
    parser.add_argument("--ckpt_dir", type=str, default="./ckpt")
    return parser.parse_args()


def build_train_step(net, loss_fn, optimizer, loss_scaler, max_grad_norm):
    """Forward, scaled backward, clipping, unscale, overflow check and update (dynamic scale)."""

    def forward_fn(data, label):
        logits = net(data)
        loss = loss_fn(logits, label)
        return loss_scaler.scale(loss), logits

    grad_fn = ops.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    @ms.jit
    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        grads = ops.clip_by_global_norm(grads, max_grad_norm)  # expect: MP302
        grads = loss_scaler.unscale(grads)
        loss = loss_scaler.unscale(loss)
        is_finite = amp.all_finite(grads)
        if is_finite:
            optimizer(grads)
        loss_scaler.adjust(is_finite)
        return loss, is_finite

    return train_step


def build_finetune_step(net, loss_fn, optimizer, loss_scaler, max_grad_norm):
    """Same step for the head-only stage; here the gradients are unscaled before they are clipped."""

    def forward_fn(data, label):
        loss = loss_fn(net(data), label)
        return loss_scaler.scale(loss)

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

    @ms.jit
    def finetune_step(data, label):
        loss, grads = grad_fn(data, label)
        grads = loss_scaler.unscale(grads)
        grads = ops.clip_by_global_norm(grads, max_grad_norm)  # trap: clipped after unscale
        is_finite = amp.all_finite(grads)
        if is_finite:
            optimizer(grads)
        return loss_scaler.unscale(loss), is_finite

    return finetune_step


def finetune_head(net, finetune_step, train_ds, val_ds, loss_fn, epochs):
    """Stage 2: the mode is reset at the start of every epoch, so evaluating in between is fine."""
    best = 0.0
    for epoch in range(epochs):
        net.set_train()
        for data, label in train_ds.create_tuple_iterator():
            loss, _ = finetune_step(data, label)  # trap: set_train() at the top of each epoch
        acc, val_loss = evaluate(net, val_ds, loss_fn)
        best = max(best, acc)
        print(f"[finetune] epoch {epoch + 1}: loss {loss.asnumpy():.4f} val_loss {val_loss:.4f} acc {acc:.4f}")
    return best


def main():
    args = parse_args()
    utils.seed_everything(args.seed)  # trap: helper in src/utils.py calls mindspore.set_seed
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target=args.device_target)
    os.makedirs(args.ckpt_dir, exist_ok=True)

    train_ds = create_dataset(args.data_dir, usage="train", batch_size=args.batch_size)
    val_ds = create_dataset(args.data_dir, usage="test", batch_size=args.batch_size)  # trap: test split, unshuffled
    steps_per_epoch = train_ds.get_dataset_size()

    net = SimpleCNN(num_classes=10)
    loss_fn = nn.CrossEntropyLoss()
    lr = nn.cosine_decay_lr(0.0, args.lr, steps_per_epoch * args.epochs, steps_per_epoch, args.epochs)
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9, weight_decay=5e-4)
    loss_scaler = amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=1000)
    train_step = build_train_step(net, loss_fn, optimizer, loss_scaler, args.max_grad_norm)

    # Stage 1: whole network
    net.set_train()
    for epoch in range(args.epochs):
        start = time.time()
        meter = AverageMeter()
        for step, (data, label) in enumerate(train_ds.create_tuple_iterator()):
            loss, is_finite = train_step(data, label)  # expect: API201
            if is_finite:
                meter.update(loss.asnumpy())
            if step % 100 == 0:
                print(f"epoch {epoch + 1} step {step}/{steps_per_epoch} loss {meter.avg:.4f}")
        acc, val_loss = evaluate(net, val_ds, loss_fn)
        print(f"epoch {epoch + 1}: {time.time() - start:.1f}s val_loss {val_loss:.4f} acc {acc:.4f}")
        ms.save_checkpoint(net, os.path.join(args.ckpt_dir, f"simplecnn_{epoch + 1}.ckpt"))

    # Stage 2: classifier only
    head_opt = nn.Adam(net.classifier.trainable_params(), learning_rate=1e-4)
    head_scaler = amp.StaticLossScaler(scale_value=1024)
    finetune_step = build_finetune_step(net, loss_fn, head_opt, head_scaler, args.max_grad_norm)
    best = finetune_head(net, finetune_step, train_ds, val_ds, loss_fn, args.finetune_epochs)
    print(f"best fine-tuned acc {best:.4f}")


if __name__ == "__main__":
    main()
