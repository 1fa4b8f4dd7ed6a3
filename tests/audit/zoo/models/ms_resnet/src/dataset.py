"""ImageNet pipelines: sharded across devices for training."""
import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.vision as vision
import mindspore.dataset.transforms as transforms

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def create_train_dataset(path, batch_size, rank_size, rank_id):
    data = ds.ImageFolderDataset(path, num_parallel_workers=8, shuffle=True,  # evidence: dp.03, dp.05
                                 num_shards=rank_size, shard_id=rank_id)
    ops = [vision.RandomCropDecodeResize(224), vision.RandomHorizontalFlip(),
           vision.Normalize(MEAN, STD), vision.HWC2CHW()]  # evidence: dp.01
    data = data.map(operations=ops, input_columns="image")
    data = data.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return data.batch(batch_size, drop_remainder=True)


def create_eval_dataset(path, batch_size):
    data = ds.ImageFolderDataset(path, shuffle=False)
    ops = [vision.Decode(), vision.Resize(256), vision.CenterCrop(224),
           vision.Normalize(MEAN, STD), vision.HWC2CHW()]
    data = data.map(operations=ops, input_columns="image")
    return data.batch(batch_size)
