"""Port of the Keras example "Simple custom layer example: Antirectifier": a custom layer (add_weight with an
initializer from ``keras.initializers.get``, get_config) between Dense layers, trained on MNIST by compile/fit
with RMSprop and a validation split, then evaluated.

Source: https://keras.io/examples/keras_recipes/antirectifier/ (keras-team/keras-io,
examples/keras_recipes/antirectifier.py), author fchollet, Apache License 2.0.

Changed from the example: the imports; MNIST (a download) is replaced by synthetic digits of the same shape
made with NumPy (2000 training and 500 test images instead of 60000 and 10000, and 3 epochs instead of 20, to
run in seconds). The comparison with TensorFlow gives Dropout the same fixed mask in both libraries
(tests/guide_harness.py).

    python examples/ported/antirectifier.py
"""

"""
## Setup
"""

import numpy as np
import descend as tf
from descend import keras
from descend.keras import layers


def synthetic_mnist(n, seed):
    """Images of the MNIST shape (28 x 28, 0-255, uint8): mostly black, strokes where one of 10 class prototypes
    is bright, and their labels."""
    rng = np.random.default_rng(seed)
    prototypes = np.random.default_rng(0).random((10, 28, 28)) > 0.8
    labels = rng.integers(0, 10, size=n).astype("uint8")
    strokes = prototypes[labels] & (rng.random((n, 28, 28)) > 0.2)
    images = np.where(strokes, rng.integers(128, 256, (n, 28, 28)), 0).astype("uint8")
    return images, labels


"""
## The Antirectifier layer
"""


class Antirectifier(layers.Layer):
    def __init__(self, initializer="he_normal", **kwargs):
        super(Antirectifier, self).__init__(**kwargs)
        self.initializer = keras.initializers.get(initializer)

    def build(self, input_shape):
        output_dim = input_shape[-1]
        self.kernel = self.add_weight(
            shape=(output_dim * 2, output_dim),
            initializer=self.initializer,
            name="kernel",
            trainable=True,
        )

    def call(self, inputs):
        inputs -= tf.reduce_mean(inputs, axis=-1, keepdims=True)
        pos = tf.nn.relu(inputs)
        neg = tf.nn.relu(-inputs)
        concatenated = tf.concat([pos, neg], axis=-1)
        mixed = tf.matmul(concatenated, self.kernel)
        return mixed

    def get_config(self):
        # Implement get_config to enable serialization. This is optional.
        base_config = super(Antirectifier, self).get_config()
        config = {"initializer": keras.initializers.serialize(self.initializer)}
        return dict(list(base_config.items()) + list(config.items()))


"""
## Let's test-drive it on MNIST
"""

# Training parameters
batch_size = 128
num_classes = 10
epochs = 3

# The data, split between train and test sets
(x_train, y_train), (x_test, y_test) = synthetic_mnist(2000, 1), synthetic_mnist(500, 2)

x_train = x_train.reshape(-1, 784)
x_test = x_test.reshape(-1, 784)
x_train = x_train.astype("float32")
x_test = x_test.astype("float32")
x_train /= 255
x_test /= 255
print(x_train.shape[0], "train samples")
print(x_test.shape[0], "test samples")

# Build the model
model = keras.Sequential(
    [
        keras.Input(shape=(784,)),
        layers.Dense(256),
        Antirectifier(),
        layers.Dense(256),
        Antirectifier(),
        layers.Dropout(0.5),
        layers.Dense(10),
    ]
)

# Compile the model
model.compile(
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    optimizer=keras.optimizers.RMSprop(),
    metrics=[keras.metrics.SparseCategoricalAccuracy()],
)

# Train the model
model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_split=0.15)

# Test the model
model.evaluate(x_test, y_test)
