"""Layers as Keras 3.15 has them, found by running Keras' own test files (tests/keras_suite): the built state of
weightless layers, argument checks in Keras' words, keyword calls, shapes and dtypes under mixed precision."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend import layers as L


def test_stateless_layers_are_built_when_made_unless_build_is_overridden():
    """Keras 3 builds its weightless layers (activations, pooling, dropout, masking) at instantiation."""
    for layer in (L.Activation("relu"), L.Dropout(0.5), L.Masking(), L.MaxPooling1D(), L.AveragePooling2D(),
                  L.GlobalMaxPooling1D(), L.GlobalAveragePooling2D()):
        assert layer.built, type(layer).__name__

    class CustomPool(L.MaxPooling1D):
        def build(self, input_shape):
            self.seen = input_shape

    layer = CustomPool()
    assert not layer.built
    layer(ds.ones((2, 4, 3)))
    assert layer.built and layer.seen == (2, 4, 3)
    assert not L.Dense(2).built and not L.Flatten().built


@pytest.mark.parametrize("kwargs, match", [
    ({"rate": -0.5}, r"Invalid value received for argument `rate`. Expected a float value between 0 and 1."),
    ({"rate": 1.5}, r"Invalid value received for argument `rate`. Expected a float value between 0 and 1."),
    ({"rate": 0.5, "noise_shape": (20, 1.5, 10)}, r"Expected all elements to be integers or None. Received element "
                                                  r"at index 1: 1.5 \(type: float\)"),
    ({"rate": 0.5, "noise_shape": (20, -1, 10)}, r"Expected all dimensions to be positive integers or None. "
                                                 r"Received negative or zero value at index 1: -1"),
    ({"rate": 0.5, "noise_shape": (20, 0)}, r"positive integers or None"),
    ({"rate": 0.5, "noise_shape": 5}, r"Expected an iterable of integers"),
    ({"rate": 0.5, "noise_shape": "abc"}, r"Expected a tuple or list of integers"),
])
def test_dropout_argument_errors_in_keras_words(kwargs, match):
    with pytest.raises(ValueError, match=match):
        L.Dropout(**kwargs)


def test_dropout_noise_shape_list_is_kept_as_a_tuple():
    layer = L.Dropout(0.5, noise_shape=[None, 1])
    assert layer.noise_shape == (None, 1)
    out = layer(ds.ones((3, 4)), training=True).numpy()
    assert all(len(set(row)) == 1 for row in out)  # one decision per row (the mask is (3, 1))
