"""CIFAR-10 ResNet with a hand-written loop under mixed precision (tf.keras 2.x style)."""
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import mixed_precision

from model import build_model

tf.random.set_seed(0)
policy = mixed_precision.Policy("mixed_float16")
mixed_precision.set_global_policy(policy)  # expect: MP205

(x_train, y_train), _ = keras.datasets.cifar10.load_data()
train_ds = tf.data.Dataset.from_tensor_slices((x_train / 255.0, y_train)).shuffle(50_000).batch(128)

model = build_model()
optimizer = keras.optimizers.SGD(0.1, momentum=0.9)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, tf.cast(logits, tf.float32))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for epoch in range(30):
    for x, y in train_ds:
        train_step(x, y)
