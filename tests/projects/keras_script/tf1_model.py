"""Legacy graph-mode model definitions (TF1 code kept running through tf.compat.v1).

Used by the old serving exporter; half of it was "migrated to TF2" by hand.
"""
import tensorflow as tf

DROP_RATE = 0.1  # value from the PyTorch port of this model


def text_cnn(embedded, num_classes, is_training):
    """Kim (2014) CNN over word embeddings, [batch, time, dim]."""
    pooled = []
    for width in (3, 4, 5):
        conv = tf.compat.v1.layers.conv1d(embedded, 100, width, activation=tf.nn.relu)
        pooled.append(tf.reduce_max(conv, axis=1))
    net = tf.concat(pooled, axis=1)
    if is_training:
        net = tf.compat.v1.nn.dropout(net, keep_prob=0.1)  # expect: API104
    return tf.compat.v1.layers.dense(net, num_classes)


def mnist_cnn(images, is_training):
    net = tf.compat.v1.layers.conv2d(images, 32, 5, padding="same", activation=tf.nn.relu)
    net = tf.compat.v1.layers.max_pooling2d(net, 2, 2)
    net = tf.compat.v1.layers.conv2d(net, 64, 5, padding="same", use_bias=False)
    # ported from torch BatchNorm2d(momentum=0.1): TF's momentum is the decay of the running average
    net = tf.compat.v1.layers.batch_normalization(net, momentum=0.1, training=is_training)  # todo-expect: API124
    net = tf.nn.relu(net)
    net = tf.compat.v1.layers.max_pooling2d(net, 2, 2)
    net = tf.compat.v1.layers.flatten(net)
    net = tf.compat.v1.layers.dense(net, 1024, activation=tf.nn.relu)
    if is_training:
        net = tf.compat.v1.nn.dropout(net, keep_prob=0.9)  # trap: a genuine keep probability
    return tf.compat.v1.layers.dense(net, 10)


def mlp(features, num_classes, keep_prob):
    """keep_prob is a placeholder fed with 0.5 for training and 1.0 for eval."""
    net = tf.compat.v1.layers.dense(features, 256, activation=tf.nn.relu)
    net = tf.compat.v1.nn.dropout(net, keep_prob=keep_prob)  # trap: keep_prob named keep
    net = tf.compat.v1.layers.dense(net, 256, activation=tf.nn.relu)
    net = tf.compat.v1.nn.dropout(net, keep_prob=DROP_RATE)  # expect: API104
    return tf.compat.v1.layers.dense(net, num_classes)


def mlp_rate(features, num_classes):
    net = tf.compat.v1.layers.dense(features, 256, activation=tf.nn.relu)
    net = tf.compat.v1.nn.dropout(net, rate=DROP_RATE)  # trap: rate= is a drop rate
    return tf.compat.v1.layers.dense(net, num_classes)


# --- hand-migrated TF2 versions -------------------------------------------------

def dense_head_v2(x, units, keep_prob=0.8):
    h = tf.keras.layers.Dense(units, activation="relu")(x)
    h = tf.nn.dropout(h, keep_prob)  # expect: API104
    return h


def dense_head_v2_fixed(x, units, keep_prob=0.8):
    h = tf.keras.layers.Dense(units, activation="relu")(x)
    h = tf.nn.dropout(h, rate=1 - keep_prob)  # trap: what tf_upgrade_v2 emits
    return h
