"""Less common wrappers: fp32 clip cell, injected-sens cell, divide-style unscale cells."""
import mindspore.nn as nn
from mindspore import ops
from mindspore.ops import composite as C
from mindspore.ops import functional as F

from src.cell_wrapper import GRADIENT_CLIP_VALUE

_grad_div = C.MultitypeFuncGraph("grad_div")


@_grad_div.register("Tensor", "Tensor")
def _tensor_grad_div(scale, grad):
    return grad / F.cast(scale, F.dtype(grad))


class TrainOneStepWithClipCell(nn.TrainOneStepCell):
    """fp32 training without loss scaling; clipping right after the backward pass is correct here."""

    def __init__(self, network, optimizer, sens=1.0, clip_norm=1.0):
        super(TrainOneStepWithClipCell, self).__init__(network, optimizer, sens)
        self.clip_norm = clip_norm

    def construct(self, data, label):
        loss = self.network(data, label)
        sens = F.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(data, label, sens)
        grads = C.clip_by_global_norm(grads, self.clip_norm)  # trap: sens is 1.0, nothing to unscale
        grads = self.grad_reducer(grads)
        return F.depend(loss, self.optimizer(grads))


class TrainOneStepWithSensCell(nn.Cell):
    """Backward pass with an output gradient supplied by the caller (all ones in train.py)."""

    def __init__(self, network, optimizer, clip_norm=1.0):
        super(TrainOneStepWithSensCell, self).__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.grad = C.GradOperation(get_by_list=True, sens_param=True)
        self.clip_norm = clip_norm

    def construct(self, data, label, scale_sense):
        loss = self.network(data, label)
        grads = self.grad(self.network, self.weights)(data, label, scale_sense)
        grads = C.clip_by_global_norm(grads, self.clip_norm)  # trap: not a loss-scale cell; scale_sense is an injected output gradient
        return F.depend(loss, self.optimizer(grads))


class TrainOneStepWithLossScaleAndClipCell(nn.TrainOneStepWithLossScaleCell):
    """Loss-scale cell that divides by the scale (YOLO style) -- but clips before dividing."""

    def __init__(self, network, optimizer, scale_sense, clip_norm=5.0):
        super(TrainOneStepWithLossScaleAndClipCell, self).__init__(network, optimizer, scale_sense)
        self.clip_norm = clip_norm

    def construct(self, data, label):
        weights = self.weights
        loss = self.network(data, label)
        scaling_sens = self.scale_sense
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        scaling_sens_filled = C.ones_like(loss) * F.cast(scaling_sens, F.dtype(loss))
        grads = self.grad(self.network, weights)(data, label, scaling_sens_filled)
        grads = C.clip_by_global_norm(grads, self.clip_norm)  # expect: MP302
        grads = self.hyper_map(F.partial(_grad_div, scaling_sens), grads)
        grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            loss = F.depend(loss, self.optimizer(grads))
        return loss, cond, scaling_sens


class ValueClipLossScaleCell(nn.TrainOneStepWithLossScaleCell):
    """Element-wise value clipping. Same ordering bug as above, but with ops.clip_by_value,
    which MP302 also covers (the threshold is compared with gradients that are still x scale)."""

    def construct(self, data, label):
        weights = self.weights
        loss = self.network(data, label)
        scaling_sens = self.scale_sense
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        scaling_sens_filled = C.ones_like(loss) * F.cast(scaling_sens, F.dtype(loss))
        grads = self.grad(self.network, weights)(data, label, scaling_sens_filled)
        grads = ops.clip_by_value(grads, -GRADIENT_CLIP_VALUE, GRADIENT_CLIP_VALUE)  # expect: MP302
        grads = self.hyper_map(F.partial(_grad_div, scaling_sens), grads)
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            loss = F.depend(loss, self.optimizer(grads))
        return loss, cond, scaling_sens
