"""Port of the TensorFlow tutorial "Basic classification: Classify images of clothing": a Sequential model
(Flatten, two Dense layers) trained with compile/fit on Fashion-MNIST, evaluated, then wrapped with a
Softmax layer to predict probabilities.

Source: https://www.tensorflow.org/tutorials/keras/classification (tensorflow/docs,
site/en/tutorials/keras/classification.ipynb), Copyright The TensorFlow Authors and François Chollet,
Apache License 2.0 (the notebook also carries the MIT License of its Keras part).

Changed from the tutorial: the imports; Fashion-MNIST (a download) is replaced by synthetic images of the
same shape made with NumPy (6000 training and 1000 test images instead of 60000 and 10000, to run in
seconds); the plots (and the plotting helpers) are left out; the values the notebook shows (a cell's last
expression) are printed.

    python examples/ported/keras_classification.py
"""

# TensorFlow and tf.keras
import descend as tf

# Helper libraries
import numpy as np


def synthetic_fashion_mnist(n, seed):
    """Images of the Fashion-MNIST shape (28 x 28, 0-255, uint8) around 10 class prototypes, and labels."""
    rng = np.random.default_rng(seed)
    prototypes = np.random.default_rng(0).random((10, 28, 28))
    labels = rng.integers(0, 10, size=n).astype("uint8")
    images = np.clip(prototypes[labels] * 255 + rng.normal(0, 200, (n, 28, 28)), 0, 255).astype("uint8")
    return images, labels


print(tf.__version__)

(train_images, train_labels), (test_images, test_labels) = synthetic_fashion_mnist(6000, 1), \
    synthetic_fashion_mnist(1000, 2)

class_names = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat',
               'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot']

print(train_images.shape)
print(len(train_labels))
print(train_labels)
print(test_images.shape)
print(len(test_labels))

train_images = train_images / 255.0

test_images = test_images / 255.0

model = tf.keras.Sequential([
    tf.keras.layers.Flatten(input_shape=(28, 28)),
    tf.keras.layers.Dense(128, activation='relu'),
    tf.keras.layers.Dense(10)
])

model.compile(optimizer='adam',
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=['accuracy'])

model.fit(train_images, train_labels, epochs=10)

test_loss, test_acc = model.evaluate(test_images,  test_labels, verbose=2)

print('\nTest accuracy:', test_acc)

probability_model = tf.keras.Sequential([model, 
                                         tf.keras.layers.Softmax()])

predictions = probability_model.predict(test_images)

print(predictions[0])

print(np.argmax(predictions[0]))

print(test_labels[0])

# Grab an image from the test dataset.
img = test_images[1]

print(img.shape)

# Add the image to a batch where it's the only member.
img = (np.expand_dims(img,0))

print(img.shape)

predictions_single = probability_model.predict(img)

print(predictions_single)

print(np.argmax(predictions_single[0]))
