"""String tensors and ``descend.strings``: each case runs the same program on descend and on TensorFlow (where
installed) and compares values, dtypes and shapes; bad inputs raise errors that name what was expected."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds


def _tf():
    return pytest.importorskip("tensorflow")


def _plain(x):
    """A result as comparable Python data: (kind, dtype name, value)."""
    if hasattr(x, "to_list"):  # a RaggedTensor (descend's or TF's)
        return ("ragged", x.dtype.name, x.to_list())
    a = x.numpy()
    if isinstance(a, bytes):  # a string scalar's numpy() is its bytes, in TF and descend
        return ("bytes", x.dtype.name, a)
    return ("dense", x.dtype.name, a.shape, a.tolist())


# each case: m is descend or tensorflow; S is m.strings
CASES = {
    "constant_list": lambda m, S: m.constant(["a", "bc"]),
    "constant_bytes_2d": lambda m, S: m.constant([[b"a", b"b"], [b"c", b"d"]]),
    "constant_scalar": lambda m, S: m.constant("x"),
    "constant_numpy_str": lambda m, S: m.constant(np.array(["q", "rs"])),
    "constant_dtype_string": lambda m, S: m.constant(["é"], dtype=m.string),
    "reshape": lambda m, S: m.reshape(m.constant(["a", "b", "c", "d"]), [2, 2]),
    "gather": lambda m, S: m.gather(m.constant(["a", "b", "c"]), [2, 0, 2]),
    "concat": lambda m, S: m.concat([m.constant(["a"]), m.constant(["b", "c"])], axis=0),
    "stack": lambda m, S: m.stack([m.constant(["a", "b"]), m.constant(["c", "d"])], axis=1),
    "index": lambda m, S: m.constant(["a", "bc"])[1],
    "slice": lambda m, S: m.constant(["a", "bc", "d"])[1:],
    "equal_str": lambda m, S: m.constant(["a", "bc", "a"]) == "a",
    "not_equal_tensor": lambda m, S: m.constant(["a", "b"]) != m.constant(["a", "c"]),
    "shape": lambda m, S: m.shape(m.constant([["a"], ["b"]])),
    "rank": lambda m, S: m.rank(m.constant([["a"], ["b"]])),
    "where": lambda m, S: m.where([True, False], m.constant(["a", "b"]), m.constant(["x", "y"])),
    "lower": lambda m, S: S.lower(["HeLLo", "ÀB"]),
    "lower_utf8": lambda m, S: S.lower(["ÀB"], encoding="utf-8"),
    "upper": lambda m, S: S.upper([["ab"], ["c1"]]),
    "strip": lambda m, S: S.strip([" \t a b \n", "c"]),
    "length": lambda m, S: S.length(["héllo", ""]),
    "length_chars": lambda m, S: S.length(["héllo", ""], unit="UTF8_CHAR"),
    "substr": lambda m, S: S.substr(["hello", "world"], 1, 3),
    "substr_negative": lambda m, S: S.substr("hello", -3, 2),
    "substr_past_end": lambda m, S: S.substr("hello", 3, 10),
    "substr_vector_pos": lambda m, S: S.substr(["abc", "def"], [0, 1], [1, 2]),
    "join": lambda m, S: S.join([["a", "b"], "x"], separator="-"),
    "reduce_join_all": lambda m, S: S.reduce_join([["a", "b"], ["c", "d"]]),
    "reduce_join_axis1": lambda m, S: S.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator=","),
    "reduce_join_axis0_keep": lambda m, S: S.reduce_join([["a", "b"], ["c", "d"]], axis=0, keepdims=True),
    "regex_replace": lambda m, S: S.regex_replace(["Hello, World!", "a.b"], r"[^\w\s]", ""),
    "regex_replace_group": lambda m, S: S.regex_replace(["ab12"], r"([a-z]+)(\d+)", r"\2\1"),
    "regex_replace_first": lambda m, S: S.regex_replace(["aaa"], "a", "b", replace_global=False),
    "regex_full_match": lambda m, S: S.regex_full_match(["abc", "a1", ""], "[a-z]*"),
    "to_number": lambda m, S: S.to_number(["1.5", "-2", "3e2"]),
    "to_number_int": lambda m, S: S.to_number(["7", "-12"], out_type=m.int32),
    "to_number_f64": lambda m, S: S.to_number(["0.1"], out_type=m.float64),
    "as_string_float": lambda m, S: S.as_string([1.5, 2.0, -0.25]),
    "as_string_precision": lambda m, S: S.as_string([1.23456], precision=2),
    "as_string_scientific": lambda m, S: S.as_string([1234.5], scientific=True),
    "as_string_int": lambda m, S: S.as_string([3, -40]),
    "as_string_width": lambda m, S: S.as_string([3, 40], width=4, fill="0"),
    "as_string_bool": lambda m, S: S.as_string([True, False]),
    "format_scalar": lambda m, S: S.format("x={} y={}", (3, m.constant("s"))),
    "format_vector": lambda m, S: S.format("{}", m.constant([1.5, 2.0])),
    "format_strings": lambda m, S: S.format("v {}", m.constant(["a", "b"])),
    "format_summarize": lambda m, S: S.format("{}", m.constant(list(range(10)))),
    "split_whitespace": lambda m, S: S.split(["  a  b ", "", "c"]),
    "split_sep": lambda m, S: S.split(["a,,b", ""], sep=","),
    "split_scalar": lambda m, S: S.split("a b  c"),
    "split_maxsplit": lambda m, S: S.split(["a,b,c"], sep=",", maxsplit=1),
    "split_to_tensor": lambda m, S: S.split(["a b", "c"]).to_tensor(),
    "split_to_tensor_default": lambda m, S: S.split(["a b", "c"]).to_tensor(default_value="<pad>"),
    "split_values": lambda m, S: S.split(["a b", "c"]).values,
    "split_row_splits": lambda m, S: S.split(["a b", "c", ""]).row_splits,
    "split_row": lambda m, S: S.split(["a b", "c"])[0],
    "bytes_split": lambda m, S: S.bytes_split(["ab", ""]),
    "bytes_split_scalar": lambda m, S: S.bytes_split("xyz"),
    "unicode_split": lambda m, S: S.unicode_split(["hé", "ñ"], "UTF-8"),
    "ngrams_vector": lambda m, S: S.ngrams(m.constant(["a", "b", "c"]), 2),
    "ngrams_ragged": lambda m, S: S.ngrams(S.split(["a b c", "d"]), 2, separator="_"),
    "ngrams_widths": lambda m, S: S.ngrams(m.constant(["a", "b", "c"]), [1, 3]),
    "unicode_decode": lambda m, S: S.unicode_decode(["hé", ""], "UTF-8"),
    "unicode_decode_scalar": lambda m, S: S.unicode_decode("ab", "UTF-8"),
    "unicode_encode_vector": lambda m, S: S.unicode_encode([104, 233], "UTF-8"),
    "unicode_encode_matrix": lambda m, S: S.unicode_encode([[104], [105]], "UTF-8"),
    "unicode_encode_ragged": lambda m, S: S.unicode_encode(S.unicode_decode(["hé", "", "ñu"], "UTF-8"), "UTF-8"),
    "unsorted_segment_join": lambda m, S: S.unsorted_segment_join(["a", "b", "c", "d"], [1, 0, 1, 3], 4,
                                                                  separator=":"),
    "unsorted_segment_join_rows": lambda m, S: S.unsorted_segment_join([["a", "b"], ["c", "d"]], [1, 0], 2),
    "to_hash_bucket_fast": lambda m, S: S.to_hash_bucket_fast(["", "a", "hello world", "é" * 40], 1000),
    "to_hash_bucket_fast_2d": lambda m, S: S.to_hash_bucket_fast([["x", "y"], ["z", "w"]], 7),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_strings_match_tensorflow(name):
    tf = _tf()
    got = _plain(CASES[name](ds, ds.strings))
    want = _plain(CASES[name](tf, tf.strings))
    assert got == want, f"{name}: descend {got} != TF {want}"


@pytest.mark.parametrize("name", ["constant_list", "constant_scalar", "index", "split_to_tensor"])
def test_string_tensor_prints_as_tensorflow(name):
    tf = _tf()
    d, t = CASES[name](ds, ds.strings), CASES[name](tf, tf.strings)
    assert repr(d).replace("descend.Tensor", "tf.Tensor") == repr(t)
    assert str(d).replace("descend.Tensor", "tf.Tensor") == str(t)


def test_fingerprint64_matches_tensorflow_at_every_length_branch():
    tf = _tf()
    from descend.strings._fingerprint import fingerprint64

    rng = np.random.default_rng(0)
    # every length to 300 (each branch: 0, 1-3, 4-7, 8-16, 17-32, 33-64, the 64-byte loop and its tail), then longer
    texts = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in list(range(301)) + [511, 512, 513, 4099]]
    want = [int.from_bytes(bytes(row), "little") for row in tf.fingerprint(tf.constant(texts)).numpy()]
    assert [fingerprint64(t) for t in texts] == want
    got = ds.strings.to_hash_bucket_fast(texts, 2**62).numpy().tolist()
    assert got == tf.strings.to_hash_bucket_fast(texts, 2**62).numpy().tolist()


def test_string_dtype_facts():
    t = ds.constant(["a", "bc"])
    assert t.dtype == ds.string and ds.dtypes.string is ds.string and ds.as_dtype("string") is ds.string
    assert t.dtype.name == "string" and repr(ds.string) == "descend.string"
    assert t.numpy().dtype == object and t.numpy().tolist() == [b"a", b"bc"]
    assert not ds.string.is_floating and not ds.string.is_integer
    with pytest.raises(TypeError, match="minimum value of string"):
        ds.string.min  # noqa: B018


def test_string_tensor_has_no_gradient():
    t = ds.constant(["a", "b"])
    with ds.GradientTape() as tape:
        with pytest.warns(UserWarning, match="got string"):  # as TF, watching a string tensor warns
            tape.watch(t)
        y = t + t
    with pytest.raises(TypeError, match="string"):
        tape.gradient(y, t)


def test_dataset_of_strings_maps_and_batches():
    d = ds.data.Dataset.from_tensor_slices(["A b", "Cd", "e"])
    out = list(d.map(lambda s: ds.strings.lower(s) + "!").batch(2))
    assert [x.dtype for x in out] == [ds.string, ds.string]
    assert [x.numpy().tolist() for x in out] == [[b"a b!", b"cd!"], [b"e!"]]
    pairs = list(ds.data.Dataset.from_tensor_slices((np.array(["x", "yy"]), [1, 2])).batch(2))
    assert pairs[0][0].numpy().tolist() == [b"x", b"yy"] and pairs[0][1].numpy().tolist() == [1, 2]


def test_dataset_of_strings_matches_tensorflow():
    tf = _tf()

    def run(m):
        d = m.data.Dataset.from_tensor_slices(["A b c", "Cd", "e f"])
        d = d.map(lambda s: m.strings.reduce_join(m.strings.split(m.strings.lower(s)), separator="|"))
        return [x.numpy().tolist() for x in d.batch(2)]

    assert run(ds) == run(tf)


BAD = {
    "mixed_list": (lambda: ds.constant(["a", 1]), TypeError, "str or bytes"),
    "string_as_float": (lambda: ds.constant("1.5", dtype="float32"), TypeError, "float32"),
    "numbers_as_string": (lambda: ds.constant([1, 2], dtype="string"), TypeError, "str or bytes"),
    "numpy_text_as_int": (lambda: ds.convert_to_tensor(np.array(["1"]), dtype="int32"), TypeError, "int32"),
    "lower_of_float": (lambda: ds.strings.lower([1.0]), TypeError, "string tensor; received dtype float32"),
    "length_unit": (lambda: ds.strings.length(["a"], unit="WORD"), ValueError, "UTF8_CHAR"),
    "substr_out_of_range": (lambda: ds.strings.substr("abc", 5, 1), ds.errors.InvalidArgumentError, "pos 5"),
    "to_number_text": (lambda: ds.strings.to_number(["x1"]), ds.errors.InvalidArgumentError, "x1"),
    "to_number_overflow": (lambda: ds.strings.to_number(["99999999999"], out_type="int32"),
                           ds.errors.InvalidArgumentError, "out of range"),
    "to_number_type": (lambda: ds.strings.to_number(["1"], out_type="bool"), TypeError, "out_type"),
    "as_string_of_string": (lambda: ds.strings.as_string(["a"]), TypeError, "numeric"),
    "format_count": (lambda: ds.strings.format("{} {}", [1]), ds.errors.InvalidArgumentError, "2 placeholder"),
    "bad_regex": (lambda: ds.strings.regex_replace(["a"], "(", ""), ds.errors.InvalidArgumentError, "pattern"),
    "split_rank2": (lambda: ds.strings.split([["a"]]), ValueError, "scalar or a vector"),
    "join_empty": (lambda: ds.strings.join([]), ValueError, "non-empty list"),
    "reduce_join_axis": (lambda: ds.strings.reduce_join(["a"], axis=2), ds.errors.InvalidArgumentError, "axis 2"),
    "segment_id_range": (lambda: ds.strings.unsorted_segment_join(["a"], [3], 2), ds.errors.InvalidArgumentError,
                         "segment id 3"),
    "encode_floats": (lambda: ds.strings.unicode_encode([1.0], "UTF-8"), TypeError, "code points"),
    "decode_latin1": (lambda: ds.strings.unicode_decode(["a"], "latin-1"), ValueError, "UTF-8"),
    "hash_buckets": (lambda: ds.strings.to_hash_bucket_fast(["a"], 0), ValueError, "num_buckets"),
    "ngrams_width": (lambda: ds.strings.ngrams(ds.constant(["a"]), 0), ds.errors.InvalidArgumentError, "positive"),
    "ragged_row": (lambda: ds.strings.split(["a"])[3], ds.errors.InvalidArgumentError, "row 3"),
    "ragged_splits": (lambda: ds.RaggedTensor([b"a"], [0, 2]), ds.errors.InvalidArgumentError, "end at"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_inputs_raise_clear_errors(name):
    fn, error, text = BAD[name]
    with pytest.raises(error, match=text):
        fn()


def test_ragged_tensor_basics():
    r = ds.RaggedTensor.from_row_lengths(ds.constant(["a", "b", "c"]), [2, 0, 1])
    assert r.shape == (3, None) and r.nrows() == 3 and len(r) == 3
    assert r.row_lengths().numpy().tolist() == [2, 0, 1]
    assert [x.numpy().tolist() for x in r] == [[b"a", b"b"], [], [b"c"]]
    assert r.to_tensor(shape=[2, 1]).numpy().tolist() == [[b"a"], [b""]]
    assert repr(r) == "<descend.RaggedTensor [[b'a', b'b'], [], [b'c']]>"
