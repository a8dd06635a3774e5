"""Port of the Keras guide "The Functional API": a first model (inputs, layers, Model), training,
evaluation and inference, saving and loading, models nested as layers (an ensemble).

Source: https://keras.io/guides/functional_api/ (keras-team/keras-io, guides/functional_api.py),
author fchollet, Apache License 2.0.

Changed from the guide: the imports; MNIST (a download) is replaced by synthetic digits of the same
shape made with NumPy (6000 training and 1000 test images instead of 60000 and 10000, to run in
seconds). Left out: plot_model (needs pydot), the convolutional autoencoder (Conv2DTranspose and
UpSampling2D are not in descend), the toy ResNet on CIFAR10 and the sections the port
functional_api_multi_io.py covers.

    python examples/ported/functional_api.py
"""

import numpy as np

import descend as tf
from descend import keras
from descend.keras import layers


def synthetic_mnist(n, seed):
    """Images of the MNIST shape (28 x 28, 0-255) drawn around 10 class prototypes, and their labels."""
    rng = np.random.default_rng(seed)
    prototypes = np.random.default_rng(0).random((10, 28, 28))
    labels = rng.integers(0, 10, size=n).astype("uint8")
    images = np.clip(prototypes[labels] * 255 + rng.normal(0, 200, (n, 28, 28)), 0, 255).astype("uint8")
    return images, labels


inputs = keras.Input(shape=(784,))

# Just for demonstration purposes.
img_inputs = keras.Input(shape=(32, 32, 3))

inputs.shape

inputs.dtype

dense = layers.Dense(64, activation="relu")
x = dense(inputs)

x = layers.Dense(64, activation="relu")(x)
outputs = layers.Dense(10)(x)

model = keras.Model(inputs=inputs, outputs=outputs, name="mnist_model")

model.summary()

# ## Training, evaluation, and inference

(x_train, y_train), (x_test, y_test) = synthetic_mnist(6000, 1), synthetic_mnist(1000, 2)

x_train = x_train.reshape(6000, 784).astype("float32") / 255
x_test = x_test.reshape(1000, 784).astype("float32") / 255

model.compile(
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    optimizer=keras.optimizers.RMSprop(),
    metrics=["accuracy"],
)

history = model.fit(x_train, y_train, batch_size=64, epochs=2, validation_split=0.2)

test_scores = model.evaluate(x_test, y_test, verbose=2)
print("Test loss:", test_scores[0])
print("Test accuracy:", test_scores[1])

# ## Save and serialize

model.save("my_model.keras")
del model
# Recreate the exact same model purely from the file:
model = keras.models.load_model("my_model.keras")

# ## All models are callable, just like layers: ensembling


def get_model():
    inputs = keras.Input(shape=(128,))
    outputs = layers.Dense(1)(inputs)
    return keras.Model(inputs, outputs)


model1 = get_model()
model2 = get_model()
model3 = get_model()

inputs = keras.Input(shape=(128,))
y1 = model1(inputs)
y2 = model2(inputs)
y3 = model3(inputs)
outputs = layers.average([y1, y2, y3])
ensemble_model = keras.Model(inputs=inputs, outputs=outputs)

# (not in the guide's text: train the ensemble briefly, so that a number checks the nesting)
ensemble_model.compile(optimizer="adam", loss="mse")
ensemble_history = ensemble_model.fit(np.random.random((256, 128)), np.random.random((256, 1)), epochs=2)

# the reloaded model evaluates as the trained one did
reloaded_scores = model.evaluate(x_test, y_test, verbose=2)
