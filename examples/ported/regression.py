"""Port of the TensorFlow tutorial "Basic regression: Predict fuel efficiency": the Auto MPG data set
normalized by a Normalization layer (adapted to the data), a linear model of one feature and of all of them,
and deep models of one feature and of all of them, trained with Adam on the mean absolute error, evaluated,
saved and reloaded.

Source: https://www.tensorflow.org/tutorials/keras/regression (tensorflow/docs,
site/en/tutorials/keras/regression.ipynb), Copyright The TensorFlow Authors, Apache License 2.0.

Changed from the guide: the imports; the data: the UCI Auto MPG file (398 cars, 6 without a horsepower) is
replaced by synthetic cars of the same columns and ranges, and the guide's pandas steps (read_csv, dropna,
the one-hot origin, the 80/20 sample, pop of the label) are done with NumPy on them (pandas is not a
dependency here); the plots, the pandas summaries and ``%%time`` are left out.

    python examples/ported/regression.py
"""

import numpy as np

import descend as tf
from descend import keras
from descend.keras import layers

# Make NumPy printouts easier to read.
np.set_printoptions(precision=3, suppress=True)

# -- the data: synthetic cars with the Auto MPG columns (the guide downloads 398 of them, 6 lack a horsepower)
rng = np.random.default_rng(0)
n = 398
cylinders = rng.choice([4, 6, 8], size=n, p=[0.5, 0.25, 0.25]).astype(float)
displacement = np.round(cylinders * rng.uniform(20.0, 50.0, n), 1)
horsepower = np.round(40.0 + 0.45 * displacement + rng.normal(0.0, 12.0, n))
weight = np.round(1500.0 + 8.0 * displacement + rng.normal(0.0, 250.0, n))
acceleration = np.round(np.clip(20.0 - 0.04 * horsepower + rng.normal(0.0, 1.5, n), 8.0, 24.8), 1)
model_year = rng.integers(70, 83, n).astype(float)
origin = rng.choice([1, 2, 3], size=n, p=[0.62, 0.18, 0.2])
mpg = np.round(np.clip(46.0 - 0.006 * weight - 0.03 * horsepower + 0.5 * (model_year - 76)
                       + rng.normal(0.0, 2.5, n), 9.0, 46.6), 1)
horsepower[rng.choice(n, 6, replace=False)] = np.nan  # '?' in the file

column_names = ['MPG', 'Cylinders', 'Displacement', 'Horsepower', 'Weight',
                'Acceleration', 'Model Year', 'Origin']
raw_dataset = np.stack([mpg, cylinders, displacement, horsepower, weight, acceleration, model_year, origin], 1)

# dataset = dataset.dropna(); the one-hot origin (columns Europe, Japan, USA, as pd.get_dummies sorts them)
dataset = raw_dataset[~np.isnan(raw_dataset).any(axis=1)]
dummies = np.stack([dataset[:, 7] == 2, dataset[:, 7] == 3, dataset[:, 7] == 1], 1).astype(float)
dataset = np.concatenate([dataset[:, :7], dummies], 1)
feature_names = column_names[1:7] + ['Europe', 'Japan', 'USA']

# train_dataset = dataset.sample(frac=0.8, random_state=0); test_dataset = the rest
order = np.random.default_rng(0).permutation(len(dataset))
train_dataset = dataset[order[:round(0.8 * len(dataset))]]
test_dataset = dataset[np.sort(order[round(0.8 * len(dataset)):])]

train_features, train_labels = train_dataset[:, 1:], train_dataset[:, 0]
test_features, test_labels = test_dataset[:, 1:], test_dataset[:, 0]
HP = feature_names.index('Horsepower')

normalizer = tf.keras.layers.Normalization(axis=-1)
normalizer.adapt(np.array(train_features))
print(normalizer.mean.numpy())

first = np.array(train_features[:1])

with np.printoptions(precision=2, suppress=True):
  print('First example:', first)
  print()
  print('Normalized:', normalizer(first).numpy())

horsepower = np.array(train_features[:, HP])

horsepower_normalizer = layers.Normalization(input_shape=[1,], axis=None)
horsepower_normalizer.adapt(horsepower)

horsepower_model = tf.keras.Sequential([
    horsepower_normalizer,
    layers.Dense(units=1)
])

horsepower_model.summary()
print(horsepower_model.predict(horsepower[:10]))

horsepower_model.compile(
    optimizer=tf.keras.optimizers.Adam(learning_rate=0.1),
    loss='mean_absolute_error')

history = horsepower_model.fit(
    train_features[:, HP],
    train_labels,
    epochs=100,
    # Suppress logging.
    verbose=0,
    # Calculate validation results on 20% of the training data.
    validation_split = 0.2)

test_results = {}

test_results['horsepower_model'] = horsepower_model.evaluate(
    test_features[:, HP],
    test_labels, verbose=0)

x = tf.linspace(0.0, 250, 251)
y = horsepower_model.predict(x)

linear_model = tf.keras.Sequential([
    normalizer,
    layers.Dense(units=1)
])

print(linear_model.predict(train_features[:10]))
print(linear_model.layers[1].kernel)

linear_model.compile(
    optimizer=tf.keras.optimizers.Adam(learning_rate=0.1),
    loss='mean_absolute_error')

history = linear_model.fit(
    train_features,
    train_labels,
    epochs=100,
    # Suppress logging.
    verbose=0,
    # Calculate validation results on 20% of the training data.
    validation_split = 0.2)

test_results['linear_model'] = linear_model.evaluate(
    test_features, test_labels, verbose=0)

def build_and_compile_model(norm):
  model = keras.Sequential([
      norm,
      layers.Dense(64, activation='relu'),
      layers.Dense(64, activation='relu'),
      layers.Dense(1)
  ])

  model.compile(loss='mean_absolute_error',
                optimizer=tf.keras.optimizers.Adam(0.001))
  return model

dnn_horsepower_model = build_and_compile_model(horsepower_normalizer)
dnn_horsepower_model.summary()

history = dnn_horsepower_model.fit(
    train_features[:, HP],
    train_labels,
    validation_split=0.2,
    verbose=0, epochs=100)

x = tf.linspace(0.0, 250, 251)
y = dnn_horsepower_model.predict(x)

test_results['dnn_horsepower_model'] = dnn_horsepower_model.evaluate(
    test_features[:, HP], test_labels,
    verbose=0)

dnn_model = build_and_compile_model(normalizer)
dnn_model.summary()

history = dnn_model.fit(
    train_features,
    train_labels,
    validation_split=0.2,
    verbose=0, epochs=100)

test_results['dnn_model'] = dnn_model.evaluate(test_features, test_labels, verbose=0)
print(test_results)

test_predictions = dnn_model.predict(test_features).flatten()
error = test_predictions - test_labels

dnn_model.save('dnn_model.keras')

reloaded = tf.keras.models.load_model('dnn_model.keras')

test_results['reloaded'] = reloaded.evaluate(
    test_features, test_labels, verbose=0)
print(test_results)
