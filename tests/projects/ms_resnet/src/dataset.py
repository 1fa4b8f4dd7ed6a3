"""Create the train or eval dataset (ImageNet2012 or CIFAR-10)."""
import multiprocessing

import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision
from mindspore.communication.management import init, get_rank, get_group_size


def get_num_parallel_workers(num_parallel_workers):
    """Cap the number of workers by the number of CPU cores."""
    cores = multiprocessing.cpu_count()
    if isinstance(num_parallel_workers, int):
        if cores < num_parallel_workers:
            print("The num_parallel_workers {} is set too large, now set it {}".format(num_parallel_workers, cores))
            num_parallel_workers = cores
    else:
        print("The num_parallel_workers {} is invalid, now set it {}".format(num_parallel_workers, min(cores, 8)))
        num_parallel_workers = min(cores, 8)
    return num_parallel_workers


def _get_rank_info(distribute):
    """Return (device_num, rank_id)."""
    if distribute:
        init()
        rank_id = get_rank()
        device_num = get_group_size()
    else:
        rank_id = 0
        device_num = 1
    return device_num, rank_id


def create_dataset_cifar10(dataset_path, do_train, batch_size=32, train_image_size=224, distribute=False):
    """
    Create a train or evaluate cifar10 dataset for resnet.

    Args:
        dataset_path(string): the path of dataset.
        do_train(bool): whether dataset is used for train or eval.
        batch_size(int): the batch size of dataset. Default: 32
        train_image_size(int): resize target. Default: 224
        distribute(bool): data for distribute or not. Default: False

    Returns:
        dataset
    """
    device_num, rank_id = _get_rank_info(distribute)
    usage = "train" if do_train else "test"
    data_set = ds.Cifar10Dataset(dataset_path, usage=usage, shuffle=False,  # trap: re-shuffled below for training; eval stays ordered
                                 num_parallel_workers=get_num_parallel_workers(8),
                                 num_shards=device_num, shard_id=rank_id)
    if do_train:
        data_set = data_set.shuffle(buffer_size=50000)

    trans = []
    if do_train:
        trans += [
            vision.RandomCrop((32, 32), (4, 4, 4, 4)),
            vision.RandomHorizontalFlip(prob=0.5)
        ]
    trans += [
        vision.Resize((train_image_size, train_image_size)),
        vision.Rescale(1.0 / 255.0, 0.0),
        vision.Normalize([0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]),
        vision.HWC2CHW()
    ]
    type_cast_op = transforms.TypeCast(ms.int32)
    data_set = data_set.map(operations=type_cast_op, input_columns="label",
                            num_parallel_workers=get_num_parallel_workers(8))
    data_set = data_set.map(operations=trans, input_columns="image",
                            num_parallel_workers=get_num_parallel_workers(8))
    data_set = data_set.batch(batch_size, drop_remainder=True)
    return data_set


def create_dataset(dataset_path, do_train, batch_size=32, train_image_size=224, eval_image_size=224,
                   distribute=False):
    """
    Create a train or eval imagenet2012 dataset for resnet.

    Args:
        dataset_path(string): the path of dataset.
        do_train(bool): whether dataset is used for train or eval.
        batch_size(int): the batch size of dataset. Default: 32
        train_image_size(int): crop size for training. Default: 224
        eval_image_size(int): crop size for evaluation. Default: 224
        distribute(bool): data for distribute or not. Default: False

    Returns:
        dataset
    """
    device_num, rank_id = _get_rank_info(distribute)
    if device_num == 1:
        data_set = ds.ImageFolderDataset(dataset_path, num_parallel_workers=get_num_parallel_workers(12),
                                         shuffle=do_train)  # trap: True for train.py, False for eval
    else:
        # Keep every rank on the same file order; in the torch version DistributedSampler did the shuffling.
        data_set = ds.ImageFolderDataset(dataset_path, num_parallel_workers=get_num_parallel_workers(12),  # expect: DP301
                                         shuffle=False, num_shards=device_num, shard_id=rank_id)

    mean = [0.485 * 255, 0.456 * 255, 0.406 * 255]
    std = [0.229 * 255, 0.224 * 255, 0.225 * 255]

    # define map operations
    if do_train:
        trans = [
            vision.RandomCropDecodeResize(train_image_size, scale=(0.08, 1.0), ratio=(0.75, 1.333)),
            vision.RandomHorizontalFlip(prob=0.5)
        ]
    else:
        trans = [
            vision.Decode(),
            vision.Resize(256),
            vision.CenterCrop(eval_image_size)
        ]
    trans += [
        vision.Normalize(mean=mean, std=std),
        vision.HWC2CHW()
    ]
    type_cast_op = transforms.TypeCast(ms.int32)

    data_set = data_set.map(operations=trans, input_columns="image",
                            num_parallel_workers=get_num_parallel_workers(12))
    data_set = data_set.map(operations=type_cast_op, input_columns="label",
                            num_parallel_workers=get_num_parallel_workers(12))
    # apply batch operations
    data_set = data_set.batch(batch_size, drop_remainder=do_train)
    return data_set
