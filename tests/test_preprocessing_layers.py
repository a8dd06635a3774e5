"""Keras' preprocessing and augmentation layers (``descend/layers/preprocessing.py``) against Keras 3.

The Keras comparisons skip without Keras (``pytest.importorskip``, the project's mechanism). Random layers
are compared with factors that leave Keras no choice (a fixed angle, zoom, shift or delta), since the two
libraries' generators differ; their randomness is tested by its contract.
"""

from __future__ import annotations

import random
from collections import namedtuple

import numpy as np
import pytest

import descend as ds
from descend import layers as L

RNG = np.random.default_rng(3)
IMG = (RNG.random((2, 7, 9, 3)) * 255).astype(np.float32)
IMG3 = (RNG.random((6, 5, 3)) * 255).astype(np.float32)
U8 = RNG.integers(0, 256, (2, 6, 8, 3)).astype(np.uint8)
FEAT = RNG.standard_normal((20, 4)).astype(np.float32) * [1, 3, 0.5, 10] + [0, 1, -2, 5]
UNIT = RNG.random((2, 7, 9, 3)).astype(np.float32)
TOKENS = np.array([[12, 1138, 42], [42, 1000, 36], [0, 12, 7]])

# name, class name, constructor kwargs, input, call kwargs, tolerance (rtol, atol)
K = namedtuple("K", "name cls kwargs x call tol", defaults=({}, (0, 0)))
ROT = [K(f"RandomRotation-{f}-{fm}-{ip}", "RandomRotation", dict(factor=(f, f), fill_mode=fm, interpolation=ip,
                                                                 fill_value=7.0), IMG, {}, (1e-4, 2e-3))
       for f in (0.25, 0.1, -0.37) for fm in ("reflect", "wrap", "constant", "nearest") for ip in ("bilinear", "nearest")
       if not (ip == "nearest" and f != 0.25)]  # nearest rounding of sin/cos ulps can pick another pixel
CASES = [
    K("Rescaling-u8", "Rescaling", dict(scale=1 / 255), U8),
    K("Rescaling-offset", "Rescaling", dict(scale=1 / 127.5, offset=-1), IMG),
    K("Rescaling-per-channel", "Rescaling", dict(scale=[1.0, 0.5, 2.0], offset=[0.0, 1.0, -1.0]), IMG),
    K("Normalization-given", "Normalization", dict(mean=[0.0, 1.0, -2.0, 5.0], variance=[1.0, 9.0, 0.25, 100.0]),
      FEAT, {}, (1e-6, 1e-6)),
    K("Normalization-scalar", "Normalization", dict(axis=None, mean=2.0, variance=4.0), FEAT, {}, (1e-6, 1e-6)),
    K("Normalization-invert", "Normalization", dict(mean=[0.0, 1.0, -2.0, 5.0], variance=[1.0, 9.0, 0.25, 0.0],
                                                   invert=True), FEAT, {}, (1e-6, 1e-6)),
    K("Normalization-image-axes", "Normalization", dict(axis=(1, 2), mean=np.full((7, 9), 3.0),
                                                       variance=np.full((7, 9), 2.0)), IMG, {}, (1e-6, 1e-5)),
] + [K(f"Resizing-{m}", "Resizing", dict(height=4, width=13, interpolation=m), IMG, {}, (1e-5, 1e-3))
     for m in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5")] + [
    K("Resizing-antialias", "Resizing", dict(height=3, width=4, antialias=True), IMG, {}, (1e-5, 1e-3)),
    K("Resizing-crop-aspect", "Resizing", dict(height=4, width=3, crop_to_aspect_ratio=True), IMG, {}, (1e-5, 1e-3)),
    K("Resizing-pad-aspect", "Resizing", dict(height=4, width=3, pad_to_aspect_ratio=True, fill_value=9.0), IMG, {},
      (1e-5, 1e-3)),
    K("Resizing-pad-aspect-wide", "Resizing", dict(height=4, width=12, pad_to_aspect_ratio=True), IMG3, {},
      (1e-5, 1e-3)),
    K("Resizing-u8", "Resizing", dict(height=5, width=11), U8),
    K("Resizing-3d", "Resizing", dict(height=9, width=2), IMG3, {}, (1e-5, 1e-3)),
    K("CenterCrop-crop", "CenterCrop", dict(height=4, width=6), IMG),
    K("CenterCrop-odd", "CenterCrop", dict(height=3, width=2), IMG3),
    K("CenterCrop-smaller", "CenterCrop", dict(height=10, width=4), IMG, {}, (1e-5, 1e-3)),
    K("CenterCrop-u8", "CenterCrop", dict(height=4, width=4), U8),
    K("RandomFlip-inference", "RandomFlip", dict(), IMG, dict(training=False)),
    K("RandomRotation-inference", "RandomRotation", dict(factor=0.3), IMG, dict(training=False)),
] + ROT + [
    K(f"RandomZoom-{h}-{w}-{fm}", "RandomZoom", dict(height_factor=(h, h), width_factor=None if w is None else (w, w),
                                                     fill_mode=fm, fill_value=3.0), IMG, {}, (1e-4, 2e-3))
    for h, w in ((-0.3, None), (0.5, -0.2), (0.25, 0.4)) for fm in ("reflect", "wrap", "constant", "nearest")
] + [
    K(f"RandomTranslation-{h}-{w}-{fm}-{ip}", "RandomTranslation", dict(height_factor=(h, h), width_factor=(w, w),
                                                                        fill_mode=fm, interpolation=ip),
      IMG, {}, (1e-4, 2e-3))
    for h, w in ((0.2, -0.3), (-0.5, 0.45)) for fm in ("reflect", "wrap", "constant", "nearest")
    for ip in ("bilinear", "nearest")
] + [
    K("RandomZoom-inference", "RandomZoom", dict(height_factor=0.5), IMG, dict(training=False)),
    K("RandomTranslation-inference", "RandomTranslation", dict(height_factor=0.5, width_factor=0.1), IMG,
      dict(training=False)),
    K("RandomCrop-inference", "RandomCrop", dict(height=3, width=4), IMG, dict(training=False)),
    K("RandomCrop-smaller", "RandomCrop", dict(height=10, width=4), IMG, {}, (1e-5, 1e-3)),
    K("RandomCrop-3d-smaller", "RandomCrop", dict(height=6, width=8), IMG3, {}, (1e-5, 1e-3)),
    K("RandomContrast-zero", "RandomContrast", dict(factor=0.0, value_range=(10, 200)), IMG),
    K("RandomContrast-inference", "RandomContrast", dict(factor=0.5), IMG, dict(training=False)),
    K("RandomBrightness-fixed", "RandomBrightness", dict(factor=(0.1, 0.1)), IMG, {}, (1e-6, 1e-4)),
    K("RandomBrightness-negative-unit", "RandomBrightness", dict(factor=(-0.3, -0.3), value_range=(0, 1)), UNIT, {},
      (1e-6, 1e-6)),
    K("RandomBrightness-3d", "RandomBrightness", dict(factor=(0.5, 0.5)), IMG3, {}, (1e-6, 1e-4)),
    K("RandomBrightness-inference", "RandomBrightness", dict(factor=0.5), IMG, dict(training=False)),
    K("Discretization-int", "Discretization", dict(bin_boundaries=[-1.0, 0.0, 2.5]), FEAT),
    K("Discretization-one_hot", "Discretization", dict(bin_boundaries=[0.0, 1.0], output_mode="one_hot"),
      FEAT[:, 0]),
    K("Discretization-multi_hot", "Discretization", dict(bin_boundaries=[0.0, 1.0], output_mode="multi_hot"), FEAT),
    K("Discretization-count", "Discretization", dict(bin_boundaries=[0.0, 1.0, 4.0], output_mode="count"), FEAT),
    K("IntegerLookup-int", "IntegerLookup", dict(vocabulary=[12, 36, 1138, 42]), TOKENS),
    K("IntegerLookup-mask-oov2", "IntegerLookup", dict(vocabulary=[12, 36, 1138, 42], mask_token=0, num_oov_indices=2),
      TOKENS),
    K("IntegerLookup-invert", "IntegerLookup", dict(vocabulary=[12, 36, 1138, 42], invert=True),
      np.array([[1, 3, 4], [4, 0, 2], [7, 2, 1]])),
    K("IntegerLookup-invert-mask", "IntegerLookup", dict(vocabulary=[12, 36, 1138, 42], invert=True, mask_token=0),
      np.array([[1, 3, 5], [0, 9, 2]])),
    K("IntegerLookup-one_hot", "IntegerLookup", dict(vocabulary=[12, 36, 1138, 42], output_mode="one_hot"),
      np.array([12, 1000, 42])),
    K("IntegerLookup-multi_hot", "IntegerLookup", dict(vocabulary=[12, 36, 1138, 42], output_mode="multi_hot"),
      TOKENS),
    K("IntegerLookup-count-pad", "IntegerLookup", dict(vocabulary=[12, 36, 1138, 42], output_mode="count",
                                                     max_tokens=8, pad_to_max_tokens=True), TOKENS),
    K("IntegerLookup-oov3", "IntegerLookup", dict(vocabulary=[12, 36], num_oov_indices=3),
      np.array([12, 5, 6, 7, -1, -5, 1000, 36])),
    K("IntegerLookup-oov3-mask", "IntegerLookup", dict(vocabulary=[12, 36], num_oov_indices=3, mask_token=0),
      np.array([[12, 5, 6, 7], [-1, -5, 0, 36]])),
    K("IntegerLookup-tf_idf", "IntegerLookup", dict(vocabulary=[1, 2], idf_weights=[0.5, 0.25], output_mode="tf_idf"),
      np.array([[1, 2, 2, 9], [2, 7, 7, 7]])),
    K("IntegerLookup-tf_idf-pad", "IntegerLookup", dict(vocabulary=[1, 2], idf_weights=[0.5, 0.25], max_tokens=5,
                                                      output_mode="tf_idf", pad_to_max_tokens=True),
      np.array([[1, 2, 2, 9]])),
    K("IntegerLookup-mask-multi_hot", "IntegerLookup", dict(vocabulary=[1, 2], mask_token=0, output_mode="multi_hot"),
      np.array([[1, 0], [0, 5]])),
    K("IntegerLookup-mask-count-oov2", "IntegerLookup", dict(vocabulary=[1, 2], mask_token=0, num_oov_indices=2,
                                                           output_mode="count"), np.array([[1, 0, 3], [0, 4, 4]])),
    K("IntegerLookup-invert-oov2", "IntegerLookup", dict(vocabulary=[12, 36], num_oov_indices=2, invert=True),
      np.array([0, 1, 2, 3, 9])),
    K("CategoryEncoding-one_hot", "CategoryEncoding", dict(num_tokens=5, output_mode="one_hot"),
      np.array([3, 2, 0, 4, 1])),
    K("CategoryEncoding-one_hot-column", "CategoryEncoding", dict(num_tokens=5, output_mode="one_hot"),
      np.array([[3], [2], [0]])),
    K("CategoryEncoding-multi_hot", "CategoryEncoding", dict(num_tokens=4), np.array([[0, 1], [0, 0], [1, 2], [3, 1]])),
    K("CategoryEncoding-multi_hot-1d", "CategoryEncoding", dict(num_tokens=4), np.array([3, 2, 0, 1])),
    K("CategoryEncoding-count", "CategoryEncoding", dict(num_tokens=4, output_mode="count"),
      np.array([[0, 1, 1], [3, 3, 3], [1, 2, 0]])),
    K("CategoryEncoding-count-weights", "CategoryEncoding", dict(num_tokens=4, output_mode="count"),
      np.array([[0, 1], [0, 0], [1, 2], [3, 1]]), dict(count_weights=np.array([[.1, .2], [.1, .1], [.2, .3],
                                                                               [.4, .2]], np.float32)), (1e-6, 1e-7)),
]


@pytest.fixture(scope="module")
def keras():
    return pytest.importorskip("keras", minversion="3")


def _np(v):
    return np.asarray(v.numpy() if hasattr(v, "numpy") else v)


def test_case_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))


def test_every_layer_has_a_keras_case():
    from descend.layers import preprocessing
    missing = sorted(set(preprocessing.__all__) - {c.cls for c in CASES})
    assert not missing, f"preprocessing layers without a Keras case: {missing}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_forward_matches_keras(case, keras):
    got = _np(getattr(L, case.cls)(**case.kwargs)(case.x, **case.call))
    want = keras.ops.convert_to_numpy(getattr(keras.layers, case.cls)(**case.kwargs)(case.x, **case.call))
    assert got.shape == want.shape, f"{case.name}: shape {got.shape}, Keras {want.shape}"
    assert got.dtype == want.dtype, f"{case.name}: dtype {got.dtype}, Keras {want.dtype}"
    rtol, atol = case.tol
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(got, want, err_msg=case.name)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=case.name)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_config_round_trip_and_keras_keys(case, keras):
    layer = getattr(L, case.cls)(**case.kwargs)
    config = layer.get_config()
    again = type(layer).from_config(config)
    assert {k: v for k, v in again.get_config().items() if k != "name"} == \
        {k: v for k, v in config.items() if k != "name"}
    rebuilt = L.deserialize(L.serialize(layer))
    assert type(rebuilt) is type(layer)
    theirs = getattr(keras.layers, case.cls)(**case.kwargs).get_config()
    assert set(config) >= set(theirs) - {"sparse", "bounding_box_format"}, \
        f"{case.cls}: config keys {sorted(config)}; Keras {sorted(theirs)}"
    np.testing.assert_array_equal(_np(again(case.x, **case.call)).shape, _np(layer(case.x, **case.call)).shape)


# ---------------------------------------------------------------- adapt
ADAPT = {
    "array-f32": lambda: FEAT,
    "array-f64": lambda: FEAT.astype(np.float64),
    "list-of-batches": lambda: [FEAT[:7], FEAT[7:15], FEAT[15:]],
}


# per-row statistics (axis (0, 1)) need one batch shape: not with the list of batches of different sizes
@pytest.mark.parametrize("source,axis", [(s, a) for s in sorted(ADAPT) for a in (-1, None, (0, 1))
                                         if not (a == (0, 1) and s == "list-of-batches")])
def test_normalization_adapt_matches_keras(source, axis, keras):
    data = ADAPT[source]()
    ours, theirs = L.Normalization(axis=axis), keras.layers.Normalization(axis=axis)
    ours.adapt(data)
    theirs.adapt(data)
    np.testing.assert_allclose(ours.adapt_mean.numpy(), keras.ops.convert_to_numpy(theirs.adapt_mean), rtol=1e-6,
                               atol=1e-6)
    np.testing.assert_allclose(ours.adapt_variance.numpy(), keras.ops.convert_to_numpy(theirs.adapt_variance),
                               rtol=1e-5, atol=1e-6)
    x = FEAT[:5] if axis != (0, 1) else FEAT
    np.testing.assert_allclose(ours(x).numpy(), keras.ops.convert_to_numpy(theirs(x)), rtol=1e-5, atol=1e-5)
    # the weights a model saves (and fit starts from): Keras 3's adapt leaves `count` at 0
    assert [w.shape for w in ours.get_weights()] == [np.shape(w) for w in theirs.get_weights()]
    assert [float(np.abs(w).sum()) for w in ours.get_weights()][2:] == \
        [float(np.abs(w).sum()) for w in theirs.get_weights()][2:]


def test_normalization_adapt_on_a_dataset_matches_keras(keras):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = L.Normalization(), keras.layers.Normalization()
    ours.adapt(ds.data.Dataset.from_tensor_slices(FEAT).batch(6))
    theirs.adapt(tf.data.Dataset.from_tensor_slices(FEAT).batch(6))
    np.testing.assert_allclose(ours.adapt_mean.numpy(), keras.ops.convert_to_numpy(theirs.adapt_mean), rtol=1e-6)
    np.testing.assert_allclose(ours.adapt_variance.numpy(), keras.ops.convert_to_numpy(theirs.adapt_variance),
                               rtol=1e-5)
    # an unbatched dataset of vectors is batched by 128 first, as Keras does
    flat = L.Normalization(axis=None)
    flat.adapt(ds.data.Dataset.from_tensor_slices(FEAT[:, 1]))
    np.testing.assert_allclose(flat.adapt_mean.numpy(), FEAT[:, 1].mean(), rtol=1e-5)


@pytest.mark.parametrize("kwargs", [{}, {"max_tokens": 4}, {"mask_token": 0, "num_oov_indices": 2},
                                    {"num_oov_indices": 3, "max_tokens": 6}, {"output_mode": "tf_idf"},
                                    {"output_mode": "count", "mask_token": 0, "num_oov_indices": 2}])
def test_integer_lookup_adapt_matches_keras(kwargs, keras):
    data = RNG.integers(0, 9, (50, 3))
    ours, theirs = L.IntegerLookup(**kwargs), keras.layers.IntegerLookup(**kwargs)
    ours.adapt(data)
    theirs.adapt(data)
    assert ours.get_vocabulary() == [int(v) for v in theirs.get_vocabulary()]
    assert ours.vocabulary_size() == theirs.vocabulary_size()
    np.testing.assert_array_equal(ours(data[:6]).numpy(), keras.ops.convert_to_numpy(theirs(data[:6])))


def test_normalization_adapt_without_keras_is_the_data_statistics():
    norm = L.Normalization()
    norm.adapt([FEAT[:3], FEAT[3:]])  # batches of different sizes combine by their counts
    np.testing.assert_allclose(norm.adapt_mean.numpy(), FEAT.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(norm.adapt_variance.numpy(), FEAT.var(0), rtol=1e-5)
    out = norm(FEAT).numpy()
    np.testing.assert_allclose(out.mean(0), 0, atol=1e-5)
    np.testing.assert_allclose(out.std(0), 1, rtol=1e-4)
    inv = L.Normalization(mean=FEAT.mean(0), variance=FEAT.var(0), invert=True)
    np.testing.assert_allclose(inv(out).numpy(), FEAT, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("num_bins,epsilon,batched", [(4, 0.01, False), (3, 0.1, False), (5, 0.01, True)])
def test_discretization_adapt_matches_keras(num_bins, epsilon, batched, keras):
    data = RNG.standard_normal(1000).astype(np.float32) if not batched else None
    ours = L.Discretization(num_bins=num_bins, epsilon=epsilon)
    theirs = keras.layers.Discretization(num_bins=num_bins, epsilon=epsilon)
    if batched:
        batches = [RNG.standard_normal(100).astype(np.float32) for _ in range(5)]
        ours.adapt(batches)
        theirs.adapt(batches)
    else:
        ours.adapt(data)
        theirs.adapt(data)
    np.testing.assert_allclose(ours.bin_boundaries, theirs.bin_boundaries, rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------- random layers: contracts
def test_random_flip_flips_each_image_or_leaves_it_and_is_seeded():
    x = RNG.random((64, 3, 4, 1)).astype(np.float32)
    for mode, flip in (("horizontal", lambda a: a[:, :, ::-1]), ("vertical", lambda a: a[:, ::-1]),
                       ("horizontal_and_vertical", lambda a: a[:, ::-1, ::-1])):
        out = L.RandomFlip(mode, seed=4)(x).numpy()
        kept = np.all(out == x, axis=(1, 2, 3))
        flipped = np.all(out == flip(x), axis=(1, 2, 3))
        assert np.all(kept | flipped) and 10 < flipped.sum() < 54, mode
        assert np.array_equal(L.RandomFlip(mode, seed=4)(x).numpy(), out), "the same seed must draw the same flips"
        layer = L.RandomFlip(mode, seed=4)
        assert not np.array_equal(layer(x).numpy(), layer(x).numpy()), "the generator must advance between calls"


@pytest.mark.parametrize("factory,check", [
    (lambda: L.RandomRotation(0.2, seed=1), None),
    (lambda: L.RandomZoom(0.3, seed=1), None),
    (lambda: L.RandomTranslation(0.3, 0.3, seed=1), None),
    (lambda: L.RandomContrast(0.5, seed=1), "contrast"),
    (lambda: L.RandomBrightness(0.3, seed=1), "brightness"),
    (lambda: L.RandomCrop(3, 4, seed=1), "crop"),
], ids=["rotation", "zoom", "translation", "contrast", "brightness", "crop"])
def test_random_layers_vary_per_call_repeat_per_seed_and_pass_through_at_inference(factory, check):
    a, b = factory(), factory()
    out1, out2 = a(IMG).numpy(), a(IMG).numpy()
    assert not np.array_equal(out1, out2), "two calls must draw differently"
    assert np.array_equal(b(IMG).numpy(), out1), "a layer with the same seed must draw the same"
    assert np.array_equal(a(IMG, training=False).numpy(), IMG)
    if check == "contrast":  # each image's deviation from its mean scaled by one factor in [0.5, 1.5]
        mean = IMG.mean(axis=(1, 2), keepdims=True)
        ratio = (np.clip(out1, 0, 255) - mean) / (IMG - mean)
        inside = (out1 > 1e-3) & (out1 < 255 - 1e-3)
        for i in range(2):
            f = np.median(ratio[i][inside[i]])
            assert 0.5 <= f <= 1.5 and np.allclose(ratio[i][inside[i]], f, rtol=1e-3, atol=1e-3)
    if check == "brightness":
        delta = out1 - IMG
        for i in range(2):
            d = np.median(delta[i])
            assert abs(d) <= 0.3 * 255 + 1e-3
    if check == "crop":
        r, c = np.argwhere(IMG[0, ..., 0] == out1[0, 0, 0, 0])[0]
        assert np.array_equal(IMG[:, r:r + 3, c:c + 4], out1)


@pytest.mark.parametrize("factory", [
    lambda: L.RandomFlip(seed=1), lambda: L.RandomRotation(0.2, seed=1), lambda: L.RandomZoom(0.3, seed=1),
    lambda: L.RandomTranslation(0.3, 0.3, seed=1), lambda: L.RandomContrast(0.5, seed=1),
    lambda: L.RandomBrightness(0.3, seed=1), lambda: L.RandomCrop(3, 4, seed=1),
], ids=["flip", "rotation", "zoom", "translation", "contrast", "brightness", "crop"])
def test_a_compiled_step_draws_anew_on_every_call(factory):
    layer, eager = factory(), factory()
    step = ds.function(lambda x: layer(x, training=True))
    outs = [step(ds.constant(IMG)).numpy() for _ in range(4)]
    assert any(not np.array_equal(outs[0], o) for o in outs[1:]), "the compiled step froze its first draw"
    # the same generator stream as eager calls of a layer with the same seed
    np.testing.assert_array_equal(outs[1], [eager(IMG).numpy() for _ in range(2)][1])


# ---------------------------------------------------------------- inside models and pipelines
def test_augmentation_in_a_sequential_model_trains_and_is_identity_at_inference():
    ds.random.set_seed(0)
    model = ds.Sequential([
        L.Input((8, 8, 3)), L.RandomFlip("horizontal", seed=1), L.RandomRotation(0.1, seed=2), L.Rescaling(1 / 255),
        L.Resizing(4, 4), L.Flatten(), L.Dense(2),
    ])
    x = (RNG.random((16, 8, 8, 3)) * 255).astype(np.float32)
    y = RNG.integers(0, 2, 16)
    model.compile(optimizer="sgd", loss=ds.losses.SparseCategoricalCrossentropy(from_logits=True))
    hist = model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    assert np.isfinite(hist.history["loss"][0])
    p1, p2 = model.predict(x, verbose=0), model.predict(x, verbose=0)
    np.testing.assert_array_equal(p1, p2)
    # inference: the layers are the identity, so the output is Dense(Flatten(Resize(x / 255)))
    direct = model.layers[-1](L.Flatten()(ds.image.resize(x / 255.0, (4, 4)))).numpy()
    np.testing.assert_allclose(p1, direct, rtol=1e-5, atol=1e-6)


def test_normalization_in_a_functional_model_and_saved_config():
    norm = L.Normalization()
    norm.adapt(FEAT)
    inp = L.Input((4,))
    out = L.Dense(1)(norm(inp))
    model = ds.Model(inp, out)
    got = model(FEAT[:3]).numpy()
    dense = model.layers[-1]
    want = ((FEAT[:3] - FEAT.mean(0)) / FEAT.std(0)) @ dense.kernel.numpy() + dense.bias.numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    clone = ds.Model.from_config(model.get_config())
    assert any(isinstance(layer, L.Normalization) for layer in clone.layers)


@pytest.mark.parametrize("kwargs", [{}, {"output_mode": "tf_idf", "num_oov_indices": 2},
                                    {"mask_token": 0, "output_mode": "count"}])
def test_adapted_integer_lookup_config_and_saved_model_keep_the_vocabulary(tmp_path, kwargs):
    data = RNG.integers(0, 9, (40, 3))
    lookup = L.IntegerLookup(**kwargs)
    lookup.adapt(ds.data.Dataset.from_tensor_slices(data).batch(8))
    again = L.IntegerLookup.from_config(lookup.get_config())
    assert again.get_vocabulary() == lookup.get_vocabulary()
    np.testing.assert_array_equal(again(data[:5]).numpy(), lookup(data[:5]).numpy())
    inp = L.Input((3,), dtype="int64")
    x = lookup(inp)
    if lookup.output_mode == "int":
        x = L.Flatten()(L.Embedding(20, 2)(x))
    model = ds.Model(inp, L.Dense(1)(x))
    model.save(str(tmp_path / "m.keras"))
    loaded = ds.saving.load_model(str(tmp_path / "m.keras"))
    assert loaded.layers[1].get_vocabulary() == lookup.get_vocabulary()
    np.testing.assert_array_equal(loaded(data[:5]).numpy(), model(data[:5]).numpy())


def test_adapted_normalization_survives_save_and_load(tmp_path):
    norm = L.Normalization()
    norm.adapt(FEAT)
    inp = L.Input((4,))
    model = ds.Model(inp, L.Dense(2)(norm(inp)))
    want = model(FEAT[:4]).numpy()
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = ds.saving.load_model(path)
    np.testing.assert_allclose(loaded(FEAT[:4]).numpy(), want, rtol=1e-6)
    # weights set after the first call (a checkpoint restore, set_weights) take effect at once
    fresh = L.Normalization()
    fresh(FEAT[:2])
    fresh.set_weights(norm.get_weights())
    np.testing.assert_allclose(fresh(FEAT[:4]).numpy(), norm(FEAT[:4]).numpy(), rtol=1e-6)


def test_layers_in_dataset_map_augment():
    aug = L.RandomFlip("horizontal", seed=0)
    scale = L.Rescaling(1 / 255)
    data = ds.data.Dataset.from_tensor_slices(IMG).batch(1).map(lambda x: scale(aug(x)))
    outs = [b.numpy()[0] for b in data]
    for o, x in zip(outs, IMG):
        assert np.allclose(o, x / 255) or np.allclose(o, x[:, ::-1] / 255)


# ---------------------------------------------------------------- bad inputs
BAD = [
    ("Normalization-mean-only", lambda: L.Normalization(mean=1.0), ValueError, "both `mean` and `variance`"),
    ("Normalization-shapes", lambda: L.Normalization(mean=[1.0, 2.0], variance=[1.0]), ValueError, "same shape"),
    ("Normalization-axis", lambda: L.Normalization(axis=3)(FEAT), ValueError, r"\[-ndim, ndim\)"),
    ("Normalization-adapt-given", lambda: L.Normalization(mean=0.0, variance=1.0, axis=None).adapt(FEAT), ValueError,
     "cannot be adapted"),
    ("Normalization-adapt-type", lambda: L.Normalization().adapt(3.0), TypeError, "unsupported data type"),
    ("Normalization-adapt-empty", lambda: L.Normalization().adapt([]), ValueError, "no batches"),
    ("Resizing-size", lambda: L.Resizing(0, 3), ValueError, "positive int"),
    ("Resizing-interp", lambda: L.Resizing(3, 3, interpolation="cubic"), ValueError, "`interpolation`"),
    ("Resizing-both", lambda: L.Resizing(3, 3, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True), ValueError,
     "only one of"),
    ("Resizing-rank", lambda: L.Resizing(3, 3)(FEAT), ValueError, "rank 3"),
    ("CenterCrop-format", lambda: L.CenterCrop(3, 3, data_format="nhwc"), ValueError,
     "CenterCrop: data_format must be .channels_last. or .channels_first."),
    ("RandomFlip-mode", lambda: L.RandomFlip("diagonal"), ValueError, "`mode`"),
    ("RandomFlip-seed", lambda: L.RandomFlip(seed=-1), ValueError, "seed"),
    ("RandomRotation-factor", lambda: L.RandomRotation(1.5), ValueError, "`factor`"),
    ("RandomRotation-fill", lambda: L.RandomRotation(0.1, fill_mode="mirror"), NotImplementedError, "fill_mode"),
    ("RandomZoom-factor", lambda: L.RandomZoom(-1.0), ValueError, "height_factor"),
    ("RandomZoom-interp", lambda: L.RandomZoom(0.1, interpolation="bicubic"), NotImplementedError, "interpolation"),
    ("RandomTranslation-factor", lambda: L.RandomTranslation(0.1, (0.1, 0.2, 0.3)), ValueError, "width_factor"),
    ("RandomContrast-factor", lambda: L.RandomContrast(-0.5), ValueError, "`factor`"),
    ("RandomBrightness-range", lambda: L.RandomBrightness(0.1, value_range=1.0), ValueError, "value_range"),
    ("RandomCrop-size", lambda: L.RandomCrop(3, 0), ValueError, "positive int"),
    ("Discretization-unset", lambda: L.Discretization()(FEAT), ValueError, "bin_boundaries"),
    ("Discretization-adapt-boundaries", lambda: L.Discretization([0.0]).adapt(FEAT), ValueError, "num_bins"),
    ("Discretization-mode", lambda: L.Discretization([0.0], output_mode="tf_idf"), ValueError, "output_mode"),
    ("CategoryEncoding-range", lambda: L.CategoryEncoding(3)(np.array([0, 3])), ValueError, "0 <= values"),
    ("CategoryEncoding-tokens", lambda: L.CategoryEncoding(), ValueError, "num_tokens"),
    ("CategoryEncoding-weights", lambda: L.CategoryEncoding(3, "one_hot")(np.array([0]), count_weights=[1.0]),
     ValueError, "count_weights"),
    ("IntegerLookup-dupes", lambda: L.IntegerLookup(vocabulary=[1, 2, 1]), ValueError, "repeated"),
    ("IntegerLookup-no-oov", lambda: L.IntegerLookup(vocabulary=[1, 2], num_oov_indices=0)(np.array([3])), ValueError,
     "OOV values"),
    ("IntegerLookup-invert-mode", lambda: L.IntegerLookup(invert=True, output_mode="count"), ValueError, "invert"),
    ("IntegerLookup-tf_idf", lambda: L.IntegerLookup(output_mode="tf_idf", vocabulary=[1, 2]), ValueError, "tf_idf"),
    ("IntegerLookup-max", lambda: L.IntegerLookup(max_tokens=1), ValueError, "greater than 1"),
    ("CategoryEncoding-float", lambda: L.CategoryEncoding(3)(np.array([0.5])), ValueError, "integers"),
]


@pytest.mark.parametrize("name,call,exc,match", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_a_clear_error(name, call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_normalization_adapt_leaves_count_at_zero_as_keras():
    """Keras 3 keeps `count` for its files and never sets it in adapt (the preprocessing guide's get_weights)."""
    layer = ds.layers.Normalization()
    layer.adapt(np.arange(12, dtype=np.float32).reshape(4, 3))
    assert [w.numpy().tolist() for w in layer.weights] == [[4.5, 5.5, 6.5], [11.25, 11.25, 11.25], 0]


@pytest.mark.parametrize("make", [lambda: ds.layers.RandomFlip("horizontal"), lambda: ds.layers.RandomRotation(0.1),
                                  lambda: ds.layers.RandomZoom(0.1), lambda: ds.layers.RandomContrast(0.2)])
def test_an_unseeded_augmentation_layer_leaves_numpys_generator_alone_until_it_draws(make):
    """Keras leaves NumPy's generator alone: the guide's data drawn with np.random after building an augmentation
    stage must be TensorFlow's (the layers drew their seed from it when constructed); Python's random draws it."""
    images = np.ones((2, 8, 8, 3), np.float32)
    np.random.seed(4)
    want = np.random.random(3)
    np.random.seed(4)
    layer = make()
    layer(images, training=False)
    np.testing.assert_array_equal(np.random.random(3), want)
    random.seed(4)
    first = make()(images, training=True).numpy()  # unseeded: random.seed reproduces its draws, as Keras
    random.seed(4)
    np.testing.assert_array_equal(make()(images, training=True).numpy(), first)


@pytest.mark.parametrize("cls, old, new", [("TextVectorization", "tf-idf", "tf_idf"),
                                           ("TextVectorization", "binary", "multi_hot"),
                                           ("StringLookup", "tf-idf", "tf_idf"), ("IntegerLookup", "binary", "multi_hot")])
def test_keras_deprecated_output_mode_names_are_accepted(cls, old, new):
    """Keras 3 still takes "tf-idf" and "binary" (the preprocessing guide writes output_mode="tf-idf")."""
    assert getattr(ds.layers, cls)(output_mode=old).output_mode == new
