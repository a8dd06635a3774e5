"""Port of the TensorFlow tutorial "Word embeddings" classifier: ``Embedding`` +
``GlobalAveragePooling1D`` + ``Dense``, trained with ``fit`` on padded token ids.

Changed from the tutorial: the imports, and the data. The tutorial reads the IMDB reviews with
``TextVectorization``; descend has neither, so the reviews here are generated: each review is
25 to 60 tokens of a 2,000-word vocabulary, padded with 0 to 100, where 40 "positive" and 40
"negative" words are sprinkled (twice as many of the review's own sentiment as of the other)
among neutral words. The model, the loss, the optimizer and the metric are the tutorial's.

    python examples/ported/text_classification.py
"""

import numpy as np

import descend as tf
from descend import keras
from descend.keras import layers

vocab_size = 2000
sequence_length = 100
embedding_dim = 16


def make_reviews(n, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    ids = np.zeros((n, sequence_length), np.int64)
    for i, label in enumerate(labels):
        length = rng.integers(25, 61)
        words = rng.integers(81, vocab_size, length)  # neutral words
        own = rng.choice(np.arange(1, 41) if label else np.arange(41, 81), 6)
        other = rng.choice(np.arange(41, 81) if label else np.arange(1, 41), 3)
        slots = rng.choice(length, 9, replace=False)
        words[slots] = np.concatenate([own, other])
        ids[i, :length] = words
    return ids, labels.astype("float32")


train_ids, train_labels = make_reviews(2000, seed=1)
val_ids, val_labels = make_reviews(500, seed=2)
train_ds = tf.data.Dataset.from_tensor_slices((train_ids, train_labels)).shuffle(2000).batch(64)
val_ds = tf.data.Dataset.from_tensor_slices((val_ids, val_labels)).batch(64)

model = keras.Sequential([
    layers.Embedding(vocab_size, embedding_dim, name="embedding", mask_zero=True),
    layers.GlobalAveragePooling1D(),
    layers.Dense(16, activation="relu"),
    layers.Dense(1),
])

model.compile(optimizer="adam",
              loss=keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=["accuracy"])

history = model.fit(train_ds, validation_data=val_ds, epochs=10, verbose=2)
