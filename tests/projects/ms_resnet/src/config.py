"""Hyper-parameters for ResNet on ImageNet2012 (8p Ascend) or CIFAR-10 (1p).

Values marked "torch ref" were copied from the PyTorch reference implementation
we are migrating from (torchvision recipe + timm head).
"""

# dataset
DATASET = "imagenet2012"            # "imagenet2012" or "cifar10"
DATA_PATH = "/cache/data/imagenet/train"
EVAL_DATA_PATH = "/cache/data/imagenet/val"
CLASS_NUM = 1001
BATCH_SIZE = 256
TRAIN_IMAGE_SIZE = 224
EVAL_IMAGE_SIZE = 224

# network
NET_NAME = "resnet50"               # "resnet18" (res_base, torch-aligned) or "resnet50"
BN_MOMENTUM = 0.1                   # torch ref (BatchNorm2d default)
BN_EPS = 1e-5                       # torch ref
HEAD_DROPOUT = 0.2                  # torch ref: timm resnet50 drop_rate

# optimizer / schedule
EPOCH_SIZE = 90
PRETRAIN_EPOCH_SIZE = 0
MOMENTUM = 0.9                      # nn.Momentum, not BatchNorm
WEIGHT_DECAY = 1e-4
LOSS_SCALE = 1024
LR_INIT = 0.0
LR_MAX = 0.8
LR_END = 0.0
WARMUP_EPOCHS = 5

# checkpoints / misc
SAVE_CHECKPOINT = True
SAVE_CHECKPOINT_EPOCHS = 5
KEEP_CHECKPOINT_MAX = 10
CHECKPOINT_PATH = "./ckpt"
RUN_EVAL = True
EVAL_INTERVAL = 5
SEED = 1
