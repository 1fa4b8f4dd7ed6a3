"""Knowledge distillation into resnet_small, Keras 3 custom loop + mixed precision.

Keras 3 has no get_scaled_loss / get_unscaled_gradients: scale_loss() scales,
LossScaleOptimizer.apply() divides by the scale before the inner optimizer runs.

    python train_keras3.py --teacher teacher.keras --train "/data/tfrec/train-*.tfrecord"
"""
import argparse

import keras
import tensorflow as tf

from data import make_sharded_train_dataset, make_val_dataset
from models import build_resnet_small

SEED = 7
keras.utils.set_random_seed(SEED)
keras.mixed_precision.set_global_policy("mixed_float16")


def train_step(model, optimizer, loss_fn, x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)  # trap: training=True
        loss = loss_fn(y, logits)
        scaled_loss = optimizer.scale_loss(loss)
    grads = tape.gradient(scaled_loss, model.trainable_variables)
    # LossScaleOptimizer.apply unscales, then the inner AdamW applies clipnorm to unscaled grads
    optimizer.apply(grads, model.trainable_variables)
    return loss


def distill_step(student, teacher, optimizer, x, y, temperature=4.0, alpha=0.1, training=True):
    teacher_logits = teacher(x, training=False)  # trap: teacher runs outside the tape
    with tf.GradientTape() as tape:
        student_logits = student(x, training=training)  # trap: training flag passed through
        hard = keras.losses.sparse_categorical_crossentropy(y, student_logits, from_logits=True)
        soft = keras.losses.kl_divergence(
            tf.nn.softmax(teacher_logits / temperature), tf.nn.softmax(student_logits / temperature)
        )
        loss = alpha * tf.reduce_mean(hard) + (1 - alpha) * tf.reduce_mean(soft) * temperature ** 2
        scaled_loss = optimizer.scale_loss(loss)
    grads = tape.gradient(scaled_loss, student.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 1.0)  # expect: MP303
    optimizer.apply(grads, student.trainable_variables)
    return loss


def evaluate(model, ds):
    metric = keras.metrics.SparseCategoricalAccuracy()
    for x, y in ds:
        metric.update_state(y, model(x, training=False))
    return float(metric.result())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--teacher", default="")
    parser.add_argument("--train", default="/data/tfrec/train-*.tfrecord")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args()

    train_ds = make_sharded_train_dataset(args.train, args.batch_size)
    (_, _), (x_test, y_test) = keras.datasets.cifar10.load_data()
    val_ds = make_val_dataset(x_test, y_test.squeeze(), 512)

    student = build_resnet_small(num_classes=10)
    teacher = keras.models.load_model(args.teacher) if args.teacher else None
    inner = keras.optimizers.AdamW(learning_rate=1e-3, weight_decay=0.05, clipnorm=1.0)
    optimizer = keras.mixed_precision.LossScaleOptimizer(inner)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    for epoch in range(args.epochs):
        for x, y in train_ds:
            if teacher is not None:
                loss = distill_step(student, teacher, optimizer, x, y)
            else:
                loss = train_step(student, optimizer, loss_fn, x, y)
        print(f"epoch {epoch}: loss {float(loss):.4f} val_acc {evaluate(student, val_ds):.4f}")
    student.save("student.keras")


if __name__ == "__main__":
    main()
