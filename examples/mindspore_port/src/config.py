"""Hyper-parameters, copied from the PyTorch reference."""
BATCH_SIZE = 64
EPOCHS = 90
LR = 0.1
WEIGHT_DECAY = 1e-4
DROPOUT_RATE = 0.2      # torch: nn.Dropout(p=0.2)
BN_MOMENTUM = 0.1       # torch default (MindSpore weights the OLD statistic: see model.py)
CLIP_NORM = 1.0
LOSS_SCALE = 2 ** 12
