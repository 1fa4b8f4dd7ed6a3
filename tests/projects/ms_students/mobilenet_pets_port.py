"""MobileNetV2 fine-tuning on Oxford Pets, ported from a torchvision script (student work).

The torch script had `train_tf` and `val_tf` with the same ImageNet constants; the port
rewrote both pipelines and pasted the evaluation constants from another project.
"""
import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
from mindspore import nn
from mindspore.train import Model, LossMonitor

IMAGENET_MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
IMAGENET_STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def create_train_dataset(path, batch_size=32):
    data = ds.ImageFolderDataset(path, shuffle=True)
    trans = [vision.RandomCropDecodeResize(224), vision.RandomHorizontalFlip(),
             vision.Normalize(IMAGENET_MEAN, IMAGENET_STD), vision.HWC2CHW()]
    return data.map(operations=trans, input_columns="image").batch(batch_size, drop_remainder=True)


def create_eval_dataset(path, batch_size=32):
    data = ds.ImageFolderDataset(path, shuffle=False)
    trans = [vision.Decode(), vision.Resize(256), vision.CenterCrop(224),
             vision.Normalize(mean=[0.5 * 255] * 3, std=[0.5 * 255] * 3),  # trap: not resolved ([x] * 3), silent
             vision.Rescale(1.0 / 255.0, 0.0),
             vision.Normalize(mean=[0.4914, 0.4822, 0.4465], std=[0.2470, 0.2435, 0.2616]),  # expect: DP203
             vision.HWC2CHW()]
    return data.map(operations=trans, input_columns="image").batch(batch_size)


def create_test_tta_dataset(path):
    # trap: the same constants written on the 0-1 scale after a Rescale
    trans = [vision.Decode(), vision.Resize(224), vision.Rescale(1.0 / 255.0, 0.0),
             vision.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]), vision.HWC2CHW()]
    return ds.ImageFolderDataset(path, shuffle=False).map(operations=trans, input_columns="image")


def main():
    ms.set_seed(7)
    bn = nn.BatchNorm2d(32, use_batch_statistics=True)  # expect: API206
    net = nn.SequentialCell([nn.Conv2d(3, 32, 3, stride=2, has_bias=False), bn, nn.ReLU(),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dense(32, 37)])
    loss = nn.CrossEntropyLoss()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"acc"})
    model.train(10, create_train_dataset("pets/train"), callbacks=[LossMonitor()])
    print(model.eval(create_eval_dataset("pets/val")))
    print(model.eval(create_test_tta_dataset("pets/val")))


if __name__ == "__main__":
    main()
