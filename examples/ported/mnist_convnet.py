"""Port of the Keras example "Simple MNIST convnet": a Sequential convnet (Conv2D, MaxPooling2D, Flatten,
Dropout, Dense softmax) trained by compile/fit with a validation split, then evaluated.

Source: https://keras.io/examples/vision/mnist_convnet/ (keras-team/keras-io, examples/vision/mnist_convnet.py),
author fchollet, Apache License 2.0.

Changed from the example: the imports; MNIST (a download) is replaced by synthetic digits of the same shape
made with NumPy (2000 training and 500 test images instead of 60000 and 10000, and 4 epochs instead of 15,
to run in seconds). The comparison with TensorFlow gives Dropout the same fixed mask in both libraries
(tests/guide_harness.py).

    python examples/ported/mnist_convnet.py
"""

"""
## Setup
"""

import numpy as np
from descend import keras
from descend.keras import layers


def synthetic_mnist(n, seed):
    """Images of the MNIST shape (28 x 28, 0-255, uint8) drawn around 10 class prototypes, and their labels."""
    rng = np.random.default_rng(seed)
    prototypes = np.random.default_rng(0).random((10, 28, 28))
    labels = rng.integers(0, 10, size=n).astype("uint8")
    images = np.clip(prototypes[labels] * 200 + 28 + rng.normal(0, 60, (n, 28, 28)), 0, 255).astype("uint8")
    return images, labels


"""
## Prepare the data
"""

# Model / data parameters
num_classes = 10
input_shape = (28, 28, 1)

# Load the data and split it between train and test sets
(x_train, y_train), (x_test, y_test) = synthetic_mnist(2000, 1), synthetic_mnist(500, 2)

# Scale images to the [0, 1] range
x_train = x_train.astype("float32") / 255
x_test = x_test.astype("float32") / 255
# Make sure images have shape (28, 28, 1)
x_train = np.expand_dims(x_train, -1)
x_test = np.expand_dims(x_test, -1)
print("x_train shape:", x_train.shape)
print(x_train.shape[0], "train samples")
print(x_test.shape[0], "test samples")


# convert class vectors to binary class matrices
y_train = keras.utils.to_categorical(y_train, num_classes)
y_test = keras.utils.to_categorical(y_test, num_classes)

"""
## Build the model
"""

model = keras.Sequential(
    [
        keras.Input(shape=input_shape),
        layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(num_classes, activation="softmax"),
    ]
)

model.summary()

"""
## Train the model
"""

batch_size = 128
epochs = 4

model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])

model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_split=0.1)

"""
## Evaluate the trained model
"""

score = model.evaluate(x_test, y_test, verbose=0)
print("Test loss:", score[0])
print("Test accuracy:", score[1])
