"""Port of the Keras example "Timeseries classification from scratch": univariate series read from TSV files,
reshaped to one channel, shuffled, labels mapped to 0/1; a fully convolutional network (three Conv1D +
BatchNormalization + ReLU blocks, global average pooling, a softmax Dense) trained by fit with a validation split
and ModelCheckpoint(save_best_only), ReduceLROnPlateau and EarlyStopping; the best model loaded and evaluated.

Source: https://keras.io/examples/timeseries/timeseries_classification_from_scratch/ (keras-team/keras-io,
examples/timeseries/timeseries_classification_from_scratch.py, the version of 2021/07/16), author hfawaz,
Apache License 2.0.

Changed from the example: the imports; the FordA files (a download) are replaced by synthetic files of their
format (a label of -1 or 1, then 500 z-normalized values, tab-separated), 360 training and 132 test series instead
of 3601 and 1320, read by the example's own ``readucr``; 4 epochs instead of 500; the plots and
``keras.utils.plot_model`` are left out. The best model is saved as ``best_model.keras`` instead of
``best_model.h5``: descend does not write Keras 2's legacy HDF5 format (docs/ported.md).

    python examples/ported/timeseries_classification_from_scratch.py
"""

"""
## Setup
"""

import os
import tempfile
from descend import keras
import numpy as np


def write_synthetic_forda(folder):
    """FordA-like TSV files: class 1 series carry a faint burst at a random place, class -1 do not; each series is
    z-normalized, as FordA's are."""
    rng = np.random.default_rng(0)
    for name, n in [("FordA_TRAIN.tsv", 360), ("FordA_TEST.tsv", 132)]:
        labels = rng.choice([-1, 1], size=n)
        t = np.arange(500)
        series = rng.normal(size=(n, 500)).cumsum(axis=1) * 0.1 + rng.normal(size=(n, 500))
        starts = rng.integers(0, 400, size=n)
        burst = np.exp(-0.5 * ((t[None, :] - starts[:, None] - 50) / 15.0) ** 2) * np.sin(t[None, :] * 0.8)
        series += 3.0 * burst * (labels[:, None] == 1)
        series = (series - series.mean(axis=1, keepdims=True)) / series.std(axis=1, keepdims=True)
        np.savetxt(os.path.join(folder, name), np.column_stack([labels, series]), delimiter="\t", fmt="%.6f")


"""
## Load the data: the FordA dataset
"""


def readucr(filename):
    data = np.loadtxt(filename, delimiter="\t")
    y = data[:, 0]
    x = data[:, 1:]
    return x, y.astype(int)


root_url = tempfile.mkdtemp() + "/"
write_synthetic_forda(root_url)

x_train, y_train = readucr(root_url + "FordA_TRAIN.tsv")
x_test, y_test = readucr(root_url + "FordA_TEST.tsv")

"""
## Standardize the data
"""

x_train = x_train.reshape((x_train.shape[0], x_train.shape[1], 1))
x_test = x_test.reshape((x_test.shape[0], x_test.shape[1], 1))

num_classes = len(np.unique(y_train))

idx = np.random.permutation(len(x_train))
x_train = x_train[idx]
y_train = y_train[idx]

y_train[y_train == -1] = 0
y_test[y_test == -1] = 0

"""
## Build a model
"""


def make_model(input_shape):
    input_layer = keras.layers.Input(input_shape)

    conv1 = keras.layers.Conv1D(filters=64, kernel_size=3, padding="same")(input_layer)
    conv1 = keras.layers.BatchNormalization()(conv1)
    conv1 = keras.layers.ReLU()(conv1)

    conv2 = keras.layers.Conv1D(filters=64, kernel_size=3, padding="same")(conv1)
    conv2 = keras.layers.BatchNormalization()(conv2)
    conv2 = keras.layers.ReLU()(conv2)

    conv3 = keras.layers.Conv1D(filters=64, kernel_size=3, padding="same")(conv2)
    conv3 = keras.layers.BatchNormalization()(conv3)
    conv3 = keras.layers.ReLU()(conv3)

    gap = keras.layers.GlobalAveragePooling1D()(conv3)

    output_layer = keras.layers.Dense(num_classes, activation="softmax")(gap)

    return keras.models.Model(inputs=input_layer, outputs=output_layer)


model = make_model(input_shape=x_train.shape[1:])

"""
## Train the model
"""

epochs = 4
batch_size = 32

callbacks = [
    keras.callbacks.ModelCheckpoint(
        "best_model.keras", save_best_only=True, monitor="val_loss"
    ),
    keras.callbacks.ReduceLROnPlateau(
        monitor="val_loss", factor=0.5, patience=20, min_lr=0.0001
    ),
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=50, verbose=1),
]
model.compile(
    optimizer="adam",
    loss="sparse_categorical_crossentropy",
    metrics=["sparse_categorical_accuracy"],
)
history = model.fit(
    x_train,
    y_train,
    batch_size=batch_size,
    epochs=epochs,
    callbacks=callbacks,
    validation_split=0.2,
    verbose=1,
)

"""
## Evaluate model on test data
"""

model = keras.models.load_model("best_model.keras")

test_loss, test_acc = model.evaluate(x_test, y_test)

print("Test accuracy", test_acc)
print("Test loss", test_loss)
