"""Fine-tune a small MLP attribute classifier from a backbone checkpoint (student work).

The hidden layer was "initialized to zero for reproducibility", the head predicts 40 binary
attributes, and the checkpoint comes from a different project (keys prefixed with `module.`).
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class AttrMLP(nn.Module):
    def __init__(self, in_dim=512, hidden=256, num_attrs=40):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, hidden)  # expect: WI102
        self.norm = nn.LayerNorm(hidden)
        self.fc2 = nn.Linear(hidden, hidden)  # trap: only its bias is zeroed
        self.head = nn.Linear(hidden, num_attrs)  # trap: zero-init head, logits go to the loss
        self.gate = nn.Linear(hidden, hidden)
        nn.init.zeros_(self.fc1.weight)
        nn.init.zeros_(self.fc1.bias)
        nn.init.zeros_(self.fc2.bias)
        nn.init.zeros_(self.head.weight)
        nn.init.constant_(self.norm.weight, 0)  # trap: a norm's weight, not a layer's
        nn.init.constant_(self.gate.weight, 0.0)  # trap: gate, its output goes through a sigmoid

    def forward(self, x):
        h = F.relu(self.fc1(x))
        h = self.norm(self.fc2(h)) * torch.sigmoid(self.gate(h))
        return self.head(h)


def train(model, loader, optimizer, epochs):
    criterion = nn.BCEWithLogitsLoss()
    model.train()
    for _ in range(epochs):
        for feats, attrs in loader:
            logits = model(feats)
            probs = torch.sigmoid(logits)
            loss = criterion(probs, attrs)  # expect: CG402
            aux = F.binary_cross_entropy(probs, attrs)  # trap: a loss on probabilities
            optimizer.zero_grad()
            (loss + 0.1 * aux).backward()
            optimizer.step()
            acc = ((probs > 0.5) == attrs.bool()).float().mean()  # trap: probabilities for the metric only
    return acc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backbone", default="backbone.pth")
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = AttrMLP()
    state = torch.load(args.backbone, map_location="cpu")
    model.load_state_dict(state, strict=False)  # expect: WI202
    msg = model.load_state_dict(state, strict=False)  # trap: result kept and printed
    print(msg)
    feats, attrs = torch.randn(256, 512), torch.randint(0, 2, (256, 40)).float()
    loader = DataLoader(TensorDataset(feats, attrs), batch_size=32, shuffle=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    optimizer.load_state_dict(torch.load("opt.pth"))  # trap: optimizers have no strict flag
    train(model, loader, optimizer, args.epochs)


if __name__ == "__main__":
    main()
