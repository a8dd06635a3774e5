"""keras.utils' remaining names (issue 37): normalize, pad_sequences, Progbar, timeseries_dataset_from_array,
split_dataset, pack/unpack_x_y_sample_weight, get_file (local origins and the cache only),
image_dataset_from_directory (Pillow decoding); compared with Keras 3 where it is installed."""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import zipfile

import numpy as np
import pytest

from descend.keras import utils


def _keras():
    return pytest.importorskip("keras", minversion="3")


SEQS = [[1, 2, 3], [4, 5], [], [6, 7, 8, 9, 10]]
PAD_CASES = [
    {},
    {"maxlen": 3},
    {"maxlen": 4, "padding": "post"},
    {"maxlen": 2, "truncating": "post"},
    {"maxlen": 6, "padding": "post", "truncating": "post", "value": -1},
    {"dtype": "float32", "value": 0.5},
]


@pytest.mark.parametrize("i", range(len(PAD_CASES)))
def test_pad_sequences_matches_keras(i):
    keras = _keras()
    ours = utils.pad_sequences(SEQS, **PAD_CASES[i])
    theirs = keras.utils.pad_sequences(SEQS, **PAD_CASES[i])
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_pad_sequences_known():
    np.testing.assert_array_equal(utils.pad_sequences([[1, 2, 3], [4]], maxlen=2),
                                  [[2, 3], [0, 4]])
    np.testing.assert_array_equal(utils.pad_sequences([[1, 2, 3], [4]], padding="post", truncating="post", maxlen=2),
                                  [[1, 2], [4, 0]])
    x = utils.pad_sequences([np.ones((2, 3)), np.ones((1, 3))])
    assert x.shape == (2, 2, 3) and x[1, 0].sum() == 0


@pytest.mark.parametrize("args", [(np.array([[3.0, 4.0], [0.0, 0.0]]),), (np.arange(12.0).reshape(3, 4), 0, 1),
                                  (np.array([1, 2, 2]), -1, 2)])
@pytest.mark.parametrize("reference", ["alone", "keras"])
def test_normalize(args, reference):
    out = utils.normalize(*args)
    x, axis, order = (list(args) + [-1, 2])[:3]
    norm = np.linalg.norm(np.asarray(x, np.float64), order, axis, keepdims=True)
    want = np.asarray(x) / np.where(norm == 0, 1, norm)
    np.testing.assert_allclose(out, want if want.ndim > 1 else want[None], rtol=1e-6)  # 1-D: (1, n), as Keras
    if axis == 0:
        return  # Keras' own normalize expands the norm at axis -1 when given axis=0 (and fails to broadcast)
    if reference == "alone":
        return
    keras = _keras()  # the Keras comparison: a separate test case, skipped (and re-run by CI) without Keras
    np.testing.assert_allclose(out, np.asarray(keras.utils.normalize(*args)), rtol=1e-6)


@pytest.mark.parametrize("reference", ["alone", "keras"])
def test_progbar_averages_as_keras(capsys, reference):
    steps = [(1, [("loss", 4.0), ("acc", 0.5)]), (3, [("loss", 1.0), ("acc", 0.7)]), (4, [("loss", 2.0)])]
    ours = utils.Progbar(4, stateful_metrics=["acc"], verbose=2)
    for current, values in steps:
        ours.update(current, values)
    # loss: (4 * 1 + 1 * 2 + 2 * 1) / 4 steps; acc: stateful, the last value
    assert ours.value("loss") == pytest.approx(2.0) and ours.value("acc") == pytest.approx(0.7)
    line = capsys.readouterr().out
    assert "4/4" in line and "loss: 2.0000" in line and "acc: 0.7000" in line
    if reference == "alone":
        return
    keras = _keras()  # the Keras comparison: a separate test case, skipped (and re-run by CI) without Keras
    theirs = keras.utils.Progbar(4, stateful_metrics=["acc"], verbose=0)
    for current, values in steps:
        theirs.update(current, values)
    for k in ("loss", "acc"):
        total, count = theirs._values[k]
        assert ours.value(k) == pytest.approx(float(total) / count)


TS_CASES = [
    dict(sequence_length=4),
    dict(sequence_length=3, sequence_stride=2, sampling_rate=2, batch_size=3),
    dict(sequence_length=2, start_index=3, end_index=15, batch_size=4),
    dict(sequence_length=5, sampling_rate=3, batch_size=None),
]


def _ts_data():
    return np.arange(40, dtype=np.float32).reshape(20, 2), np.arange(100, 120)


@pytest.mark.parametrize("i", range(len(TS_CASES)))
@pytest.mark.parametrize("with_targets", [True, False])
def test_timeseries_matches_keras(i, with_targets):
    keras = _keras()
    data, targets = _ts_data()
    targets = targets if with_targets else None
    ours = list(utils.timeseries_dataset_from_array(data, targets, **TS_CASES[i]).as_numpy_iterator())
    theirs = list(keras.utils.timeseries_dataset_from_array(data, targets, **TS_CASES[i]).as_numpy_iterator())
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        for u, v in zip(a if with_targets else (a,), b if with_targets else (b,)):
            np.testing.assert_array_equal(u, v)


def test_timeseries_known_and_shuffled():
    data, targets = _ts_data()
    x, y = next(iter(utils.timeseries_dataset_from_array(data[:, 0], targets, 3, sampling_rate=2, batch_size=2)))
    np.testing.assert_array_equal(x.numpy(), [[0, 4, 8], [2, 6, 10]])
    np.testing.assert_array_equal(y.numpy(), [100, 101])
    d = utils.timeseries_dataset_from_array(data[:, 0], targets, 3, shuffle=True, seed=4, batch_size=4)
    pairs = sorted((int(a[0]), int(b)) for xb, yb in d.as_numpy_iterator() for a, b in zip(xb, yb))
    assert pairs == [(2 * p, 100 + p) for p in range(18)]  # every window once, each with its own target


SPLIT_CASES = [
    dict(left_size=0.75),
    dict(right_size=3),
    dict(left_size=4, right_size=5),
    dict(left_size=0.5, shuffle=True, seed=11),
]


@pytest.mark.parametrize("i", range(len(SPLIT_CASES)))
def test_split_dataset_matches_keras(i):
    keras = _keras()
    x, y = np.arange(24).reshape(12, 2), np.arange(12) * 10
    ours = utils.split_dataset((x, y), **SPLIT_CASES[i])
    theirs = keras.utils.split_dataset((x, y), **SPLIT_CASES[i])
    for a, b in zip(ours, theirs):
        la, lb = list(a.as_numpy_iterator()), list(b.as_numpy_iterator())
        assert len(la) == len(lb)
        for (u1, u2), (v1, v2) in zip(la, lb):
            np.testing.assert_array_equal(u1, v1)
            np.testing.assert_array_equal(u2, v2)


def test_split_dataset_of_a_dataset_and_one_array():
    from descend.data import Dataset

    left, right = utils.split_dataset(Dataset.range(10), left_size=0.3)
    assert [int(v) for v in left] == [0, 1, 2] and [int(v) for v in right] == list(range(3, 10))
    left, right = utils.split_dataset(np.arange(5.0), right_size=0.4)
    assert [float(v) for v in right] == [3.0, 4.0]


def test_pack_unpack():
    assert utils.unpack_x_y_sample_weight((1, 2)) == (1, 2, None)
    assert utils.unpack_x_y_sample_weight([1, 2, 3]) == (1, 2, 3)
    assert utils.unpack_x_y_sample_weight(5) == (5, None, None)
    assert utils.pack_x_y_sample_weight((1, 2)) == ((1, 2),)
    assert utils.pack_x_y_sample_weight(1, 2, 3) == (1, 2, 3)
    with pytest.raises(ValueError, match="4 items"):
        utils.unpack_x_y_sample_weight((1, 2, 3, 4))


# ---------------------------------------------------------------- get_file
def test_get_file_local_origin_cache_hash_and_extract(tmp_path):
    src = tmp_path / "data.bin"
    src.write_bytes(b"hello descend")
    sha = hashlib.sha256(b"hello descend").hexdigest()
    cache = tmp_path / "cache"
    path = utils.get_file("data.bin", origin=src.as_uri(), file_hash=sha, cache_dir=str(cache))
    assert path == str(cache / "datasets" / "data.bin") and open(path, "rb").read() == b"hello descend"
    src.unlink()  # from the cache now, origin gone
    assert utils.get_file("data.bin", origin="https://example.invalid/data.bin", cache_dir=str(cache)) == path
    with pytest.raises(RuntimeError, match="does not download"):
        utils.get_file("other.bin", origin="https://example.invalid/other.bin", cache_dir=str(cache))
    # a wrong hash: the cached copy is stale, the origin is fetched again and refused
    src.write_bytes(b"changed")
    with pytest.raises(ValueError, match="hash"):
        utils.get_file("data.bin", origin=src.as_uri(), file_hash="0" * 64, cache_dir=str(cache))
    # archives
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        info = tarfile.TarInfo("pkg/a.txt")
        info.size = 3
        t.addfile(info, io.BytesIO(b"abc"))
    (tmp_path / "pkg.tar.gz").write_bytes(buf.getvalue())
    out = utils.get_file("pkg.tar.gz", origin=(tmp_path / "pkg.tar.gz").as_uri(), extract=True, cache_dir=str(cache))
    assert out == str(cache / "datasets" / "pkg_extracted")
    assert open(os.path.join(out, "pkg", "a.txt")).read() == "abc"
    with zipfile.ZipFile(tmp_path / "evil.zip", "w") as z:
        z.writestr("../escape.txt", "x")
    with pytest.raises(ValueError, match="outside"):
        utils.get_file("evil.zip", origin=(tmp_path / "evil.zip").as_uri(), extract=True, cache_dir=str(cache))
    assert not (cache / "datasets" / "escape.txt").exists()
    with pytest.raises(FileNotFoundError):
        utils.get_file("x.bin", origin=(tmp_path / "missing.bin").as_uri(), cache_dir=str(cache))
    with pytest.raises(ValueError, match="origin"):
        utils.get_file("x.bin")


# ---------------------------------------------------------------- images
def _image_tree(tmp_path):
    from PIL import Image

    rng = np.random.default_rng(0)
    for cls, n in (("cats", 3), ("dogs", 4)):
        (tmp_path / cls).mkdir()
        for i in range(n):
            arr = rng.integers(0, 256, (5 + i, 7, 3), dtype=np.uint8)
            Image.fromarray(arr).save(tmp_path / cls / f"{i}.png")
    (tmp_path / "dogs" / "notes.txt").write_text("not an image")
    return tmp_path


@pytest.mark.parametrize("kwargs", [dict(image_size=(4, 6)), dict(image_size=(9, 3), label_mode="categorical",
                                                                  color_mode="grayscale", batch_size=2),
                                    dict(image_size=(5, 7), label_mode="binary", validation_split=0.3,
                                         subset="validation", seed=1)])
def test_image_dataset_matches_keras(tmp_path, kwargs):
    keras = _keras()
    root = str(_image_tree(tmp_path))
    kwargs = dict(kwargs, shuffle=False)
    ours = utils.image_dataset_from_directory(root, **kwargs)
    theirs = keras.utils.image_dataset_from_directory(root, verbose=False, **kwargs)
    assert ours.class_names == theirs.class_names
    # grayscale: Pillow's conversion (ITU-R 601-2 luma, rounded), within one level of TF's decoder's
    atol = 1.0 if kwargs.get("color_mode") == "grayscale" else 1e-3
    for (xa, ya), (xb, yb) in zip(ours.as_numpy_iterator(), theirs.as_numpy_iterator(), strict=True):
        np.testing.assert_allclose(xa, xb, rtol=1e-5, atol=atol)
        np.testing.assert_array_equal(ya, yb)


def test_image_dataset_labels_and_errors(tmp_path):
    root = str(_image_tree(tmp_path))
    d = utils.image_dataset_from_directory(root, image_size=(5, 7), shuffle=False, batch_size=None)
    items = list(d.as_numpy_iterator())
    assert d.class_names == ["cats", "dogs"] and [int(y) for _, y in items] == [0, 0, 0, 1, 1, 1, 1]
    assert items[0][0].shape == (5, 7, 3) and items[0][0].dtype == np.float32
    train, val = utils.image_dataset_from_directory(root, image_size=(5, 7), validation_split=0.3, subset="both",
                                                    seed=3, batch_size=None)
    assert len(list(train)) == 5 and len(list(val)) == 2
    with pytest.raises(ValueError, match="not a directory"):
        utils.image_dataset_from_directory(str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="label_mode"):
        utils.image_dataset_from_directory(root, label_mode="sparse")
    with pytest.raises(ValueError, match="go together"):
        utils.image_dataset_from_directory(root, validation_split=0.2)
    with pytest.raises(ValueError, match="no images"):
        utils.image_dataset_from_directory(str(_empty(tmp_path)))


def _empty(tmp_path):
    p = tmp_path / "empty" / "cls"
    p.mkdir(parents=True)
    return tmp_path / "empty"


def test_resize_matches_bilinear_half_pixel():
    img = np.arange(12, dtype=np.float32).reshape(3, 4, 1)
    out = utils._resize_bilinear(img, (6, 2))
    # rows at source 0.5 * i - 0.25 (clamped), columns at 2 * j + 0.5
    rows = np.clip((np.arange(6) + 0.5) * 0.5 - 0.5, 0, None)
    cols = (np.arange(2) + 0.5) * 2 - 0.5
    grid = np.array([[np.interp(r, np.arange(3), img[:, k, 0]) for k in range(4)] for r in rows])
    want = np.array([[np.interp(c, np.arange(4), row) for c in cols] for row in grid])
    np.testing.assert_allclose(out[:, :, 0], want, rtol=1e-6)


BAD = [
    (lambda: utils.pad_sequences(SEQS, padding="middle"), ValueError, "padding type"),
    (lambda: utils.pad_sequences(SEQS, truncating="x"), ValueError, "truncating type"),
    (lambda: utils.pad_sequences([[1], 2]), ValueError, "non-iterable at index 1"),
    (lambda: utils.pad_sequences(SEQS, maxlen=-1), ValueError, "maxlen"),
    (lambda: utils.pad_sequences([[np.ones(2)], [np.ones(3)]]), ValueError, "expected"),
    (lambda: utils.Progbar(3, stateful_metrics=["a"], stateless_metrics=["b"]), ValueError, "only one"),
    (lambda: utils.timeseries_dataset_from_array(np.arange(5), None, 0), ValueError, "sequence_length"),
    (lambda: utils.timeseries_dataset_from_array(np.arange(5), None, 2, start_index=5), ValueError, "start_index"),
    (lambda: utils.timeseries_dataset_from_array(np.arange(5), np.arange(4), 2), ValueError, "length of `data`"),
    (lambda: utils.split_dataset(np.arange(5)), ValueError, "at least one"),
    (lambda: utils.split_dataset(np.arange(5), left_size=7), ValueError, "left_size"),
    (lambda: utils.split_dataset(np.arange(5), left_size="2"), TypeError, "int or float"),
    (lambda: utils.split_dataset(np.arange(5), left_size=0.6, right_size=0.6), ValueError, "sum"),
    (lambda: utils.split_dataset({"a": 1}, left_size=1), TypeError, "Dataset"),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_inputs(i):
    fn, exc, match = BAD[i]
    with pytest.raises(exc, match=match):
        fn()


@pytest.mark.parametrize("reference", ["alone", "keras"])
def test_image_array_helpers_round_trip(tmp_path, reference):
    rng = np.random.default_rng(1)
    arr = rng.integers(0, 256, (4, 5, 3)).astype("float32")
    arr[0, 0] = [0, 0, 0]
    arr[0, 1] = [255, 255, 255]  # the full range: scaling changes nothing
    utils.save_img(str(tmp_path / "a.png"), arr)
    img = utils.load_img(str(tmp_path / "a.png"))
    np.testing.assert_array_equal(utils.img_to_array(img), arr)
    assert utils.img_to_array(img, data_format="channels_first").shape == (3, 4, 5)
    small = utils.load_img(str(tmp_path / "a.png"), color_mode="grayscale", target_size=(2, 3))
    assert utils.img_to_array(small).shape == (2, 3, 1)
    np.testing.assert_array_equal(utils.img_to_array(utils.array_to_img(np.full((2, 2, 1), 3.0), scale=False)),
                                  np.full((2, 2, 1), 3.0))
    with pytest.raises(ValueError, match="channels"):
        utils.array_to_img(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="color_mode"):
        utils.load_img(str(tmp_path / "a.png"), color_mode="cmyk")
    if reference == "alone":
        return
    keras = _keras()  # the Keras comparison: a separate test case, skipped (and re-run by CI) without Keras
    np.testing.assert_array_equal(utils.img_to_array(img), keras.utils.img_to_array(keras.utils.load_img(
        str(tmp_path / "a.png"))))
    np.testing.assert_array_equal(utils.img_to_array(utils.array_to_img(arr * 0.5 + 3)),
                                  keras.utils.img_to_array(keras.utils.array_to_img(arr * 0.5 + 3)))


def test_reexports_are_the_same_objects():
    import descend as ds

    assert utils.clear_session is ds.clear_session
    assert utils.standardize_dtype is ds.keras.backend.standardize_dtype
    assert utils.is_keras_tensor(ds.keras.Input((2,))) and not utils.is_keras_tensor(np.ones(2))
