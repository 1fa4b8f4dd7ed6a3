"""Single-device training through Model at amp level O3."""
import mindspore as ms
from mindspore import nn
from mindspore.amp import DynamicLossScaleManager
from mindspore.train import Model

from src.dataset import create_dataset_imagenet
from src.net import SmallNet

if __name__ == "__main__":
    ms.set_seed(1)
    dataset = create_dataset_imagenet("/data/imagenet/train", do_train=True)
    net = SmallNet()
    net.to_float(ms.bfloat16)  # trap: bfloat16 needs no loss scale
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"acc"}, amp_level="O3")  # expect: MP201
    scaled = Model(net, loss_fn=loss, optimizer=opt, amp_level="O3", loss_scale_manager=DynamicLossScaleManager())  # trap: has a loss-scale manager
    model.train(90, dataset)
