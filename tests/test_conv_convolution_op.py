"""Keras' ``convolution_op(inputs, kernel)`` hook of the convolution layers: ``call`` computes through it, so a
subclass that overrides it (or calls it with another kernel) changes the layer's output, as in Keras."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds

RNG = np.random.default_rng(3)


def _standardized(base, T):
    class Standardized(base):
        def convolution_op(self, inputs, kernel):
            mean, var = T.nn.moments(kernel, axes=list(range(kernel.ndim - 1)), keepdims=True)
            return super().convolution_op(inputs, (kernel - mean) / T.sqrt(var + 1e-10))
    return Standardized


@pytest.mark.parametrize("rank,groups", [(2, 1), (2, 2), (3, 1)])
def test_an_overridden_convolution_op_is_what_call_computes(rank, groups):
    cls = {2: ds.keras.layers.Conv2D, 3: ds.keras.layers.Conv3D}[rank]
    x = RNG.normal(size=(2,) + (6,) * rank + (4,)).astype(np.float32)
    plain = cls(4, 3, groups=groups, activation="relu")
    layer = _standardized(cls, ds)(4, 3, groups=groups, activation="relu")
    plain.build(x.shape)
    layer.build(x.shape)
    layer.set_weights(plain.get_weights())
    k = plain.kernel.numpy()
    axes = tuple(range(k.ndim - 1))
    plain.kernel.assign((k - k.mean(axis=axes, keepdims=True)) / np.sqrt(k.var(axis=axes, keepdims=True) + 1e-10))
    np.testing.assert_allclose(layer(x).numpy(), plain(x).numpy(), rtol=1e-5, atol=1e-6)
    keras = pytest.importorskip("keras")
    kcls = {2: keras.layers.Conv2D, 3: keras.layers.Conv3D}[rank]
    import tensorflow as tf
    theirs = _standardized(kcls, tf)(4, 3, groups=groups, activation="relu")
    theirs.build(x.shape)
    theirs.set_weights(layer.get_weights())
    np.testing.assert_allclose(layer(x).numpy(), np.asarray(theirs(x)), rtol=1e-4, atol=1e-5)


def test_convolution_op_takes_another_kernel():
    layer = ds.keras.layers.Conv2D(3, 2, use_bias=False)
    x = RNG.normal(size=(1, 5, 5, 2)).astype(np.float32)
    layer.build(x.shape)
    other = RNG.normal(size=layer.kernel.shape).astype(np.float32)
    want = ds.nn.conv2d(x, other, strides=1, padding="VALID").numpy()
    np.testing.assert_allclose(layer.convolution_op(x, other).numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("groups", [1, 2])
def test_conv1d_call_does_not_go_through_convolution_op_as_in_keras(groups):
    """Keras 3's Conv1D.call convolves directly (for its causal padding): an override of convolution_op leaves
    a Conv1D's output as it was, there and here."""
    x = np.ones((1, 6, 2), np.float32)
    outs = []
    for k in [ds.keras] + ([pytest.importorskip("keras")] if groups == 2 else []):
        class Zeroed(k.layers.Conv1D):
            def convolution_op(self, inputs, kernel):
                return super().convolution_op(inputs, kernel * 0)

        layer = Zeroed(2, 2, use_bias=False, groups=groups, kernel_initializer="ones")
        outs.append(np.asarray(layer(x)))
        assert float(np.abs(outs[-1]).max()) > 0
        np.testing.assert_array_equal(np.asarray(layer.convolution_op(x, layer.kernel)), 0 * outs[-1])
    if len(outs) == 2:
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6)
