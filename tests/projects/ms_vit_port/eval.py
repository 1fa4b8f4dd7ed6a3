import mindspore as ms
from mindspore import nn
from mindspore.train import Model

from src.dataset import create_dataset
from src.vit import ViT

net = ViT()
ms.load_checkpoint("vit.ckpt", net, strict_load=True)
loss = nn.CrossEntropyLoss()
model = Model(net, loss_fn=loss, metrics={"acc"})
print(model.eval(create_dataset("/data/imagenette/val", 64, do_train=False)))
