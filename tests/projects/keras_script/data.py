"""tf.data input pipelines for CIFAR-style data."""
import os

import tensorflow as tf
from tensorflow import keras

AUTOTUNE = tf.data.AUTOTUNE

_FEATURES = {
    "image": tf.io.FixedLenFeature([], tf.string),
    "label": tf.io.FixedLenFeature([], tf.int64),
}


def _augment(image, label):
    image = tf.image.resize_with_crop_or_pad(image, 36, 36)
    image = tf.image.random_crop(image, size=[32, 32, 3])
    image = tf.image.random_flip_left_right(image)
    return image, label


def _parse_example(serialized):
    example = tf.io.parse_single_example(serialized, _FEATURES)
    image = tf.io.decode_png(example["image"], channels=3)
    image = tf.cast(image, tf.float32)
    return image, tf.cast(example["label"], tf.int32)


def make_train_dataset(images, labels, batch_size):
    ds = tf.data.Dataset.from_tensor_slices((images, labels))  # expect: DP303
    ds = ds.map(lambda x, y: (tf.cast(x, tf.float32), y), num_parallel_calls=AUTOTUNE)
    ds = ds.map(_augment, num_parallel_calls=AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=True).prefetch(AUTOTUNE)


def make_val_dataset(images, labels, batch_size):
    ds = tf.data.Dataset.from_tensor_slices((images, labels))  # trap: validation pipeline, order does not matter
    ds = ds.map(lambda x, y: (tf.cast(x, tf.float32), y), num_parallel_calls=AUTOTUNE)
    return ds.batch(batch_size).cache().prefetch(AUTOTUNE)


def make_tfrecord_train_dataset(file_pattern, batch_size):
    filenames = tf.io.gfile.glob(file_pattern)
    ds = tf.data.TFRecordDataset(filenames, num_parallel_reads=AUTOTUNE)  # trap: shuffled further down the chain
    ds = ds.map(_parse_example, num_parallel_calls=AUTOTUNE)
    ds = ds.shuffle(10_000, reshuffle_each_iteration=True)
    ds = ds.map(_augment, num_parallel_calls=AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=True).prefetch(AUTOTUNE)


def make_sharded_train_dataset(file_pattern, batch_size):
    files = tf.data.Dataset.list_files(file_pattern)  # trap: list_files shuffles file order by default
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=8, num_parallel_calls=AUTOTUNE)
    ds = ds.map(_parse_example, num_parallel_calls=AUTOTUNE).map(_augment, num_parallel_calls=AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=True).prefetch(AUTOTUNE)


def load_image_folder_train(data_dir, image_size=(32, 32), batch_size=128):
    # shuffle=False "so that the file order is reproducible"
    return keras.utils.image_dataset_from_directory(  # expect: DP303
        os.path.join(data_dir, "train"),
        image_size=image_size,
        batch_size=batch_size,
        shuffle=False,
    )


def load_image_folder_val(data_dir, image_size=(32, 32), batch_size=256):
    return keras.utils.image_dataset_from_directory(  # trap: evaluation split
        os.path.join(data_dir, "val"),
        image_size=image_size,
        batch_size=batch_size,
        shuffle=False,
    )
