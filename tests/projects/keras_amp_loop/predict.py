"""Inference under mixed precision: no gradients, nothing to scale (trap)."""
from tensorflow import keras

keras.mixed_precision.set_global_policy("mixed_float16")
model = keras.models.load_model("cifar.keras")
print(model.predict(keras.datasets.cifar10.load_data()[1][0][:8] / 255.0).argmax(-1))
