"""``init_scope``: Variables made once, eagerly, inside a traced function; ops lifted out of the trace and the tape."""

import pytest

import descend as ds


def _module_program(m):
    """A Module creating its Variable lazily under init_scope, called with two shapes (two traces)."""
    made = []

    class Scale(m.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        @m.function
        def __call__(self, x):
            with m.init_scope():
                if self.w is None:
                    made.append(1)
                    self.w = m.Variable(2.0)
            return x * self.w

    s = Scale()
    out = [s(m.constant(3.0)), s(m.constant([1.0, 2.0])), s(m.constant(4.0))]
    s.w.assign(5.0)
    out.append(s(m.constant(1.0)))
    return [o.numpy().tolist() for o in out], len(made), len(s.trainable_variables)


def test_module_variable_created_once():
    values, made, n = _module_program(ds)
    assert values == [6.0, [2.0, 4.0], 8.0, 5.0]
    assert made == 1 and n == 1


def test_module_matches_tf():
    tf = pytest.importorskip("tensorflow")
    assert _module_program(ds) == _module_program(tf)


def _unguarded(m):
    """A function making a Variable under init_scope on every trace, called with two shapes."""
    store = []

    @m.function
    def f(x):
        with m.init_scope():
            store.append(m.Variable(float(len(store) + 1)))
        return x * store[-1]

    return f, store


def test_variables_on_a_later_trace_are_refused():
    f, store = _unguarded(ds)
    assert f(ds.constant(1.0)).numpy() == 1.0
    with pytest.raises(ValueError, match="Variable"):
        f(ds.constant([1.0, 1.0]))
    assert len(store) == 1  # the refused Variable is not made


def test_unguarded_creation_is_refused_as_by_tf():
    # TF's singleton rule holds under init_scope too (TF refuses it on the first call already: it traces twice)
    tf = pytest.importorskip("tensorflow")
    f, _ = _unguarded(tf)
    with pytest.raises(ValueError, match="singleton"):
        f(tf.constant(1.0))
        f(tf.constant([1.0, 1.0]))


def test_without_init_scope_a_later_trace_still_may_not_create_variables():
    store = []

    @ds.function
    def f(x):
        store.append(ds.Variable(1.0))
        return x * store[-1]

    f(ds.constant(1.0))
    with pytest.raises(ValueError, match="Variable"):
        f(ds.constant([1.0, 2.0]))


def _tape_program(m):
    x = m.Variable(3.0)
    with m.GradientTape() as tape:
        with m.init_scope():
            lifted = x * x  # not recorded
        y = x * 2.0 + lifted
    return tape.gradient(y, x).numpy().tolist(), lifted.numpy().tolist()


def test_tape_paused():
    assert _tape_program(ds) == (2.0, 9.0)


def test_tape_paused_matches_tf():
    tf = pytest.importorskip("tensorflow")
    assert _tape_program(ds) == _tape_program(tf)


def test_lifted_ops_are_captured_not_recorded():
    # a value computed under init_scope on the first trace is a constant of the plan: later calls reuse it
    calls = []

    def eager_value():
        calls.append(1)
        return ds.constant(10.0) * 2.0

    @ds.function
    def f(x):
        with ds.init_scope():
            c = eager_value()
        return x + c

    assert [f(ds.constant(float(k))).numpy().tolist() for k in range(3)] == [20.0, 21.0, 22.0]
    assert len(calls) == 1


def test_an_error_inside_leaves_tracing_and_the_tape_as_they_were():
    x = ds.Variable(3.0)

    @ds.function
    def f(v):
        try:
            with ds.init_scope():
                raise KeyError("inside")
        except KeyError:
            pass
        return v * x  # recorded as usual after the failed block

    with ds.GradientTape() as tape:
        with pytest.raises(RuntimeError, match="boom"):
            with ds.init_scope():
                raise RuntimeError("boom")
        y = x * x  # the tape records again
    assert tape.gradient(y, x).numpy() == 6.0
    assert [f(ds.constant(2.0)).numpy().tolist() for _ in range(2)] == [6.0, 6.0]
    x.assign(4.0)
    assert f(ds.constant(2.0)).numpy() == 8.0  # x is read by the plan, not frozen
