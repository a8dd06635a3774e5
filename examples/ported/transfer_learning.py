"""Port of the Keras guide "Transfer learning & fine-tuning": the trainable attribute (weights,
trainable_weights, non_trainable_weights, freezing, recursive freezing), and the typical workflow: a base
model frozen under a new head, trained, then unfrozen and fine-tuned with a very low learning rate, the
base running in inference mode (its BatchNormalization statistics kept).

Source: https://keras.io/guides/transfer_learning/ (keras-team/keras-io, guides/transfer_learning.py),
author fchollet, Apache License 2.0.

Changed from the guide: the imports. The workflow's code, which the guide shows on keras.applications.Xception
with ImageNet weights (a download) and `new_dataset`, runs here on a small convolutional base with
BatchNormalization, first trained on synthetic 32x32 images (made with NumPy), and a synthetic new dataset;
the workflow's 20 and 10 epochs are 3 and 2. Left out: the end-to-end cats-vs-dogs example (tensorflow_datasets,
Xception, preprocessing and augmentation layers).

    python examples/ported/transfer_learning.py
"""

import numpy as np
from descend import keras
from descend.keras import layers

layer = keras.layers.Dense(3)
layer.build((None, 4))  # Create the weights

print("weights:", len(layer.weights))
print("trainable_weights:", len(layer.trainable_weights))
print("non_trainable_weights:", len(layer.non_trainable_weights))

layer = keras.layers.BatchNormalization()
layer.build((None, 4))  # Create the weights

print("weights:", len(layer.weights))
print("trainable_weights:", len(layer.trainable_weights))
print("non_trainable_weights:", len(layer.non_trainable_weights))

layer = keras.layers.Dense(3)
layer.build((None, 4))  # Create the weights
layer.trainable = False  # Freeze the layer

print("weights:", len(layer.weights))
print("trainable_weights:", len(layer.trainable_weights))
print("non_trainable_weights:", len(layer.non_trainable_weights))

# Make a model with 2 layers
layer1 = keras.layers.Dense(3, activation="relu")
layer2 = keras.layers.Dense(3, activation="sigmoid")
model = keras.Sequential([keras.Input(shape=(3,)), layer1, layer2])

# Freeze the first layer
layer1.trainable = False

# Keep a copy of the weights of layer1 for later reference
initial_layer1_weights_values = layer1.get_weights()

# Train the model
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.random((2, 3)), np.random.random((2, 3)))

# Check that the weights of layer1 have not changed during training
final_layer1_weights_values = layer1.get_weights()
np.testing.assert_allclose(
    initial_layer1_weights_values[0], final_layer1_weights_values[0]
)
np.testing.assert_allclose(
    initial_layer1_weights_values[1], final_layer1_weights_values[1]
)

inner_model = keras.Sequential(
    [
        keras.Input(shape=(3,)),
        keras.layers.Dense(3, activation="relu"),
        keras.layers.Dense(3, activation="relu"),
    ]
)

model = keras.Sequential(
    [
        keras.Input(shape=(3,)),
        inner_model,
        keras.layers.Dense(3, activation="sigmoid"),
    ]
)

model.trainable = False  # Freeze the outer model

assert inner_model.trainable == False  # All layers in `model` are now frozen
assert inner_model.layers[0].trainable == False  # `trainable` is propagated recursively

# ---- the typical transfer-learning workflow (the guide's Xception, pretrained, is a small base here) ----
rng = np.random.default_rng(3)
images = rng.random((256, 32, 32, 3)).astype("float32")
pretraining_labels = (images[:, :16].mean(axis=(1, 2, 3)) > images[:, 16:].mean(axis=(1, 2, 3))).astype("int32")
base_model = keras.Sequential(
    [
        keras.Input(shape=(32, 32, 3)),
        layers.Conv2D(8, 3, activation="relu"),
        layers.BatchNormalization(),
        layers.MaxPooling2D(2),
        layers.Conv2D(16, 3, activation="relu"),
    ]
)
pretraining_head = keras.Sequential([base_model, layers.GlobalAveragePooling2D(), layers.Dense(2)])
pretraining_head.compile(optimizer="adam", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
pretraining_head.fit(images, pretraining_labels, batch_size=32, epochs=2)
new_x = rng.random((128, 32, 32, 3)).astype("float32")
new_y = (new_x[..., 0].mean(axis=(1, 2)) > 0.5).astype("float32")
new_dataset = (new_x[:96], new_y[:96])

base_model.trainable = False

inputs = keras.Input(shape=(32, 32, 3))
# We make sure that the base_model is running in inference mode here,
# by passing `training=False`. This is important for fine-tuning, as you will
# learn in a few paragraphs.
x = base_model(inputs, training=False)
# Convert features of shape `base_model.output_shape[1:]` to vectors
x = keras.layers.GlobalAveragePooling2D()(x)
# A Dense classifier with a single unit (binary classification)
outputs = keras.layers.Dense(1)(x)
model = keras.Model(inputs, outputs)

model.compile(optimizer=keras.optimizers.Adam(),
              loss=keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=[keras.metrics.BinaryAccuracy()])
model.fit(*new_dataset, epochs=3, validation_data=(new_x[96:], new_y[96:]))

# Unfreeze the base model
base_model.trainable = True

# It's important to recompile your model after you make any changes
# to the `trainable` attribute of any inner layer, so that your changes
# are take into account
model.compile(optimizer=keras.optimizers.Adam(1e-5),  # Very low learning rate
              loss=keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=[keras.metrics.BinaryAccuracy()])

# Train end-to-end. Be careful to stop before you overfit!
model.fit(*new_dataset, epochs=2, validation_data=(new_x[96:], new_y[96:]))
