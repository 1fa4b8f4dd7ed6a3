"""eval resnet."""
import argparse

import mindspore as ms
import mindspore.nn as nn
from mindspore import context
from mindspore.train import Model

from src import config
from src.dataset import create_dataset, create_dataset_cifar10
from src.resnet import resnet18, resnet50

parser = argparse.ArgumentParser(description='Image classification')
parser.add_argument('--checkpoint_path', type=str, required=True, help='Checkpoint file path')
parser.add_argument('--data_path', type=str, default=config.EVAL_DATA_PATH, help='Dataset path')
parser.add_argument('--device_target', type=str, default='Ascend', choices=("Ascend", "GPU", "CPU"))
args_opt = parser.parse_args()


def eval_net():
    """eval net (no seed needed: evaluation only)"""
    context.set_context(mode=context.GRAPH_MODE, device_target=args_opt.device_target, save_graphs=False)
    if config.DATASET == "cifar10":
        dataset = create_dataset_cifar10(dataset_path=args_opt.data_path, do_train=False,  # trap: eval, shuffle=False is fine
                                         batch_size=config.BATCH_SIZE)
    else:
        dataset = create_dataset(dataset_path=args_opt.data_path, do_train=False, batch_size=config.BATCH_SIZE,
                                 eval_image_size=config.EVAL_IMAGE_SIZE)

    net = resnet18(class_num=config.CLASS_NUM) if config.NET_NAME == "resnet18" else resnet50(config.CLASS_NUM)
    param_dict = ms.load_checkpoint(args_opt.checkpoint_path)
    ms.load_param_into_net(net, param_dict)  # expect: WI201(info)
    net.set_train(False)

    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    model = Model(net, loss_fn=loss, metrics={'top_1_accuracy', 'top_5_accuracy'})
    res = model.eval(dataset)  # trap: Model.eval sets inference mode; eval-only script needs no seed
    print("result:", res, "ckpt=", args_opt.checkpoint_path)


if __name__ == '__main__':
    eval_net()
