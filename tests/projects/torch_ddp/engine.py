"""Training and evaluation loops."""
import torch
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer, device):
    model.train()
    for images, target in loader:
        images, target = images.to(device), target.to(device)
        with torch.autocast("cuda"):  # expect: MP203
            loss = F.cross_entropy(model(images), target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()


def train_one_epoch_bf16(model, loader, optimizer, device):
    model.train()
    for images, target in loader:
        images, target = images.to(device), target.to(device)
        with torch.autocast("cuda", dtype=torch.bfloat16):  # trap: bfloat16 needs no GradScaler
            loss = F.cross_entropy(model(images), target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = 0
    for images, target in loader:
        with torch.autocast("cuda"):  # trap: no backward here
            output = model(images.to(device))
        correct += (output.argmax(1) == target.to(device)).sum().item()
    return correct
