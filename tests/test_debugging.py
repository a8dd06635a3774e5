"""``descend.debugging.explain_gradient``: one test per cause of a ``None`` gradient.

Each test builds the situation, checks that ``tape.gradient`` really gives
``None`` (or zeros), and that the explanation names the cause and the
variable or op involved.
"""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend.framework import tape as tape_module


@pytest.fixture(autouse=True)
def _forget_last_call():
    tape_module.forget_missing_gradients()
    yield
    tape_module.forget_missing_gradients()


def _explain(tape, target, source):
    return ds.debugging.explain_gradient(tape, target, source)


def test_constant_not_watched():
    x = ds.constant([1.0, 2.0])
    with ds.GradientTape(persistent=True) as tape:
        y = ds.reduce_sum(x * x)
    assert tape.gradient(y, x) is None
    msg = _explain(tape, y, x)
    assert "not watched" in msg and "tape.watch" in msg and "float32 tensor of shape (2,)" in msg


def test_non_trainable_variable_not_watched():
    v = ds.Variable([1.0], name="frozen", trainable=False)
    with ds.GradientTape(persistent=True) as tape:
        y = ds.reduce_sum(v * 3.0)
    assert tape.gradient(y, v) is None
    msg = _explain(tape, y, v)
    assert "variable 'frozen'" in msg and "not watched" in msg and "not trainable" in msg


def test_variable_not_watched_with_watch_accessed_variables_false():
    v = ds.Variable([1.0], name="w")
    with ds.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        y = ds.reduce_sum(v * 3.0)
    assert tape.gradient(y, v) is None
    msg = _explain(tape, y, v)
    assert "variable 'w'" in msg and "watch_accessed_variables=False" in msg


def test_not_on_any_path_names_what_the_target_depends_on():
    a = ds.Variable([1.0], name="used")
    b = ds.Variable([2.0], name="unused")
    with ds.GradientTape(persistent=True) as tape:
        _ = b * 1.0  # b is read (so watched) but the loss does not use it
        loss = ds.reduce_sum(a * a)
    assert tape.gradient(loss, b) is None
    msg = _explain(tape, loss, b)
    assert "variable 'unused' is not on any path to the target" in msg
    assert "depends on variable 'used'" in msg


def test_cut_by_stop_gradient():
    w = ds.Variable([1.0, 2.0], name="w")
    with ds.GradientTape(persistent=True) as tape:
        h = w * 2.0
        loss = ds.reduce_sum(ds.stop_gradient(h) * 3.0)
    assert tape.gradient(loss, w) is None
    msg = _explain(tape, loss, w)
    assert "variable 'w'" in msg and "cut by stop_gradient" in msg and "'stop_gradient'" in msg


def test_variable_read_only_through_stop_gradient():
    w = ds.Variable([1.0, 2.0], name="w")
    with ds.GradientTape(persistent=True) as tape:
        loss = ds.reduce_sum(ds.stop_gradient(w) * 3.0)
    assert tape.gradient(loss, w) is None
    msg = _explain(tape, loss, w)
    assert "variable 'w'" in msg and "stop_gradient" in msg


def test_integer_dtype_on_the_path_names_the_op():
    w = ds.Variable([1.5, 2.5], name="w")
    with ds.GradientTape(persistent=True) as tape:
        rounded = ds.cast(ds.cast(w * 1.0, "int32"), "float32")
        loss = ds.reduce_sum(rounded * 2.0)
    assert tape.gradient(loss, w) is None
    msg = _explain(tape, loss, w)
    assert "variable 'w'" in msg and "op 'cast'" in msg and "integer dtype int32" in msg


def test_integer_source():
    n = ds.Variable([1, 2], name="count")
    with ds.GradientTape() as tape:
        _ = n * 2
    msg = _explain(tape, _, n)
    assert "variable 'count'" in msg and "integer dtype int32" in msg


def test_op_without_a_gradient_on_the_path_names_it():
    w = ds.Variable([3.0, 5.0], name="w")
    with ds.GradientTape(persistent=True) as tape:
        loss = ds.reduce_sum(ds.floordiv(w * 1.0, 2.0))
    assert tape.gradient(loss, w) is None
    zeros = tape.gradient(loss, w, unconnected_gradients="zero")
    np.testing.assert_array_equal(zeros.numpy(), [0.0, 0.0])
    msg = _explain(tape, loss, w)
    assert "variable 'w'" in msg and "op 'floordiv'" in msg and "has no gradient" in msg


def test_variable_read_only_by_an_op_without_a_gradient():
    w = ds.Variable([3.0, 5.0], name="w")
    with ds.GradientTape(persistent=True) as tape:
        loss = ds.reduce_sum(ds.floordiv(w, 2.0))
    assert tape.gradient(loss, w) is None
    msg = _explain(tape, loss, w)
    assert "variable 'w'" in msg and "'floordiv'" in msg and "no gradient" in msg


def test_target_computed_outside_the_block():
    w = ds.Variable([1.0], name="w")
    with ds.GradientTape(persistent=True) as tape:
        _ = w * 1.0
    loss = ds.reduce_sum(w * w)  # after the block
    assert tape.gradient(loss, w) is None
    msg = _explain(tape, loss, w)
    assert "computed outside the tape's block" in msg


def test_target_computed_under_stop_recording():
    w = ds.Variable([1.0], name="w")
    with ds.GradientTape(persistent=True) as tape:
        with tape.stop_recording():
            loss = ds.reduce_sum(w * w)
    assert tape.gradient(loss, w) is None
    assert "stop_recording" in _explain(tape, loss, w)


def test_gradient_asked_of_a_non_persistent_tape_twice():
    w = ds.Variable([1.0], name="w")
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(w * w)
    assert tape.gradient(loss, w) is not None
    with pytest.raises(RuntimeError):
        tape.gradient(loss, w)
    msg = _explain(tape, loss, w)
    assert "non-persistent" in msg and "second time" in msg and "persistent=True" in msg


def test_a_non_persistent_tape_keeps_its_record_for_the_call_that_left_a_gradient_none():
    a = ds.Variable([1.0], name="a")
    b = ds.Variable([2.0], name="b")
    with ds.GradientTape() as tape:
        _ = b * 1.0
        loss = ds.reduce_sum(a * 3.0)
    ga, gb = tape.gradient(loss, [a, b])
    assert ga is not None and gb is None
    msg = _explain(tape, loss, b)
    assert "variable 'b' is not on any path" in msg and "variable 'a'" in msg


def test_connected_source_is_reported_as_connected():
    w = ds.Variable([1.0], name="w")
    with ds.GradientTape(persistent=True) as tape:
        loss = ds.reduce_sum(w * w)
    assert tape.gradient(loss, w) is not None
    msg = _explain(tape, loss, w)
    assert "connects variable 'w' to the target" in msg and "'multiply'" in msg


def test_report_for_the_optimizer_warning_names_each_variable_and_cause():
    used = ds.Variable([1.0], name="used")
    frozen_path = ds.Variable([1.0], name="cut")
    never = ds.Variable([1.0], name="never_read")
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(used * 2.0) + ds.reduce_sum(ds.stop_gradient(frozen_path * 1.0))
    grads = tape.gradient(loss, [used, frozen_path, never])
    assert grads[0] is not None and grads[1] is None and grads[2] is None
    lines = ds.debugging.explain_missing_gradients([frozen_path, never])
    assert "variable 'cut'" in lines[0] and "stop_gradient" in lines[0]
    assert "variable 'never_read'" in lines[1] and "not read inside the tape's block" in lines[1]
    report = ds.debugging.missing_gradients_report([frozen_path, never])
    assert report.splitlines() == [f"- {line}" for line in lines]


def test_report_for_a_variable_no_tape_call_left_without_gradient():
    v = ds.Variable([1.0], name="orphan")
    (line,) = ds.debugging.explain_missing_gradients([v])
    assert "variable 'orphan'" in line and "None before it reached the optimizer" in line


def test_explain_gradient_checks_its_arguments():
    x = ds.constant(1.0)
    with ds.GradientTape() as tape:
        pass
    with pytest.raises(TypeError, match="expects a GradientTape as `tape`. Received: str"):
        ds.debugging.explain_gradient("tape", x, x)
    with pytest.raises(TypeError, match="expects a Tensor or Variable as `source`. Received: list"):
        ds.debugging.explain_gradient(tape, x, [1.0])


def test_the_note_for_the_optimizer_does_not_keep_the_tape_alive():
    import gc
    import weakref

    a = ds.Variable([1.0], name="a")
    b = ds.Variable([1.0], name="gone")
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(a * 2.0)
    tape.gradient(loss, [a, b])
    ref = weakref.ref(tape)
    del tape
    gc.collect()
    assert ref() is None
    (line,) = ds.debugging.explain_missing_gradients([b])
    assert "variable 'gone'" in line and "no longer exists" in line
