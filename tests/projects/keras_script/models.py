"""Small ResNet for CIFAR-10 in tf.keras (functional API).

The residual stage was ported by hand from our PyTorch reference model.
"""
from tensorflow import keras
from tensorflow.keras import layers

BN_MOMENTUM = 0.99
BN_EPSILON = 1e-3
WEIGHT_DECAY = 5e-4


def conv_bn_relu(x, filters, kernel_size=3, strides=1):
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding="same", use_bias=False,
                      kernel_regularizer=keras.regularizers.l2(WEIGHT_DECAY))(x)
    x = layers.BatchNormalization(momentum=BN_MOMENTUM, epsilon=BN_EPSILON)(x)  # trap: Keras default convention
    return layers.Activation("relu")(x)


def residual_block(x, filters, strides=1):
    shortcut = x
    y = layers.Conv2D(filters, 3, strides=strides, padding="same", use_bias=False)(x)
    # same hyper-parameters as torch.nn.BatchNorm2d(filters) in the reference implementation
    y = keras.layers.BatchNormalization(momentum=0.1, epsilon=1e-5)(y)  # expect: API124
    y = layers.ReLU()(y)
    y = layers.Conv2D(filters, 3, padding="same", use_bias=False)(y)
    y = keras.layers.BatchNormalization(momentum=0.99, epsilon=1e-5)(y)  # trap: 0.99 is the Keras meaning
    if strides != 1 or shortcut.shape[-1] != filters:
        shortcut = layers.Conv2D(filters, 1, strides=strides, use_bias=False)(shortcut)
        shortcut = layers.BatchNormalization()(shortcut)  # trap: default momentum 0.99
    return layers.ReLU()(layers.Add()([shortcut, y]))


def build_resnet_small(input_shape=(32, 32, 3), num_classes=10, keep_prob=0.9):
    inputs = keras.Input(shape=input_shape)
    x = layers.Rescaling(1.0 / 255)(inputs)
    x = conv_bn_relu(x, 32)
    for filters, strides in [(32, 1), (64, 2), (128, 2)]:
        x = residual_block(x, filters, strides)
        x = residual_block(x, filters, 1)
    x = layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(keep_prob)(x)  # expect: API104
    x = layers.Dense(num_classes)(x)
    # keep the logits in float32 under the mixed_float16 policy
    outputs = layers.Activation("linear", dtype="float32")(x)
    return keras.Model(inputs, outputs, name="resnet_small")


def build_mlp_head(feature_dim, num_classes, dropout_rate=0.3):
    inputs = keras.Input(shape=(feature_dim,))
    x = layers.Dense(512, activation="relu")(inputs)
    x = layers.BatchNormalization(momentum=0.9)(x)  # trap: 0.9 is a normal Keras value
    x = layers.Dropout(rate=dropout_rate)(x)  # trap: a drop rate given to `rate`
    x = layers.Dense(256, activation="relu")(x)
    x = layers.Dropout(0.5)(x)  # trap: 0.5 is the same in both conventions
    outputs = layers.Dense(num_classes, dtype="float32")(x)
    return keras.Model(inputs, outputs, name="mlp_head")
