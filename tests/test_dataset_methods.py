"""tf.data's catalogue beyond the basics (issue 37): enumerate, flat_map, interleave, scan, window, unbatch,
rebatch, padded_batch, group_by_window, bucket_by_sequence_length, choose/sample_from_datasets, random,
counter, zip(*args), reduce, unique, get_single_element, ignore_errors; each pipeline compared element by
element with TensorFlow where it is installed, and resumed exactly from every position."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend.data import Dataset
from descend.errors import InvalidArgumentError
from descend.framework import nest


def _pairs(d, x):
    return d.zip((d.from_tensor_slices(x), d.from_tensor_slices(x * 10)))


# each case: a pipeline written once, run with descend's Dataset and TF's tf.data.Dataset
PIPELINES = {
    "enumerate": lambda D: D.range(5).enumerate(start=3),
    "flat_map": lambda D: D.range(1, 4).flat_map(lambda x: D.range(x)),
    "interleave_c2_b1": lambda D: D.range(1, 6).interleave(lambda x: D.from_tensors(x).repeat(x), cycle_length=2),
    "interleave_c3_b2": lambda D: D.range(1, 7).interleave(lambda x: D.range(10 * x, 10 * x + x), cycle_length=3,
                                                           block_length=2),
    "interleave_c4_b4": lambda D: D.range(1, 4).interleave(lambda x: D.from_tensors(x).repeat(6), cycle_length=4,
                                                           block_length=4),
    "scan": lambda D: D.range(6).scan(np.int64(0), lambda s, x: (s + x, s * 10 + x)),
    "scan_tuple_state": lambda D: D.range(5).scan((np.int64(1), np.int64(0)), lambda s, x: ((s[0] * 2, s[1] + x),
                                                                                             s[0] + s[1])),
    "window_flat": lambda D: D.range(7).window(3, 2).flat_map(lambda w: w.batch(3)),
    "window_drop_stride": lambda D: D.range(12).window(3, shift=2, stride=2, drop_remainder=True).flat_map(
        lambda w: w.batch(3)),
    "window_shift_gt_size": lambda D: D.range(10).window(2, shift=4).flat_map(lambda w: w.batch(2)),
    "window_tuple": lambda D: _pairs(D, np.arange(5)).window(2, 1, drop_remainder=True).flat_map(
        lambda a, b: D.zip((a.batch(2), b.batch(2)))),
    "unbatch": lambda D: D.range(7).batch(3).unbatch(),
    "unbatch_tuple": lambda D: _pairs(D, np.arange(6).reshape(3, 2)).unbatch(),
    "rebatch": lambda D: D.range(10).batch(4).rebatch(3),
    "padded_batch": lambda D: D.range(1, 6).map(lambda x: ds_or_tf(D).fill([x], x)).padded_batch(2),
    "padded_batch_shapes": lambda D: D.range(1, 5).map(lambda x: ds_or_tf(D).fill([x], x)).padded_batch(
        3, padded_shapes=[6], padding_values=np.int64(-1)),
    "group_by_window": lambda D: D.range(13).group_by_window(lambda x: x % 3, lambda k, w: w.batch(4),
                                                            window_size=2),
    "group_by_window_size_func": lambda D: D.range(20).group_by_window(
        lambda x: x % 4, lambda k, w: w.batch(9), window_size_func=lambda k: k + 1),
    "bucket_by_sequence_length": lambda D: D.range(1, 12).map(lambda x: ds_or_tf(D).fill([x % 5 + 1], x))
    .bucket_by_sequence_length(lambda x: ds_or_tf(D).shape(x)[0], [3, 5], [2, 3, 2]),
    "bucket_no_padding": lambda D: D.range(20).bucket_by_sequence_length(
        lambda x: ds_or_tf(D).cast(x % 7, "int32"), [2, 4], [3, 2, 4], no_padding=True),
    "bucket_to_boundary": lambda D: D.range(1, 9).map(lambda x: ds_or_tf(D).fill([x % 4 + 1], x))
    .bucket_by_sequence_length(lambda x: ds_or_tf(D).shape(x)[0], [3, 6], [2, 2, 2], padded_shapes=[None],
                               pad_to_bucket_boundary=True),
    "choose_from_datasets": lambda D: D.choose_from_datasets(
        [D.range(3), D.range(10, 14), D.range(20, 22)], D.from_tensor_slices(np.array([0, 1, 2, 2, 1, 0, 1, 2, 0]))),
    "choose_no_stop": lambda D: D.choose_from_datasets(
        [D.range(2), D.range(10, 14)], D.from_tensor_slices(np.array([0, 0, 0, 1, 0, 1, 1])),
        stop_on_empty_dataset=False),
    "unique": lambda D: D.from_tensor_slices(np.array([3, 1, 3, 2, 1, 5, 2])).unique(),
    "zip_args": lambda D: D.zip(D.range(3), D.range(5, 9)),
    "counter_take": lambda D: D.counter(4, 3).take(5),
    "concatenate_skip": lambda D: D.range(3).concatenate(D.range(7, 10)).skip(2),
    "take_while": lambda D: D.range(10).take_while(lambda x: x < 4),
    "take_while_after_filter": lambda D: D.range(20).filter(lambda x: x % 3 == 0).take_while(lambda x: x != 12),
    "shard": lambda D: D.range(11).shard(3, 1),
    "shard_last": lambda D: D.range(10).shard(4, 3),
    "apply": lambda D: D.range(5).apply(lambda d: d.skip(1).batch(2)),
}


def ds_or_tf(D):
    """The module of ``fill``/``shape`` matching the Dataset class ``D``."""
    if D is Dataset:
        return ds
    import tensorflow as tf

    return tf


def _collect(d):
    out = []
    for e in d.as_numpy_iterator():
        leaves = nest.flatten(e)
        out.append([np.asarray(x) for x in leaves])
    return out


def _same(a, b):
    assert len(a) == len(b), f"{len(a)} elements vs {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        assert len(x) == len(y), f"element {i}: {len(x)} components vs {len(y)}"
        for u, v in zip(x, y):
            assert u.shape == v.shape and np.array_equal(u, v), f"element {i}: {u!r} != {v!r}"


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_matches_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    ours = _collect(PIPELINES[name](Dataset))
    theirs = _collect(PIPELINES[name](tf.data.Dataset))
    _same(ours, theirs)


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_cardinality_matches_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    ours = int(PIPELINES[name](Dataset).cardinality())
    theirs = int(PIPELINES[name](tf.data.Dataset).cardinality())
    if theirs >= 0 and ours == ds.data.UNKNOWN_CARDINALITY:
        pytest.skip(f"descend reports unknown where TF knows {theirs}")  # never the reverse
    assert ours == theirs


# expectations worked out by hand from tf.data's definitions (these run without TensorFlow)
EXPECTED = {
    "flat_map": [[0], [0], [1], [0], [1], [2]],
    "interleave_c2_b1": [[1], [2], [2], [3], [3], [4], [3], [4], [4], [5], [4], [5], [5], [5], [5]],
    "window_flat": [[[0, 1, 2]], [[2, 3, 4]], [[4, 5, 6]], [[6]]],
    "window_drop_stride": [[[0, 2, 4]], [[2, 4, 6]], [[4, 6, 8]], [[6, 8, 10]]],
    "scan": [[0], [1], [12], [33], [64], [105]],
    "group_by_window": [[[0, 3]], [[1, 4]], [[2, 5]], [[6, 9]], [[7, 10]], [[8, 11]], [[12]]],
    "unique": [[3], [1], [2], [5]],
    "choose_from_datasets": [[0], [10], [20], [21], [11], [1], [12]],
    "choose_no_stop": [[0], [1], [10], [11], [12]],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_known_orders(name):
    got = [[x.tolist() for x in e] for e in _collect(PIPELINES[name](Dataset))]
    assert got == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_resume_from_every_position(name):
    d = PIPELINES[name](Dataset)
    full = _collect(d)
    for k in range(len(full) + 1):
        it = d.as_numpy_iterator()
        for _ in range(k):
            next(it)
        state = it.get_state()
        rest = [[np.asarray(x) for x in nest.flatten(e)] for e in d.iterator_from_state(state, numpy=True)]
        _same(rest, full[k:])


def test_random_is_seeded_and_resumable():
    a = list(Dataset.random(seed=7).take(600).as_numpy_iterator())
    b = list(Dataset.random(seed=7).take(600).as_numpy_iterator())
    c = list(Dataset.random(seed=8).take(600).as_numpy_iterator())
    assert a == b and a != c and len(set(int(x) for x in a)) == 600
    assert all(np.asarray(x).dtype == np.int64 for x in a)
    d = Dataset.random(seed=3, rerandomize_each_iteration=True).take(4)
    e1, e2 = list(d.as_numpy_iterator()), list(d.as_numpy_iterator())
    assert e1 != e2
    it = Dataset.random(seed=7).as_numpy_iterator()
    for _ in range(513):
        next(it)
    assert int(next(Dataset.random(seed=7).iterator_from_state(it.get_state(), numpy=True))) == int(a[513])
    assert int(Dataset.random(seed=1).cardinality()) == ds.data.INFINITE_CARDINALITY


def test_sample_from_datasets_frequencies_and_exhaustion():
    d = Dataset.sample_from_datasets([Dataset.from_tensors(np.int64(0)).repeat(), Dataset.from_tensors(
        np.int64(1)).repeat()], weights=[0.2, 0.8], seed=5).take(4000)
    values = np.array(list(d.as_numpy_iterator()))
    assert 0.77 < values.mean() < 0.83
    assert np.array_equal(values, np.array(list(d.as_numpy_iterator())))  # seeded: the same each epoch
    # exhausted inputs are passed over: every element of every input, each input in its own order
    e = Dataset.sample_from_datasets([Dataset.range(5), Dataset.range(100, 103)], seed=2)
    got = [int(x) for x in e.as_numpy_iterator()]
    assert sorted(got) == [0, 1, 2, 3, 4, 100, 101, 102]
    assert [x for x in got if x < 100] == [0, 1, 2, 3, 4]
    stop = Dataset.sample_from_datasets([Dataset.range(5), Dataset.range(100, 103)], seed=2,
                                        stop_on_empty_dataset=True)
    assert len(list(stop.as_numpy_iterator())) < 8


def test_reduce_get_single_element_ignore_errors():
    assert int(Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x)) == 10
    s, n = Dataset.range(1, 5).reduce((np.int64(1), np.int64(0)), lambda st, x: (st[0] * x, st[1] + 1))
    assert (int(s), int(n)) == (24, 4)
    assert Dataset.range(3).map(lambda x: (x, x * 2)).skip(1).take(1).get_single_element()[1].numpy() == 2
    with pytest.raises(InvalidArgumentError, match="empty"):
        Dataset.range(0).get_single_element()
    with pytest.raises(InvalidArgumentError, match="more than one"):
        Dataset.range(2).get_single_element()

    def check(x):
        if int(x) % 3 == 1:
            raise ValueError("bad element")
        return x

    d = Dataset.range(8).map(check).ignore_errors()
    assert [int(x) for x in d] == [0, 2, 3, 5, 6]
    with pytest.warns(UserWarning, match="bad element"):
        list(Dataset.range(3).map(check).ignore_errors(log_warning=True))


def test_window_elements_are_datasets_per_component():
    w = next(iter(Dataset.from_tensor_slices({"a": np.arange(4), "b": np.arange(4) * 2}).window(3)))
    assert set(w) == {"a", "b"} and all(isinstance(v, Dataset) for v in w.values())
    assert [int(v) for v in w["b"]] == [0, 2, 4]


def test_cardinality_constants_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    assert ds.data.INFINITE_CARDINALITY == tf.data.INFINITE_CARDINALITY
    assert ds.data.UNKNOWN_CARDINALITY == tf.data.UNKNOWN_CARDINALITY
    assert int(Dataset.counter().cardinality()) == int(tf.data.Dataset.counter().cardinality())


BAD = [
    (lambda: Dataset.range(3).flat_map(lambda x: x).get_single_element(), TypeError, "must return a Dataset"),
    (lambda: Dataset.range(3).flat_map(5), TypeError, "callable"),
    (lambda: Dataset.range(3).interleave(lambda x: Dataset.range(x), cycle_length=0), ValueError, "cycle_length"),
    (lambda: Dataset.range(3).interleave(lambda x: Dataset.range(x), block_length=-2), ValueError, "block_length"),
    (lambda: Dataset.range(3).window(0), ValueError, "size"),
    (lambda: Dataset.range(3).window(2, shift=0), ValueError, "shift"),
    (lambda: list(Dataset.range(3).scan(np.int64(0), lambda s, x: s)), TypeError, "pair"),
    (lambda: list(Dataset.range(3).scan((np.int64(0), np.int64(0)), lambda s, x: (s[0], x))), TypeError,
     "structure of the initial state"),
    (lambda: list(Dataset.range(3).unbatch()), ValueError, "first dimension"),
    (lambda: Dataset.range(3).rebatch([1, 2]), TypeError, "scalar"),
    (lambda: Dataset.range(3).group_by_window(lambda x: x, lambda k, w: w), ValueError, "exactly one"),
    (lambda: list(Dataset.range(3).group_by_window(lambda x: 1.5, lambda k, w: w, 2)), TypeError, "scalar integer"),
    (lambda: Dataset.range(3).bucket_by_sequence_length(lambda x: x, [3, 2], [1, 1, 1]), ValueError, "increasing"),
    (lambda: Dataset.range(3).bucket_by_sequence_length(lambda x: x, [2], [1]), ValueError, "len"),
    (lambda: list(Dataset.choose_from_datasets([Dataset.range(2)], Dataset.range(3, 4))), InvalidArgumentError,
     "only 1 datasets"),
    (lambda: Dataset.choose_from_datasets([], Dataset.range(1)), TypeError, "non-empty"),
    (lambda: Dataset.sample_from_datasets([Dataset.range(2)], weights=[0.5, 0.5]), ValueError, "weights"),
    (lambda: Dataset.sample_from_datasets([Dataset.range(2), Dataset.range(1)], weights=[-1, 2]), ValueError,
     "non-negative"),
    (lambda: list(Dataset.from_tensor_slices(np.ones((2, 2))).unique()), TypeError, "scalar integers or strings"),
    (lambda: list(Dataset.range(4).map(lambda x: ds.fill([x], x)).padded_batch(2, padded_shapes=[2])), ValueError,
     "larger than its padded shape"),
    (lambda: Dataset.zip(Dataset.range(1), datasets=(Dataset.range(1),)), TypeError, "not both"),
    (lambda: Dataset.zip(), TypeError, "no arguments"),
    (lambda: Dataset.range(3).shard(2, 2), ValueError, "lower than `num_shards`"),
    (lambda: Dataset.range(3).shard(0, 0), ValueError, "num_shards"),
    (lambda: Dataset.range(3).apply(lambda d: 3), TypeError, "must return a Dataset"),
    (lambda: list(Dataset.range(3).take_while(lambda x: 1)), TypeError, "scalar boolean"),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_inputs(i):
    fn, exc, match = BAD[i]
    with pytest.raises(exc, match=match):
        fn()


def test_resume_state_from_another_pipeline_is_refused():
    state = Dataset.range(2).window(1).as_numpy_iterator().get_state()
    with pytest.raises(ValueError, match="window"):
        Dataset.range(2).unbatch().iterator_from_state(state)
    it = Dataset.range(10).scan(np.int64(0), lambda s, x: (s, x)).as_numpy_iterator()
    [next(it) for _ in range(6)]
    with pytest.raises(ValueError, match="only 3"):
        Dataset.range(3).scan(np.int64(0), lambda s, x: (s, x)).iterator_from_state(it.get_state())


def test_save_load_round_trip(tmp_path):
    d = Dataset.from_tensor_slices({"x": np.arange(6.0).reshape(3, 2), "y": (np.arange(3), np.array([1, 0, 1]))})
    for compression in (None, "GZIP"):
        path = str(tmp_path / f"saved_{compression}")
        d.save(path, compression=compression)
        back = Dataset.load(path)
        _same(_collect(back), _collect(d))
        assert set(next(iter(back))) == {"x", "y"} and isinstance(next(iter(back))["y"], tuple)
    ragged = Dataset.range(1, 4).map(lambda n: ds.fill([n], n))
    ragged.save(str(tmp_path / "ragged"))
    _same(_collect(Dataset.load(str(tmp_path / "ragged"))), _collect(ragged))
    Dataset.range(0).save(str(tmp_path / "empty"))
    assert list(Dataset.load(str(tmp_path / "empty"))) == []
    with pytest.raises(FileNotFoundError, match="no spec.json"):
        Dataset.load(str(tmp_path / "nowhere"))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "spec.json").write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="not a descend dataset"):
        Dataset.load(str(tmp_path / "bad"))
    with pytest.raises(ValueError, match="compression"):
        d.save(str(tmp_path / "x"), compression="LZ4")
    # a pickled payload is never executed: np.load(allow_pickle=False) refuses object arrays
    path = tmp_path / "evil"
    path.mkdir()
    (path / "spec.json").write_text('{"format": "descend.data.save", "version": 1, "count": 1, "structure": "leaf"}')
    np.savez(str(path / "elements.npz"), e0_0=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match="pickle"):
        list(Dataset.load(str(path)))


def test_missing_dataset_names_are_the_documented_ones():
    tf = pytest.importorskip("tensorflow")
    missing = sorted(n for n in dir(tf.data.Dataset) if not n.startswith("_") and not hasattr(Dataset, n))
    # TF's static specs and options, ragged/sparse tensors, snapshots, rejection_resample
    assert missing == ["element_spec", "fingerprint", "options", "ragged_batch", "rejection_resample",
                       "snapshot", "sparse_batch", "with_options"]
