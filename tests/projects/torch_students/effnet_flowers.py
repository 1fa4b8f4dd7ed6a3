"""EfficientNet-B0 fine-tuning on Flowers-102 (student work, PyTorch)."""
import torch
import torchvision
from torchvision import transforms as T
from torchvision.transforms import v2

torch.manual_seed(0)

train_tf = T.Compose([
    T.RandomResizedCrop(224),
    T.RandomHorizontalFlip(),
    T.ToTensor(),
    T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
val_tf = T.Compose([
    T.Resize(256),
    T.CenterCrop(224),
    T.ToTensor(),
    T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.244, 0.225]),  # expect: DP204
])
test_tf = v2.Compose([  # trap: same constants, v2 API, on the 0-255 scale
    v2.Resize(256),
    v2.CenterCrop(224),
    v2.ToImage(),
    v2.ToDtype(torch.float32),
    v2.Normalize(mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375]),
])

train_set = torchvision.datasets.Flowers102("data", split="train", transform=train_tf, download=True)
val_set = torchvision.datasets.Flowers102("data", split="val", transform=val_tf, download=True)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=32, shuffle=True)
val_loader = torch.utils.data.DataLoader(val_set, batch_size=64)

model = torchvision.models.efficientnet_b0(weights="IMAGENET1K_V1")
model.classifier[1] = torch.nn.Linear(1280, 102)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(10):
    model.train()
    for x, y in train_loader:
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        correct = sum((model(x).argmax(1) == y).sum().item() for x, y in val_loader)
    print(epoch, correct / len(val_set))
