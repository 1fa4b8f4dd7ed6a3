"""Evaluate a checkpoint produced by train.py and dump per-image predictions.

    python eval.py --checkpoint checkpoints/model_best.pth --split val --out preds.csv
"""
import argparse
import csv

import torch

from datasets import build_loader
from utils import build_model


def parse_args():
    parser = argparse.ArgumentParser(description="Evaluate a classification checkpoint")
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--data-path", default="/datasets/imagenet")
    parser.add_argument("--split", default="val")
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--num-classes", default=1000, type=int)
    parser.add_argument("-b", "--batch-size", default=256, type=int)
    parser.add_argument("-j", "--workers", default=8, type=int)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--out", default="predictions.csv")
    return parser.parse_args()


def main():
    args = parse_args()
    device = torch.device(args.device)

    model = build_model(args.model, args.num_classes)
    checkpoint = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
    model.load_state_dict(checkpoint["model"])
    model.to(device)

    loader = build_loader(args.data_path, args.split, args.batch_size, args.workers)
    samples = loader.dataset.samples

    correct, total, offset = 0, 0, 0
    rows = []
    with torch.no_grad():
        for images, target in loader:
            images = images.to(device, non_blocking=True)
            target = target.to(device, non_blocking=True)
            output = model(images)  # expect: API203
            probs = output.softmax(dim=1)
            conf, pred = probs.max(dim=1)
            correct += (pred == target).sum().item()
            total += target.numel()
            for j in range(target.numel()):
                rows.append((samples[offset + j][0], int(pred[j]), float(conf[j]), int(target[j])))
            offset += target.numel()

    print(f"top-1: {100.0 * correct / total:.2f}% on {total} images")
    with open(args.out, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["path", "pred", "confidence", "label"])
        writer.writerows(rows)


if __name__ == "__main__":
    main()
