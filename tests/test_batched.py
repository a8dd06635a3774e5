"""The batched dense step (descend.optimizers.bound, batched): the general pipeline's result bit for bit,
the same side effects, and the general pipeline whenever a step does not fit."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import descend as ds
from descend import _native
from descend.errors import InvalidArgumentError
from descend.framework.tensor import Tensor
from descend.optimizers import batched, bound, fused, pipeline

pytestmark = pytest.mark.skipif(not fused.enabled(), reason="the batched step needs the fused kernels (numba)")

SIZES = [1, 0, 37, 16, 4000, 3, 64, 1000, 17]
DTYPES = [np.float32, np.float64] * 4 + [np.float32]

MAKERS = {
    "Adam": lambda: ds.optimizers.Adam(0.01),
    "AdamW": lambda: ds.optimizers.AdamW(0.01, weight_decay=0.1),
    "nesterov": lambda: ds.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    "Lion": lambda: ds.optimizers.Lion(0.01, weight_decay=0.5),
    "Nadam": lambda: ds.optimizers.Nadam(0.01),  # step state (u_product)
    "RMSprop": lambda: ds.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "Adagrad": lambda: ds.optimizers.Adagrad(0.1),
    "SGD": lambda: ds.optimizers.SGD(0.1),
    "schedule": lambda: ds.optimizers.Adam(ds.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)),
}


def _data(sizes=SIZES, dtypes=DTYPES, steps=4, seed=0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(n).astype(d).reshape(_shape(n)) for n, d in zip(sizes, dtypes)]
    grads = [[rng.standard_normal(n).astype(d).reshape(_shape(n)) for n, d in zip(sizes, dtypes)]
             for _ in range(steps)]
    return init, grads


def _shape(n):
    return (n // 4, 4) if n % 4 == 0 and n else (n,)


def _run(make, use_batched, init, grads, prefix="w", exclude=(), as_arrays=False):
    """Variables, optimizer and what the steps took (batched steps counted)."""
    previous = batched.set_enabled(use_batched)
    try:
        vs = [ds.Variable(a, name=f"{prefix}{i}") for i, a in enumerate(init)]
        opt = make()
        if exclude:
            opt.exclude_from_weight_decay(var_names=list(exclude))
        before = batched.stats["steps"]
        for gs in grads:
            opt.apply_gradients([(g if as_arrays else ds.constant(g), v) for g, v in zip(gs, vs)])
        return vs, opt, batched.stats["steps"] - before
    finally:
        batched.set_enabled(previous)


def _state(vs, opt):
    out = [v.numpy() for v in vs]
    for v in vs:
        out += [opt.get_slot(v, n).numpy() for n in opt.get_slot_names()]
    out += [s.numpy() for s in opt.variables]
    return out


def _assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_batched_steps_match_the_general_pipeline_bit_for_bit(name):
    init, grads = _data()
    ref_vars, ref_opt, ref_batched = _run(MAKERS[name], False, init, grads, exclude=("w3", "w7"))
    got_vars, got_opt, got_batched = _run(MAKERS[name], True, init, grads, prefix="u", exclude=("u3", "u7"))
    assert ref_batched == 0
    assert got_batched == len(grads) - 1  # the first step creates the slots through the general pipeline
    _assert_same(_state(got_vars, got_opt), _state(ref_vars, ref_opt))
    assert int(got_opt.iterations.numpy()) == len(grads)
    assert got_opt.current_hyper("learning_rate") == ref_opt.current_hyper("learning_rate")
    # one kernel call per dtype and step, as the general pipeline
    assert [v._version for v in got_vars] == [v._version for v in ref_vars]


def test_ndarray_gradients_and_a_zip_iterator_take_the_batched_step():
    init, grads = _data(steps=3)
    ref_vars, ref_opt, _ = _run(MAKERS["Adam"], False, init, grads, as_arrays=True)
    got_vars, got_opt, n = _run(MAKERS["Adam"], True, init, grads, prefix="u", as_arrays=True)
    assert n == 2
    _assert_same(_state(got_vars, got_opt), _state(ref_vars, ref_opt))
    before = batched.stats["steps"]
    got_opt.apply_gradients(zip([ds.constant(g) for g in grads[0]], got_vars))  # consumed once, applied once
    assert batched.stats["steps"] - before == 1
    previous = batched.set_enabled(False)
    try:
        ref_opt.apply_gradients(zip([ds.constant(g) for g in grads[0]], ref_vars))
    finally:
        batched.set_enabled(previous)
    _assert_same(_state(got_vars, got_opt), _state(ref_vars, ref_opt))


def test_the_thread_count_changing_between_steps_changes_no_bit(monkeypatch):
    # the update's chunks are grouped by thread (a weight at the split products' row cuts, small tensors
    # whole); a step on another thread count rebuilds the grouping and gives the same bits
    numba = pytest.importorskip("numba")
    sizes = [784 * 256, 256, 2560, 10, 3000, 0]
    init, grads = _data(sizes=sizes, dtypes=[np.float32] * len(sizes), steps=6)
    init = [a.reshape(s) for a, s in zip(init, [(784, 256), (256,), (256, 10), (10,), (3000,), (0,)])]
    grads = [[g.reshape(a.shape) for g, a in zip(gs, init)] for gs in grads]
    counts = iter([1, 2, 1, 2, 2, 1])
    real = bound.BoundUpdate.prepare

    def prepare_on(self, pairs, **kwargs):
        numba.set_num_threads(min(next(counts), numba.config.NUMBA_NUM_THREADS))
        return real(self, pairs, **kwargs)

    ref_vars, ref_opt, _ = _run(MAKERS["AdamW"], False, init, grads)
    monkeypatch.setattr(bound.BoundUpdate, "prepare", prepare_on)
    try:
        got_vars, got_opt, n = _run(MAKERS["AdamW"], True, init, grads, prefix="u")
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert n == len(grads) - 1
    _assert_same(_state(got_vars, got_opt), _state(ref_vars, ref_opt))


def _warm(make=MAKERS["Adam"], steps=2):
    init, grads = _data(steps=steps)
    vs, opt, n = _run(make, True, init, grads)
    assert n == steps - 1
    return vs, opt, grads[0]


@pytest.mark.parametrize("bad", ["nan", "inf"])
def test_a_nonfinite_gradient_anywhere_changes_nothing_and_names_the_variable(bad):
    vs, opt, g = _warm()
    before = _state(vs, opt)
    versions = [v._version for v in vs]
    g = [a.copy() for a in g]
    g[7].flat[5] = np.nan if bad == "nan" else np.inf
    with pytest.raises(InvalidArgumentError, match="'w7'"):
        opt.apply_gradients([(ds.constant(a), v) for a, v in zip(g, vs)])
    _assert_same(_state(vs, opt), before)
    assert [v._version for v in vs] == versions


@pytest.mark.parametrize("policy", ["skip", "zero", "apply"])
def test_the_other_nonfinite_policies_match_the_general_pipeline(policy):
    init, grads = _data(steps=3)
    grads[2][4].flat[7] = np.nan

    def make():
        return ds.optimizers.Adam(0.01, on_nonfinite=policy)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref_vars, ref_opt, _ = _run(make, False, init, grads)
        got_vars, got_opt, n = _run(make, True, init, grads, prefix="u")
    assert n == (2 if policy == "apply" else 1)  # a step with a NaN goes to the general pipeline's policy
    _assert_same(_state(got_vars, got_opt), _state(ref_vars, ref_opt))
    assert got_opt.skipped_steps == ref_opt.skipped_steps == (1 if policy == "skip" else 0)


@pytest.mark.parametrize("change", ["shape", "dtype", "bool", "none", "sparse", "duplicate", "not_pairs", "dict_pair",
                                    "list_pair"])
def test_a_step_that_does_not_fit_gets_the_general_pipeline_and_its_error(change):
    vs, opt, g = _warm()
    pairs = [(ds.constant(a), v) for a, v in zip(g, vs)]
    before = _state(vs, opt)
    if change == "shape":
        pairs[4] = (ds.constant(g[4].reshape(-1)), vs[4])
        with pytest.raises(ValueError, match="expected shape"):
            opt.apply_gradients(pairs)
    elif change == "bool":
        pairs[2] = (ds.constant(g[2] > 0), vs[2])
        with pytest.raises(TypeError, match="expected dtype float32, received bool"):
            opt.apply_gradients(pairs)
    elif change == "duplicate":
        pairs[3] = (pairs[3][0], vs[1])  # variable 1 twice (its gradient of the same dtype and shape)
        pairs[3] = (pairs[1][0], vs[1])
        with pytest.raises(ValueError, match="appears more than once"):
            opt.apply_gradients(pairs)
    elif change == "not_pairs":
        pairs[5] = (pairs[5][0], vs[5], None)
        with pytest.raises(TypeError, match="pairs"):
            opt.apply_gradients(pairs)
    elif change == "dict_pair":  # two items, indexable by 0 and 1, but a mapping: its keys are what zip sees
        pairs[5] = {0: pairs[5][0], 1: vs[5]}
        with pytest.raises(TypeError, match="expected a descend.Variable"):
            opt.apply_gradients(pairs)
    elif change == "list_pair":  # a list [gradient, variable] is a pair: the batched step takes it
        pairs[5] = [pairs[5][0], vs[5]]
        steps = batched.stats["steps"]
        opt.apply_gradients(pairs)
        assert batched.stats["steps"] == steps + 1
        return
    if change in ("shape", "bool", "duplicate", "not_pairs", "dict_pair"):
        _assert_same(_state(vs, opt), before)
        return
    # the general pipeline applies these: compare with an optimizer that never batched
    init, grads = _data(steps=2)
    ref_vars, ref_opt, _ = _run(MAKERS["Adam"], False, init, grads, prefix="r")
    ref_pairs = [(ds.constant(a), v) for a, v in zip(g, ref_vars)]
    if change == "none":
        pairs[3], ref_pairs[3] = (None, vs[3]), (None, ref_vars[3])
        with pytest.warns(UserWarning, match="Gradients do not exist"):
            opt.apply_gradients(pairs)
        with pytest.warns(UserWarning, match="Gradients do not exist"):
            ref_opt.apply_gradients(ref_pairs)
    elif change == "dtype":  # a float64 gradient of a float32 variable is cast to it (Keras 3)
        pairs[2] = (ds.constant(g[2].astype(np.float64)), vs[2])
        ref_pairs[2] = (ds.constant(g[2].astype(np.float64)), ref_vars[2])
        opt.apply_gradients(pairs)
        ref_opt.apply_gradients(ref_pairs)
    else:
        rows = ds.IndexedSlices(ds.constant(g[4][:2]), ds.constant([0, 3]), g[4].shape)
        pairs[4] = (rows, vs[4])
        ref_pairs[4] = (ds.IndexedSlices(ds.constant(g[4][:2]), ds.constant([0, 3]), g[4].shape), ref_vars[4])
        opt.apply_gradients(pairs)
        ref_opt.apply_gradients(ref_pairs)
    _assert_same(_state(vs, opt), _state(ref_vars, ref_opt))


def test_a_constraint_set_later_is_applied():
    vs, opt, g = _warm()
    vs[2].constraint = lambda x: ds.clip_by_value(x, -0.01, 0.01)
    before = batched.stats["steps"]
    opt.apply_gradients([(ds.constant(a), v) for a, v in zip(g, vs)])
    assert batched.stats["steps"] == before
    assert np.abs(vs[2].numpy()).max() <= 0.01


def test_exclude_from_weight_decay_after_the_list_was_remembered():
    init, grads = _data(steps=4)

    def steps(use, prefix):
        previous = batched.set_enabled(use)
        try:
            vs = [ds.Variable(a, name=f"{prefix}{i}") for i, a in enumerate(init)]
            opt = ds.optimizers.AdamW(0.01, weight_decay=0.3)
            for k, gs in enumerate(grads):
                if k == 2:
                    opt.exclude_from_weight_decay(var_list=[vs[4]], var_names=[f"{prefix}6"])
                opt.apply_gradients([(ds.constant(a), v) for a, v in zip(gs, vs)])
            return _state(vs, opt)
        finally:
            batched.set_enabled(previous)

    _assert_same(steps(True, "u"), steps(False, "w"))


def test_gradients_that_are_not_c_contiguous_take_the_general_pipeline():
    vs, opt, g = _warm()
    init, grads = _data(steps=2)
    ref_vars, ref_opt, _ = _run(MAKERS["Adam"], False, init, grads, prefix="r")
    for variables, o in ((vs, opt), (ref_vars, ref_opt)):
        pairs = [(ds.constant(a), v) for a, v in zip(g, variables)]
        strided = np.zeros((g[6].shape[0], 8), g[6].dtype)
        strided[:, ::2] = g[6]
        pairs[6] = (Tensor(strided[:, ::2]), variables[6])  # the same values, not contiguous
        o.apply_gradients(pairs)
    _assert_same(_state(vs, opt), _state(ref_vars, ref_opt))


def test_a_scalar_variable_with_a_numpy_scalar_gradient_does_not_reach_the_kernels():
    w = ds.Variable(1.0)
    opt = ds.optimizers.Adam(0.1)
    for _ in range(3):
        opt.apply_gradients([(Tensor(np.float32(2.0)), w)])  # a Tensor holding a NumPy scalar, not an array
    ref = ds.Variable(1.0)
    ref_opt = ds.optimizers.Adam(0.1)
    for _ in range(3):
        ref_opt.apply_gradients([(ds.constant(2.0), ref)])
    np.testing.assert_array_equal(w.numpy(), ref.numpy())


def test_a_changed_chunk_size_and_the_fused_switch_are_followed(monkeypatch):
    init, grads = _data(steps=5)
    ref_vars, ref_opt, _ = _run(MAKERS["Adam"], False, init, grads)
    previous = batched.set_enabled(True)
    try:
        vs = [ds.Variable(a, name=f"u{i}") for i, a in enumerate(init)]
        opt = MAKERS["Adam"]()
        for k, gs in enumerate(grads):
            if k == 2:
                monkeypatch.setattr(_native, "CHUNK", 16)
            if k == 3:
                fused.set_enabled(False)  # the NumPy path: the same values
            if k == 4:
                fused.set_enabled(None)
            opt.apply_gradients([(ds.constant(a), v) for a, v in zip(gs, vs)])
    finally:
        batched.set_enabled(previous)
        fused.set_enabled(None)
    _assert_same(_state(vs, opt), _state(ref_vars, ref_opt))


def test_a_copied_optimizer_does_not_share_the_remembered_lists():
    vs, opt, g = _warm()
    twin_vars, twin = copy.deepcopy((vs, opt))
    assert bound.bound_plans(opt) and not bound.bound_plans(twin)  # (its offsets table holds the original's arrays)
    before = [v.numpy() for v in vs]
    for _ in range(2):
        twin.apply_gradients([(ds.constant(a), v) for a, v in zip(g, twin_vars)])
    _assert_same([v.numpy() for v in vs], before)


def test_a_batched_update_bumps_versions_so_a_tape_sees_the_in_place_write():
    vs, opt, g = _warm()
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(vs[2] * vs[2])
    opt.apply_gradients([(ds.constant(a), v) for a, v in zip(g, vs)])
    with pytest.raises(Exception, match="modified in place"):
        tape.gradient(y, vs[2])


def test_lists_are_remembered_per_optimizer_and_bounded():
    init, grads = _data(steps=1)
    opt = ds.optimizers.SGD(0.1, momentum=0.5)
    lists = [[ds.Variable(a, name=f"l{k}_{i}") for i, a in enumerate(init)] for k in range(bound.MAX_BOUND + 2)]
    before = batched.stats["steps"]
    for _ in range(2):
        for vs in lists:
            opt.apply_gradients([(ds.constant(a), v) for a, v in zip(grads[0], vs)])
    assert batched.stats["steps"] - before == len(lists)  # the second round: every list (rebuilt when evicted)
    assert len(bound.bound_plans(opt)) == bound.MAX_BOUND
    bound.clear(opt)
    assert not bound.bound_plans(opt)


@pytest.fixture
def gather_everything(monkeypatch):
    monkeypatch.setattr(batched, "GATHER_MIN", 0)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Nadam"])
def test_slots_gathered_into_one_buffer_give_the_same_results(name, gather_everything):
    init, grads = _data(steps=5)
    ref_vars, ref_opt, _ = _run(MAKERS[name], False, init, grads, exclude=("w3",))
    got_vars, got_opt, n = _run(MAKERS[name], True, init, grads, prefix="u", exclude=("u3",))
    assert n == 4
    _assert_same(_state(got_vars, got_opt), _state(ref_vars, ref_opt))
    storage = {id(got_opt.get_slot(v, s)._value.base) for v in got_vars if v.shape != (0,)
               for s in got_opt.get_slot_names()}
    assert len(storage) == 2  # one buffer per dtype (float32, float64): the slots moved


def test_a_gathered_slot_keeps_its_variable_value_and_checkpoint(gather_everything):
    init, grads = _data(steps=1)
    previous = batched.set_enabled(False)
    try:
        vs = [ds.Variable(a, name=f"u{i}") for i, a in enumerate(init)]
        opt = ds.optimizers.Adam(0.01)
        opt.apply_gradients([(ds.constant(a), v) for a, v in zip(grads[0], vs)])
    finally:
        batched.set_enabled(previous)
    slots = [opt.get_slot(v, "m") for v in vs]
    held = np.asarray(slots[2])  # a view of slot 2's array: that slot must stay where it is
    before = [s.numpy() for s in slots]
    state = opt.state_dict()
    opt.apply_gradients([(ds.constant(a), v) for a, v in zip(grads[0], vs)])  # the list is remembered: slots move
    assert all(opt.get_slot(v, "m") is s for v, s in zip(vs, slots))  # the same Variables
    assert slots[4]._value.base is not None and slots[2]._value.base is None
    np.testing.assert_array_equal(held, slots[2].numpy())  # the held view still sees the slot's updates
    opt.load_state_dict(state)  # restore into the gathered storage, then step again
    for s, b in zip(slots, before):
        np.testing.assert_array_equal(s.numpy(), b)
    slots[4].assign(np.ones(slots[4].shape, slots[4].dtype.as_numpy_dtype))
    assert (slots[4]._value == 1).all()


def test_an_aggregation_stage_keeps_the_general_pipeline_and_one_replica_does_not():
    calls = []

    class Counting(pipeline.Aggregation):
        def prepare(self, plan):
            calls.append(len(plan.pairs))

    def with_stage():
        opt = MAKERS["AdamW"]()
        opt.set_aggregation(Counting())
        return opt

    init, grads = _data(steps=4)
    ref_vars, ref_opt, n = _run(with_stage, True, init, grads)
    assert n == 0 and calls == [len(init)] * 4  # a stage that sums across replicas: every step runs it
    strategy = ds.distribute.MultiWorkerMirroredStrategy()  # one replica here: nothing to sum

    def under_strategy():
        with strategy.scope():
            return MAKERS["AdamW"]()

    got_vars, got_opt, n = _run(under_strategy, True, init, grads, prefix="u")
    assert strategy.num_replicas_in_sync > 1 or n == 3
    _assert_same(_state(got_vars, got_opt), _state(ref_vars, ref_opt))


def test_the_compiled_header_check_tells_every_misfit_apart():
    from descend._native import jit

    assert jit.header_ok()
    params = [np.zeros((3, 4), np.float32), np.zeros(5, np.float32), np.zeros((), np.float32)]
    batch = fused.kernel_for(ds.optimizers.SGD(0.1, momentum=0.5).rule.fn).dense_batch(
        params, [[np.zeros_like(p)] for p in params])

    class Sub(np.ndarray):
        pass

    good = [np.ones((3, 4), np.float32), np.ones(5, np.float32), np.ones((), np.float32)]
    assert batch.bind(good) is not None
    misfits = {"not contiguous": np.ones(10, np.float32)[::2], "float64": np.ones(5, np.float64),
               "shape": np.ones((5, 1), np.float32), "a subclass": np.ones(5, np.float32).view(Sub),
               "a NumPy scalar": np.float32(1), "not an array": [1.0] * 5, "None": None}
    for what, bad in misfits.items():
        assert batch.bind([good[0], bad, good[2]]) is None, what
        assert batch.bind([good[0], good[1], bad]) is None, what
    # an equal dtype held by another dtype object: the compiled check says no, the Python check yes
    other = np.ones(5, np.dtype(np.float32, metadata={"unit": "m"}))
    assert other.dtype is not params[1].dtype and other.dtype == params[1].dtype
    bound = batch.bind([good[0], other, good[2]])
    assert bound is not None and bound[1][1] == id(other)


def test_the_remembered_lists_go_with_their_optimizer():
    import gc
    import pickle
    import weakref

    vs, opt, g = _warm()
    opt.apply_gradients([(ds.constant(a), v) for a, v in zip(g, vs)])
    plans = opt.__dict__["_bound_plans"]  # (the list itself: its pickle and copies are empty)
    assert plans and bound.bound_plans(opt)
    assert not pickle.loads(pickle.dumps(plans))
    del plans
    ref = weakref.ref(vs[0])
    cycle = {"optimizer": opt, "variables": vs}
    cycle["self"] = cycle
    del vs, opt, cycle
    gc.collect()  # one collection frees the optimizer, its lists and the variables together
    assert ref() is None
