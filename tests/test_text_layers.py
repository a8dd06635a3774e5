"""``StringLookup`` and ``TextVectorization``: each case builds the same layer in descend and Keras (where
installed), adapts it on the same data and compares vocabulary, outputs (values, dtype, shape) and config."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds

TEXTS = ["The cat sat.", "the dog, the CAT!", "a b b c c c", "z y x", "Émile's café: CAFÉ"]
TOKENS = ["b", "a", "c", "a", "c", "b", "d", "é"]


def _keras():
    pytest.importorskip("tensorflow")
    return pytest.importorskip("keras", minversion="3")


def _dataset(m, values, batch):
    return m.data.Dataset.from_tensor_slices(values).batch(batch)


# name: (make the layer (layers module) -> layer, adapt data or None, call input)
SL = "StringLookup"
TV = "TextVectorization"
CASES = {
    "sl_adapt_int": (lambda L: L.StringLookup(), TOKENS, np.array(["a", "q", "d", "é"])),
    "sl_adapt_2d": (lambda L: L.StringLookup(), TOKENS, np.array([["a", "b"], ["x", "c"]])),
    "sl_max_tokens": (lambda L: L.StringLookup(max_tokens=3), TOKENS, np.array(["a", "b", "c", "d"])),
    "sl_vocab_multi_hot_1d": (lambda L: L.StringLookup(vocabulary=["a", "b"], output_mode="multi_hot"), None,
                              np.array(["a", "x", "b"])),
    "sl_vocab_multi_hot_2d": (lambda L: L.StringLookup(vocabulary=["a", "b"], output_mode="multi_hot"), None,
                              np.array([["a", "x"], ["b", "b"]])),
    "sl_count": (lambda L: L.StringLookup(vocabulary=["a", "b"], output_mode="count"), None,
                 np.array([["a", "x"], ["b", "b"]])),
    "sl_one_hot": (lambda L: L.StringLookup(vocabulary=["a", "b"], output_mode="one_hot"), None, np.array(["a", "x"])),
    "sl_one_hot_column": (lambda L: L.StringLookup(vocabulary=["a", "b"], output_mode="one_hot"), None,
                          np.array([["a"], ["x"]])),
    "sl_pad_to_max": (lambda L: L.StringLookup(vocabulary=["a", "b"], output_mode="multi_hot", max_tokens=5,
                                               pad_to_max_tokens=True), None, np.array([["a", "x"]])),
    "sl_mask": (lambda L: L.StringLookup(vocabulary=["a", "b"], mask_token=""), None, np.array(["a", "", "x"])),
    "sl_vocab_with_specials": (lambda L: L.StringLookup(vocabulary=["[UNK]", "a", "b"]), None, np.array(["b", "a"])),
    "sl_many_oov": (lambda L: L.StringLookup(vocabulary=["a", "b"], num_oov_indices=3), None,
                    np.array(["a", "x", "y", "zz", "b", "", "hello"])),
    "sl_many_oov_mask": (lambda L: L.StringLookup(vocabulary=["a", "b"], num_oov_indices=3, mask_token=""), None,
                         np.array(["a", "x", "y", "zz", "b", "", "hello"])),
    "sl_many_oov_adapt_count": (lambda L: L.StringLookup(num_oov_indices=2, output_mode="count"), TOKENS,
                                np.array([["a", "q", "r", "s"], ["b", "t", "u", "v"]])),
    "sl_mask_count": (lambda L: L.StringLookup(vocabulary=["a", "b"], mask_token="", output_mode="count"), None,
                      np.array([["a", ""], ["", "x"]])),
    "sl_mask_adapt_multi_hot": (lambda L: L.StringLookup(mask_token="", output_mode="multi_hot"), TOKENS + ["", ""],
                                np.array([["a", ""], ["", "x"]])),
    "sl_invert_many_oov_mask": (lambda L: L.StringLookup(vocabulary=["a", "b"], num_oov_indices=2, mask_token="",
                                                         invert=True), None, np.array([0, 1, 2, 3, 4, 9])),
    "sl_tf_idf_many_oov": (lambda L: L.StringLookup(output_mode="tf_idf", num_oov_indices=2, max_tokens=4),
                           np.array([["a", "b"], ["a", "a"], ["c", "b"]]), np.array([["a", "b", "q"], ["c", "z", "c"]])),
    "sl_invert": (lambda L: L.StringLookup(vocabulary=["a", "b"], invert=True), None, np.array([1, 2, 0, 7])),
    "sl_tf_idf": (lambda L: L.StringLookup(output_mode="tf_idf"), np.array([["a", "b"], ["a", "a"], ["c", "b"]]),
                  np.array([["a", "b", "q"], ["c", "c", "c"]])),
    "sl_dataset_adapt": (lambda L: L.StringLookup(), "dataset:tokens", np.array(["c", "b"])),
    "tv_default": (lambda L: L.TextVectorization(), TEXTS, np.array(TEXTS)),
    "tv_scalar": (lambda L: L.TextVectorization(), TEXTS, "the cat"),
    "tv_column": (lambda L: L.TextVectorization(), TEXTS, np.array([["the cat"], ["dog"]])),
    "tv_sequence_length": (lambda L: L.TextVectorization(max_tokens=5, output_sequence_length=3), TEXTS,
                           np.array(TEXTS)),
    "tv_ngrams_tf_idf": (lambda L: L.TextVectorization(max_tokens=6, ngrams=2, output_mode="tf_idf"),
                         "dataset:texts", np.array(TEXTS[:2])),
    "tv_ngrams_tuple": (lambda L: L.TextVectorization(ngrams=(2,), output_mode="count"), TEXTS, np.array(TEXTS[:3])),
    "tv_multi_hot": (lambda L: L.TextVectorization(output_mode="multi_hot"), TEXTS, np.array(TEXTS)),
    "tv_count_vocab": (lambda L: L.TextVectorization(vocabulary=["cat", "the"], output_mode="count"), None,
                       np.array(TEXTS[:2])),
    "tv_multi_hot_pad": (lambda L: L.TextVectorization(vocabulary=["cat", "the"], output_mode="multi_hot",
                                                       max_tokens=6, pad_to_max_tokens=True), None, np.array(TEXTS)),
    "tv_lower_only": (lambda L: L.TextVectorization(standardize="lower"), TEXTS, np.array(TEXTS[:2])),
    "tv_no_standardize": (lambda L: L.TextVectorization(standardize=None), TEXTS, np.array(TEXTS[:2])),
    "tv_character": (lambda L: L.TextVectorization(split="character", max_tokens=8), TEXTS, np.array(TEXTS[:2])),
    "tv_no_split": (lambda L: L.TextVectorization(split=None), ["a", "b b", "a"], np.array(["a", "c"])),
}


def _run(m, name):
    make, data, x = CASES[name]
    layer = make(m.layers)
    if data is not None:
        if isinstance(data, str):
            data = _dataset(m, TOKENS if data == "dataset:tokens" else TEXTS, 2)
        layer.adapt(data)
    out = layer(x)
    value = np.asarray(out.numpy())
    return layer, layer.get_vocabulary(), value, out.dtype.name


@pytest.mark.parametrize("name", sorted(CASES))
def test_text_layer_matches_keras(name):
    keras = _keras()
    import tensorflow as tf

    keras.utils.clear_session()
    ds.clear_session()
    _, vocab, got, dtype = _run(ds, name)

    class _K:  # keras layers with tf.data for the dataset cases
        layers = keras.layers
        data = tf.data

    _, k_vocab, want, k_dtype = _run(_K, name)
    assert vocab == [str(t) for t in k_vocab]
    assert dtype == k_dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6)
    else:
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("name", ["sl_adapt_int", "sl_mask", "sl_invert", "tv_sequence_length", "tv_count_vocab",
                                  "tv_ngrams_tuple", "sl_many_oov"])
def test_text_layer_config_matches_keras_and_round_trips(name):
    keras = _keras()
    import tensorflow as tf

    class _K:
        layers = keras.layers
        data = tf.data

    layer, _, out, _ = _run(ds, name)
    k_layer, _, _, _ = _run(_K, name)
    config, k_config = layer.get_config(), k_layer.get_config()
    assert set(config) == set(k_config)
    for key in set(config) - {"name", "dtype", "ngrams", "vocabulary"}:
        assert config[key] == k_config[key], key
    # Keras keeps an adapted vocabulary in asset files; descend's config carries it (special tokens left out)
    assert config["vocabulary"] == (k_config["vocabulary"] or [str(t) for t in k_layer.get_vocabulary(False)])
    again = type(layer).from_config(config)
    assert again.get_vocabulary() == layer.get_vocabulary()
    k_again = type(k_layer).from_config({**k_config, "vocabulary": config["vocabulary"]})
    assert [str(t) for t in k_again.get_vocabulary()] == layer.get_vocabulary()  # Keras reads descend's config
    np.testing.assert_array_equal(np.asarray(again(CASES[name][2]).numpy()), out)


def test_vocabulary_order_by_count_then_larger_token():
    layer = ds.layers.StringLookup()
    layer.adapt(["b", "a", "c", "a", "c", "b", "d", "e", "e", "e"])
    assert layer.get_vocabulary() == ["[UNK]", "e", "c", "b", "a", "d"]
    assert layer.get_vocabulary(include_special_tokens=False) == ["e", "c", "b", "a", "d"]
    tv = ds.layers.TextVectorization(max_tokens=4)
    tv.adapt(["x y", "y z", "z"])
    assert tv.get_vocabulary() == ["", "[UNK]", "z", "y"] and tv.vocabulary_size() == 4


def test_text_vectorization_first_layer_of_models_and_in_dataset_map():
    texts = np.array(TEXTS)
    tv = ds.layers.TextVectorization(max_tokens=20, output_sequence_length=4)
    tv.adapt(ds.data.Dataset.from_tensor_slices(TEXTS).batch(2))
    inp = ds.keras.Input(shape=(1,), dtype="string")
    x = tv(inp)
    assert x.shape == (None, 4) and x.dtype == ds.int64
    out = ds.layers.Dense(1)(ds.layers.GlobalAveragePooling1D()(ds.layers.Embedding(20, 3)(x)))
    model = ds.Model(inp, out)
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(texts[:, None], np.arange(5.0), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"]).all()
    assert model.predict(texts[:, None], verbose=0).shape == (5, 1)
    mapped = list(ds.data.Dataset.from_tensor_slices(TEXTS).batch(2).map(tv))
    np.testing.assert_array_equal(np.concatenate([m.numpy() for m in mapped]), tv(texts).numpy())
    seq = ds.Sequential([ds.keras.Input(shape=(1,), dtype="string"),
                         ds.layers.StringLookup(vocabulary=["a", "b"], output_mode="one_hot"), ds.layers.Dense(2)])
    assert seq(np.array([["a"], ["b"], ["c"]])).shape == (3, 2)
    assert seq.get_config()["layers"][0]["config"]["dtype"] == "string"


@pytest.mark.parametrize("mode", ["int", "tf_idf"])
def test_saved_model_keeps_the_adapted_vocabulary(tmp_path, mode):
    tv = ds.layers.TextVectorization(max_tokens=20, output_mode=mode, **({"output_sequence_length": 4}
                                                                         if mode == "int" else {}))
    tv.adapt(TEXTS)
    inp = ds.keras.Input(shape=(1,), dtype="string")
    x = tv(inp)
    if mode == "int":
        x = ds.layers.GlobalAveragePooling1D()(ds.layers.Embedding(20, 3)(x))
    model = ds.Model(inp, ds.layers.Dense(1)(x))
    path = str(tmp_path / "m.keras")
    model.save(path)
    again = ds.saving.load_model(path)
    texts = np.array(TEXTS)[:, None]
    assert again.layers[1].get_vocabulary() == tv.get_vocabulary()
    np.testing.assert_array_equal(again(texts).numpy(), model(texts).numpy())


def test_text_vectorization_ragged():
    tv = ds.layers.TextVectorization(vocabulary=["a", "b"], ragged=True)
    assert tv(["a b q", "b"]).to_list() == [[2, 3, 1], [3]]


BAD = {
    "mode": (lambda: ds.layers.StringLookup(output_mode="bag"), ValueError, "output_mode"),
    "oov_negative": (lambda: ds.layers.StringLookup(num_oov_indices=-1), ValueError, "num_oov_indices"),
    "pad_without_max": (lambda: ds.layers.StringLookup(pad_to_max_tokens=True), ValueError, "max_tokens"),
    "repeated_vocab": (lambda: ds.layers.StringLookup(vocabulary=["a", "a"]), ValueError, "repeated"),
    "special_inside": (lambda: ds.layers.StringLookup(vocabulary=["a", "[UNK]"]), ValueError, "special token"),
    "too_many": (lambda: ds.layers.StringLookup(vocabulary=["a", "b"], max_tokens=2), ValueError, "max_tokens=2"),
    "idf_missing": (lambda: ds.layers.StringLookup(vocabulary=["a"], output_mode="tf_idf"), ValueError, "idf_weights"),
    "numbers": (lambda: ds.layers.StringLookup(vocabulary=["a"])(np.array([1.0])), TypeError,
                "expected string inputs; received dtype float64"),
    "oov_zero": (lambda: ds.layers.StringLookup(vocabulary=["a"], num_oov_indices=0)(["a", "x"]),
                 ds.errors.InvalidArgumentError, "num_oov_indices=0"),
    "invert_strings": (lambda: ds.layers.StringLookup(vocabulary=["a"], invert=True)(["a"]), TypeError, "integer"),
    "tv_one_hot": (lambda: ds.layers.TextVectorization(output_mode="one_hot"), ValueError, "one_hot"),
    "tv_standardize": (lambda: ds.layers.TextVectorization(standardize="upper"), ValueError, "standardize"),
    "tv_split": (lambda: ds.layers.TextVectorization(split="comma"), ValueError, "split"),
    "tv_ngrams": (lambda: ds.layers.TextVectorization(ngrams=0), ValueError, "ngrams"),
    "tv_seq_mode": (lambda: ds.layers.TextVectorization(output_mode="count", output_sequence_length=3), ValueError,
                    "output_sequence_length"),
    "tv_rank": (lambda: ds.layers.TextVectorization(vocabulary=["a"])(np.array([["a", "b"]])), ValueError,
                "shape \\(1, 2\\)"),
    "tv_adapt_numbers": (lambda: ds.layers.TextVectorization().adapt(np.ones(3)), TypeError, "float64"),
    "tv_sparse": (lambda: ds.layers.TextVectorization(sparse=True), NotImplementedError, "SparseTensor"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_arguments_raise_clear_errors(name):
    fn, error, text = BAD[name]
    with pytest.raises(error, match=text):
        fn()


def test_failed_set_vocabulary_leaves_the_layer_as_it_was():
    layer = ds.layers.StringLookup(vocabulary=["a", "b"])
    with pytest.raises(ValueError, match="repeated"):
        layer.set_vocabulary(["x", "x"])
    assert layer.get_vocabulary() == ["[UNK]", "a", "b"]


def _text_folder(tmp_path):
    for c, texts in [("neg", ["bad film", "awful", "dull"]), ("pos", ["great", "good fun", "nice", "fine"])]:
        (tmp_path / c).mkdir()
        for i, t in enumerate(texts):
            (tmp_path / c / f"{i}.txt").write_text(t)
    (tmp_path / "pos" / "skip.md").write_text("not a text file")
    return str(tmp_path)


def _batches_of(d):
    return [tuple(np.asarray(t.numpy()).tolist() for t in (b if isinstance(b, tuple) else (b,))) for b in d]


@pytest.mark.parametrize("kwargs", [
    {"shuffle": False, "batch_size": 3},
    {"shuffle": False, "batch_size": 2, "label_mode": "categorical", "max_length": 4},
    {"shuffle": False, "batch_size": 4, "label_mode": "binary"},
    {"shuffle": False, "batch_size": 4, "label_mode": None},
    {"shuffle": False, "batch_size": 5, "validation_split": 0.3, "subset": "validation"},
    {"shuffle": False, "batch_size": 5, "class_names": ["pos", "neg"]},
])
def test_text_dataset_from_directory_matches_keras(tmp_path, kwargs):
    keras = _keras()
    folder = _text_folder(tmp_path)
    got = ds.keras.utils.text_dataset_from_directory(folder, verbose=False, **kwargs)
    want = keras.utils.text_dataset_from_directory(folder, verbose=False, **kwargs)
    assert got.class_names == want.class_names
    assert _batches_of(got) == _batches_of(want)


def test_text_dataset_from_directory_split_holds_keras_files(tmp_path):
    keras = _keras()
    folder = _text_folder(tmp_path)

    def texts(d):
        return sorted(t for b in _batches_of(d) for t in b[0])

    for subset in ("training", "validation"):
        got = ds.keras.utils.text_dataset_from_directory(folder, seed=7, validation_split=0.3, subset=subset,
                                                         verbose=False)
        want = keras.utils.text_dataset_from_directory(folder, seed=7, validation_split=0.3, subset=subset,
                                                       verbose=False)
        assert texts(got) == texts(want)


def test_text_dataset_from_directory_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ds.keras.utils.text_dataset_from_directory(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="given together"):
        ds.keras.utils.text_dataset_from_directory(_text_folder(tmp_path), validation_split=0.2)
    with pytest.raises(ValueError, match="label_mode"):
        ds.keras.utils.text_dataset_from_directory(str(tmp_path), label_mode="sparse")
