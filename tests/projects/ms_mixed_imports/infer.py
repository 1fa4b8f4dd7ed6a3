"""Batch inference with a trained ViT checkpoint: one predicted class per image, in file order."""
import argparse

import numpy as np
import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
from mindspore import ops

from src.vit import vit_tiny


def create_infer_dataset(data_dir, batch_size=64, image_size=224):
    data_set = ds.ImageFolderDataset(data_dir, shuffle=False, num_parallel_workers=4)  # trap: inference keeps file order
    trans = [
        vision.Decode(),
        vision.Resize(256),
        vision.CenterCrop(image_size),
        vision.Normalize(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255], std=[0.229 * 255, 0.224 * 255, 0.225 * 255]),
        vision.HWC2CHW(),
    ]
    data_set = data_set.map(operations=trans, input_columns="image", num_parallel_workers=4)
    return data_set.batch(batch_size, drop_remainder=False)


def predict(net, dataset):
    preds = []
    for batch in dataset.create_dict_iterator():
        logits = net(batch["image"])  # trap: freshly built cell, already in inference mode
        preds.append(ops.argmax(logits, dim=1).asnumpy())
    return np.concatenate(preds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", required=True)
    parser.add_argument("--ckpt", required=True)
    parser.add_argument("--num_classes", type=int, default=1000)
    parser.add_argument("--output", default="preds.npy")
    parser.add_argument("--device_target", default="Ascend")
    args = parser.parse_args()

    # trap: inference-only script, no global seed needed
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device_target)
    net = vit_tiny(num_classes=args.num_classes)
    ms.load_param_into_net(net, ms.load_checkpoint(args.ckpt))  # expect: WI201(info)
    dataset = create_infer_dataset(args.data_dir)
    np.save(args.output, predict(net, dataset))
