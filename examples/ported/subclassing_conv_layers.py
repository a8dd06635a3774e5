"""Port of the Keras example "Customizing the convolution operation of a Conv2D layer": two standardized
convolution layers, one overriding ``convolution_op()`` and one calling it from ``call()``, in a Sequential
convnet trained on MNIST by compile/fit with a validation split.

Source: https://keras.io/examples/keras_recipes/subclassing_conv_layers/ (keras-team/keras-io,
examples/keras_recipes/subclassing_conv_layers.py), author lukewood, Apache License 2.0.

Changed from the example: the imports; MNIST (a download) is replaced by synthetic digits of the same shape
made with NumPy (1000 training and 200 test images instead of 60000 and 10000, and 2 epochs instead of 5, to
run in seconds). The comparison with TensorFlow gives Dropout the same fixed mask in both libraries
(tests/guide_harness.py).

    python examples/ported/subclassing_conv_layers.py
"""

"""
## Introduction

You may sometimes need to implement custom versions of convolution layers like `Conv1D` and `Conv2D`.
Keras enables you do this without implementing the entire layer from scratch: you can reuse
most of the base convolution layer and just customize the convolution op itself via the
`convolution_op()` method.
"""
import descend.keras as keras

print(keras.__version__)
"""
## A Simple `StandardizedConv2D` implementation
"""
import descend as tf
import descend.keras as keras
import descend.keras.layers as layers
import numpy as np


def synthetic_mnist(n, seed):
    """Images of the MNIST shape (28 x 28, 0-255, uint8) drawn around 10 class prototypes, and their labels."""
    rng = np.random.default_rng(seed)
    prototypes = np.random.default_rng(0).random((10, 28, 28))
    labels = rng.integers(0, 10, size=n).astype("uint8")
    images = np.clip(prototypes[labels] * 200 + 28 + rng.normal(0, 60, (n, 28, 28)), 0, 255).astype("uint8")
    return images, labels


class StandardizedConv2DWithOverride(layers.Conv2D):
    def convolution_op(self, inputs, kernel):
        mean, var = tf.nn.moments(kernel, axes=[0, 1, 2], keepdims=True)
        return tf.nn.conv2d(
            inputs,
            (kernel - mean) / tf.sqrt(var + 1e-10),
            padding="VALID",
            strides=list(self.strides),
            name=self.__class__.__name__,
        )


"""
The other way to use the `Conv.convolution_op()` API is to directly call the
`convolution_op()` method from the `call()` method of a convolution layer subclass.
"""


class StandardizedConv2DWithCall(layers.Conv2D):
    def call(self, inputs):
        mean, var = tf.nn.moments(self.kernel, axes=[0, 1, 2], keepdims=True)
        result = self.convolution_op(
            inputs, (self.kernel - mean) / tf.sqrt(var + 1e-10)
        )
        if self.use_bias:
            result = result + self.bias
        return result


"""
## Example Usage
"""

# Model / data parameters
num_classes = 10
input_shape = (28, 28, 1)

# the data, split between train and test sets
(x_train, y_train), (x_test, y_test) = synthetic_mnist(1000, 1), synthetic_mnist(200, 2)

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

model = keras.Sequential(
    [
        keras.layers.InputLayer(input_shape=input_shape),
        StandardizedConv2DWithCall(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        StandardizedConv2DWithOverride(64, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(num_classes, activation="softmax"),
    ]
)

model.summary()
"""

"""
batch_size = 128
epochs = 2

model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])

model.fit(x_train, y_train, batch_size=batch_size, epochs=2, validation_split=0.1)
