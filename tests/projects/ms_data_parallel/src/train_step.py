"""Custom training steps."""
import mindspore.nn as nn
import mindspore.ops as ops


class TrainOneStep(nn.Cell):
    """Port of a PyTorch step: forward, backward, optimizer."""

    def __init__(self, network, optimizer, sens=1.0):
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.sens = sens

    def construct(self, *inputs):
        loss = self.network(*inputs)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(*inputs, sens)
        self.optimizer(grads)  # expect: CG501
        return loss


class ClipGradStep(nn.TrainOneStepCell):
    """Keeps the base class' gradient reducer."""

    def construct(self, *inputs):
        loss = self.network(*inputs)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(*inputs, sens)
        grads = self.grad_reducer(grads)
        grads = ops.clip_by_global_norm(grads, 1.0)
        self.optimizer(grads)  # trap: self.grad_reducer runs first
        return loss
