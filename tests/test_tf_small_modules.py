"""tf.bitwise, tf.audio, tf.fingerprint, tf.version and tf.AggregationMethod (issue 37), against TF."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import descend as ds

_INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def _operands(dtype):
    info = np.iinfo(dtype)
    x = np.array([0, 1, 5, info.max, info.min, info.max // 3, 7, 1], dtype)
    y = np.array([0, 1, 3, 1, 2, info.max, 70, info.bits - 1], dtype) if info.min == 0 else \
        np.array([0, 1, 3, -1, 2, 9, 70, info.bits - 1], dtype)
    return x, y


@pytest.mark.parametrize("op", ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"])
@pytest.mark.parametrize("dtype", _INTS)
def test_bitwise_binary_equals_tensorflow(op, dtype):
    tf = pytest.importorskip("tensorflow")
    x, y = _operands(dtype)
    ours = getattr(ds.bitwise, op)(ds.constant(x), ds.constant(y)).numpy()
    theirs = getattr(tf.bitwise, op)(tf.constant(x), tf.constant(y)).numpy()
    assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs), (ours, theirs)
    # broadcasting
    ours = getattr(ds.bitwise, op)(ds.constant(x[:3]), ds.constant(y[:3].reshape(3, 1))).numpy()
    theirs = getattr(tf.bitwise, op)(tf.constant(x[:3]), tf.constant(y[:3].reshape(3, 1))).numpy()
    assert np.array_equal(ours, theirs)


@pytest.mark.parametrize("dtype", _INTS)
def test_invert_equals_tensorflow(dtype):
    tf = pytest.importorskip("tensorflow")
    x, _ = _operands(dtype)
    assert np.array_equal(ds.bitwise.invert(ds.constant(x)).numpy(), tf.bitwise.invert(tf.constant(x)).numpy())


def test_bitwise_rules_without_tensorflow():
    assert ds.bitwise.left_shift(ds.constant([5], ds.int8), ds.constant([9], ds.int8)).numpy()[0] == -128
    assert ds.bitwise.right_shift(ds.constant([-4]), ds.constant([40])).numpy()[0] == -1
    with pytest.raises(TypeError, match="same dtype"):
        ds.bitwise.bitwise_and(ds.constant([1]), ds.constant([1], ds.int64))
    with pytest.raises(TypeError, match="integer tensor"):
        ds.bitwise.bitwise_or([True], [False])
    with pytest.raises(TypeError, match="integer tensor"):
        ds.bitwise.invert([1.5])


AUDIO = [
    np.array([[0.0, 1.0], [-1.0, 0.5], [2.0, -0.25]], np.float32),
    np.array([[0.3], [0.7], [-0.3], [-0.7], [0.5 / 32768], [1.5 / 32768], [-0.5 / 32768], [np.nan], [-5.0]],
             np.float32),
    np.zeros((0, 3), np.float32),
    np.random.default_rng(0).uniform(-1.2, 1.2, (100, 4)).astype(np.float32),
]


@pytest.mark.parametrize("i", range(len(AUDIO)))
def test_encode_wav_bytes_and_decode_equal_tensorflows(i):
    tf = pytest.importorskip("tensorflow")
    a = AUDIO[i]
    ours = ds.audio.encode_wav(a, 22050).numpy()
    theirs = tf.audio.encode_wav(a, 22050).numpy()
    assert ours == theirs
    for channels, samples in [(-1, -1), (1, -1), (6, -1), (-1, 2), (2, 200)]:
        d = ds.audio.decode_wav(theirs, desired_channels=channels, desired_samples=samples)
        t = tf.audio.decode_wav(theirs, desired_channels=channels, desired_samples=samples)
        assert np.array_equal(d.audio.numpy(), t.audio.numpy()), (channels, samples)
        assert int(d.sample_rate) == int(t.sample_rate) and d.sample_rate.numpy().dtype == np.int32


def _wav(chunks):
    body = b"WAVE" + b"".join(cid + struct.pack("<I", len(data)) + data + b"\0" * (len(data) & 1)
                              for cid, data in chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_decode_skips_other_chunks_and_reads_the_samples():
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    wav = _wav([(b"LIST", b"abc"), (b"fmt ", fmt), (b"data", struct.pack("<2h", 16384, -32768))])
    out = ds.audio.decode_wav(wav)
    assert out.audio.numpy().ravel().tolist() == [0.5, -1.0] and int(out.sample_rate) == 8000


@pytest.mark.parametrize("data,match", [
    (b"RIFFxx", "not a RIFF/WAVE"),
    (_wav([(b"data", b"\0\0")]), "no fmt  chunk"),
    (_wav([(b"fmt ", struct.pack("<HHIIHH", 3, 1, 8000, 32000, 4, 32)), (b"data", b"\0" * 4)]), "only 16-bit PCM"),
    (_wav([(b"fmt ", struct.pack("<HHIIHH", 1, 2, 8000, 32000, 4, 16)), (b"data", b"\0" * 6)]), "whole frames"),
    (_wav([(b"fmt ", struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16))]) + b"data\xff\xff\xff\x7f", "declares"),
])
def test_malformed_wav_files_are_refused(data, match):
    with pytest.raises(ds.errors.InvalidArgumentError, match=match):
        ds.audio.decode_wav(data)


def test_encode_wav_refuses_a_bad_shape():
    with pytest.raises(ds.errors.InvalidArgumentError, match="2-dimensional"):
        ds.audio.encode_wav([1.0, 2.0], 8000)


@pytest.mark.parametrize("data", [
    ["a", "hello", ""], [["a", "b"], ["c", "d"]], np.array([[1, 2], [3, 4]], np.int32), np.array([1.5, 2.0]),
    np.zeros((0, 3), np.float32), np.arange(24, dtype=np.int64).reshape(2, 3, 4), [[True, False]],
    np.array([1.5, -2.0], np.float16),
])
def test_fingerprint_equals_tensorflows(data):
    tf = pytest.importorskip("tensorflow")
    ours = ds.fingerprint(data).numpy()
    theirs = tf.fingerprint(data).numpy()
    assert ours.dtype == theirs.dtype == np.uint8 and np.array_equal(ours, theirs)


def test_fingerprint_refuses_a_scalar_and_another_method():
    assert ds.fingerprint(["a"]).numpy().tolist() == [[227, 117, 223, 182, 101, 66, 69, 179]]  # TF's, recorded
    with pytest.raises(ds.errors.InvalidArgumentError, match="at least one dimension"):
        ds.fingerprint(3)
    with pytest.raises(ValueError, match="farmhash64"):
        ds.fingerprint(["a"], method="md5")


def test_version_and_aggregation_method():
    assert ds.version.VERSION == ds.__version__ and ds.version.GIT_VERSION.endswith(ds.__version__)
    assert ds.AggregationMethod is ds.compat.v1.train.AggregationMethod
    tf = pytest.importorskip("tensorflow")
    for name in ("ADD_N", "DEFAULT", "EXPERIMENTAL_TREE", "EXPERIMENTAL_ACCUMULATE_N"):
        assert getattr(ds.AggregationMethod, name) == getattr(tf.AggregationMethod, name)


def test_matrix_square_root_is_tfs_alias_of_sqrtm():
    assert ds.matrix_square_root is ds.linalg.sqrtm
    tf = pytest.importorskip("tensorflow")
    assert tf.matrix_square_root is tf.linalg.sqrtm
