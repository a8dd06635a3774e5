"""Port of the Keras example "Imbalanced classification: credit card fraud detection": CSV rows vectorized
with NumPy, normalized with training statistics, a Sequential MLP with Dropout trained with class weights,
confusion-matrix, precision and recall metrics and a ModelCheckpoint per epoch.

Source: https://keras.io/examples/structured_data/imbalanced_classification/ (keras-team/keras-io,
examples/structured_data/imbalanced_classification.py), author fchollet, Apache License 2.0.

Changed from the example: the imports; the Kaggle file (a download, 284807 rows) is replaced by a synthetic
``creditcard.csv`` of the same format (a header, 30 quoted features and a quoted class per row) made with
NumPy, 20000 rows, about 1% of them positive. The comparison with TensorFlow gives Dropout the same fixed mask
in both libraries (tests/guide_harness.py).

    python examples/ported/imbalanced_classification.py
"""

"""
## First, vectorize the CSV data
"""

import csv
import numpy as np


def write_synthetic_creditcard(path, rows, seed):
    """A file in the format of Kaggle's creditcard.csv: 30 features ("Time", "V1".."V28", "Amount"), "Class"."""
    rng = np.random.default_rng(seed)
    labels = (rng.random(rows) < 0.01).astype(int)
    features = rng.normal(size=(rows, 30))
    features[:, 1:29] += labels[:, None] * rng.normal(0, 1.5, 28)  # frauds differ in the V columns
    features[:, 0] = np.sort(rng.uniform(0, 172792, rows))
    features[:, 29] = np.abs(rng.normal(88, 250, rows))
    with open(path, "w") as f:
        f.write(",".join(f'"{c}"' for c in ["Time"] + [f"V{i}" for i in range(1, 29)] + ["Amount", "Class"]) + "\n")
        for x, y in zip(features, labels):
            f.write(",".join(repr(float(v)) for v in x) + f',"{y}"\n')


write_synthetic_creditcard("creditcard.csv", 20000, 0)

# Get the real data from https://www.kaggle.com/mlg-ulb/creditcardfraud/
fname = "creditcard.csv"

all_features = []
all_targets = []
with open(fname) as f:
    for i, line in enumerate(f):
        if i == 0:
            print("HEADER:", line.strip())
            continue  # Skip header
        fields = line.strip().split(",")
        all_features.append([float(v.replace('"', "")) for v in fields[:-1]])
        all_targets.append([int(fields[-1].replace('"', ""))])
        if i == 1:
            print("EXAMPLE FEATURES:", all_features[-1])

features = np.array(all_features, dtype="float32")
targets = np.array(all_targets, dtype="uint8")
print("features.shape:", features.shape)
print("targets.shape:", targets.shape)

"""
## Prepare a validation set
"""

num_val_samples = int(len(features) * 0.2)
train_features = features[:-num_val_samples]
train_targets = targets[:-num_val_samples]
val_features = features[-num_val_samples:]
val_targets = targets[-num_val_samples:]

print("Number of training samples:", len(train_features))
print("Number of validation samples:", len(val_features))

"""
## Analyze class imbalance in the targets
"""

counts = np.bincount(train_targets[:, 0])
print(
    "Number of positive samples in training data: {} ({:.2f}% of total)".format(
        counts[1], 100 * float(counts[1]) / len(train_targets)
    )
)

weight_for_0 = 1.0 / counts[0]
weight_for_1 = 1.0 / counts[1]

"""
## Normalize the data using training set statistics
"""

mean = np.mean(train_features, axis=0)
train_features -= mean
val_features -= mean
std = np.std(train_features, axis=0)
train_features /= std
val_features /= std

"""
## Build a binary classification model
"""

from descend import keras

model = keras.Sequential(
    [
        keras.Input(shape=train_features.shape[1:]),
        keras.layers.Dense(256, activation="relu"),
        keras.layers.Dense(256, activation="relu"),
        keras.layers.Dropout(0.3),
        keras.layers.Dense(256, activation="relu"),
        keras.layers.Dropout(0.3),
        keras.layers.Dense(1, activation="sigmoid"),
    ]
)
model.summary()

"""
## Train the model with `class_weight` argument
"""

metrics = [
    keras.metrics.FalseNegatives(name="fn"),
    keras.metrics.FalsePositives(name="fp"),
    keras.metrics.TrueNegatives(name="tn"),
    keras.metrics.TruePositives(name="tp"),
    keras.metrics.Precision(name="precision"),
    keras.metrics.Recall(name="recall"),
]

model.compile(
    optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy", metrics=metrics
)

callbacks = [keras.callbacks.ModelCheckpoint("fraud_model_at_epoch_{epoch}.keras")]
class_weight = {0: weight_for_0, 1: weight_for_1}

model.fit(
    train_features,
    train_targets,
    batch_size=2048,
    epochs=30,
    verbose=2,
    callbacks=callbacks,
    validation_data=(val_features, val_targets),
    class_weight=class_weight,
)
