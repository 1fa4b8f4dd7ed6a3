"""Top-1 accuracy of a trained checkpoint."""
import mindspore as ms
from mindspore import nn
from mindspore.train import Model

from src.dataset import create_eval_dataset
from src.resnet import ResNet


def main(ckpt, data):
    net = ResNet()
    params = ms.load_checkpoint(ckpt)  # evidence: wi.02
    not_loaded, _ = ms.load_param_into_net(net, params)  # evidence: wi.02
    if not_loaded:
        raise RuntimeError(f"parameters not loaded: {not_loaded}")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss_fn=loss, metrics={"acc"})
    print(model.eval(create_eval_dataset(data, 256)))


if __name__ == "__main__":
    main("resnet.ckpt", "/data/imagenet/val")
