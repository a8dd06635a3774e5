"""``tf.experimental``: :mod:`descend.experimental.numpy` (TensorFlow's NumPy API)."""
