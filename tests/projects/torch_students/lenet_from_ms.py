"""LeNet-5 on MNIST -- port of the MindSpore quick-start (lenet.py + train.py) to PyTorch."""
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

SEED = 1
EPOCHS = 10
BATCH_SIZE = 32


class LeNet5(nn.Module):
    # MindSpore: LeNet5(num_class=10, num_channel=1) with nn.Dropout(keep_prob=...)
    def __init__(self, num_class=10, num_channel=1, keep_prob=0.8):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5)  # pad_mode='valid' in the MindSpore version
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_class)
        self.dropout = nn.Dropout(keep_prob)  # expect: API103
        self.dropout2 = nn.Dropout(0.9)  # expect: API103

    def forward(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.dropout(self.relu(self.fc1(x)))
        x = self.dropout2(self.relu(self.fc2(x)))
        return self.fc3(x)


def evaluate(net, loader, device):
    net.eval()
    correct = 0
    with torch.no_grad():
        for data, label in loader:
            data, label = data.to(device), label.to(device)
            correct += (net(data).argmax(dim=1) == label).sum().item()  # trap: net.eval() above
    return correct / len(loader.dataset)


def main():
    random.seed(SEED)
    np.random.seed(SEED)
    torch.cuda.manual_seed_all(SEED)
    torch.backends.cudnn.deterministic = True

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    # MindSpore's LeNet expects 32x32 inputs (Resize(32) in create_dataset)
    tf = transforms.Compose([transforms.Resize(32), transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_data = datasets.MNIST("./MNIST_Data", train=True, download=True, transform=tf)
    test_data = datasets.MNIST("./MNIST_Data", train=False, download=True, transform=tf)
    train_loader = DataLoader(train_data, batch_size=BATCH_SIZE, shuffle=True, drop_last=True)
    test_loader = DataLoader(test_data, batch_size=BATCH_SIZE)

    net = LeNet5().to(device)
    # MindSpore's SoftmaxCrossEntropyWithLogits ported as NLLLoss: the log_softmax is missing
    loss_fn = nn.NLLLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)  # nn.Momentum(lr=0.01, momentum=0.9)

    for epoch in range(1, EPOCHS + 1):  # expect: WI302
        net.train()
        for step, (data, label) in enumerate(train_loader):
            data, label = data.to(device), label.to(device)
            logits = net(data)  # trap: net.train() at the start of each epoch
            loss = loss_fn(logits, label)  # expect: CG403
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 375 == 0:
                print(f"epoch: {epoch} step: {step}, loss is {loss.item():.4f}")
        print(f"epoch {epoch} accuracy: {evaluate(net, test_loader, device):.4f}")

    torch.save(net.state_dict(), "checkpoint_lenet.pth")


if __name__ == "__main__":
    main()
