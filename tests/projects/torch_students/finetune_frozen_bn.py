"""Linear probe: fine-tune only a new classification head on a frozen ImageNet ResNet-50.

The backbone is frozen *including* its BatchNorm running statistics, so the whole model is
put in eval mode once. The only trainable module is a plain nn.Linear head (no BN, no Dropout),
whose forward/backward is identical in train and eval mode.
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, models


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/flowers102")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    weights = models.ResNet50_Weights.IMAGENET1K_V2
    preprocess = weights.transforms()
    train_set = datasets.Flowers102(args.data, split="train", transform=preprocess, download=True)
    val_set = datasets.Flowers102(args.data, split="val", transform=preprocess, download=True)
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4)
    val_loader = DataLoader(val_set, batch_size=128, num_workers=4)

    model = models.resnet50(weights=weights)
    for param in model.parameters():
        param.requires_grad = False
    model.fc = nn.Linear(model.fc.in_features, 102)  # new head, trainable
    model.to(device)

    # Frozen backbone: keep BN in inference mode (running stats must not drift on 1k images).
    # The head is a single Linear layer, so eval mode does not change how it trains.
    model.eval()  # trap: intentional, before the loop; nothing trainable depends on the mode

    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.fc.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    for epoch in range(args.epochs):
        running = 0.0
        for images, labels in train_loader:
            images, labels = images.to(device), labels.to(device)
            logits = model(images)  # trap: eval mode on purpose (frozen BN backbone, Linear head)
            loss = criterion(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item() * images.size(0)
        scheduler.step()
        print(f"epoch {epoch}: train loss {running / len(train_set):.4f}")

    correct = 0
    with torch.no_grad():
        for images, labels in val_loader:
            images, labels = images.to(device), labels.to(device)
            correct += (model(images).argmax(1) == labels).sum().item()  # trap: model.eval() earlier on the path
    print(f"val accuracy: {correct / len(val_set):.4f}")
    torch.save(model.fc.state_dict(), "flowers_head.pth")


if __name__ == "__main__":
    main()
