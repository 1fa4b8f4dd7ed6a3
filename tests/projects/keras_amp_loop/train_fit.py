"""The same model trained with fit(): compile() adds the loss scaling itself (trap)."""
import tensorflow as tf
from tensorflow import keras

from model import build_model

keras.utils.set_random_seed(0)
keras.mixed_precision.set_global_policy("mixed_float16")
(x_train, y_train), _ = keras.datasets.cifar10.load_data()
model = build_model()
model.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x_train / 255.0, y_train, epochs=30, batch_size=128, shuffle=True)
