"""Port of the Keras example "Timeseries classification with a Transformer model": transformer encoder blocks
(MultiHeadAttention, Dropout, LayerNormalization, Conv1D projections, residual connections) over univariate
timeseries, a GlobalAveragePooling1D and Dense head, trained by compile/fit with EarlyStopping
(restore_best_weights) and evaluated.

Source: https://keras.io/examples/timeseries/timeseries_classification_transformer/ (keras-team/keras-io,
examples/timeseries/timeseries_classification_transformer.py), author Theodoros Ntakouris, Apache License 2.0.

Changed from the example: the imports; the FordA files (a download: 3601 training and 1320 test series of
500 steps, labels -1/1) are replaced by synthetic series made with NumPy, 320 training and 80 test series of
50 steps (to run in seconds: attention costs the square of the length), and 3 epochs instead of 200. The
comparison with TensorFlow gives Dropout the same fixed mask in both libraries (tests/guide_harness.py).

    python examples/ported/timeseries_classification_transformer.py
"""

import numpy as np


def synthetic_forda(n, seed, length=50):
    """Series of shape (n, length) and labels in {-1, 1}: a sine whose frequency depends on the label, in noise."""
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], size=n)
    t = np.arange(length)
    x = np.sin(2 * np.pi * t[None, :] * (0.05 + 0.03 * (y[:, None] > 0)) + rng.uniform(0, 6.3, (n, 1)))
    x = x + rng.normal(0, 0.8, (n, length))
    return x, y.astype(int)


x_train, y_train = synthetic_forda(320, 1)
x_test, y_test = synthetic_forda(80, 2)

x_train = x_train.reshape((x_train.shape[0], x_train.shape[1], 1))
x_test = x_test.reshape((x_test.shape[0], x_test.shape[1], 1))

n_classes = len(np.unique(y_train))

idx = np.random.permutation(len(x_train))
x_train = x_train[idx]
y_train = y_train[idx]

y_train[y_train == -1] = 0
y_test[y_test == -1] = 0

"""
## Build the model
"""

from descend import keras
from descend.keras import layers

"""
We include residual connections, layer normalization, and dropout.
The resulting layer can be stacked multiple times.

The projection layers are implemented through `keras.layers.Conv1D`.
"""


def transformer_encoder(inputs, head_size, num_heads, ff_dim, dropout=0):
    # Attention and Normalization
    x = layers.MultiHeadAttention(
        key_dim=head_size, num_heads=num_heads, dropout=dropout
    )(inputs, inputs)
    x = layers.Dropout(dropout)(x)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    res = x + inputs

    # Feed Forward Part
    x = layers.Conv1D(filters=ff_dim, kernel_size=1, activation="relu")(res)
    x = layers.Dropout(dropout)(x)
    x = layers.Conv1D(filters=inputs.shape[-1], kernel_size=1)(x)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    return x + res


def build_model(
    input_shape,
    head_size,
    num_heads,
    ff_dim,
    num_transformer_blocks,
    mlp_units,
    dropout=0,
    mlp_dropout=0,
):
    inputs = keras.Input(shape=input_shape)
    x = inputs
    for _ in range(num_transformer_blocks):
        x = transformer_encoder(x, head_size, num_heads, ff_dim, dropout)

    x = layers.GlobalAveragePooling1D(data_format="channels_last")(x)
    for dim in mlp_units:
        x = layers.Dense(dim, activation="relu")(x)
        x = layers.Dropout(mlp_dropout)(x)
    outputs = layers.Dense(n_classes, activation="softmax")(x)
    return keras.Model(inputs, outputs)


"""
## Train and evaluate
"""

input_shape = x_train.shape[1:]

model = build_model(
    input_shape,
    head_size=256,
    num_heads=4,
    ff_dim=4,
    num_transformer_blocks=4,
    mlp_units=[128],
    mlp_dropout=0.4,
    dropout=0.25,
)

model.compile(
    loss="sparse_categorical_crossentropy",
    optimizer=keras.optimizers.Adam(learning_rate=1e-4),
    metrics=["sparse_categorical_accuracy"],
)
model.summary()

callbacks = [keras.callbacks.EarlyStopping(patience=10, restore_best_weights=True)]

model.fit(
    x_train,
    y_train,
    validation_split=0.2,
    epochs=3,
    batch_size=64,
    callbacks=callbacks,
)

model.evaluate(x_test, y_test, verbose=1)
