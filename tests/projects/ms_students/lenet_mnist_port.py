"""LeNet-5 on MNIST -- ported from the PyTorch "optimization loop" tutorial (model.py + train.py merged).

Porting notes: nn.Linear -> nn.Dense, model.train()/model.eval() removed ("MindSpore has no .train()"),
loss.backward()/optimizer.step() -> value_and_grad + optimizer(grads).
"""
import argparse

import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision
from mindspore import nn


class LeNet5(nn.Cell):
    """torch: nn.Conv2d(1, 6, 5) / nn.Conv2d(6, 16, 5), both with bias."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode='valid')  # expect: API111
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode='valid')  # expect: API111
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_classes)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def create_dataset(data_dir, usage, batch_size):
    mnist = ds.MnistDataset(data_dir, usage=usage)  # trap: shuffle omitted, mappable datasets shuffle by default
    trans = [
        vision.Resize((32, 32)),
        vision.Rescale(1.0 / 255.0, 0.0),
        vision.Normalize(mean=(0.1307,), std=(0.3081,)),
        vision.HWC2CHW(),
    ]
    mnist = mnist.map(operations=trans, input_columns="image")
    mnist = mnist.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return mnist.batch(batch_size, drop_remainder=True)


def train_loop(model, dataset, loss_fn, optimizer):
    def forward_fn(data, label):
        logits = model(data)
        loss = loss_fn(logits, label)
        return loss, logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    size = dataset.get_dataset_size()
    for batch, (data, label) in enumerate(dataset.create_tuple_iterator()):
        (loss, _), grads = grad_fn(data, label)  # expect: API201
        optimizer(grads)
        if batch % 100 == 0:
            print(f"loss: {loss.asnumpy():>7f}  [{batch:>3d}/{size:>3d}]")


def test_loop(model, dataset, loss_fn):
    num_batches = dataset.get_dataset_size()
    model.set_train(False)
    total, test_loss, correct = 0, 0, 0
    for data, label in dataset.create_tuple_iterator():
        pred = model(data)  # trap: set_train(False) above
        total += len(data)
        test_loss += loss_fn(pred, label).asnumpy()
        correct += (pred.argmax(1) == label).asnumpy().sum()
    test_loss /= num_batches
    correct /= total
    print(f"Test: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="MNIST_Data")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    ms.set_seed(args.seed)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    train_dataset = create_dataset(args.data_dir, "train", args.batch_size)
    test_dataset = create_dataset(args.data_dir, "test", 1000)

    model = LeNet5()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), learning_rate=args.lr, momentum=0.9)
    for t in range(args.epochs):
        print(f"Epoch {t + 1}\n-------------------------------")
        train_loop(model, train_dataset, loss_fn, optimizer)
        test_loop(model, test_dataset, loss_fn)
    print("Done!")
