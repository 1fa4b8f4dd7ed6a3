"""Transforms, torchvision-reference style."""
import torchvision.transforms as T

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def train_transform(crop_size=224):
    return T.Compose([T.RandomResizedCrop(crop_size), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])


def eval_transform(resize_size=256, crop_size=224):
    return T.Compose([
        T.Resize(resize_size),
        T.RandomCrop(crop_size),  # expect: DP202
        T.ToTensor(),
        T.Normalize(MEAN, STD),
    ])


def build_transform(is_train, crop_size=224):
    if is_train:
        return T.Compose([T.RandomResizedCrop(crop_size), T.RandomHorizontalFlip(), T.ToTensor()])  # trap: training branch
    return T.Compose([T.Resize(256), T.CenterCrop(crop_size), T.ToTensor()])


def tta_transforms(crop_size=224):
    return [eval_transform(crop_size=crop_size),
            T.Compose([T.CenterCrop(crop_size), T.RandomHorizontalFlip(p=1.0), T.ToTensor()])]  # trap: fixed flip
