"""``descend.image.sampling``: the one resampling and blurring implementation behind ``keras.ops.image``'s
``map_coordinates``, ``gaussian_blur`` and ``elastic_transform`` and ``layers.RandomElasticTransform``.

The op and the layer give the same bits; the Tensor and the NumPy forms give the same bits; the blur is TF's
depthwise convolution with Keras' kernel (odd and even, square and not) and its gradient is the convolution's."""

import numpy as np
import pytest

import descend as ds
from descend.image import sampling
from descend.keras import ops
from descend.ops.conv_more_ops import depthwise_conv2d

_RNG = np.random.default_rng(7)
_IMG = _RNG.uniform(0, 255, (9, 7)).astype(np.float32)
_X = _RNG.uniform(0, 255, (2, 11, 9, 3)).astype(np.float32)
_MODES = ["constant", "nearest", "wrap", "mirror", "reflect"]


@pytest.mark.parametrize("fill_mode", _MODES)
@pytest.mark.parametrize("order", [0, 1])
def test_the_layers_map_coordinates_and_the_op_give_the_same_bits(fill_mode, order):
    from descend.layers.random_elastic_transform import map_coordinates

    ys = _RNG.uniform(-20, 25, (6, 8)).astype(np.float32)
    xs = _RNG.uniform(-20, 25, (6, 8)).astype(np.float32)
    layer = map_coordinates(_IMG, [ys, xs], order, fill_mode, 3.0)
    op = ops.image.map_coordinates(_IMG, [ys, xs], order, fill_mode, 3.0).numpy()
    assert layer.dtype == op.dtype == np.float32
    np.testing.assert_array_equal(layer, op)


@pytest.mark.parametrize("interpolation, fill_mode, factor", [("bilinear", "reflect", 1.0), ("nearest", "constant", 0.5),
                                                              ("bilinear", "wrap", 0.8)])
def test_the_layers_transform_is_the_ops_blur_and_map_coordinates(interpolation, fill_mode, factor):
    # the layer's transform rebuilt from keras.ops.image's public functions: equal to the bit
    x = _RNG.uniform(0, 255, (2, 64, 60, 2)).astype(np.float32)
    n, h, w, c = x.shape
    dx, dy = _RNG.standard_normal((2, n, h, w)).astype(np.float32)
    layer = ds.layers.RandomElasticTransform(interpolation=interpolation, fill_mode=fill_mode, fill_value=9.0)
    got = layer.transform_images(x, {"apply_transform": np.ones(n, bool), "distortion_factor": np.float32(factor),
                                      "dx": dx, "dy": dy}).numpy()
    f = np.float32(factor)
    alpha, sigma = np.float32(max(h, w) * (np.float32(0.1) * f)), np.float32(min(h, w) * (np.float32(0.05) * f))
    k = 6 * int(sigma) | 1
    assert k >= 7  # a real blur
    blur = [ops.image.gaussian_blur((d * sigma)[..., None], (k, k), (float(sigma), float(sigma))).numpy()[..., 0]
            for d in (dx, dy)]
    gy, gx = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32), indexing="ij")
    order = 0 if interpolation == "nearest" else 1
    want = np.stack([np.stack([ops.image.map_coordinates(x[b, ..., ch], [gy + alpha * blur[1][b], gx + alpha * blur[0][b]],
                                                         order, fill_mode, 9.0).numpy() for ch in range(c)], -1)
                     for b in range(n)])
    np.testing.assert_array_equal(got, np.clip(want, 0, 255))


@pytest.mark.parametrize("kernel_size, sigma", [((3, 3), (1.0, 1.0)), ((5, 3), (1.5, 0.8)), ((1, 4), (1.0, 2.0)),
                                                ((6, 6), (2.0, 0.7))])
def test_the_blur_is_a_depthwise_convolution_with_keras_kernel_and_its_gradient(kernel_size, sigma):
    kernel = sampling.gaussian_kernel(kernel_size, sigma, np.float64)
    # Keras' TF backend: outer(g(ks[1], sigma[1]), g(ks[0], sigma[0])) laid out as kernel_size
    g = [np.exp(-0.5 * ((np.arange(s) - (s - 1) / 2) / sg) ** 2) for s, sg in zip(kernel_size, sigma)]
    np.testing.assert_allclose(kernel, np.outer(g[1] / g[1].sum(), g[0] / g[0].sum()).reshape(kernel_size), rtol=1e-12)
    filt = np.broadcast_to(kernel[:, :, None, None], kernel.shape + (3, 1)).astype(np.float32)
    x = ds.Variable(_X)
    weights = _RNG.standard_normal(_X.shape).astype(np.float32)
    with ds.GradientTape(persistent=True) as tape:
        got = sampling.gaussian_blur(x, kernel_size, sigma)
        want = depthwise_conv2d(x, filt, strides=[1, 1, 1, 1], padding="SAME")
        loss_got, loss_want = (ds.reduce_sum(t * weights) for t in (got, want))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(tape.gradient(loss_got, x).numpy(), tape.gradient(loss_want, x).numpy(), rtol=1e-5,
                               atol=1e-4)


@pytest.mark.parametrize("fill_mode", _MODES)
def test_tensors_and_arrays_give_the_same_bits(fill_mode):
    coords = _RNG.uniform(-15, 20, (2, 5, 6)).astype(np.float32)
    for order in (0, 1):
        per_np = [sampling.interpolation_nodes(coords[i], order, np.dtype(np.float32)) for i in range(2)]
        per_t = [sampling.interpolation_nodes(ds.constant(coords[i]), order, np.dtype(np.float32)) for i in range(2)]
        from_np = sampling.interpolate(_IMG, per_np, fill_mode, 2.0, np.dtype(np.float32))
        from_t = sampling.interpolate(ds.constant(_IMG), per_t, fill_mode, 2.0, np.dtype(np.float32))
        assert isinstance(from_np, np.ndarray) and isinstance(from_t, ds.Tensor)
        np.testing.assert_array_equal(from_np, from_t.numpy())
    np.testing.assert_array_equal(sampling.gaussian_blur(_X, (5, 4), (1.2, 2.0)),
                                  sampling.gaussian_blur(ds.constant(_X), (5, 4), (1.2, 2.0)).numpy())


def test_map_coordinates_array_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="fill_mode must be one of"):
        sampling.map_coordinates_array(_IMG, [[0.0], [0.0]], 1, "edge")
    with pytest.raises(ValueError, match=r"one coordinate array per axis of the input \(2\)"):
        sampling.map_coordinates_array(_IMG, [[0.0]], 1)
    with pytest.raises(NotImplementedError, match="order must be 0 or 1"):
        sampling.map_coordinates_array(_IMG, [[0.0], [0.0]], 3)
