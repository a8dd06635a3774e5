"""Port of the TensorFlow tutorial "TensorFlow 2 quickstart for beginners": a Sequential model (Flatten,
Dense, Dropout, Dense) on MNIST, its untrained logits and loss, compile/fit/evaluate.

Source: https://www.tensorflow.org/tutorials/quickstart/beginner (tensorflow/docs,
site/en/tutorials/quickstart/beginner.ipynb), Copyright The TensorFlow Authors, Apache License 2.0.

Changed from the tutorial: the imports; MNIST (a download) is replaced by synthetic digits of the same
shape made with NumPy (6000 training and 1000 test images instead of 60000 and 10000, to run in seconds).
The values the notebook shows (a cell's last expression) are printed.
The comparison with TensorFlow gives Dropout the same fixed mask in both libraries (tests/guide_harness.py).

    python examples/ported/quickstart_beginner.py
"""

import numpy as np

import descend as tf
print("TensorFlow version:", tf.__version__)


def synthetic_mnist(n, seed):
    """Images of the MNIST shape (28 x 28, 0-255, uint8) drawn around 10 class prototypes, and their labels."""
    rng = np.random.default_rng(seed)
    prototypes = np.random.default_rng(0).random((10, 28, 28))
    labels = rng.integers(0, 10, size=n).astype("uint8")
    images = np.clip(prototypes[labels] * 255 + rng.normal(0, 300, (n, 28, 28)), 0, 255).astype("uint8")
    return images, labels


(x_train, y_train), (x_test, y_test) = synthetic_mnist(6000, 1), synthetic_mnist(1000, 2)
x_train, x_test = x_train / 255.0, x_test / 255.0

model = tf.keras.models.Sequential([
  tf.keras.layers.Flatten(input_shape=(28, 28)),
  tf.keras.layers.Dense(128, activation='relu'),
  tf.keras.layers.Dropout(0.2),
  tf.keras.layers.Dense(10)
])

predictions = model(x_train[:1]).numpy()
print(predictions)

print(tf.nn.softmax(predictions).numpy())

loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

print(loss_fn(y_train[:1], predictions).numpy())

model.compile(optimizer='adam',
              loss=loss_fn,
              metrics=['accuracy'])

model.fit(x_train, y_train, epochs=5)

model.evaluate(x_test,  y_test, verbose=2)

probability_model = tf.keras.Sequential([
  model,
  tf.keras.layers.Softmax()
])

print(probability_model(x_test[:5]))
