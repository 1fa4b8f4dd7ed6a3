"""Continue training a CIFAR-100 ResNet-18 from a checkpoint for a few more epochs."""
import argparse

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader


def evaluate(model, loader, device):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()  # trap: model.eval() above
    return 100.0 * correct / len(loader.dataset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", default="resnet18_cifar100.pth")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=3407)
    args = parser.parse_args()

    torch.random.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    norm = T.Normalize((0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762))
    train_set = torchvision.datasets.CIFAR100("./data", train=True, download=True,
                                              transform=T.Compose([T.RandomCrop(32, 4), T.RandomHorizontalFlip(), T.ToTensor(), norm]))
    test_set = torchvision.datasets.CIFAR100("./data", train=False, download=True,
                                             transform=T.Compose([T.ToTensor(), norm]))
    train_loader = DataLoader(train_set, batch_size=128, shuffle=True, num_workers=4)
    test_loader = DataLoader(test_set, batch_size=256, num_workers=4)

    model = torchvision.models.resnet18(num_classes=100)
    model.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    model.maxpool = nn.Identity()
    model.load_state_dict(torch.load(args.ckpt, map_location="cpu"))
    model.to(device)

    print(f"accuracy before resuming: {evaluate(model, test_loader, device):.2f}%")

    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    for epoch in range(args.epochs):
        total_loss = 0.0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            # evaluate() ran before the epoch loop and nothing calls model.train(): BN/eval mode for the whole run
            out = model(x)  # todo-expect: API204
            loss = criterion(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
        print(f"epoch {epoch}: loss {total_loss / len(train_loader):.4f}")

    print(f"accuracy after resuming: {evaluate(model, test_loader, device):.2f}%")
    torch.save(model.state_dict(), args.ckpt.replace(".pth", "_resumed.pth"))


if __name__ == "__main__":
    main()
