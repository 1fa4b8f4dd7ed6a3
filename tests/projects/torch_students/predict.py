"""Batch inference: classify every image in a folder with a fine-tuned EfficientNet-B0.

    python predict.py --ckpt effnet_b0_best.pth --images ./unlabelled --out predictions.csv
"""
import argparse
import csv
import os

import torch
import torch.nn as nn
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import models


class ImageFiles(Dataset):
    def __init__(self, root, transform):
        self.paths = sorted(os.path.join(root, f) for f in os.listdir(root)
                            if f.lower().endswith((".jpg", ".jpeg", ".png")))
        self.transform = transform

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, idx):
        img = Image.open(self.paths[idx]).convert("RGB")
        return self.transform(img), self.paths[idx]


def load_model(ckpt_path, num_classes, device):
    model = models.efficientnet_b0()
    model.classifier = nn.Sequential(nn.Dropout(p=0.2, inplace=True), nn.Linear(1280, num_classes))  # trap: drop probability
    model.load_state_dict(torch.load(ckpt_path, map_location="cpu"))
    model.to(device)
    model.eval()
    return model


def predict_batch(model, images, tta=True):
    logits = model(images)  # trap: load_model() put the model in eval mode, on the caller's path
    if tta:
        logits = logits + model(torch.flip(images, dims=[3]))  # trap: same
        logits = logits / 2
    return logits.softmax(dim=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--images", required=True)
    parser.add_argument("--num-classes", type=int, default=5)
    parser.add_argument("--out", default="predictions.csv")
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    transform = models.EfficientNet_B0_Weights.IMAGENET1K_V1.transforms()
    loader = DataLoader(ImageFiles(args.images, transform), batch_size=64, num_workers=4)  # trap: inference keeps file order
    model = load_model(args.ckpt, args.num_classes, device)

    rows = []
    with torch.inference_mode():
        for images, paths in loader:
            probs = predict_batch(model, images.to(device))
            conf, pred = probs.max(dim=1)
            rows.extend(zip(paths, pred.tolist(), conf.tolist()))

    with open(args.out, "w", newline="") as f:
        csv.writer(f).writerows([("path", "class", "confidence"), *rows])
    print(f"wrote {len(rows)} predictions to {args.out}")


if __name__ == "__main__":
    main()
