"""tf.lookup (descend/lookup.py): tables from tensors and text files, against TF."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds


def _run(m, make, keys):
    return np.asarray(make(m).lookup(m.constant(keys)).numpy())


CASES = {
    "hash_strings": (lambda m: m.lookup.StaticHashTable(m.lookup.KeyValueTensorInitializer(["a", "b"], [3, 4]), -1),
                     [["a", "z"], ["b", "a"]]),
    "hash_ints_to_strings": (lambda m: m.lookup.StaticHashTable(
        m.lookup.KeyValueTensorInitializer(np.array([1, 5], np.int64), ["one", "five"]), "?"), np.array([5, 2, 1])),
    "hash_float_values": (lambda m: m.lookup.StaticHashTable(
        m.lookup.KeyValueTensorInitializer(["x"], [0.5]), 1.5), ["x", "y"]),
    "vocab_strings": (lambda m: m.lookup.StaticVocabularyTable(
        m.lookup.KeyValueTensorInitializer(["a", "b"], np.array([0, 1], np.int64)), 3),
        ["a", "z", "q", "b", "hello", "", "\u00e9"]),
    "vocab_ints": (lambda m: m.lookup.StaticVocabularyTable(
        m.lookup.KeyValueTensorInitializer(np.array([10, 20], np.int64), np.array([0, 1], np.int64)), 5),
        np.array([10, 7, 1234, 20, -3, 2**40], np.int64)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lookup_equals_tensorflows(name):
    tf = pytest.importorskip("tensorflow")
    make, keys = CASES[name]
    ours, theirs = _run(ds, make, keys), _run(tf, make, keys)
    assert ours.tolist() == theirs.tolist()
    assert int(make(ds).size()) == int(make(tf).size())


@pytest.mark.parametrize("key_index,value_index,key_dtype,value_dtype", [
    (-2, -1, "string", "int64"), (0, 1, "string", "int64"), (1, 0, "int64", "string"), (-1, -2, "int64", "string"),
])
def test_text_file_initializer_equals_tensorflows(tmp_path, key_index, value_index, key_dtype, value_dtype):
    tf = pytest.importorskip("tensorflow")
    path = tmp_path / "vocab.txt"
    path.write_text("cat\t7\ndog\t9\nemu\t11\n")
    keys = {"string": ["dog", "cat\t7", "cat", "zzz", "emu\t11"], "int64": np.array([9, 0, 2, 7, 11], np.int64)}[key_dtype]
    default = {"int64": -1, "string": "none"}[value_dtype]

    def make(m):
        init = m.lookup.TextFileInitializer(str(path), getattr(m, key_dtype), key_index, getattr(m, value_dtype),
                                            value_index)
        return m.lookup.StaticHashTable(init, default)

    assert _run(ds, make, keys).tolist() == _run(tf, make, keys).tolist()


def test_tables_without_tensorflow_and_their_errors(tmp_path):
    table = ds.lookup.StaticHashTable(ds.lookup.KeyValueTensorInitializer(["a", "b"], [3, 4]), -1)
    assert table.lookup(ds.constant(["b", "q"])).numpy().tolist() == [4, -1]
    assert [t.numpy().tolist() for t in table.export()] == [[b"a", b"b"], [3, 4]]
    with pytest.raises(TypeError, match="must be string"):
        table.lookup(ds.constant([1]))
    with pytest.raises(ds.errors.InvalidArgumentError, match="two values"):
        ds.lookup.StaticHashTable(ds.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), 0)
    with pytest.raises(ValueError, match="num_oov_buckets"):
        ds.lookup.StaticVocabularyTable(ds.lookup.KeyValueTensorInitializer(["a"], np.array([0], np.int64)), 0)
    (tmp_path / "v.txt").write_text("a\nb\n")
    with pytest.raises(ValueError, match="vocab_size"):
        ds.lookup.TextFileInitializer(str(tmp_path / "v.txt"), ds.string, -2, ds.int64, -1, vocab_size=5).initialize()
    assert ds.lookup.TextFileIndex.WHOLE_LINE == -2 and ds.lookup.TextFileIndex.LINE_NUMBER == -1
