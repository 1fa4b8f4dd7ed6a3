"""Fine-tune a small CNN written with mindspore.mint (torch-like API) on a 5-class flower folder.

Ported from a torch fine-tuning script by switching torch.nn -> mindspore.mint.nn.
"""
import argparse

import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision
from mindspore import mint, nn

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


class ConvBNAct(nn.Cell):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv = mint.nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        # "MindSpore BatchNorm momentum is 0.9, not torch's 0.1" -- true for nn.BatchNorm2d only
        self.bn = mint.nn.BatchNorm2d(cout, momentum=0.9)  # expect: API123
        self.act = mint.nn.ReLU()

    def construct(self, x):
        return self.act(self.bn(self.conv(x)))


class FlowerNet(nn.Cell):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.SequentialCell([ConvBNAct(3, 32, 2), ConvBNAct(32, 64, 2),
                                           ConvBNAct(64, 128, 2), ConvBNAct(128, 256, 2)])
        self.pool = mint.nn.AdaptiveAvgPool2d((1, 1))
        self.flatten = mint.nn.Flatten()
        self.dropout = mint.nn.Dropout(0.2)  # trap: mint Dropout takes p
        self.fc = mint.nn.Linear(256, num_classes)

    def construct(self, x):
        x = self.flatten(self.pool(self.features(x)))
        return self.fc(self.dropout(x))


def create_datasets(data_dir, batch_size, image_size=224):
    full = ds.ImageFolderDataset(data_dir, shuffle=False, decode=True)  # trap: split() below randomizes (default)
    train_ds, val_ds = full.split([0.8, 0.2])
    train_trans = [vision.RandomResizedCrop(image_size), vision.RandomHorizontalFlip(),
                   vision.Normalize(MEAN, STD), vision.HWC2CHW()]
    val_trans = [vision.Resize(256), vision.CenterCrop(image_size), vision.Normalize(MEAN, STD), vision.HWC2CHW()]
    train_ds = train_ds.map(operations=train_trans, input_columns="image")
    train_ds = train_ds.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    val_ds = val_ds.map(operations=val_trans, input_columns="image")
    val_ds = val_ds.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return train_ds.batch(batch_size, drop_remainder=True), val_ds.batch(batch_size)


def validate(model, dataset):
    # torch version started with model.eval(); dropped in the port
    correct, total = 0, 0
    for data, label in dataset.create_tuple_iterator():
        logits = model(data)  # expect: API202
        correct += int((logits.argmax(1) == label).sum().asnumpy())
        total += label.shape[0]
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="data/flower_photos")
    parser.add_argument("--pretrained", default="")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--device_target", default="Ascend")
    args = parser.parse_args()

    ms.set_seed(args.seed)
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target=args.device_target)
    train_ds, val_ds = create_datasets(args.data_dir, args.batch_size)
    model = FlowerNet(num_classes=5)
    if args.pretrained:
        ms.load_param_into_net(model, ms.load_checkpoint(args.pretrained), strict_load=False)  # expect: WI201
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = mint.optim.AdamW(model.trainable_params(), lr=args.lr, weight_decay=0.05)

    def forward_fn(data, label):
        logits = model(data)
        return loss_fn(logits, label), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    for epoch in range(args.epochs):
        model.set_train()
        for data, label in train_ds.create_tuple_iterator():
            loss = train_step(data, label)  # trap: set_train() at the top of every epoch
        acc = validate(model, val_ds)
        print(f"epoch {epoch + 1}: loss {loss.asnumpy():.4f} val acc {acc:.4f}")


if __name__ == "__main__":
    main()
