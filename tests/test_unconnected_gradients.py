"""``UnconnectedGradients`` and ``unconnected_gradients=`` of the tape's gradient, jacobian and batch_jacobian."""

import numpy as np
import pytest

import descend as ds


def _run(m, method, mode):
    """``method`` of a tape over ``x`` (connected) and ``y`` (not); ``mode`` names a member or gives a string."""
    arg = getattr(m.UnconnectedGradients, mode[len("enum_"):]) if mode.startswith("enum_") else mode
    x = m.Variable([[1.0, 2.0], [3.0, 4.0]])
    y = m.Variable([5.0, 6.0, 7.0])
    w = m.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # a batch of 2, unconnected
    with m.GradientTape(persistent=True) as tape:
        z = x * x * 3.0
    if method == "gradient":
        out = tape.gradient(z, [x, y], unconnected_gradients=arg)
    elif method == "jacobian":
        out = tape.jacobian(z, [x, y], unconnected_gradients=arg)
    else:
        out = [tape.batch_jacobian(z, x, unconnected_gradients=arg), tape.batch_jacobian(z, w, unconnected_gradients=arg)]
    return [None if o is None else (o.numpy(), o.dtype.name) for o in out]


METHODS = ["gradient", "jacobian", "batch_jacobian"]
MODES = ["none", "zero", "enum_NONE", "enum_ZERO"]


def test_members_and_values():
    assert ds.UnconnectedGradients.NONE.value == "none" and ds.UnconnectedGradients.ZERO.value == "zero"
    assert ds.UnconnectedGradients("zero") is ds.UnconnectedGradients.ZERO
    assert [m.name for m in ds.UnconnectedGradients] == ["NONE", "ZERO"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("mode", MODES)
def test_unconnected_source(method, mode):
    out = _run(ds, method, mode)
    unconnected = out[1]
    if mode.lower().endswith("none") and method != "batch_jacobian":  # TF's batch_jacobian: zeros, never None
        assert unconnected is None
    else:
        value, dtype = unconnected
        assert dtype == "float32" and not value.any()
        expected = {"gradient": (3,), "jacobian": (2, 2, 3), "batch_jacobian": (2, 2, 3)}[method]
        assert value.shape == expected
    if method == "gradient":
        np.testing.assert_allclose(out[0][0], 6.0 * np.array([[1.0, 2.0], [3.0, 4.0]]))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("mode", MODES)
def test_matches_tf(method, mode):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = _run(ds, method, mode), _run(tf, method, mode)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            assert a[1] == b[1]
            np.testing.assert_allclose(a[0], b[0], rtol=1e-6)


BAD = ["NONE", "Zero", "bad", 3, None, ("zero",)]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("bad", BAD, ids=[repr(b) for b in BAD])
def test_bad_value_raises_and_leaves_the_tape_usable(method, bad):
    x = ds.Variable([[1.0, 2.0]])
    with ds.GradientTape() as tape:  # not persistent: a failed call must not release it
        z = x * 2.0
    call = {"gradient": lambda u: tape.gradient(z, x, unconnected_gradients=u),
            "jacobian": lambda u: tape.jacobian(z, x, unconnected_gradients=u),
            "batch_jacobian": lambda u: tape.batch_jacobian(z, x, unconnected_gradients=u)}[method]
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: " + repr(bad).replace("(", r"\(")
                       .replace(")", r"\)") + ".*expected UnconnectedGradients.NONE"):
        call(bad)
    assert call(ds.UnconnectedGradients.NONE) is not None


@pytest.mark.parametrize("bad", ["NONE", "bad", 3])
def test_bad_value_matches_tf_error_type(bad):
    tf = pytest.importorskip("tensorflow")
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        z = x * 2.0
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tape.gradient(z, x, unconnected_gradients=bad)
