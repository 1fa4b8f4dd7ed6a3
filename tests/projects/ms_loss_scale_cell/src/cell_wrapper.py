"""Train-one-step cells with loss scaling and gradient clipping (BERT / PanGu model-zoo style)."""
import mindspore.common.dtype as mstype
import mindspore.nn as nn
from mindspore.communication.management import get_group_size
from mindspore.nn.wrap.grad_reducer import DistributedGradReducer
from mindspore.ops import composite as C
from mindspore.ops import functional as F
from mindspore.ops import operations as P

GRADIENT_CLIP_TYPE = 1
GRADIENT_CLIP_VALUE = 1.0

clip_grad = C.MultitypeFuncGraph("clip_grad")


@clip_grad.register("Number", "Number", "Tensor")
def _clip_grad(clip_type, clip_value, grad):
    """
    Clip gradients.

    Inputs:
        clip_type (int): The way to clip, 0 for 'value', 1 for 'norm'.
        clip_value (float): Specifies how much to clip.
        grad (tuple[Tensor]): Gradients.

    Outputs:
        tuple[Tensor], clipped gradients.
    """
    if clip_type not in (0, 1):
        return grad
    dt = F.dtype(grad)
    if clip_type == 0:
        new_grad = C.clip_by_value(grad, F.cast(F.tuple_to_array((-clip_value,)), dt),
                                   F.cast(F.tuple_to_array((clip_value,)), dt))
    else:
        new_grad = nn.ClipByNorm()(grad, F.cast(F.tuple_to_array((clip_value,)), dt))  # trap: per-tensor body of clip_grad; reported at the hyper_map call
    return new_grad


_grad_scale = C.MultitypeFuncGraph("grad_scale")
reciprocal = P.Reciprocal()


@_grad_scale.register("Tensor", "Tensor")
def tensor_grad_scale(scale, grad):
    return grad * F.cast(reciprocal(scale), F.dtype(grad))


class BertTrainOneStepWithLossScaleCell(nn.TrainOneStepWithLossScaleCell):
    """
    Encapsulation class of bert network training with loss scaling.

    Args:
        network (Cell): The training network. Note that loss function should have been added.
        optimizer (Optimizer): Optimizer for updating the weights.
        scale_update_cell (Cell): Cell to do the loss scale. Default: None.
    """

    def __init__(self, network, optimizer, scale_update_cell=None):
        super(BertTrainOneStepWithLossScaleCell, self).__init__(network, optimizer, scale_update_cell)
        self.cast = P.Cast()
        self.degree = 1
        if self.reducer_flag:
            self.degree = get_group_size()
            self.grad_reducer = DistributedGradReducer(optimizer.parameters, False, self.degree)

    def construct(self, data, label, sens=None):
        """Defines the computation performed."""
        weights = self.weights
        loss = self.network(data, label)
        if sens is None:
            scaling_sens = self.scale_sense
        else:
            scaling_sens = sens
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        grads = self.grad(self.network, weights)(data, label, self.cast(scaling_sens, mstype.float32))
        # clip before the all-reduce so that every rank sends bounded values
        grads = self.hyper_map(F.partial(clip_grad, GRADIENT_CLIP_TYPE, GRADIENT_CLIP_VALUE), grads)  # expect: MP302
        grads = self.grad_reducer(grads)
        degree_sens = self.cast(scaling_sens * self.degree, mstype.float32)
        grads = self.hyper_map(F.partial(_grad_scale, degree_sens), grads)
        cond = self.get_overflow_status(status, grads)
        overflow = cond
        if sens is None:
            overflow = self.process_loss_scale(cond)
        if not overflow:
            self.optimizer(grads)
        return (loss, cond, scaling_sens)


class BertFinetuneCell(nn.TrainOneStepWithLossScaleCell):
    """Fine-tuning cell: unscale first, then clip by global norm."""

    def __init__(self, network, optimizer, scale_update_cell=None, clip_norm=1.0):
        super(BertFinetuneCell, self).__init__(network, optimizer, scale_update_cell)
        self.cast = P.Cast()
        self.clip_norm = clip_norm

    def construct(self, data, label, sens=None):
        """Defines the computation performed."""
        weights = self.weights
        loss = self.network(data, label)
        if sens is None:
            scaling_sens = self.scale_sense
        else:
            scaling_sens = sens
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        grads = self.grad(self.network, weights)(data, label, self.cast(scaling_sens, mstype.float32))
        grads = self.hyper_map(F.partial(_grad_scale, scaling_sens), grads)
        grads = C.clip_by_global_norm(grads, self.clip_norm)  # trap: gradients were unscaled on the line above
        grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(status, grads)
        overflow = cond
        if sens is None:
            overflow = self.process_loss_scale(cond)
        if not overflow:
            self.optimizer(grads)
        return (loss, cond, scaling_sens)


class PanguAlphaTrainOneStepWithLossScaleCell(nn.TrainOneStepWithLossScaleCell):
    """Loss-scale cell whose unscale + clip live in one helper method."""

    def __init__(self, network, optimizer, scale_update_cell=None, clip_norm=1.0):
        super(PanguAlphaTrainOneStepWithLossScaleCell, self).__init__(network, optimizer, scale_update_cell)
        self.clip_norm = clip_norm

    def clip_scale_grads(self, scale, grads):
        """Remove the loss scale from the gradients, then clip them by global norm."""
        grads = self.hyper_map(F.partial(_grad_scale, scale), grads)
        grads = C.clip_by_global_norm(grads, self.clip_norm)  # trap: unscaled on the line above
        return grads

    def construct(self, data, label):
        """Defines the computation performed."""
        weights = self.weights
        loss = self.network(data, label)
        scaling_sens = self.scale_sense
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        scaling_sens_filled = C.ones_like(loss) * F.cast(scaling_sens, F.dtype(loss))
        grads = self.grad(self.network, weights)(data, label, scaling_sens_filled)
        grads = self.grad_reducer(grads)
        grads = self.clip_scale_grads(scaling_sens, grads)  # trap: the helper unscales before it clips
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        if not overflow:
            self.optimizer(grads)
        return loss, cond, scaling_sens
