"""Evaluate a checkpoint (Model.eval sets inference mode itself)."""
import mindspore as ms
from mindspore import nn
from mindspore.train import Accuracy, Model

from src.dataset import create_dataset
from src.model import Classifier

if __name__ == "__main__":
    net = Classifier()
    ms.load_param_into_net(net, ms.load_checkpoint("best.ckpt"))
    model = Model(net, nn.CrossEntropyLoss(), metrics={"acc": Accuracy()})
    print(model.eval(create_dataset("data/cifar-10-batches-bin", do_train=False, batch_size=256)))
