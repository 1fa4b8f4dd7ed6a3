"""Model-zoo style dataset helpers (ImageNet folders and CIFAR-10 binaries)."""
import mindspore.dataset as ds
import mindspore.dataset.vision as vision

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def create_dataset_imagenet(dataset_path, do_train, batch_size=32, device_num=1, rank_id=0):
    if device_num == 1:
        data_set = ds.ImageFolderDataset(dataset_path, num_parallel_workers=8, shuffle=True)  # trap: single-device branch
    else:
        data_set = ds.ImageFolderDataset(dataset_path, num_parallel_workers=8, shuffle=True,
                                         num_shards=device_num, shard_id=rank_id)
    if do_train:
        trans = [vision.RandomCropDecodeResize(224, scale=(0.08, 1.0), ratio=(0.75, 1.333)),
                 vision.RandomHorizontalFlip(prob=0.5)]
    else:
        trans = [vision.Decode(), vision.Resize(256), vision.CenterCrop(224)]
    trans += [vision.Normalize(mean=MEAN, std=STD), vision.HWC2CHW()]
    data_set = data_set.map(operations=trans, input_columns="image", num_parallel_workers=8)
    return data_set.batch(batch_size, drop_remainder=True)


def create_dataset_cifar10(dataset_path, do_train, batch_size=32):
    """Ported from a single-GPU script: the sharding arguments were forgotten."""
    data_set = ds.Cifar10Dataset(dataset_path, num_parallel_workers=8, shuffle=True)  # expect: DP501
    trans = []
    if do_train:
        trans += [vision.RandomCrop((32, 32), (4, 4, 4, 4)), vision.RandomHorizontalFlip(prob=0.5)]
    trans += [vision.Resize((224, 224)), vision.Rescale(1.0 / 255.0, 0.0),
              vision.Normalize([0.4914, 0.4822, 0.4465], [0.2023, 0.1994, 0.2010]), vision.HWC2CHW()]
    data_set = data_set.map(operations=trans, input_columns="image")
    return data_set.batch(batch_size, drop_remainder=True)


def create_eval_dataset(dataset_path, batch_size=32):
    data_set = ds.ImageFolderDataset(dataset_path, shuffle=False)  # trap: evaluation data needs no shards
    trans = [vision.Decode(), vision.Resize(256), vision.RandomCrop(224),  # expect: DP201
             vision.Normalize(mean=MEAN, std=STD), vision.HWC2CHW()]
    data_set = data_set.map(operations=trans, input_columns="image")
    return data_set.batch(batch_size)


def create_tta_dataset(dataset_path, batch_size=32):
    trans = [vision.Decode(), vision.Resize(256), vision.CenterCrop(224),
             vision.RandomHorizontalFlip(prob=1.0),  # trap: a fixed flip for test-time augmentation
             vision.Normalize(mean=MEAN, std=STD), vision.HWC2CHW()]
    data_set = ds.ImageFolderDataset(dataset_path, shuffle=False)
    return data_set.map(operations=trans, input_columns="image").batch(batch_size)
