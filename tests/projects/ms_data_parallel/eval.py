"""Evaluation of a trained checkpoint."""
import mindspore as ms
from mindspore import nn
from mindspore.train import Model

from src.dataset import create_eval_dataset, create_tta_dataset
from src.net import SmallNet

if __name__ == "__main__":
    net = SmallNet()
    net.to_float(ms.float16)  # trap: inference script, no training
    ms.load_param_into_net(net, ms.load_checkpoint("net.ckpt"))  # expect: WI201(info)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), metrics={"acc"})
    print(model.eval(create_eval_dataset("/data/imagenet/val")))
    print(model.eval(create_tta_dataset("/data/imagenet/val")))
