"""Fine-tune a text classifier with a custom TrainOneStep cell (model-zoo style manual loop)."""
import argparse
import os
import time

import mindspore as ms
import mindspore.common.dtype as mstype
import mindspore.nn as nn
from mindspore import Tensor, context
from mindspore.common import set_seed

from src import config as cfg
from src.cell_wrapper import (BertTrainOneStepWithLossScaleCell, BertFinetuneCell,
                              PanguAlphaTrainOneStepWithLossScaleCell)
from src.dataset import create_classification_dataset
from src.extra_cells import (TrainOneStepWithClipCell, TrainOneStepWithSensCell,
                             TrainOneStepWithLossScaleAndClipCell, ValueClipLossScaleCell)
from src.model import FastTextClassifier, ClassifierWithLoss


def build_train_cell(net_with_loss, optimizer):
    """Wrap the loss network in the TrainOneStep cell selected by cfg.TRAIN_CELL."""
    update_cell = nn.DynamicLossScaleUpdateCell(loss_scale_value=cfg.LOSS_SCALE_VALUE,
                                                scale_factor=cfg.SCALE_FACTOR, scale_window=cfg.SCALE_WINDOW)
    if cfg.TRAIN_CELL == "bert":
        return BertTrainOneStepWithLossScaleCell(net_with_loss, optimizer, scale_update_cell=update_cell)
    if cfg.TRAIN_CELL == "finetune":
        return BertFinetuneCell(net_with_loss, optimizer, scale_update_cell=update_cell)
    if cfg.TRAIN_CELL == "pangu":
        return PanguAlphaTrainOneStepWithLossScaleCell(net_with_loss, optimizer, scale_update_cell=update_cell)
    if cfg.TRAIN_CELL == "div":
        return TrainOneStepWithLossScaleAndClipCell(net_with_loss, optimizer, update_cell)
    if cfg.TRAIN_CELL == "value_clip":
        return ValueClipLossScaleCell(net_with_loss, optimizer, update_cell)
    if cfg.TRAIN_CELL == "manual_sens":
        return TrainOneStepWithSensCell(net_with_loss, optimizer)
    return TrainOneStepWithClipCell(net_with_loss, optimizer, sens=1.0)


def run_train():
    """Parse args, build everything and run the manual training loop."""
    parser = argparse.ArgumentParser(description="text classification fine-tuning")
    parser.add_argument("--device_target", type=str, default="Ascend", choices=["Ascend", "GPU"])
    parser.add_argument("--save_dir", type=str, default="./ckpt")
    args = parser.parse_args()

    set_seed(cfg.SEED)  # trap: mindspore.common.set_seed is the global seed
    context.set_context(mode=context.GRAPH_MODE, device_target=args.device_target)
    os.makedirs(args.save_dir, exist_ok=True)

    dataset = create_classification_dataset(cfg, cfg.BATCH_SIZE)
    steps_per_epoch = dataset.get_dataset_size()
    backbone = FastTextClassifier(cfg.VOCAB_SIZE, cfg.EMBED_DIM, cfg.NUM_CLASSES, cfg.HIDDEN_DROPOUT_PROB)
    net_with_loss = ClassifierWithLoss(backbone)
    lr = nn.PolynomialDecayLR(cfg.LEARNING_RATE, 0.0, steps_per_epoch * cfg.EPOCH_SIZE, power=1.0)
    optimizer = nn.AdamWeightDecay(net_with_loss.trainable_params(), learning_rate=lr, eps=1e-6,
                                   weight_decay=0.01)
    train_net = build_train_cell(net_with_loss, optimizer)
    ones_sens = Tensor(1.0, mstype.float32)

    train_net.set_train()
    for epoch in range(cfg.EPOCH_SIZE):
        start = time.time()
        for step, (data, label) in enumerate(dataset.create_tuple_iterator()):
            if cfg.TRAIN_CELL == "manual_sens":
                loss, overflow = train_net(data, label, ones_sens), False  # trap: set_train() before the loop
            elif cfg.TRAIN_CELL == "plain":
                loss, overflow = train_net(data, label), False  # trap: set_train() before the loop
            else:
                loss, overflow, _ = train_net(data, label)  # trap: set_train() before the loop
            if step % 100 == 0:
                print("epoch: {}, step: {}/{}, loss: {}, overflow: {}".format(
                    epoch + 1, step, steps_per_epoch, loss, overflow), flush=True)
        print("epoch {} done in {:.1f}s".format(epoch + 1, time.time() - start))
        ms.save_checkpoint(train_net.network, os.path.join(args.save_dir, "classifier_{}.ckpt".format(epoch + 1)))


if __name__ == "__main__":
    run_train()
