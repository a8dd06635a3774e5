"""Port of the Keras example "Trainer pattern": one Model subclass whose train_step and test_step (a loss and a
metric of its own, listed by an overridden ``metrics``) train two different models it wraps, a Sequential one
and a functional one, each by compile/fit with validation data.

Source: https://keras.io/examples/keras_recipes/trainer_pattern/ (keras-team/keras-io,
examples/keras_recipes/trainer_pattern.py), author nkovela1, Apache License 2.0.

Changed from the example: the imports; MNIST (a download) is replaced by synthetic digits of the same shape made
with NumPy (2000 training and 500 test images instead of 60000 and 10000), and each model is trained for 2
epochs instead of 5, to run in seconds. The comparison with TensorFlow gives Dropout the same fixed mask in both
libraries (tests/guide_harness.py).

    python examples/ported/trainer_pattern.py
"""

"""
## Setup
"""

import os

os.environ["KERAS_BACKEND"] = "tensorflow"

import numpy as np
import descend as tf
from descend import keras


def synthetic_mnist(n, seed):
    """Images of the MNIST shape (28 x 28, 0-255, uint8) drawn around 10 class prototypes with much noise (so that
    the accuracies stay below 1), and their labels."""
    rng = np.random.default_rng(seed)
    prototypes = np.random.default_rng(0).random((10, 28, 28))
    labels = rng.integers(0, 10, size=n).astype("uint8")
    images = np.clip(prototypes[labels] * 255 + rng.normal(0, 600, (n, 28, 28)), 0, 255).astype("uint8")
    return images, labels


# Load MNIST dataset and standardize the data
(x_train, y_train), (x_test, y_test) = synthetic_mnist(2000, 1), synthetic_mnist(500, 2)
x_train, x_test = x_train / 255.0, x_test / 255.0


"""
## Define the Trainer class
"""


class MyTrainer(keras.Model):
    def __init__(self, model):
        super().__init__()
        self.model = model
        # Create loss and metrics here.
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy()
        self.accuracy_metric = keras.metrics.SparseCategoricalAccuracy()

    @property
    def metrics(self):
        # List metrics here.
        return [self.accuracy_metric]

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self.model(x, training=True)  # Forward pass
            # Compute loss value
            loss = self.loss_fn(y, y_pred)

        # Compute gradients
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)

        # Update weights
        self.optimizer.apply_gradients(zip(gradients, trainable_vars))

        # Update metrics
        for metric in self.metrics:
            metric.update_state(y, y_pred)

        # Return a dict mapping metric names to current value.
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data

        # Inference step
        y_pred = self.model(x, training=False)

        # Update metrics
        for metric in self.metrics:
            metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def call(self, x):
        # Equivalent to `call()` of the wrapped keras.Model
        x = self.model(x)
        return x


"""
## Define multiple models to share the custom training step
"""

# A model defined using Sequential API
model_a = keras.models.Sequential(
    [
        keras.layers.Flatten(),
        keras.layers.Dense(256, activation="relu"),
        keras.layers.Dropout(0.2),
        keras.layers.Dense(10, activation="softmax"),
    ]
)

# A model defined using Functional API
func_input = keras.Input(shape=(28, 28, 1))
x = keras.layers.Flatten()(func_input)
x = keras.layers.Dense(512, activation="relu")(x)
x = keras.layers.Dropout(0.4)(x)
func_output = keras.layers.Dense(10, activation="softmax")(x)

model_b = keras.Model(func_input, func_output)

"""
## Create Trainer class objects from the models
"""

trainer_1 = MyTrainer(model_a)
trainer_2 = MyTrainer(model_b)

"""
## Compile and fit the models to the MNIST dataset
"""

trainer_1.compile(optimizer=keras.optimizers.SGD())
trainer_1.fit(
    x_train, y_train, epochs=2, batch_size=64, validation_data=(x_test, y_test)
)

trainer_2.compile(optimizer=keras.optimizers.Adam())
trainer_2.fit(
    x_train, y_train, epochs=2, batch_size=64, validation_data=(x_test, y_test)
)
