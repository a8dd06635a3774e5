"""``MixUp`` and ``CutMix``: on Keras' own draws, images and labels equal Keras' (skips without Keras); descend's
draws are seeded and follow Keras' distributions; dicts, single images, training=False; configs; refusals."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_RNG = np.random.default_rng(0)
_X = _RNG.uniform(0, 255, (6, 8, 7, 3)).astype(np.float32)
_Y = np.eye(4, dtype=np.float32)[[0, 1, 2, 3, 0, 1]]


@pytest.mark.parametrize("name, kwargs, x", [
    ("MixUp", dict(alpha=0.4), _X),
    ("CutMix", dict(factor=(0.2, 1.0)), _X),
    ("CutMix", dict(factor=0.7, data_format="channels_first"), np.ascontiguousarray(_X.transpose(0, 3, 1, 2))),
])
def test_keras_draws_give_keras_images_and_labels(name, kwargs, x):
    keras = pytest.importorskip("keras")
    theirs = getattr(keras.layers, name)(seed=2, **kwargs)
    ours = getattr(L, name)(**kwargs)
    for _ in range(3):
        drawn = theirs.get_random_transformation(x, training=True)
        mine = {k: np.asarray(v) for k, v in drawn.items()}
        np.testing.assert_allclose(ours.transform_images(x, mine).numpy(),
                                   np.asarray(theirs.transform_images(x, drawn)), rtol=1e-6)
        np.testing.assert_allclose(ours.transform_labels(_Y, mine).numpy(),
                                   np.asarray(theirs.transform_labels(_Y, drawn)), rtol=1e-6, atol=1e-7)


def test_cutmix_boxes_and_weights():
    layer = L.CutMix(seed=4)
    t = layer.get_random_transformation(_X)
    m = t["batch_masks"].numpy()
    assert m.dtype == bool and m.shape == _X.shape and (m == m[..., :1]).all()
    assert sorted(t["permutation_order"].numpy().tolist()) == list(range(6))
    for i in range(6):  # each box is a rectangle of whole pixels; the weight is 1 - its real-valued area share
        rows, cols = np.where(m[i, :, :, 0])
        if rows.size:
            assert rows.size == (rows.max() - rows.min() + 1) * (cols.max() - cols.min() + 1)
            assert abs((1 - t["mix_weight"].numpy()[i]) * 56 - rows.size) <= (rows.max() - rows.min() + 2) + (
                cols.max() - cols.min() + 2)
    # box [x0, x1) x [y0, y1) = [1, 3.5) x [2, 4): columns 1..3, rows 2..3; weight 1 - 2.5 * 2 / (7 * 8)
    one = ds.constant(np.ones(1, np.float32))
    masks, weight = layer._masks((1, 8, 7, 3), one, one * 3.5, one * 2, one * 4)
    want = np.zeros((1, 8, 7, 3), bool)
    want[:, 2:4, 1:4] = True
    np.testing.assert_array_equal(masks.numpy(), want)
    np.testing.assert_allclose(weight.numpy(), [1 - 5.0 / 56], rtol=1e-6)


def test_mixup_draws_follow_beta_and_permute():
    layer = L.MixUp(alpha=0.5, seed=1)
    t = layer.get_random_transformation(np.zeros((4000, 1, 1, 1), np.float32))
    w = t["mix_weight"].numpy()
    assert abs(w.mean() - 0.5) < 0.02 and abs(w.var() - 0.125) < 0.01  # Beta(.5, .5): mean 1/2, var 1/8
    order = t["permutation_order"].numpy()
    assert sorted(order.tolist()) == list(range(4000))


def test_dicts_seeds_single_images_and_training_off():
    for make in (lambda: L.MixUp(seed=3), lambda: L.CutMix(seed=3)):
        a, b = make(), make()
        out = a({"images": _X, "labels": _Y, "other": 5})
        again = b({"images": _X, "labels": _Y, "other": 5})
        np.testing.assert_array_equal(out["images"].numpy(), again["images"].numpy())
        np.testing.assert_allclose(out["labels"].numpy().sum(axis=1), _Y.sum(axis=1), rtol=1e-5)
        assert out["other"] == 5
        np.testing.assert_array_equal(a(_X, training=False).numpy(), _X)
        off = a({"images": _X, "labels": _Y}, training=False)
        np.testing.assert_array_equal(off["labels"].numpy(), _Y)
        config = a.get_config()
        assert type(a).from_config(config).get_config() == config
    np.testing.assert_array_equal(L.CutMix()(_X[0]).numpy(), _X[0])  # one image: unchanged, as Keras
    np.testing.assert_allclose(L.MixUp()(_X[0]).numpy(), _X[0], rtol=1e-6)  # mixed with itself


@pytest.mark.parametrize("make", [lambda: L.MixUp(alpha=0), lambda: L.MixUp(alpha="a"), lambda: L.CutMix(factor=2),
                                  lambda: L.CutMix(factor=(0.1, 0.2, 0.3)), lambda: L.MixUp(data_format="x"),
                                  lambda: L.CutMix(seed=-1)])
def test_bad_arguments_are_refused(make):
    with pytest.raises(ValueError):
        make()


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="images"):
        L.MixUp()({"labels": _Y})
    with pytest.raises(ValueError, match="rank"):
        L.CutMix()(np.zeros((2, 3), np.float32))
