from .clip_grad import dispatch_clip_grad
from .cuda import ApexScaler, NativeScaler, NativeScalerWithGradNormCount
from .metrics import AverageMeter, accuracy
from .random import random_seed
