"""CIFAR-10 with model.fit and a customized train_step (Keras 3 / TF >= 2.16).

    python train_fit.py --data-dir /data/cifar10_png --epochs 50
"""
import argparse
import os

import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

from data import make_sharded_train_dataset
from models import build_resnet_small

SEED = 42


class CustomModel(keras.Model):
    """Keras guide: "Customizing what happens in fit()"."""

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)  # trap: training=True
            loss = self.compute_loss(y=y, y_pred=y_pred)  # trap: a method, not a model call
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="/data/cifar10_png")
    parser.add_argument("--tfrecords", default="", help="glob of train-*.tfrecord shards")
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=128)
    args = parser.parse_args()

    tf.random.set_seed(SEED)

    augment = keras.Sequential([layers.RandomFlip("horizontal"), layers.RandomTranslation(0.1, 0.1)])
    if args.tfrecords:
        train_ds = make_sharded_train_dataset(args.tfrecords, args.batch_size)
    else:
        train_ds = keras.utils.image_dataset_from_directory(  # trap: shuffle defaults to True
            os.path.join(args.data_dir, "train"),
            image_size=(32, 32),
            batch_size=args.batch_size,
            seed=SEED,
        )
    train_ds = train_ds.map(lambda x, y: (augment(x, training=True), y), num_parallel_calls=tf.data.AUTOTUNE)
    val_ds = keras.utils.image_dataset_from_directory(  # trap: validation split, unshuffled on purpose
        os.path.join(args.data_dir, "val"),
        image_size=(32, 32),
        batch_size=256,
        shuffle=False,
    )

    backbone = build_resnet_small(input_shape=(32, 32, 3), num_classes=10)
    model = CustomModel(backbone.inputs, backbone.outputs)
    model.compile(
        optimizer=keras.optimizers.SGD(learning_rate=0.05, momentum=0.9, clipnorm=5.0),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    callbacks = [
        keras.callbacks.ModelCheckpoint("best.keras", monitor="val_accuracy", save_best_only=True),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=5),
    ]
    model.fit(train_ds, validation_data=val_ds, epochs=args.epochs, callbacks=callbacks)
    print(model.evaluate(val_ds, return_dict=True))


if __name__ == "__main__":
    main()
