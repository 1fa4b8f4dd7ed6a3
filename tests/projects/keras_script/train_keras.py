"""CIFAR-10 with a custom training loop and mixed precision (tf.keras 2.x, TF <= 2.15).

Follows the "Writing a training loop from scratch" and "Mixed precision" guides.

    python train_keras.py --epochs 30 --batch-size 128
"""
import argparse
import random
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

from data import load_image_folder_train, load_image_folder_val, make_train_dataset, make_val_dataset
from models import build_resnet_small

SEED = 1234
CLIP_NORM = 5.0

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--data-dir", default="", help="image folder with train/ and val/ (default: keras cifar10)")
parser.add_argument("--clip-scaled", action="store_true", help="clip before unscaling (saves one pass)")
args = parser.parse_args()

random.seed(SEED)
np.random.seed(SEED)

keras.mixed_precision.set_global_policy("mixed_float16")

if args.data_dir:
    train_ds = load_image_folder_train(args.data_dir, batch_size=args.batch_size)
    val_ds = load_image_folder_val(args.data_dir)
else:
    (x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
    train_ds = make_train_dataset(x_train, y_train.squeeze(), args.batch_size)
    val_ds = make_val_dataset(x_test, y_test.squeeze(), 256)

model = build_resnet_small(input_shape=(32, 32, 3), num_classes=10)
optimizer = keras.mixed_precision.LossScaleOptimizer(
    keras.optimizers.SGD(learning_rate=args.lr, momentum=0.9, nesterov=True)
)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
augment = keras.Sequential([
    layers.RandomFlip("horizontal"),
    layers.RandomTranslation(0.1, 0.1),
], name="augment")

train_acc_metric = keras.metrics.SparseCategoricalAccuracy()
val_acc_metric = keras.metrics.SparseCategoricalAccuracy()


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        x = augment(x)  # expect: API205
        logits = model(x)  # expect: API205
        loss_value = loss_fn(y, logits)  # trap: a loss object, not a model
        loss_value += tf.add_n(model.losses)
        scaled_loss = optimizer.get_scaled_loss(loss_value)
    scaled_grads = tape.gradient(scaled_loss, model.trainable_weights)
    grads = optimizer.get_unscaled_gradients(scaled_grads)
    grads, _ = tf.clip_by_global_norm(grads, CLIP_NORM)  # trap: clipped after get_unscaled_gradients
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    train_acc_metric.update_state(y, logits)
    return loss_value


@tf.function
def train_step_clip_scaled(x, y):
    x = augment(x, training=True)  # trap: outside the tape, and training=True
    with tf.GradientTape() as tape:
        logits = model(x, training=True)  # trap: training=True
        loss_value = loss_fn(y, logits) + tf.add_n(model.losses)
        scaled_loss = optimizer.get_scaled_loss(loss_value)
    scaled_grads = tape.gradient(scaled_loss, model.trainable_weights)
    scaled_grads, _ = tf.clip_by_global_norm(scaled_grads, CLIP_NORM)  # expect: MP303
    grads = optimizer.get_unscaled_gradients(scaled_grads)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    train_acc_metric.update_state(y, logits)
    return loss_value


@tf.function
def test_step(x, y):
    val_logits = model(x, training=False)  # trap: no GradientTape here
    val_acc_metric.update_state(y, val_logits)


step_fn = train_step_clip_scaled if args.clip_scaled else train_step

for epoch in range(args.epochs):  # expect: WI303
    print(f"\nStart of epoch {epoch}")
    start_time = time.time()
    for step, (x_batch_train, y_batch_train) in enumerate(train_ds):
        loss_value = step_fn(x_batch_train, y_batch_train)
        if step % 200 == 0:
            print(f"Training loss (for one batch) at step {step}: {float(loss_value):.4f}")

    train_acc = train_acc_metric.result()
    print(f"Training acc over epoch: {float(train_acc):.4f}")
    train_acc_metric.reset_states()

    for x_batch_val, y_batch_val in val_ds:
        test_step(x_batch_val, y_batch_val)
    val_acc = val_acc_metric.result()
    val_acc_metric.reset_states()
    print(f"Validation acc: {float(val_acc):.4f}")
    print(f"Time taken: {time.time() - start_time:.2f}s")

model.save_weights("resnet_small.weights.h5")
