"""descend.data.Dataset: tf.data semantics, determinism, prefetch threads and exact resume."""

from __future__ import annotations

import gc
import json
import threading
import time
from collections import Counter

import numpy as np
import pytest

import descend as ds_mod
import descend.data as data
from descend.data import Dataset


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def py(x):
    """An element (Tensors/arrays in tuples/dicts/lists) as plain Python for comparisons."""
    if isinstance(x, dict):
        return {k: py(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(py(v) for v in x)
    if isinstance(x, list):
        return [py(v) for v in x]
    if isinstance(x, ds_mod.Tensor):
        return x.numpy().tolist()
    return np.asarray(x).tolist()


def run(dataset_or_iterator):
    return [py(e) for e in dataset_or_iterator]


def prefetch_threads():
    return [t for t in threading.enumerate() if t.name == "descend.data.prefetch" and t.is_alive()]


def wait_no_prefetch_threads(timeout=3.0):
    deadline = time.monotonic() + timeout
    while prefetch_threads() and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    return prefetch_threads()


@pytest.fixture
def no_thread_leak():
    before = threading.active_count()
    yield
    assert wait_no_prefetch_threads() == []
    assert threading.active_count() <= before


def chunks(seq, n, drop=False):
    out = [seq[i : i + n] for i in range(0, len(seq), n)]
    if drop and out and len(out[-1]) < n:
        out.pop()
    return out


# ---------------------------------------------------------------------------
# structure and sources
# ---------------------------------------------------------------------------
def test_tuple_structure_yields_tensors():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.arange(6, dtype=np.int64)
    elems = list(Dataset.from_tensor_slices((x, y)))
    assert len(elems) == 6
    for i, e in enumerate(elems):
        assert type(e) is tuple and len(e) == 2
        assert isinstance(e[0], ds_mod.Tensor) and isinstance(e[1], ds_mod.Tensor)
        np.testing.assert_array_equal(e[0].numpy(), x[i])
        assert e[1].numpy() == i and e[1].shape == () and e[1].numpy().dtype == np.int64
        assert e[0].numpy().dtype == np.float32


def test_dict_structure_nested_and_key_order():
    feats = {"b": np.arange(4.0), "a": (np.arange(8).reshape(4, 2), np.ones(4, dtype=np.bool_))}
    elems = list(Dataset.from_tensor_slices(feats))
    assert len(elems) == 4
    e = elems[2]
    assert type(e) is dict and list(e) == ["b", "a"]
    assert type(e["a"]) is tuple
    assert py(e) == {"b": 2.0, "a": ([4, 5], True)}
    batch = next(iter(Dataset.from_tensor_slices(feats).batch(3)))
    assert list(batch) == ["b", "a"] and type(batch["a"]) is tuple
    assert batch["a"][0].shape == (3, 2) and batch["b"].shape == (3,)


def test_single_component_and_dtypes():
    assert run(Dataset.from_tensor_slices(np.arange(3.0))) == [0.0, 1.0, 2.0]
    e = next(iter(Dataset.from_tensor_slices(np.arange(3.0))))
    assert isinstance(e, ds_mod.Tensor) and e.numpy().dtype == np.float64  # NumPy keeps its dtype
    assert next(iter(Dataset.from_tensor_slices([1.5, 2.5]))).numpy().dtype == np.float32
    assert next(iter(Dataset.from_tensor_slices([1, 2]))).numpy().dtype == np.int32
    t = ds_mod.constant([[1.0, 2.0], [3.0, 4.0]])
    assert run(Dataset.from_tensor_slices(t)) == [[1.0, 2.0], [3.0, 4.0]]


def test_list_of_numbers_is_one_component_list_of_arrays_is_a_structure():
    assert run(Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]])) == [[1, 2], [3, 4], [5, 6]]
    elems = list(Dataset.from_tensor_slices([np.arange(3), np.arange(3) * 10]))
    assert type(elems[0]) is list and py(elems[1]) == [1, 10]


def test_namedtuple_kept_and_passed_as_one_argument():
    from collections import namedtuple

    Pair = namedtuple("Pair", "x y")
    d = Dataset.from_tensor_slices(Pair(np.arange(3), np.arange(3) * 2))
    e = next(iter(d))
    assert type(e) is Pair and py(e) == (0, 0)
    assert run(d.map(lambda p: p.x + p.y)) == [0, 3, 6]


def test_from_tensor_slices_copies_input():
    x = np.arange(5.0)
    d = Dataset.from_tensor_slices(x)
    x[:] = -1
    assert run(d) == [0.0, 1.0, 2.0, 3.0, 4.0]
    got = list(d.as_numpy_iterator())
    got[0][...] = 99  # mutating an output does not reach the dataset
    assert run(d)[0] == 0.0


def test_from_tensors_range_generator_iterable():
    assert py(next(iter(Dataset.from_tensors((np.arange(3), 7))))) == ([0, 1, 2], 7)
    assert len(Dataset.from_tensors(np.zeros((2, 3)))) == 1
    assert run(Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert run(Dataset.range(2, 11, 3)) == [2, 5, 8]
    assert run(Dataset.range(5, 0, -2)) == [5, 3, 1]
    assert next(iter(Dataset.range(3))).numpy().dtype == np.int64

    def gen(n):
        for i in range(n):
            yield i, {"sq": i * i}

    g = Dataset.from_generator(gen, args=(4,))
    assert run(g) == [(i, {"sq": i * i}) for i in range(4)]
    assert run(g) == run(g)  # called again each epoch
    assert int(g.cardinality()) == data.UNKNOWN_CARDINALITY
    assert run(Dataset.from_iterable([1.0, 2.0, 3.0]).batch(2)) == [[1.0, 2.0], [3.0]]
    with pytest.raises(TypeError, match="re-iterable"):
        Dataset.from_iterable(iter([1, 2]))


def test_as_numpy_iterator():
    d = Dataset.from_tensor_slices({"x": np.arange(4.0)}).batch(2)
    out = list(d.as_numpy_iterator())
    assert all(type(e["x"]) is np.ndarray for e in out)
    np.testing.assert_array_equal(out[1]["x"], [2.0, 3.0])


def test_transformations_do_not_change_their_input():
    base = Dataset.range(7)
    base.batch(2)
    base.shuffle(3, seed=1)
    base.map(lambda x: x * 2)
    assert run(base) == list(range(7))
    assert len(base) == 7


# ---------------------------------------------------------------------------
# batch
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n,bs", [(10, 3), (9, 3), (2, 5), (1, 1), (0, 4)])
@pytest.mark.parametrize("drop", [False, True])
def test_batch_against_reference(n, bs, drop):
    x = np.arange(n * 2).reshape(n, 2)
    d = Dataset.from_tensor_slices((x, np.arange(n))).batch(bs, drop_remainder=drop)
    got = run(d)
    expect = [(x[c].tolist(), list(c)) for c in chunks(list(range(n)), bs, drop)]
    assert got == expect
    assert len(d) == len(expect) == int(d.cardinality())


def test_batch_of_mapped_elements_equals_batch_of_slices():
    x = np.random.default_rng(0).normal(size=(11, 3)).astype(np.float32)
    direct = run(Dataset.from_tensor_slices(x).batch(4))
    via_map = run(Dataset.from_tensor_slices(x).map(lambda v: v).batch(4))
    assert direct == via_map
    b = next(iter(Dataset.from_tensor_slices(x).map(lambda v: v * 2.0).batch(4)))
    assert b.shape == (4, 3) and b.numpy().dtype == np.float32


def test_batch_of_batches_and_shapes_error():
    assert run(Dataset.range(8).batch(2).batch(2)) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    ragged = Dataset.range(4).map(lambda i: np.arange(int(i)))
    with pytest.raises(ValueError, match="different shapes in component 0"):
        list(ragged.batch(2))


# ---------------------------------------------------------------------------
# shuffle
# ---------------------------------------------------------------------------
def test_shuffle_full_buffer_is_permutation_per_epoch_and_reshuffles():
    n = 50
    d = Dataset.range(n).shuffle(n, seed=3)
    epochs = [run(d) for _ in range(4)]
    for e in epochs:
        assert sorted(e) == list(range(n))
    assert len({tuple(e) for e in epochs}) == 4
    assert epochs[0] != list(range(n))


def test_shuffle_without_reshuffle_repeats_one_order():
    d = Dataset.range(20).shuffle(20, seed=5, reshuffle_each_iteration=False)
    assert run(d) == run(d)
    passes = chunks(run(d.repeat(3)), 20)
    assert passes[0] == passes[1] == passes[2]


def test_shuffle_inside_repeat_reshuffles_each_pass():
    passes = chunks(run(Dataset.range(20).shuffle(100, seed=5).repeat(3)), 20)
    assert all(sorted(p) == list(range(20)) for p in passes)
    assert len({tuple(p) for p in passes}) == 3


def test_shuffle_buffer_one_is_identity():
    assert run(Dataset.range(30).shuffle(1, seed=0)) == list(range(30))


@pytest.mark.parametrize("buf", [2, 3, 7])
def test_shuffle_buffer_bound(buf):
    # the output at position p is drawn from inputs 0 .. p + buf - 1, so input i appears at position >= i - buf + 1
    n = 40
    d = Dataset.range(n).shuffle(buf, seed=11)
    late_first = 0
    for _ in range(30):
        out = run(d)
        assert sorted(out) == list(range(n))
        for p, i in enumerate(out):
            assert p >= i - buf + 1, (p, i, out)
        late_first += out[0] == buf - 1
    assert late_first > 0  # the newest element of the initial buffer can come first


def test_shuffle_small_buffer_statistics():
    # buffer 2: the first output is input 0 or 1 with probability 1/2 each; with a full buffer
    # every element is equally likely to come first
    firsts = Counter(run(Dataset.range(10).shuffle(2, seed=s))[0] for s in range(400))
    assert set(firsts) == {0, 1} and abs(firsts[0] - 200) < 50
    firsts = Counter(run(Dataset.range(5).shuffle(5, seed=s))[0] for s in range(500))
    assert set(firsts) == set(range(5)) and all(abs(c - 100) < 40 for c in firsts.values())
    # buffer 2 on 3 inputs: input 2 is last with probability 1/2 (it only enters for the second pick)
    lasts = Counter(run(Dataset.range(3).shuffle(2, seed=s))[-1] for s in range(400))
    assert abs(lasts[2] - 200) < 50


def test_seeded_pipeline_is_deterministic_across_builds():
    def build(seed):
        x = np.arange(40).reshape(20, 2)
        return (
            Dataset.from_tensor_slices((x, np.arange(20)))
            .shuffle(8, seed=seed)
            .map(lambda a, b: (a * 2, b))
            .batch(3)
            .repeat(2)
        )

    a, b = build(7), build(7)
    assert [run(a) for _ in range(3)] == [run(b) for _ in range(3)]
    assert run(build(7)) != run(build(8))


def test_unseeded_shuffle_draws_one_seed_per_dataset():
    d = Dataset.range(30).shuffle(30)
    e0, e1 = run(d), run(d)
    assert sorted(e0) == sorted(e1) == list(range(30)) and e0 != e1
    assert run(Dataset.range(30).shuffle(30)) != run(Dataset.range(30).shuffle(30))


# ---------------------------------------------------------------------------
# map / filter / repeat / take / skip against a pure-Python reference
# ---------------------------------------------------------------------------
def _reference(ops, n):
    """Apply the ops to list(range(n)) with plain Python."""
    seq = list(range(n))
    for op, arg in ops:
        if op == "map":
            seq = [arg(v) for v in seq]
        elif op == "filter":
            seq = [v for v in seq if arg(v)]
        elif op == "repeat":
            seq = seq * arg
        elif op == "take":
            seq = seq if arg == -1 else seq[:arg]
        elif op == "skip":
            seq = [] if arg == -1 else seq[arg:]
        elif op == "batch":
            seq = chunks(seq, arg)
    return seq


def _apply(d, ops):
    for op, arg in ops:
        if op == "map":
            d = d.map(arg)
        elif op == "filter":
            d = d.filter(lambda v, f=arg: f(v))
        else:
            d = getattr(d, op)(arg)
    return d


def _double(v):
    return v * 2


def _not3(v):
    return v % 3 != 0


def _inc(v):
    return v + 1


def _even(v):
    return v % 2 == 0


PIPELINES = [
    [("map", _double), ("filter", _not3)],
    [("filter", _not3), ("repeat", 2), ("skip", 3), ("take", 20), ("batch", 4)],
    [("repeat", 3), ("map", _inc), ("filter", _even), ("take", 9)],
    [("skip", 5), ("repeat", 2), ("batch", 3), ("take", 4)],
    [("take", -1), ("skip", 0), ("repeat", 1), ("map", _double)],
    [("skip", -1), ("repeat", 3)],
    [("take", 0), ("repeat", 5)],
    [("batch", 4), ("repeat", 2), ("skip", 1)],
    [("filter", _even), ("map", _double), ("filter", _not3), ("repeat", 2), ("take", 11), ("skip", 2)],
]


@pytest.mark.parametrize("ops", PIPELINES, ids=lambda ops: "-".join(o for o, _ in ops))
def test_composition_matches_python_reference(ops):
    d = _apply(Dataset.range(17), ops)
    expect = _reference(ops, 17)
    assert run(d) == expect
    assert run(d.prefetch(2)) == expect
    card = int(d.cardinality())
    if card >= 0:
        assert card == len(expect)


def test_take_from_infinite_repeat_and_repeat_of_empty_terminates():
    assert run(Dataset.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert run(Dataset.range(0).repeat()) == []
    assert run(Dataset.range(5).filter(lambda v: v > 10).repeat()) == []


def test_map_calling_convention():
    d = Dataset.from_tensor_slices((np.arange(3), np.arange(3) * 10))
    assert run(d.map(lambda a, b: a + b)) == [0, 11, 22]
    seen = []

    def check(a, b):
        seen.append((type(a), type(b)))
        return [a, b]  # a list becomes a tuple, as in tf.data

    out = list(d.map(check))
    assert all(t == (ds_mod.Tensor, ds_mod.Tensor) for t in seen)
    assert type(out[0]) is tuple
    dd = Dataset.from_tensor_slices({"a": np.arange(3.0), "b": np.ones(3)})
    assert run(dd.map(lambda e: {"s": e["a"] + e["b"]})) == [{"s": 1.0}, {"s": 2.0}, {"s": 3.0}]
    assert run(Dataset.range(3).map(lambda i: (i, 1.5))) == [(0, 1.5), (1, 1.5), (2, 1.5)]


def test_map_with_descend_ops():
    d = Dataset.from_tensor_slices(np.arange(6, dtype=np.float32).reshape(3, 2))
    assert run(d.map(lambda v: ds_mod.reduce_sum(v * v))) == [1.0, 13.0, 41.0]


def test_filter_predicate_must_be_scalar_bool():
    d = Dataset.from_tensor_slices(np.arange(6).reshape(3, 2))
    with pytest.raises(TypeError, match="scalar boolean"):
        list(d.filter(lambda v: v > 1))
    with pytest.raises(TypeError, match="scalar boolean"):
        list(Dataset.range(3).filter(lambda v: v))
    assert run(Dataset.range(6).filter(lambda v: ds_mod.constant(True))) == list(range(6))


def test_take_is_lazy():
    pulled = []

    def gen():
        for i in range(100):
            pulled.append(i)
            yield i

    assert run(Dataset.from_generator(gen).take(3)) == [0, 1, 2]
    assert pulled == [0, 1, 2]


def test_zip_and_concatenate():
    a = Dataset.range(5)
    b = Dataset.from_tensor_slices(np.arange(3) * 10)
    assert run(Dataset.zip((a, b))) == [(0, 0), (1, 10), (2, 20)]
    assert run(Dataset.zip({"x": a, "y": (b, a)})) == [{"x": i, "y": (10 * i, i)} for i in range(3)]
    assert int(Dataset.zip((a, b)).cardinality()) == 3
    c = a.concatenate(Dataset.range(100, 102))
    assert run(c) == [0, 1, 2, 3, 4, 100, 101] and len(c) == 7


# ---------------------------------------------------------------------------
# cardinality
# ---------------------------------------------------------------------------
INF, UNK = data.INFINITE_CARDINALITY, data.UNKNOWN_CARDINALITY


@pytest.mark.parametrize(
    "make,expect",
    [
        (lambda: Dataset.range(10), 10),
        (lambda: Dataset.range(10).batch(3), 4),
        (lambda: Dataset.range(10).batch(3, drop_remainder=True), 3),
        (lambda: Dataset.range(10).repeat(), INF),
        (lambda: Dataset.range(10).repeat(3), 30),
        (lambda: Dataset.range(10).repeat(0), 0),
        (lambda: Dataset.range(10).repeat().take(4), 4),
        (lambda: Dataset.range(10).repeat().skip(4), INF),
        (lambda: Dataset.range(10).take(20), 10),
        (lambda: Dataset.range(10).skip(20), 0),
        (lambda: Dataset.range(10).skip(-1), 0),
        (lambda: Dataset.range(10).filter(lambda v: True), UNK),
        (lambda: Dataset.range(10).filter(lambda v: True).take(0), 0),
        (lambda: Dataset.range(10).shuffle(4).map(lambda v: v).prefetch(1), 10),
    ],
)
def test_cardinality(make, expect):
    d = make()
    c = d.cardinality()
    assert isinstance(c, ds_mod.Tensor) and int(c) == expect
    if expect >= 0:
        assert len(d) == expect == len(run(d))
    elif expect == INF:
        with pytest.raises(TypeError, match="infinite"):
            len(d)
    else:
        with pytest.raises(TypeError, match="unknown"):
            len(d)


# ---------------------------------------------------------------------------
# prefetch
# ---------------------------------------------------------------------------
def test_prefetch_equals_no_prefetch_and_no_thread_leak(no_thread_leak):
    def build():
        return (
            Dataset.from_tensor_slices((np.arange(60).reshape(30, 2), np.arange(30)))
            .shuffle(7, seed=2)
            .map(lambda a, b: (a + 1, b))
            .batch(4)
        )

    for size in (1, 3, data.AUTOTUNE):
        base, p = build(), build().prefetch(size)
        assert [run(p) for _ in range(3)] == [run(base) for _ in range(3)]  # epoch by epoch
        assert run(p.repeat(2)) == run(base.repeat(2))
    # nested prefetches and prefetch below other stages
    nested = Dataset.range(20).prefetch(2).map(_double).prefetch(1).filter(_not3).prefetch(3)
    assert run(nested) == [v * 2 for v in range(20) if (v * 2) % 3 != 0]
    assert Dataset.range(5).prefetch(0) is not None


def test_prefetch_thread_stops_on_close_break_and_gc(no_thread_leak):
    d = Dataset.range(1000).map(_double).prefetch(4)
    it = iter(d)
    next(it)
    assert len(prefetch_threads()) == 1
    it.close()
    assert prefetch_threads() == []
    with pytest.raises(StopIteration):
        next(it)
    with iter(d) as it2:
        next(it2)
    assert prefetch_threads() == []
    for i, _ in enumerate(d):
        if i == 3:
            break
    assert wait_no_prefetch_threads() == []
    it3 = iter(d.prefetch(2))  # two threads
    next(it3)
    del it3
    assert wait_no_prefetch_threads() == []
    list(Dataset.range(3).prefetch(2))  # exhausted iterators stop their thread


def _boom_at_3(v):
    if int(v) == 3:
        raise ValueError("bad element 3")
    return v


@pytest.mark.parametrize("prefetch", [False, True])
def test_exception_in_map_propagates(prefetch, no_thread_leak):
    d = Dataset.range(6).map(_boom_at_3)
    if prefetch:
        d = d.prefetch(2)
    it = iter(d)
    got = [int(next(it)) for _ in range(3)]
    with pytest.raises(ValueError, match="bad element 3"):
        next(it)
    # as in tf.data, the iterator can go on after a failed element, with or without prefetch
    got += [int(v) for v in it]
    assert got == [0, 1, 2, 4, 5]
    it.close()


def test_exception_in_generator_propagates_through_prefetch(no_thread_leak):
    def gen():
        yield 1
        raise RuntimeError("source failed")

    it = iter(Dataset.from_generator(gen).prefetch(3))
    assert int(next(it)) == 1
    with pytest.raises(RuntimeError, match="source failed"):
        next(it)
    assert list(it) == []
    it.close()


# ---------------------------------------------------------------------------
# exact resume
# ---------------------------------------------------------------------------
def _resume_everywhere(d, *, via_set_state=False, roundtrip_json=True):
    """Save the state after every prefix of an epoch and check the restored iterator yields the rest."""
    full = run(iter(d))
    epoch = d._next_epoch - 1
    for k in range(len(full) + 1):
        d._set_next_epoch(epoch)
        it = iter(d)
        for _ in range(k):
            next(it)
        state = it.get_state()
        it.close()
        if roundtrip_json:
            state = json.loads(json.dumps(state))
        assert state["epoch"] == epoch and state["position"] == k
        if via_set_state:
            it2 = iter(d)
            it2.set_state(state)
        else:
            it2 = d.iterator_from_state(state)
        assert run(it2) == full[k:], f"resume after {k} elements"
        it2.close()
    return full


def test_resume_simple_and_mid_epoch():
    _resume_everywhere(Dataset.range(9).batch(2))
    _resume_everywhere(Dataset.range(9).shuffle(4, seed=1), via_set_state=True)


def test_resume_full_pipeline(no_thread_leak):
    x = np.arange(60).reshape(30, 2)
    d = (
        Dataset.from_tensor_slices((x, np.arange(30)))
        .shuffle(8, seed=4)
        .map(lambda a, b: (a * 3, b))
        .filter(lambda a, b: b % 4 != 1)
        .repeat(3)
        .batch(5)
        .map(lambda a, b: {"x": a, "y": b})
        .prefetch(2)
    )
    full = _resume_everywhere(d)
    assert len(full) == int(np.ceil(3 * 22 / 5))


def test_resume_shuffle_after_repeat_and_take_skip(no_thread_leak):
    d = Dataset.range(13).repeat().shuffle(5, seed=9).skip(2).take(30).batch(4).prefetch(1)
    _resume_everywhere(d)
    d2 = Dataset.range(13).shuffle(13, seed=9).repeat(2).shuffle(3, seed=1).batch(3).repeat(2)
    _resume_everywhere(d2, via_set_state=True)


def test_resume_unseeded_shuffle_is_exact():
    _resume_everywhere(Dataset.range(12).shuffle(12).repeat(2))


def test_resume_generator_zip_concat():
    def gen():
        yield from range(7)

    g = Dataset.from_generator(gen).map(_double)
    _resume_everywhere(Dataset.zip((g, Dataset.range(10).shuffle(10, seed=2))).batch(2))
    _resume_everywhere(Dataset.range(4).concatenate(g.filter(_not3)).shuffle(3, seed=3))


def test_state_is_small_json_integers():
    d = Dataset.range(10_000).shuffle(1024, seed=0).map(_double).batch(32).repeat().prefetch(2)
    it = iter(d)
    for _ in range(50):
        next(it)
    state = it.get_state()
    it.close()
    text = json.dumps(state)
    assert len(text) < 400
    it2 = d.iterator_from_state(json.loads(text))
    assert it2.position == 50
    it2.close()


def test_resume_across_epochs_matches_uninterrupted_run():
    def build():
        return Dataset.range(20).shuffle(6, seed=12).batch(4)

    ref = build()
    epochs = [run(ref) for _ in range(4)]

    # "process 1" stops in the middle of epoch 1
    d1 = build()
    run(d1)
    it = iter(d1)
    next(it)
    next(it)
    state = json.loads(json.dumps(it.get_state()))
    it.close()

    # "process 2" builds the pipeline again and continues
    d2 = build()
    it2 = d2.iterator_from_state(state)
    assert it2.epoch == 1
    assert run(it2) == epochs[1][2:]
    assert run(d2) == epochs[2]  # the next iter() is epoch 2
    assert run(d2) == epochs[3]


@pytest.mark.parametrize("buffer", [None, 1, 5, 23, 24, 60])
@pytest.mark.parametrize("size,drop", [(1, False), (7, False), (7, True), (32, False)])
def test_batches_of_slices_gathered_at_once_are_the_element_by_element_batches(buffer, size, drop):
    # Batches of a random-access source (from_tensor_slices, range), shuffled or not, are gathered from the
    # picked rows at once; an identity map in between forces one reference per element. Same batches, same
    # order (two epochs: reshuffled), and each state resumes either pipeline to the same rest.
    x = np.arange(24 * 3, dtype=np.float32).reshape(24, 3)
    y = np.arange(24) * 10

    def build(fast):
        d = Dataset.from_tensor_slices((x, y))
        if not fast:
            d = d.map(lambda a, b: (a, b))
        if buffer is not None:
            d = d.shuffle(buffer, seed=3)
        return d.batch(size, drop_remainder=drop)

    fast, slow = build(True), build(False)
    it = iter(build(True))
    node = it._node
    assert isinstance(node, data.stages._BatchIter) and node._child.source is not None  # the gathered path
    it.close()
    for _ in range(2):
        expect = run(slow)
        assert run(fast) == expect and expect
    for k in range(len(expect) + 1):
        for d in (fast, slow):
            it = iter(d)
            for _ in range(k):
                next(it)
            state = json.loads(json.dumps(it.get_state()))
            rest = run(it)
            assert run(d.iterator_from_state(state)) == rest
    r = Dataset.range(10).shuffle(4, seed=1).batch(3)
    assert run(r) == run(Dataset.range(10).map(lambda v: v).shuffle(4, seed=1).batch(3))


def test_state_from_another_pipeline_is_rejected():
    it = iter(Dataset.range(5).batch(2))
    next(it)
    state = it.get_state()
    with pytest.raises(ValueError, match="does not match this dataset"):
        Dataset.range(5).shuffle(2, seed=0).iterator_from_state(state)
    with pytest.raises(ValueError, match="Not a descend.data iterator state"):
        Dataset.range(5).iterator_from_state({"epoch": 0})
    bad = Dataset.range(3).shuffle(2, seed=0)
    sit = iter(bad)
    next(sit)
    s = sit.get_state()
    s["stages"]["emitted"] = 10
    with pytest.raises(ValueError, match="different pipeline"):
        bad.iterator_from_state(s)
    # a hostile count under a batch of a random-access source: refused as soon as the pass runs out
    batched = Dataset.range(1000).shuffle(100, seed=0).batch(7)
    bit = iter(batched)
    next(bit)
    s = bit.get_state()
    bit.close()
    s["stages"]["input"]["emitted"] = 10**15
    start = time.monotonic()
    with pytest.raises(ValueError, match="different pipeline"):
        batched.iterator_from_state(s)
    assert time.monotonic() - start < 5


# ---------------------------------------------------------------------------
# the seed-001 training loop
# ---------------------------------------------------------------------------
def test_seed_001_style_loop_covers_every_example_once_per_epoch():
    rng = np.random.default_rng(1)
    n = 1000
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = np.arange(n)
    train_dataset = Dataset.from_tensor_slices((x, y)).shuffle(buffer_size=1024).batch(64)
    assert len(train_dataset) == 16
    orders = []
    for _epoch in range(2):
        seen = []
        steps = 0
        for step, (x_batch, y_batch) in enumerate(train_dataset):
            assert x_batch.shape == ((64, 4) if step < 15 else (40, 4))
            np.testing.assert_array_equal(x_batch.numpy(), x[y_batch.numpy()])  # pairs stay together
            seen.extend(y_batch.numpy().tolist())
            steps = step + 1
        assert steps == 16
        assert sorted(seen) == list(range(n))
        orders.append(seen)
    assert orders[0] != orders[1]


# ---------------------------------------------------------------------------
# argument validation
# ---------------------------------------------------------------------------
def test_mismatched_first_dimensions_name_the_sizes():
    with pytest.raises(ValueError, match=r"Received sizes: \[0\]: 5, \[1\]: 4"):
        Dataset.from_tensor_slices((np.zeros((5, 2)), np.zeros(4)))
    with pytest.raises(ValueError, match=r"\['a'\]: 3, \['b'\]: 2"):
        Dataset.from_tensor_slices({"a": np.zeros(3), "b": np.zeros(2)})
    with pytest.raises(ValueError, match="scalar"):
        Dataset.from_tensor_slices((np.zeros(3), 1.0))
    with pytest.raises(ValueError, match="at least one component"):
        Dataset.from_tensor_slices(())


@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (lambda d: d.batch(0), ValueError, r"`batch_size` must be a positive integer. Received: batch_size=0"),
        (lambda d: d.batch(-3), ValueError, "batch_size=-3"),
        (lambda d: d.batch(2.5), TypeError, "`batch_size` must be an integer"),
        (lambda d: d.batch(True), TypeError, "`batch_size` must be an integer"),
        (lambda d: d.shuffle(-1), ValueError, r"`buffer_size` must be a positive integer. Received: buffer_size=-1"),
        (lambda d: d.shuffle(0), ValueError, "buffer_size=0"),
        (lambda d: d.take(-2), ValueError, r"`count` must be >= 0 or -1 \(all elements\). Received: count=-2"),
        (lambda d: d.skip(-5), ValueError, "count=-5"),
        (lambda d: d.repeat(-2), ValueError, "count=-2"),
        (lambda d: d.prefetch(-4), ValueError, "buffer_size=-4"),
        (lambda d: d.map(3), TypeError, "`map_func` must be callable"),
        (lambda d: d.filter(None), TypeError, "`predicate` must be callable"),
        (lambda d: d.concatenate([1]), TypeError, "concatenate expects a Dataset"),
        (lambda d: Dataset.range(1, 5, 0), ValueError, "step"),
    ],
)
def test_bad_arguments(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call(Dataset.range(5))


def test_integer_like_arguments_accepted():
    assert run(Dataset.range(5).batch(np.int64(2)).take(ds_mod.constant(2))) == [[0, 1], [2, 3]]


def test_corrupt_states_fail_clearly():
    d = Dataset.range(6).map(_double).batch(2)
    it = iter(d)
    next(it)
    state = it.get_state()
    broken = json.loads(json.dumps(state))
    del broken["stages"]["input"]
    with pytest.raises(ValueError, match="no 'input' entry"):
        d.iterator_from_state(broken)
    broken = json.loads(json.dumps(state))
    broken["stages"]["input"]["input"]["pos"] = -1
    with pytest.raises(ValueError, match="invalid 'pos'"):
        d.iterator_from_state(broken)
    with pytest.raises(ValueError, match="version"):
        d.iterator_from_state({**state, "version": 99})
    assert run(d.iterator_from_state(state)) == [[4, 6], [8, 10]]


def test_range_dtype():
    assert next(iter(Dataset.range(3, dtype=ds_mod.int32))).numpy().dtype == np.int32
    assert next(iter(Dataset.range(0, 6, 2, dtype="int32").batch(3))).numpy().dtype == np.int32


# ------------------------------------------------------------- TextLineDataset (the customization basics tutorial)
@pytest.mark.parametrize("content,compression,expected", [
    (b"Line 1\nLine 2\nLine 3\n  ", None, [b"Line 1", b"Line 2", b"Line 3", b"  "]),  # the tutorial's file
    (b"a\r\nb\n", "", [b"a", b"b"]),            # \r\n ends a line too; a final line end adds no empty line
    (b"\n\nx", None, [b"", b"", b"x"]),          # empty lines are lines
    (b"", None, []),
    ("gzip", "GZIP", [b"one", b"two"]),
    ("zlib", "ZLIB", [b"one", b"two"]),
])
def test_text_line_dataset_reads_each_line_as_a_string(tmp_path, content, compression, expected):
    import gzip
    import zlib

    path = tmp_path / "f.txt"
    if content == "gzip":
        content = gzip.compress(b"one\ntwo\n")
    elif content == "zlib":
        content = zlib.compress(b"one\ntwo\n")
    path.write_bytes(content)
    ds = data.TextLineDataset(str(path), compression_type=compression)
    got = [t.numpy() for t in ds]
    assert got == expected
    # several files: one after the other
    assert [t.numpy() for t in data.TextLineDataset([str(path)] * 2, compression_type=compression)] == expected * 2
    if expected:
        batch = next(iter(data.TextLineDataset(str(path), compression_type=compression).batch(2)))
        assert batch.dtype == ds_mod.string and list(batch.numpy()) == expected[:2]


def test_text_line_dataset_refuses_what_it_cannot_read(tmp_path):
    with pytest.raises(ValueError, match="compression_type must be"):
        data.TextLineDataset(str(tmp_path / "x"), compression_type="BZIP2")
    with pytest.raises(TypeError, match="filenames"):
        data.TextLineDataset([3])
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        list(data.TextLineDataset(str(tmp_path / "missing.txt")))


# ------------------------------------------------------------- CsvDataset (the overfit and underfit tutorial)
def _csv(tmp_path, text, name="f.csv"):
    path = tmp_path / name
    path.write_bytes(text)
    return str(path)


@pytest.mark.parametrize("text,kwargs,defaults,expected", [
    # the tutorial: float() columns of a gzipped file
    ("gzip", dict(compression_type="GZIP"), [float()] * 3, [(1.0, 2.5, 0.3), (0.0, 0.0, 7.0)]),
    (b"1,a,2\n3,,4\n", {}, [0, "x", 0.0], [(1, b"a", 2.0), (3, b"x", 4.0)]),        # int32, string, float32
    (b"h1,h2\n5,6\n", dict(header=True), [0, 0], [(5, 6)]),
    (b"1;2;3\n", dict(field_delim=";", select_cols=[0, 2]), [0, 0], [(1, 3)]),
    (b"1,2,3\n", dict(exclude_cols=[1]), [0, 0], [(1, 3)]),
    (b'"a,b",1\n', {}, ["", 0], [(b"a,b", 1)]),                                    # a quoted field
    (b"NA,1\n", dict(na_value="NA"), [9.0, 0], [(9.0, 1)]),
])
def test_csv_dataset_reads_records_as_tensors_per_column(tmp_path, text, kwargs, defaults, expected):
    import gzip

    if text == "gzip":
        text = gzip.compress(b"1.0,2.5,3e-1\n0,,7\n")
    ds = data.experimental.CsvDataset(_csv(tmp_path, text), defaults, **kwargs)
    got = [tuple(t.numpy() for t in row) for row in ds]
    assert len(got) == len(expected)
    for row, want in zip(got, expected):
        for value, w in zip(row, want):
            assert value == (np.float32(w) if isinstance(w, float) else w)
    dtypes = [t.dtype for t in next(iter(ds))]
    assert dtypes == [ds_mod.float32 if isinstance(d, float) else ds_mod.int32 if isinstance(d, int) else ds_mod.string
                      for d in defaults]


@pytest.mark.parametrize("text,defaults,kwargs,error,match", [
    (b"1,2\n", [0, 0, 0], {}, ds_mod.errors.InvalidArgumentError, "expected 3 fields, found 2"),
    (b"1,\n", [0, ds_mod.int32], {}, ds_mod.errors.InvalidArgumentError, "no default"),
    (b"1,x\n", [0, 0.0], {}, ds_mod.errors.InvalidArgumentError, "not a float32 number"),
])
def test_csv_dataset_refuses_a_record_it_cannot_read_naming_the_line(tmp_path, text, defaults, kwargs, error, match):
    with pytest.raises(error, match=match):
        list(data.experimental.CsvDataset(_csv(tmp_path, text), defaults, **kwargs))


def test_csv_dataset_refuses_bad_arguments(tmp_path):
    path = _csv(tmp_path, b"1\n")
    for kwargs, match in [(dict(record_defaults=[]), "non-empty"), (dict(record_defaults=[0], field_delim=";;"),
                                                                     "one character"),
                          (dict(record_defaults=[0], compression_type="LZ4"), "compression_type"),
                          (dict(record_defaults=[0], select_cols=[1, 0]), "sorted"),
                          (dict(record_defaults=[[1]]), "must be a number")]:
        with pytest.raises(ValueError, match=match):
            data.experimental.CsvDataset(path, **kwargs)
