"""``keras.utils`` functions added for issue 37, against Keras' own where it is installed."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds

U = ds.keras.utils
SEQS = [[1, 2, 3], [4], [], [5, 6, 7, 8, 9]]


@pytest.mark.parametrize("kwargs", [{}, {"maxlen": 3}, {"maxlen": 3, "padding": "post"},
                                    {"maxlen": 2, "truncating": "post", "value": -1}, {"dtype": "float32"}])
def test_pad_sequences_matches_keras(kwargs):
    keras = pytest.importorskip("keras")
    want = keras.utils.pad_sequences(SEQS, **kwargs)
    got = U.pad_sequences(SEQS, **kwargs)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_pad_sequences_without_keras():
    np.testing.assert_array_equal(U.pad_sequences([[1, 2], [3]], padding="post"), [[1, 2], [3, 0]])
    with pytest.raises(ValueError, match='"pre" or "post"'):
        U.pad_sequences([[1]], padding="middle")


def test_normalize_and_the_data_tuples():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(U.normalize(x), [[0.6, 0.8], [0.0, 0.0]])
    assert U.unpack_x_y_sample_weight((1, 2)) == (1, 2, None)
    assert U.pack_x_y_sample_weight(1, 2, 3) == (1, 2, 3) and U.pack_x_y_sample_weight([1, 2]) == ([1, 2],)
    assert U.standardize_dtype(ds.float64) == "float64" and U.standardize_dtype(None) == "float32"
    assert U.is_keras_tensor(ds.keras.Input((2,))) and not U.is_keras_tensor(ds.ones(2))
