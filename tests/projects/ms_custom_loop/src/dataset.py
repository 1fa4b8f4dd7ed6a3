"""CIFAR-10 pipelines for the custom loop."""
import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision

MEAN = [0.4914 * 255, 0.4822 * 255, 0.4465 * 255]
STD = [0.2470 * 255, 0.2435 * 255, 0.2616 * 255]


def create_dataset(data_dir, usage="train", batch_size=128, num_workers=4):
    """Return a batched CIFAR-10 dataset; only the train split is shuffled and augmented."""
    is_train = usage == "train"
    data_set = ds.Cifar10Dataset(data_dir, usage=usage, shuffle=(usage == "train"),  # trap: True for the train split
                                 num_parallel_workers=num_workers)
    trans = []
    if is_train:
        trans += [vision.RandomCrop((32, 32), (4, 4, 4, 4)), vision.RandomHorizontalFlip(prob=0.5)]
    trans += [vision.Normalize(mean=MEAN, std=STD), vision.HWC2CHW()]
    data_set = data_set.map(operations=trans, input_columns="image", num_parallel_workers=num_workers)
    data_set = data_set.map(operations=transforms.TypeCast(ms.int32), input_columns="label",
                            num_parallel_workers=num_workers)
    return data_set.batch(batch_size, drop_remainder=is_train)
