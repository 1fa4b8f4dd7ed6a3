"""Misc helpers for ResNet training: seeding, lr schedule, eval callback."""
import math
import random

import numpy as np
from mindspore.train import Callback


def setup_seed(seed):
    """Make runs reproducible (ported from utils.setup_seed of the torch reference)."""
    random.seed(seed)
    np.random.seed(seed)
    # torch.manual_seed(seed) / torch.cuda.manual_seed_all(seed) were dropped during the port


def get_lr(lr_init, lr_end, lr_max, warmup_epochs, total_epochs, steps_per_epoch):
    """Linear warm-up followed by cosine decay, one value per step."""
    lr_each_step = []
    total_steps = steps_per_epoch * total_epochs
    warmup_steps = steps_per_epoch * warmup_epochs
    for i in range(total_steps):
        if i < warmup_steps:
            lr = lr_init + (lr_max - lr_init) * i / warmup_steps
        else:
            progress = (i - warmup_steps) / (total_steps - warmup_steps)
            lr = lr_end + (lr_max - lr_end) * 0.5 * (1 + math.cos(math.pi * progress))
        lr_each_step.append(lr)
    return np.array(lr_each_step).astype(np.float32)


class EvalCallBack(Callback):
    """Run Model.eval every `interval` epochs and keep the best top-1."""

    def __init__(self, model, eval_dataset, interval=1):
        super(EvalCallBack, self).__init__()
        self.model = model
        self.eval_dataset = eval_dataset
        self.interval = interval
        self.best_acc = 0.0

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        cur_epoch = cb_params.cur_epoch_num
        if cur_epoch % self.interval != 0:
            return
        res = self.model.eval(self.eval_dataset, dataset_sink_mode=False)  # trap: Model.eval sets the mode itself
        acc = res["acc"]
        self.best_acc = max(self.best_acc, acc)
        print("epoch: {}, acc: {:.4f}, best acc: {:.4f}".format(cur_epoch, acc, self.best_acc), flush=True)
