"""``ContrastLimitedAdaptiveHistogramEqualization``: equal to Keras for clip limits, grids (with padding), value
ranges, channels_first, single images and integer images (skips without Keras); its effect; config; refusals."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_X = np.round(np.random.default_rng(0).uniform(30, 200, (2, 17, 13, 3))).astype(np.float32)


@pytest.mark.parametrize("kwargs, x", [
    ({}, _X), (dict(clip_limit=2.0, tile_grid_size=(3, 4)), _X),
    (dict(clip_limit=0, tile_grid_size=(2, 2), value_range=(0, 1)), _X / 255),
    (dict(tile_grid_size=(4, 3), data_format="channels_first"), np.ascontiguousarray(_X.transpose(0, 3, 1, 2))),
    (dict(tile_grid_size=(2, 2)), _X[0]), (dict(tile_grid_size=(2, 3)), _X.astype(np.uint8)),
])
def test_equals_keras(kwargs, x):
    keras = pytest.importorskip("keras")
    want = np.asarray(keras.layers.ContrastLimitedAdaptiveHistogramEqualization(**kwargs)(x))
    got = L.ContrastLimitedAdaptiveHistogramEqualization(**kwargs)(x).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


def test_it_spreads_a_narrow_range_and_ignores_training():
    layer = L.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(2, 2))
    out = layer(_X).numpy()
    assert np.ptp(out) > np.ptp(_X) and out.min() >= 0 and out.max() <= 255
    np.testing.assert_array_equal(layer(_X, training=False).numpy(), out)  # deterministic, as Keras
    config = L.ContrastLimitedAdaptiveHistogramEqualization(clip_limit=3.0, tile_grid_size=(4, 2)).get_config()
    assert L.ContrastLimitedAdaptiveHistogramEqualization.from_config(config).get_config() == config


@pytest.mark.parametrize("kwargs", [dict(tile_grid_size=(0, 2)), dict(tile_grid_size=4), dict(clip_limit="x"),
                                    dict(value_range=1), dict(data_format="nhwc")])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        L.ContrastLimitedAdaptiveHistogramEqualization(**kwargs)
    with pytest.raises(ValueError, match="rank"):
        L.ContrastLimitedAdaptiveHistogramEqualization()(np.zeros((4, 4), np.float32))
