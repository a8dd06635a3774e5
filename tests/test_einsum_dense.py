"""``EinsumDense``'s shapes, initializer fans and refusals (values and gradients: tests/layer_cases.py against
NumPy, tests/differential_cases.py against Keras)."""

import numpy as np
import pytest

import descend as ds


@pytest.mark.parametrize("args, shape, kernel, bias, out", [
    (("ab,bc->ac", 4), (3, 5), (5, 4), None, (3, 4)),
    (("abc,cde->abde", (None, 4, 2), None, "de"), (3, 5, 6), (6, 4, 2), (4, 2), (3, 5, 4, 2)),
    (("abc,cd->abd", (3, 4), None, "bd"), (2, 3, 5), (5, 4), (3, 4), (2, 3, 4)),
    (("...b,bc->...c", 4, None, "c"), (2, 3, 5), (5, 4), (4,), (2, 3, 4)),
    (("abc...,cd->abd...", (3, 6), None, "d"), (2, 3, 5, 4), (5, 6), (6, 1), (2, 3, 6, 4)),
])
def test_weight_and_output_shapes_follow_the_equation(args, shape, kernel, bias, out):
    layer = ds.layers.EinsumDense(*args)
    y = layer(ds.ones(shape))
    assert tuple(layer.kernel.shape) == kernel and tuple(y.shape) == out
    assert (layer.bias is None) == (bias is None)
    if bias is not None:
        assert tuple(layer.bias.shape) == bias
    assert layer.compute_output_shape(shape) == out


def test_glorot_counts_input_and_output_axes_as_fans():
    layer = ds.layers.EinsumDense("abc,cde->abde", (None, 64, 32), kernel_initializer=ds.initializers.GlorotUniform(3))
    layer(ds.ones((1, 2, 128)))
    limit = np.sqrt(6.0 / (128 + 64 * 32))  # conv-style fans (receptive field 128) would give a wider limit
    k = layer.kernel.numpy()
    assert np.abs(k).max() <= limit and np.abs(k).max() > 0.9 * limit


@pytest.mark.parametrize("args, match", [
    (("ab,bc", 4), "invalid einsum equation"),
    (("ab,bc->ac", "x"), "output_shape"),
    (("ab,bc->ac", 4, None, "z"), "bias_axes"),
])
def test_bad_arguments_are_refused(args, match):
    with pytest.raises(ValueError, match=match):
        ds.layers.EinsumDense(*args)


@pytest.mark.parametrize("args, shape, match", [
    (("ab,bc->ac", 4), (2, 3, 5), "names 2 input axes"),
    (("abc,cd->abd", (6, 4)), (2, 3, 5), "shared axis 'b'"),
    (("ab,bcd->ac", 4), (2, 3), "kernel axis 'd'"),
    (("ab,bc->acz", (4, 2)), (2, 3), "output axis 'z'"),
])
def test_bad_shapes_are_refused(args, shape, match):
    layer = ds.layers.EinsumDense(*args)
    with pytest.raises(ValueError, match=match):
        layer(ds.ones(shape))
    assert layer.kernel is None


def test_config_round_trip():
    layer = ds.layers.EinsumDense("...b,bc->...c", 4, activation="relu", bias_axes="c")
    again = ds.layers.EinsumDense.from_config(layer.get_config())
    assert again.equation == "...b,bc->...c" and again.partial_output_shape == (4,) and again.bias_axes == "c"
