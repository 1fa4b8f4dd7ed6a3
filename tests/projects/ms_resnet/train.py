"""train resnet."""
import argparse
import ast
import os

import mindspore as ms
import mindspore.nn as nn
from mindspore import context, Tensor
from mindspore.amp import FixedLossScaleManager
from mindspore.communication.management import init, get_group_size
from mindspore.context import ParallelMode
from mindspore.train import Model, ModelCheckpoint, CheckpointConfig, LossMonitor, TimeMonitor

from src import config
from src.dataset import create_dataset, create_dataset_cifar10
from src.resnet import resnet18, resnet50
from src.utils import setup_seed, get_lr, EvalCallBack

parser = argparse.ArgumentParser(description='Image classification')
parser.add_argument('--run_distribute', type=ast.literal_eval, default=False, help='Run distribute')
parser.add_argument('--device_target', type=str, default='Ascend', choices=("Ascend", "GPU", "CPU"))
parser.add_argument('--data_path', type=str, default=config.DATA_PATH, help='Dataset path')
parser.add_argument('--pre_trained', type=str, default='', help='Pretrained checkpoint path')
args_opt = parser.parse_args()


def init_group_params(net):
    """No weight decay on BN gamma/beta and biases."""
    decayed_params = []
    no_decayed_params = []
    for param in net.trainable_params():
        if 'beta' not in param.name and 'gamma' not in param.name and 'bias' not in param.name:
            decayed_params.append(param)
        else:
            no_decayed_params.append(param)
    return [{'params': decayed_params, 'weight_decay': config.WEIGHT_DECAY},
            {'params': no_decayed_params},
            {'order_params': net.trainable_params()}]


def train_net():
    """train net"""
    setup_seed(config.SEED)  # trap: project helper seeding only numpy/random (the finding goes on model.train)
    context.set_context(mode=context.GRAPH_MODE, device_target=args_opt.device_target, save_graphs=False)
    if args_opt.run_distribute:
        device_id = int(os.getenv('DEVICE_ID', '0'))
        context.set_context(device_id=device_id)
        init()
        context.set_auto_parallel_context(device_num=get_group_size(), parallel_mode=ParallelMode.DATA_PARALLEL,
                                          gradients_mean=True)

    if config.DATASET == "cifar10":
        dataset = create_dataset_cifar10(dataset_path=args_opt.data_path, do_train=True,
                                         batch_size=config.BATCH_SIZE, train_image_size=config.TRAIN_IMAGE_SIZE,
                                         distribute=args_opt.run_distribute)
    else:
        dataset = create_dataset(dataset_path=args_opt.data_path, do_train=True, batch_size=config.BATCH_SIZE,
                                 train_image_size=config.TRAIN_IMAGE_SIZE, distribute=args_opt.run_distribute)
    step_size = dataset.get_dataset_size()

    if config.NET_NAME == "resnet18":
        net = resnet18(class_num=config.CLASS_NUM)
    else:
        net = resnet50(class_num=config.CLASS_NUM)
    if args_opt.pre_trained:
        param_dict = ms.load_checkpoint(args_opt.pre_trained)
        ms.load_param_into_net(net, param_dict)  # expect: WI201

    lr = Tensor(get_lr(config.LR_INIT, config.LR_END, config.LR_MAX, config.WARMUP_EPOCHS,
                       config.EPOCH_SIZE, step_size))
    group_params = init_group_params(net)
    opt = nn.Momentum(group_params, lr, config.MOMENTUM, loss_scale=config.LOSS_SCALE)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    loss_scale = FixedLossScaleManager(config.LOSS_SCALE, drop_overflow_update=False)
    model = Model(net, loss_fn=loss, optimizer=opt, loss_scale_manager=loss_scale, metrics={'acc'},
                  amp_level="O2", keep_batchnorm_fp32=False)

    time_cb = TimeMonitor(data_size=step_size)
    loss_cb = LossMonitor()
    cb = [time_cb, loss_cb]
    if config.SAVE_CHECKPOINT:
        config_ck = CheckpointConfig(save_checkpoint_steps=config.SAVE_CHECKPOINT_EPOCHS * step_size,
                                     keep_checkpoint_max=config.KEEP_CHECKPOINT_MAX)
        ckpt_cb = ModelCheckpoint(prefix="resnet", directory=config.CHECKPOINT_PATH, config=config_ck)
        cb += [ckpt_cb]
    if config.RUN_EVAL:
        eval_dataset = create_dataset(dataset_path=config.EVAL_DATA_PATH, do_train=False,  # trap: eval pipeline (shuffle=do_train is False)
                                      batch_size=config.BATCH_SIZE, eval_image_size=config.EVAL_IMAGE_SIZE)
        cb += [EvalCallBack(model, eval_dataset, interval=config.EVAL_INTERVAL)]

    model.train(config.EPOCH_SIZE - config.PRETRAIN_EPOCH_SIZE, dataset, callbacks=cb,  # expect: WI301
                sink_size=dataset.get_dataset_size(), dataset_sink_mode=True)


if __name__ == '__main__':
    train_net()
