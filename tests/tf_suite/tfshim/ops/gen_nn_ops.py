"""TF's generated raw-op wrappers that the test files call.

``softmax_cross_entropy_with_logits(features, labels)`` is TF's fused kernel (``tf.raw_ops.SoftmaxCrossEntropyWithLogits``):
it broadcasts the two, and returns the loss and its gradient with respect to the features (``backprop``). descend
has the loss op (``tf.nn.softmax_cross_entropy_with_logits``) and its gradient; this returns those two, so the
values under test are descend's. Any other name is a :class:`tfshim.Missing` placeholder.
"""

from __future__ import annotations

import numpy as np

import descend as ds
from tfshim import Missing


def softmax_cross_entropy_with_logits(features, labels, name=None):
    features = ds.convert_to_tensor(features)
    labels = ds.convert_to_tensor(labels, dtype=features.dtype)
    shape = np.broadcast_shapes(tuple(features.shape), tuple(labels.shape))
    features, labels = ds.broadcast_to(features, shape), ds.broadcast_to(labels, shape)
    with ds.GradientTape() as tape:
        tape.watch(features)
        loss = ds.nn.softmax_cross_entropy_with_logits(labels=labels, logits=features)
    return loss, tape.gradient(loss, features)


def __getattr__(attr):
    if attr.startswith("__"):
        raise AttributeError(attr)
    return Missing(f"ops.gen_nn_ops.{attr} (TensorFlow's tensorflow.python.ops.gen_nn_ops.{attr})")
