"""CIFAR-100 ViT training with AMP."""
import torch
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader

from models.torch_vit.model import ViT


def evaluate(model, loader):
    model.eval()  # evidence: api.02
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    return correct / len(loader.dataset)


def main():
    torch.manual_seed(0)  # evidence: wi.03
    tf = T.Compose([T.RandomCrop(32, padding=4), T.ToTensor(), T.Normalize((0.507, 0.487, 0.441), (0.267, 0.256, 0.276))])  # evidence: dp.01
    train_set = torchvision.datasets.CIFAR100("data", train=True, download=True, transform=tf)
    test_tf = T.Compose([T.ToTensor(), T.Normalize((0.507, 0.487, 0.441), (0.267, 0.256, 0.276))])
    test_set = torchvision.datasets.CIFAR100("data", train=False, transform=test_tf)
    train_loader = DataLoader(train_set, batch_size=128, shuffle=True, num_workers=4)  # evidence: dp.03
    test_loader = DataLoader(test_set, batch_size=256)
    model = ViT()
    criterion = torch.nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.05)
    scaler = torch.cuda.amp.GradScaler()  # evidence: mp.02
    for epoch in range(100):
        model.train()  # evidence: api.02
        for x, y in train_loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = criterion(model(x), y)
            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: MP301
            scaler.step(optimizer)
            scaler.update()
        print(epoch, evaluate(model, test_loader))


if __name__ == "__main__":
    main()
