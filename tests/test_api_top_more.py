"""keras.ops windows/histogram, keras.utils logging switches and tf space-to-batch ops (issue 37).

The comparisons with TF/Keras are rows of tests/differential_cases.py; here: hand-computed values and errors."""

import numpy as np
import pytest

from descend.keras import ops


@pytest.mark.parametrize("name,n,expected", [
    ("bartlett", 5, [0.0, 0.5, 1.0, 0.5, 0.0]),
    ("hanning", 3, [0.0, 1.0, 0.0]),
    ("hamming", 3, [0.08, 1.0, 0.08]),
    ("blackman", 3, [0.0, 1.0, 0.0]),
    ("hamming", 1, [1.0]),
    ("hamming", 0, []),
])
def test_windows_values_and_dtype(name, n, expected):
    w = getattr(ops, name)(n)
    assert w.dtype == "float32"
    np.testing.assert_allclose(w.numpy(), expected, atol=1e-6)


def test_kaiser_beta_zero_is_rectangular():
    np.testing.assert_array_equal(ops.kaiser(4, 0.0).numpy(), np.ones(4, np.float32))


@pytest.mark.parametrize("bad,err", [(-1, ValueError), (2.5, TypeError), (True, TypeError)])
def test_windows_reject_bad_lengths(bad, err):
    with pytest.raises(err, match="window length"):
        ops.hamming(bad)


def test_histogram_counts_edges_and_range():
    counts, edges = ops.histogram(np.array([1.0, 2.0, 2.0, 3.5, 7.0], np.float32), bins=4)
    np.testing.assert_array_equal(counts.numpy(), [3, 1, 0, 1])  # 7 falls in the last, closed bin
    np.testing.assert_allclose(edges.numpy(), [1.0, 2.5, 4.0, 5.5, 7.0])
    assert counts.dtype == "float32"
    counts, edges = ops.histogram(np.array([-1.0, 0.5, 1.0, 3.9, 4.0, 9.0]), bins=2, range=(0, 4))
    np.testing.assert_array_equal(counts.numpy(), [2, 2])  # -1 and 9 dropped, 4.0 in the last bin
    # int input: Keras casts the edges to int (1, 2.5, 4, 5.5, 7 -> 1, 2, 4, 5, 7), so 2 counts in bin 1
    counts, edges = ops.histogram(np.array([1, 2, 2, 3, 7]), bins=4)
    np.testing.assert_array_equal(edges.numpy(), [1, 2, 4, 5, 7])
    np.testing.assert_array_equal(counts.numpy(), [1, 3, 0, 1])


@pytest.mark.parametrize("kwargs,match", [
    (dict(x=np.zeros((2, 2))), "1-dimensional"),
    (dict(x=np.zeros(3), bins=0), "positive int"),
    (dict(x=np.zeros(0)), "empty"),
    (dict(x=np.zeros(3), range=(2, 1)), "min <= max"),
])
def test_histogram_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ops.histogram(**kwargs)


def test_get_source_inputs_walks_the_graph_back():
    import descend as ds
    from descend.keras.utils import get_source_inputs

    a, b = ds.keras.Input(shape=(3,)), ds.keras.Input(shape=(3,))
    h = ds.layers.Dense(3)(a)
    out = ds.layers.Add()([ds.layers.Add()([h, b]), a])
    got = get_source_inputs(out)
    assert len(got) == 2 and got[0] is a and got[1] is b  # a reached first, each once
    assert get_source_inputs(a)[0] is a and len(get_source_inputs(a)) == 1
    x = np.ones(2)
    assert get_source_inputs(x) is x
