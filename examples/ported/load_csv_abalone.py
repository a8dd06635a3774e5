"""Port of the TensorFlow tutorial "Load CSV data", its in-memory part: the abalone regression (seven
numeric features, a Dense network trained with fit on NumPy arrays), and a symbolic Keras input with
arithmetic on it turned into a model.

Source: https://www.tensorflow.org/tutorials/load_data/csv (tensorflow/docs,
site/en/tutorials/load_data/csv.ipynb), Copyright The TensorFlow Authors, Apache License 2.0.

Changed from the tutorial: the imports; the abalone CSV (a download, read with pandas) is replaced by
synthetic data of the same shape made with NumPy (3320 rows of 7 features and the age). Left out: the
sections that need preprocessing layers (Normalization, StringLookup, CategoryEncoding) and files.

    python examples/ported/load_csv_abalone.py
"""

import numpy as np

# Make numpy values easier to read.
np.set_printoptions(precision=3, suppress=True)

import descend as tf
from descend.keras import layers

# ---- synthetic abalone_train.csv: Length, Diameter, Height, Whole/Shucked/Viscera/Shell weight, Age ----
rng = np.random.default_rng(11)
length = rng.uniform(0.1, 0.8, 3320)
abalone_features = np.stack([length, length * 0.8, length * 0.3, length ** 3 * 2, length ** 3 * 0.9,
                             length ** 3 * 0.45, length ** 3 * 0.6], axis=1) * rng.uniform(0.9, 1.1, (3320, 7))
abalone_labels = np.round(4 + 14 * length + rng.normal(0, 2, 3320))

abalone_features = np.array(abalone_features)
abalone_features

abalone_model = tf.keras.Sequential([
  layers.Dense(64, activation='relu'),
  layers.Dense(1)
])

abalone_model.compile(loss = tf.keras.losses.MeanSquaredError(),
                      optimizer = tf.keras.optimizers.Adam())

abalone_model.fit(abalone_features, abalone_labels, epochs=10)

# Create a symbolic input
input = tf.keras.Input(shape=(), dtype=tf.float32)

# Perform a calculation using the input
result = 2*input + 1

# the result doesn't have a value
result

calc = tf.keras.Model(inputs=input, outputs=result)

print(calc(np.array([1])).numpy())
print(calc(np.array([2])).numpy())
