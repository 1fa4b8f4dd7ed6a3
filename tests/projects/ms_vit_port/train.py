import mindspore as ms
from mindspore import nn
from mindspore.train import Model, LossMonitor

from src.dataset import create_dataset
from src.heads import ProjectionHead
from src.vit import ViT


class ViTWithLoss(nn.Cell):
    """The loss lives inside the network, as in the reference's `forward(x, y)`."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.loss = nn.CrossEntropyLoss(label_smoothing=0.1)

    def construct(self, x, y):
        return self.loss(self.net(x), y)


def main():
    ms.set_seed(0)
    train_set = create_dataset("/data/imagenette/train", 64, do_train=True)
    net = ViTWithLoss(ViT())
    _ = ProjectionHead(192, 128)
    opt = nn.AdamWeightDecay(net.trainable_params(), learning_rate=5e-4, weight_decay=0.05)
    model = Model(net, optimizer=opt, amp_level="O2")  # expect: MP204
    model.train(100, train_set, callbacks=[LossMonitor()])


if __name__ == "__main__":
    main()
