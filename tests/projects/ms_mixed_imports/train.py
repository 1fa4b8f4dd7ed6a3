"""Train ViT-Tiny (MindSpore) on an ImageNet-style folder with Model.train."""
import argparse

import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision
from mindspore import nn
from mindspore.train import Model, LossMonitor, TimeMonitor, ModelCheckpoint, CheckpointConfig

from src.layers import init_dense_weights
from src.vit import vit_tiny, vit_tiny_conv, vit_hybrid_tiny

ARCHS = {"vit_tiny": vit_tiny, "vit_tiny_conv": vit_tiny_conv, "vit_hybrid_tiny": vit_hybrid_tiny}


def create_train_dataset(data_dir, batch_size=128, image_size=224, workers=8):
    data_set = ds.ImageFolderDataset(data_dir, num_parallel_workers=workers, shuffle=True)
    trans = [
        vision.RandomCropDecodeResize(image_size, scale=(0.08, 1.0)),
        vision.RandomHorizontalFlip(prob=0.5),
        vision.Normalize(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255], std=[0.229 * 255, 0.224 * 255, 0.225 * 255]),
        vision.HWC2CHW(),
    ]
    data_set = data_set.map(operations=trans, input_columns="image", num_parallel_workers=workers)
    data_set = data_set.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return data_set.batch(batch_size, drop_remainder=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--arch", default="vit_tiny", choices=sorted(ARCHS))
    parser.add_argument("--num_classes", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--batch_size", type=int, default=128)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device_target", default="Ascend")
    args = parser.parse_args()

    ms.set_seed(args.seed)  # trap: global seed present (torch is only imported inside src/convert.py helpers)
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device_target)

    dataset = create_train_dataset(args.data_dir, args.batch_size)
    steps = dataset.get_dataset_size()
    net = ARCHS[args.arch](args.num_classes)
    print("trainable parameters:", init_dense_weights(net))
    lr = nn.cosine_decay_lr(1e-6, args.lr, steps * args.epochs, steps, args.epochs)
    opt = nn.AdamWeightDecay(net.trainable_params(), learning_rate=lr, weight_decay=0.05)
    loss = nn.CrossEntropyLoss(label_smoothing=0.1)
    model = Model(net, loss_fn=loss, optimizer=opt, metrics={"acc"})
    ckpt = ModelCheckpoint(prefix=args.arch, directory="./ckpt",
                           config=CheckpointConfig(save_checkpoint_steps=steps, keep_checkpoint_max=5))
    model.train(args.epochs, dataset, callbacks=[TimeMonitor(steps), LossMonitor(100), ckpt],
                dataset_sink_mode=False)


if __name__ == "__main__":
    main()
