"""Half-ported from the PyTorch reference: the network is MindSpore, the loop is custom."""
import mindspore as ms
from mindspore import nn, ops
import mindspore.dataset as ds
import mindspore.dataset.vision as vision

from common.seeding import seed_everything


class Net(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3)  # expect: API111
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.drop = nn.Dropout(0.1)  # expect: API101
        self.fc = nn.Dense(32 * 28 * 28, num_classes)

    def construct(self, x):
        return self.fc(self.drop(self.flatten(self.relu(self.conv(x)))))


def train(data_dir, epochs=10):
    seed_everything(0)
    data = ds.ImageFolderDataset(data_dir, shuffle=False)  # expect: DP301
    trans = [vision.Decode(), vision.Resize((28, 28)), vision.HWC2CHW()]  # expect: DP101
    data = data.map(operations=trans, input_columns="image").batch(64)
    net = Net()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Adam(net.trainable_params(), learning_rate=1e-3)

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
    for _ in range(epochs):
        for x, y in data.create_tuple_iterator():
            loss, grads = grad_fn(x, y)  # expect: API201
            optimizer(grads)


if __name__ == "__main__":
    train("/data/digits")
