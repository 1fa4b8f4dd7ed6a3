"""ImageFolder datasets and loaders."""
import os

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


def train_transform(crop_size=224):
    return transforms.Compose([
        transforms.RandomResizedCrop(crop_size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
    ])


def eval_transform(resize_size=256, crop_size=224):
    return transforms.Compose([
        transforms.Resize(resize_size),
        transforms.CenterCrop(crop_size),
        transforms.ToTensor(),
        transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
    ])


def build_train_loader(args):
    train_set = datasets.ImageFolder(os.path.join(args.data_path, "train"), transform=train_transform())
    if args.distributed:
        return DataLoader(train_set, sampler=DistributedSampler(train_set), batch_size=args.batch_size, num_workers=args.workers, pin_memory=True, drop_last=True)  # trap: DistributedSampler shuffles
    # single-GPU path
    return DataLoader(  # expect: DP302
        train_set,
        batch_size=args.batch_size,
        num_workers=args.workers,
        pin_memory=True,
        drop_last=True,
    )


def build_val_loader(args):
    val_set = datasets.ImageFolder(os.path.join(args.data_path, "val"), transform=eval_transform())
    return DataLoader(val_set, batch_size=args.batch_size * 2, shuffle=False, num_workers=args.workers, pin_memory=True)  # trap: validation loader


def build_loader(root, split, batch_size, workers):
    """Generic loader used by eval.py (and handy in notebooks)."""
    is_train = split == "train"
    transform = train_transform() if is_train else eval_transform()
    dataset = datasets.ImageFolder(os.path.join(root, split), transform=transform)
    return DataLoader(dataset, batch_size=batch_size, shuffle=is_train, num_workers=workers, drop_last=is_train)  # trap: shuffle=is_train can be True
