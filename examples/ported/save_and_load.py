"""Port of the TensorFlow tutorial "Save and load models": a Sequential model (Dense, Dropout, Dense) saved by
ModelCheckpoint callbacks (each epoch, every 5 epochs under a name with the epoch), save_weights/load_weights,
the whole model as a ``.keras`` archive and as HDF5, each restored model evaluated.

Source: https://www.tensorflow.org/tutorials/keras/save_and_load (tensorflow/docs,
site/en/tutorials/keras/save_and_load.ipynb), Copyright The TensorFlow Authors and François Chollet,
Apache License 2.0 (the notebook also carries the MIT License of its Keras part).

Changed from the tutorial: the imports; MNIST (a download) is replaced by synthetic digits of the same shape
made with NumPy (the tutorial keeps 1000 training and 1000 test images; so does the port); the shell cells
(``!pip``, ``!ls``, ``!mkdir``) are left out. Left out, for what descend lacks: ``print(tf.version.VERSION)``
(no ``tf.version``) the SavedModel (``tf.saved_model.save``/``load``) and the
legacy HDF5 model file (``model.save('my_model.h5')``: descend refuses the ``.h5`` format); the models
trained for them are kept. The comparison with TensorFlow gives Dropout the same fixed
mask in both libraries (tests/guide_harness.py).

    python examples/ported/save_and_load.py
"""

import os

import numpy as np

import descend as tf
from descend import keras

# Left out: print(tf.version.VERSION) (descend has no tf.version).


def synthetic_mnist(n, seed):
    """Images of the MNIST shape (28 x 28, 0-255, uint8) drawn around 10 class prototypes, and their labels."""
    rng = np.random.default_rng(seed)
    prototypes = np.random.default_rng(0).random((10, 28, 28))
    labels = rng.integers(0, 10, size=n).astype("uint8")
    images = np.clip(prototypes[labels] * 255 + rng.normal(0, 400, (n, 28, 28)), 0, 255).astype("uint8")
    return images, labels


(train_images, train_labels), (test_images, test_labels) = synthetic_mnist(6000, 1), synthetic_mnist(1000, 2)

train_labels = train_labels[:1000]
test_labels = test_labels[:1000]

train_images = train_images[:1000].reshape(-1, 28 * 28) / 255.0
test_images = test_images[:1000].reshape(-1, 28 * 28) / 255.0
# Define a simple sequential model
def create_model():
  model = tf.keras.Sequential([
    keras.layers.Dense(512, activation='relu', input_shape=(784,)),
    keras.layers.Dropout(0.2),
    keras.layers.Dense(10)
  ])

  model.compile(optimizer='adam',
                loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=[tf.keras.metrics.SparseCategoricalAccuracy()])

  return model

# Create a basic model instance
model = create_model()

# Display the model's architecture
model.summary()
checkpoint_path = "training_1/cp.weights.h5" # Since you're only saving weights, you should use the .weights.h5 extension. If you're saving the whole model, you would use the .keras extension instead
checkpoint_dir = os.path.dirname(checkpoint_path)

# Create a callback that saves the model's weights
cp_callback = tf.keras.callbacks.ModelCheckpoint(filepath=checkpoint_path,
                                                 save_weights_only=True,
                                                 verbose=1)

# Train the model with the new callback
model.fit(train_images,
          train_labels,
          epochs=10,
          validation_data=(test_images, test_labels),
          callbacks=[cp_callback])  # Pass callback to training

# This may generate warnings related to saving the state of the optimizer.
# These warnings (and similar warnings throughout this notebook)
# are in place to discourage outdated usage, and can be ignored.
os.listdir(checkpoint_dir)
# Create a basic model instance
model = create_model()

# Evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Untrained model, accuracy: {:5.2f}%".format(100 * acc))
# Loads the weights
model.load_weights(checkpoint_path)

# Re-evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Restored model, accuracy: {:5.2f}%".format(100 * acc))
# Include the epoch in the file name (uses `str.format`)
checkpoint_path = "training_2/cp-{epoch:04d}.weights.h5"
checkpoint_dir = os.path.dirname(checkpoint_path)
os.mkdir(checkpoint_dir)

batch_size = 32

# Calculate the number of batches per epoch
import math
n_batches = len(train_images) / batch_size
n_batches = math.ceil(n_batches)    # round up the number of batches to the nearest whole integer

# Create a callback that saves the model's weights every 5 epochs
cp_callback = tf.keras.callbacks.ModelCheckpoint(
    filepath=checkpoint_path,
    verbose=1,
    save_weights_only=True,
    save_freq=5*n_batches)

# Create a new model instance
model = create_model()

# Save the weights using the `checkpoint_path` format
model.save_weights(checkpoint_path.format(epoch=0))

# Train the model with the new callback
model.fit(train_images,
          train_labels,
          epochs=50,
          batch_size=batch_size,
          callbacks=[cp_callback],
          validation_data=(test_images, test_labels),
          verbose=0)
os.listdir(checkpoint_dir)
def load_latest_checkpoint(checkpoint_dir):
    latest = max(os.listdir(checkpoint_dir), key=lambda f: int(f.split('-')[1].split('.')[0]))
    return os.path.join(checkpoint_dir, latest)

latest = load_latest_checkpoint(checkpoint_dir)
latest
# Create a new model instance
model = create_model()

# Load the previously saved weights
model.load_weights(latest)

# Re-evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Restored model, accuracy: {:5.2f}%".format(100 * acc))
# Save the weights
os.mkdir('./checkpoints')
model.save_weights('./checkpoints/my_checkpoint.weights.h5')

# Create a new model instance
model = create_model()

# Restore the weights
model.load_weights('./checkpoints/my_checkpoint.weights.h5')

# Evaluate the model
loss, acc = model.evaluate(test_images, test_labels, verbose=2)
print("Restored model, accuracy: {:5.2f}%".format(100 * acc))
# Create and train a new model instance.
model = create_model()
model.fit(train_images, train_labels, epochs=5)

# Save the entire model as a `.keras` zip archive.
model.save('my_model.keras')
new_model = tf.keras.models.load_model('my_model.keras')

# Show the model architecture
new_model.summary()
# Evaluate the restored model
loss, acc = new_model.evaluate(test_images, test_labels, verbose=2)
print('Restored model, accuracy: {:5.2f}%'.format(100 * acc))

print(new_model.predict(test_images).shape)
# Create and train a new model instance.
model = create_model()
model.fit(train_images, train_labels, epochs=5)

# Save the entire model as a SavedModel.
# Left out: tf.saved_model.save and tf.saved_model.load (tf.saved_model is not in descend).
# Create and train a new model instance.
model = create_model()
model.fit(train_images, train_labels, epochs=5)

# Save the entire model to a HDF5 file.
# The '.h5' extension indicates that the model should be saved to HDF5.
# Left out: model.save('my_model.h5') and loading it back (descend refuses Keras 2's legacy HDF5 format,
# which Keras 3.15 still writes and reads), the summary and evaluation of the model loaded.
