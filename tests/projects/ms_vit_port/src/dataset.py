"""Image pipeline rebuilt op by op from the PyTorch reference (which used ToTensor + Normalize)."""
import mindspore as ms
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision


def create_dataset(path, batch_size, do_train=True):
    data = ds.ImageFolderDataset(path, shuffle=do_train, num_parallel_workers=4)
    if do_train:
        ops = [vision.RandomCropDecodeResize(224, scale=(0.08, 1.0)), vision.RandomHorizontalFlip()]  # expect: DP101
    else:
        ops = [vision.Decode(), vision.Resize(256), vision.CenterCrop(224)]
    ops.append(vision.HWC2CHW())
    data = data.map(operations=ops, input_columns="image")
    data = data.map(operations=transforms.TypeCast(ms.float32), input_columns="image")
    data = data.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    return data.batch(batch_size, drop_remainder=do_train)
