"""Mixed-precision fine-tuning loop (PyTorch)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def build_model():
    return nn.Sequential(nn.Linear(128, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.1), nn.Linear(256, 10))


def train_one_epoch(model, loader, optimizer, scaler, max_norm=1.0):
    model.train()
    for x, y in loader:
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # BUG: clip before scaler.unscale_(optimizer)
        scaler.step(optimizer)
        scaler.update()


@torch.no_grad()
def predict(model, x):
    return model(x).argmax(1)  # BUG: model is still in training mode (no model.eval())


def main():
    torch.manual_seed(0)
    train_set = TensorDataset(torch.randn(1024, 128), torch.randint(0, 10, (1024,)))
    val_set = TensorDataset(torch.randn(256, 128), torch.randint(0, 10, (256,)))
    train_loader = DataLoader(train_set, batch_size=64)  # BUG: training loader without shuffle=True
    val_loader = DataLoader(val_set, batch_size=256)
    model = build_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(10):
        train_one_epoch(model, train_loader, optimizer, scaler)
    for x, _ in val_loader:
        print(predict(model, x))


if __name__ == "__main__":
    main()
