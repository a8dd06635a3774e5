"""tf.io (descend/io.py): Example parsing, TFRecord files, base64 and raw bytes, against TF."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds


def _example(m):
    return m.train.Example(features=m.train.Features(feature={
        "a": m.train.Feature(int64_list=m.train.Int64List(value=[1, -2])),
        "b": m.train.Feature(float_list=m.train.FloatList(value=[0.5])),
        "s": m.train.Feature(bytes_list=m.train.BytesList(value=[b"x", b"yz"])),
        "m": m.train.Feature(float_list=m.train.FloatList(value=[1, 2, 3, 4, 5, 6])),
    })).SerializeToString()


def _specs(m):
    return {"a": m.io.FixedLenFeature([2], m.int64), "b": m.io.FixedLenFeature([], m.float32),
            "s": m.io.VarLenFeature(m.string), "c": m.io.FixedLenFeature([1], m.float32, default_value=[7.0]),
            "v": m.io.VarLenFeature(m.int64), "m": m.io.FixedLenFeature([2, 3], m.float32),
            "t": m.io.FixedLenFeature([2], m.string, default_value=[b"p", b"q"])}


def _same(ours, theirs):
    assert set(ours) == set(theirs)
    for k in theirs:
        if hasattr(theirs[k], "dense_shape"):
            assert np.asarray(ours[k].indices.numpy()).tolist() == theirs[k].indices.numpy().tolist()
            assert list(np.asarray(ours[k].values.numpy()).reshape(-1)) == list(theirs[k].values.numpy())
            assert np.asarray(ours[k].dense_shape.numpy()).tolist() == theirs[k].dense_shape.numpy().tolist()
        else:
            o, t = np.asarray(ours[k].numpy()), theirs[k].numpy()
            assert o.shape == t.shape and o.tolist() == t.tolist(), k


def test_parse_single_example_equals_tensorflows():
    tf = pytest.importorskip("tensorflow")
    _same(ds.io.parse_single_example(_example(ds), _specs(ds)), tf.io.parse_single_example(_example(tf), _specs(tf)))


def test_parse_example_equals_tensorflows():
    tf = pytest.importorskip("tensorflow")
    other = tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[5, 6])),
        "b": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0])),
        "m": tf.train.Feature(float_list=tf.train.FloatList(value=[0] * 6)),
        "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[9, 8, 7]))})).SerializeToString()
    batch = [_example(tf), other]
    _same(ds.io.parse_example(batch, _specs(ds)), tf.io.parse_example(batch, _specs(tf)))


@pytest.mark.parametrize("specs,match", [
    ({"zz": ("fixed", [1], "float32")}, "is required but could not be found"),
    ({"a": ("fixed", [3], "int64")}, "Can't parse serialized Example"),
    ({"a": ("fixed", [2], "float32")}, "Data types don't match"),
])
def test_bad_features_are_refused_as_tensorflow_refuses_them(specs, match):
    def build(m):
        return {k: m.io.FixedLenFeature(shape, getattr(m, dtype)) for k, (_, shape, dtype) in specs.items()}

    with pytest.raises(ds.errors.InvalidArgumentError, match=match):
        ds.io.parse_single_example(_example(ds), build(ds))
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.io.parse_single_example(_example(tf), build(tf))


def test_malformed_example_bytes_are_refused():
    with pytest.raises(ds.errors.InvalidArgumentError, match="could not parse"):
        ds.io.parse_single_example(b"\n\x05\x01", {"a": ds.io.FixedLenFeature([1], ds.int64)})


@pytest.mark.parametrize("compression", [None, "ZLIB", "GZIP"])
def test_tfrecord_files_read_back_by_tensorflow(tmp_path, compression):
    tf = pytest.importorskip("tensorflow")
    path = str(tmp_path / "r.tfrecord")
    records = [b"", b"hello", bytes(range(256)) * 40, _example(ds)]
    with ds.io.TFRecordWriter(path, compression) as w:
        for r in records:
            w.write(r)
    back = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=compression or "")]
    assert back == records
    if compression is None:  # and the file's bytes are TF's
        theirs = str(tmp_path / "t.tfrecord")
        with tf.io.TFRecordWriter(theirs) as w:
            for r in records:
                w.write(r)
        assert open(path, "rb").read() == open(theirs, "rb").read()


def test_read_write_and_matching_files(tmp_path):
    path = str(tmp_path / "sub" / "f.bin")
    ds.io.write_file(path, b"\x00abc")
    assert ds.io.read_file(path).numpy() == b"\x00abc"
    (tmp_path / "sub" / "g.bin").write_bytes(b"")
    names = ds.io.matching_files(str(tmp_path / "sub" / "*.bin")).numpy().tolist()
    assert names == [str(tmp_path / "sub" / n).encode() for n in ("f.bin", "g.bin")]


@pytest.mark.parametrize("pad", [False, True])
def test_base64_equals_tensorflows(pad):
    tf = pytest.importorskip("tensorflow")
    data = [b"", b"a", b"ab", b"abc", bytes(range(250))]
    ours = ds.io.encode_base64(data, pad=pad).numpy().tolist()
    assert ours == tf.io.encode_base64(data, pad=pad).numpy().tolist()
    assert ds.io.decode_base64(ours).numpy().tolist() == data


@pytest.mark.parametrize("out_type,little", [("int32", True), ("int32", False), ("float32", True), ("uint16", False),
                                              ("float64", True)])
def test_decode_raw_equals_tensorflows(out_type, little):
    tf = pytest.importorskip("tensorflow")
    data = [bytes(range(16)), bytes(range(100, 116))]
    ours = ds.io.decode_raw(data, getattr(ds, out_type), little_endian=little).numpy()
    theirs = tf.io.decode_raw(data, getattr(tf, out_type), little_endian=little).numpy()
    np.testing.assert_array_equal(ours, theirs)
    assert ours.dtype == theirs.dtype
    ours = ds.io.decode_raw([b"\x01\x02\x03", b"\x04"], ds.uint8, fixed_length=2).numpy()
    assert ours.tolist() == tf.io.decode_raw([b"\x01\x02\x03", b"\x04"], tf.uint8, fixed_length=2).numpy().tolist()


def test_codecs_are_the_image_ones():
    assert ds.io.decode_png is ds.image.decode_png and ds.io.is_jpeg is ds.image.is_jpeg
    with pytest.raises(ds.errors.InvalidArgumentError, match="different lengths"):
        ds.io.decode_raw([b"ab", b"c"], ds.uint8)
    with pytest.raises(ValueError, match="compression_type"):
        ds.io.TFRecordOptions("LZ4")


def test_dataset_list_files_as_tensorflow(tmp_path):
    for n in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / n).write_text(n)
    pattern = str(tmp_path / "*.txt")
    names = [x.numpy() for x in ds.data.Dataset.list_files(pattern, shuffle=False)]
    assert names == [str(tmp_path / n).encode() for n in ("a.txt", "b.txt")]
    shuffled = sorted(x.numpy() for x in ds.data.Dataset.list_files([pattern, str(tmp_path / "*.csv")], seed=3))
    assert shuffled == sorted(names + [str(tmp_path / "c.csv").encode()])
    with pytest.raises(ds.errors.InvalidArgumentError, match="No files matched pattern"):
        ds.data.Dataset.list_files(str(tmp_path / "*.none"))
    tf = pytest.importorskip("tensorflow")
    theirs = [x.numpy() for x in tf.data.Dataset.list_files(pattern, shuffle=False)]
    assert names == theirs
