"""Grouped convolutions (``Conv1D``/``Conv2D`` ``groups``): a grouped convolution is the full convolution whose
kernel is block-diagonal over (channel group, filter group); outputs and gradients must be that one's."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend import layers

RNG = np.random.default_rng(3)


def _block_diagonal(kernel: np.ndarray, groups: int) -> np.ndarray:
    """The full kernel ``(..., C, F)`` equal to a grouped one ``(..., C // groups, F)``: zeros off the blocks."""
    *k, cg, f = kernel.shape
    fg = f // groups
    full = np.zeros((*k, cg * groups, f), kernel.dtype)
    for g in range(groups):
        full[..., g * cg:(g + 1) * cg, g * fg:(g + 1) * fg] = kernel[..., g * fg:(g + 1) * fg]
    return full


@pytest.mark.parametrize("cls, x_shape, kw", [
    (layers.Conv2D, (2, 6, 5, 6), dict(filters=4, kernel_size=3, groups=2, padding="same")),
    (layers.Conv2D, (2, 7, 7, 6), dict(filters=9, kernel_size=(2, 3), groups=3, strides=2)),
    (layers.Conv2D, (2, 6, 7, 7), dict(filters=6, kernel_size=2, groups=2, data_format="channels_first",
                                       dilation_rate=2)),
    (layers.Conv1D, (3, 9, 4), dict(filters=8, kernel_size=3, groups=4, padding="causal")),
    (layers.Conv1D, (3, 4, 9), dict(filters=2, kernel_size=2, groups=2, data_format="channels_first")),
])
def test_a_grouped_convolution_is_the_block_diagonal_full_one(cls, x_shape, kw):
    x = ds.constant(RNG.standard_normal(x_shape))
    grouped = cls(**kw, dtype="float64", bias_initializer="glorot_uniform")
    full = cls(**{**kw, "groups": 1}, dtype="float64")
    grouped(x)
    full(x)
    kernel, bias = (w.numpy() for w in grouped.weights)
    assert kernel.shape[-2] * kw["groups"] == x_shape[-1 if kw.get("data_format") != "channels_first" else 1]
    full.set_weights([_block_diagonal(kernel, kw["groups"]), bias])
    outs, grads = [], []
    for layer in (grouped, full):
        with ds.GradientTape() as tape:
            tape.watch(x)
            y = layer(x)
            loss = ds.reduce_sum(y * y * 0.5 + y)
        gx, gk = tape.gradient(loss, [x, layer.weights[0]])
        outs.append(y.numpy())
        grads.append((gx.numpy(), gk.numpy()))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12, atol=1e-12)
    # the grouped kernel's gradient is the full kernel's on the blocks
    fg = kw["filters"] // kw["groups"]
    cg = kernel.shape[-2]
    for g in range(kw["groups"]):
        np.testing.assert_allclose(grads[0][1][..., g * fg:(g + 1) * fg],
                                   grads[1][1][..., g * cg:(g + 1) * cg, g * fg:(g + 1) * fg], rtol=1e-12, atol=1e-12)


def test_groups_round_trip_through_the_config():
    layer = layers.Conv2D(4, 3, groups=2)
    assert layer.get_config()["groups"] == 2
    assert layers.Conv2D.from_config(layer.get_config()).groups == 2


@pytest.mark.parametrize("make, x_shape, match", [
    (lambda: layers.Conv2D(5, 2, groups=2), None, r"filters must be evenly divisible .* groups=2, filters=5"),
    (lambda: layers.Conv2D(4, 2, groups=0), None, r"groups must be a positive integer. Received: groups=0"),
    (lambda: layers.Conv1D(4, 2, groups=2), (2, 5, 3), r"input channels must be evenly divisible .* 3 channels"),
])
def test_bad_groups_say_what_was_expected(make, x_shape, match):
    with pytest.raises(ValueError, match=match):
        layer = make()
        layer(np.ones(x_shape, np.float32))
