"""Refusals of the 3-D and adaptive pooling layers (their values and gradients are checked in
tests/layer_cases.py against NumPy and in tests/differential_cases.py against Keras)."""

import numpy as np
import pytest

import descend as ds

L = ds.layers


@pytest.mark.parametrize("make, match", [
    (lambda: L.MaxPooling3D(pool_size=(2, 2)), "pool_size.*3 positive ints"),
    (lambda: L.AveragePooling3D(strides=0), "strides"),
    (lambda: L.MaxPooling3D(padding="causal"), "padding"),
    (lambda: L.AdaptiveAveragePooling2D((2, 2, 2)), "output_size.*2 positive ints"),
    (lambda: L.AdaptiveMaxPooling1D(0), "output_size"),
    (lambda: L.AdaptiveMaxPooling3D(True), "output_size"),
])
def test_bad_arguments_are_refused(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("layer, shape", [
    (L.MaxPooling3D(), (2, 4, 4, 3)),
    (L.AveragePooling3D(3), (1, 2, 5, 5, 1)),
    (L.AdaptiveAveragePooling2D(2), (2, 4, 3)),
])
def test_bad_inputs_are_refused(layer, shape):
    with pytest.raises(ValueError):
        layer(ds.ones(shape))


def test_aliases_and_config():
    assert L.MaxPool3D is L.MaxPooling3D and L.AvgPool3D is L.AveragePooling3D
    layer = L.AdaptiveMaxPooling2D(3, data_format="channels_first")
    again = L.AdaptiveMaxPooling2D.from_config(layer.get_config())
    assert again.output_size == (3, 3) and again.data_format == "channels_first"
    assert L.AveragePooling3D(2, padding="same").compute_output_shape((None, 5, 4, 3, 2)) == (None, 3, 2, 2, 2)
    x = np.arange(2 * 5 * 4 * 3 * 2, dtype=np.float32).reshape(2, 5, 4, 3, 2)
    assert L.AveragePooling3D(2, padding="same")(ds.constant(x)).shape == (2, 3, 2, 2, 2)
