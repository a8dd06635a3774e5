"""The op-case table driver: numerical gradient checks and op coverage.

Every case in ``op_cases_core.CASES`` (and ``op_cases_nn.CASES`` when that
file exists) is checked against central differences in float64; cases marked
``second_order`` also get the gradient of their gradient checked. The
coverage tests fail when a differentiable op registered in ``descend`` is not
exercised by any case.
"""

from __future__ import annotations

import numpy as np
import pytest
from op_case import Case
from op_cases_core import CASES as CORE_CASES
from op_cases_core import REFERENCES as CORE_REFERENCES

import descend as ds
from descend.framework.op import OPS, Op
from descend.testing import check_gradients

try:
    import op_cases_nn
except ModuleNotFoundError as e:  # only a missing file is tolerated, not a broken one
    if e.name != "op_cases_nn":
        raise
    op_cases_nn = None
NN_CASES = None if op_cases_nn is None else op_cases_nn.CASES

TOL = 1e-6
import op_cases_layers  # noqa: E402  (conv ops: im2col / col2im)

ALL_CASES = list(CORE_CASES) + list(NN_CASES or []) + list(op_cases_layers.CASES)
# NumPy forward references: required for every core case, optional for nn cases
REFERENCES = {**getattr(op_cases_nn, "REFERENCES", {}), **op_cases_layers.REFERENCES, **CORE_REFERENCES}

# Cases whose fn pins float64 (a cast to float64, float64 constants in the closure)
# and so cannot run on float32 inputs.
FLOAT64_ONLY = {"cast_float64_to_float64", "cast_float64_dtype_object", "clip_by_value_tensor_bounds"}

# Checks that fail because of a known bug in descend: (check, case name) -> reason,
# check being one of "well_formed", "forward", "first_order", "second_order",
# "float32". The lead removes an entry when the bug is fixed (strict xfail flags
# a fix that forgot to).
KNOWN_BUGS: dict[tuple[str, str], str] = {}

# Ops registered differentiable=True that deliberately have no VJP. Each entry:
# why, and a call that reaches the op on a watched float64 input.
NO_VJP_ALLOWLIST = {
    "_prod_of_others": (
        ("helper used only inside reduce_prod's VJP; reduce_prod is differentiable once, "
         "its second derivative is not implemented"),
        lambda x: OPS["_prod_of_others"](x, axis=1),
        np.array([[0.5, 1.5, -2.0], [1.25, -0.75, 2.0]]),
    ),
    "ctc_loss_gradient": (
        "the CTC loss's gradient, computed with its forward-backward pass; as TF's CTC loss, no second derivative",
        lambda x: OPS["ctc_loss_gradient"](x, np.array([[1]]), np.array([1]), np.array([2])),
        np.array([[[0.5, 1.5, -2.0], [1.25, -0.75, 2.0]]]),
    ),
}

NN_MODULE = "descend.ops.nn_ops"


def _params(cases, check):
    out = []
    for c in cases:
        reason = KNOWN_BUGS.get((check, c.name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(c, id=c.name, marks=marks))
    return out


def _outputs(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _projection_weights(case, seed=12345):
    """Fixed random weights, one array per output of ``case.fn``."""
    outs = _outputs(case.fn(*[ds.constant(a) for a in case.args]))
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 1.5, size=o.shape) for o in outs]


def first_derivative(case):
    """A function of the same inputs returning d/dx_i sum(w * fn(x)) for every input i.

    Computed with an inner GradientTape, so differentiating it (with the outer
    tape of ``check_gradients``) differentiates the VJPs themselves.
    """
    weights = _projection_weights(case)

    def grad_fn(*xs):
        with ds.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            outs = _outputs(case.fn(*xs))
            terms = [ds.reduce_sum(o * ds.constant(w)) for o, w in zip(outs, weights)]
            y = terms[0] if len(terms) == 1 else ds.add_n(terms)
        grads = tape.gradient(y, list(xs), unconnected_gradients="zero")
        return [ds.convert_to_tensor(g) if isinstance(g, ds.IndexedSlices) else g for g in grads]

    return grad_fn


# ---------------------------------------------------------------- the table itself
def test_case_names_are_unique():
    names = [c.name for c in ALL_CASES]
    dupes = sorted({n for n in names if names.count(n) > 1})
    assert not dupes, f"duplicate case names: {dupes}"


@pytest.mark.parametrize("case", _params(ALL_CASES, "well_formed"))
def test_case_is_well_formed(case):
    assert isinstance(case, Case)
    assert case.args, "a case needs at least one differentiable input"
    for a in case.args:
        assert isinstance(a, np.ndarray) and a.dtype == np.float64, f"args must be float64 arrays; got {a!r}"
    outs = _outputs(case.fn(*[ds.constant(a) for a in case.args]))
    for o in outs:
        assert isinstance(o, ds.Tensor), f"fn must return Tensors; got {type(o).__name__}"
        assert o.dtype == np.float64, f"fn must keep float64 (a float32 output spoils the check); got {o.dtype}"
        assert np.all(np.isfinite(o.numpy()))


@pytest.mark.parametrize("case", _params(ALL_CASES, "first_order"))
def test_gradient_matches_central_differences(case):
    err = check_gradients(case.fn, *case.args)
    assert err < TOL, f"{case.name}: max relative error {err:.3g} between tape and numerical gradients"


@pytest.mark.parametrize("case", _params([c for c in ALL_CASES if c.second_order], "second_order"))
def test_second_derivative_matches_central_differences(case):
    err = check_gradients(first_derivative(case), *case.args)
    assert err < TOL, f"{case.name}: max relative error {err:.3g} in the gradient of the gradient"


def test_every_core_case_has_a_numpy_reference():
    missing = sorted(c.name for c in CORE_CASES if c.name not in REFERENCES)
    assert not missing, f"core cases without a NumPy reference in op_cases_core.REFERENCES: {missing}"
    stale = sorted(set(CORE_REFERENCES) - {c.name for c in CORE_CASES})
    assert not stale, f"references without a case: {stale}"


@pytest.mark.parametrize("case", _params([c for c in ALL_CASES if c.name in REFERENCES], "forward"))
def test_forward_matches_numpy_reference(case):
    got = _outputs(case.fn(*[ds.constant(a) for a in case.args]))
    expected = _outputs(REFERENCES[case.name](*[a.copy() for a in case.args]))
    assert len(got) == len(expected), f"{len(got)} outputs, expected {len(expected)}"
    for g, e in zip(got, expected):
        e = np.asarray(e)
        assert g.shape == e.shape, f"shape {g.shape}, expected {e.shape}"
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("case", _params([c for c in ALL_CASES if c.name not in FLOAT64_ONLY], "float32"))
def test_float32_inputs_give_float32_outputs_and_gradients(case):
    xs = [ds.constant(a.astype(np.float32)) for a in case.args]
    with ds.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        outs = _outputs(case.fn(*xs))
        y = ds.add_n([ds.reduce_sum(o) for o in outs])
    assert [o.dtype.name for o in outs] == ["float32"] * len(outs)
    grads = tape.gradient(y, xs)
    for g in grads:
        if g is not None:
            assert g.dtype == np.float32, f"gradient dtype {g.dtype}"


# ---------------------------------------------------------------- conventions at kinks and ties (as TF)
def _grad(f, x0):
    x = ds.constant(np.asarray(x0, np.float64))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    g = tape.gradient(y, x)
    return ds.convert_to_tensor(g).numpy()


def test_reduce_max_and_min_share_the_gradient_between_ties():
    np.testing.assert_array_equal(_grad(ds.reduce_max, [1.0, 3.0, 3.0]), [0.0, 0.5, 0.5])
    np.testing.assert_array_equal(_grad(lambda x: ds.reduce_min(x, axis=1), [[1.0, 1.0], [2.0, 0.0]]),
                                  [[0.5, 0.5], [0.0, 1.0]])


def test_maximum_and_minimum_ties_send_the_gradient_to_x():
    y = ds.constant(np.array([2.0, 2.0]))
    np.testing.assert_array_equal(_grad(lambda x: ds.maximum(x, y), [2.0, 1.0]), [1.0, 0.0])
    np.testing.assert_array_equal(_grad(lambda x: ds.minimum(x, y), [2.0, 3.0]), [1.0, 0.0])
    np.testing.assert_array_equal(_grad(lambda x: ds.maximum(y, x), [2.0, 3.0]), [0.0, 1.0])


def test_abs_and_sign_at_zero_and_clip_at_its_bounds():
    np.testing.assert_array_equal(_grad(ds.abs, [0.0, -1.0, 2.0]), [0.0, -1.0, 1.0])
    np.testing.assert_array_equal(_grad(ds.sign, [0.0, -1.0]), [0.0, 0.0])
    np.testing.assert_array_equal(_grad(lambda x: ds.clip_by_value(x, 0.0, 1.0), [0.0, 1.0, 1.5, -0.5, 0.5]),
                                  [1.0, 1.0, 0.0, 0.0, 1.0])


def test_pow_exponent_gradient_is_zero_where_the_base_is_not_positive():
    base = ds.constant(np.array([-2.0, 0.0, 3.0]))
    np.testing.assert_allclose(_grad(lambda y: ds.pow(base, y), [2.0, 2.0, 2.0]), [0.0, 0.0, 9.0 * np.log(3.0)],
                               rtol=1e-14)
    np.testing.assert_array_equal(_grad(lambda x: x ** 2, [0.0]), [0.0])


# ---------------------------------------------------------------- the checker can fail
def _wrong_sin(scale):
    op = Op(lambda x: np.sin(x), name="test_wrong_sin", register=False)
    op.defvjp(lambda g, ans, x: ds.multiply(g, ds.multiply(ds.cos(x), scale)))
    return op


def test_check_gradients_detects_a_wrong_vjp():
    x = np.array([0.3, -0.7, 1.1])
    assert check_gradients(_wrong_sin(1.0), x) < TOL
    assert check_gradients(_wrong_sin(1.001), x) > 1e-4


def test_second_order_check_detects_a_vjp_that_is_not_differentiable():
    op = Op(lambda x: np.sin(x), name="test_sin_stopped_vjp", register=False)
    op.defvjp(lambda g, ans, x: ds.multiply(g, ds.stop_gradient(ds.cos(x))))
    case = Case("sin_stopped_vjp", op, [np.array([0.3, -0.7, 1.1])], True)
    assert check_gradients(case.fn, *case.args) < TOL  # first order is right
    assert check_gradients(first_derivative(case), *case.args) > 1e-2


# ---------------------------------------------------------------- coverage
def _descend_ops():
    return {name: op for name, op in OPS.items() if getattr(op.forward, "__module__", "").startswith("descend.")}


def _has_vjp(op):
    return op.vjp is not None or op.vjps is not None


def _recorded_op_names(cases):
    """Names of the ops the tape records while running each case (and, for
    second-order cases, while computing its first derivative under the tape)."""
    names = set()
    for case in cases:
        xs = [ds.constant(a) for a in case.args]
        tape = ds.GradientTape(persistent=True)
        try:
            with tape:
                for x in xs:
                    tape.watch(x)
                case.fn(*xs)
                if case.second_order:
                    first_derivative(case)(*xs)
        except Exception:  # noqa: BLE001, S110 - the gradient tests report the failure of the case itself
            pass  # keep what was recorded before the failure
        names.update(entry[0].name for entry in tape._entries)
    return names


def _missing(required, cases):
    recorded = _recorded_op_names(cases)
    return sorted(required - recorded)


def test_every_core_differentiable_op_has_a_case():
    required = {n for n, op in _descend_ops().items()
                if op.differentiable and _has_vjp(op) and op.forward.__module__ != NN_MODULE}
    assert required, "no ops found: is descend imported?"
    missing = _missing(required, ALL_CASES)
    assert not missing, f"differentiable ops not exercised by any op case: {missing}"


def test_every_nn_differentiable_op_has_a_case():
    if NN_CASES is None:
        pytest.skip("tests/op_cases_nn.py does not exist yet")
    required = {n for n, op in _descend_ops().items()
                if op.differentiable and _has_vjp(op) and op.forward.__module__ == NN_MODULE}
    missing = _missing(required, ALL_CASES)
    assert not missing, f"differentiable nn ops not exercised by any op case: {missing}"


def test_differentiable_ops_without_vjp_are_exactly_the_allowlist():
    no_vjp = {n for n, op in _descend_ops().items() if op.differentiable and not _has_vjp(op)}
    unexpected = sorted(no_vjp - set(NO_VJP_ALLOWLIST))
    stale = sorted(set(NO_VJP_ALLOWLIST) - no_vjp)
    assert not unexpected, f"ops registered differentiable without a VJP (add a VJP or allow-list them): {unexpected}"
    assert not stale, f"allow-listed ops that now have a VJP or are gone (remove from NO_VJP_ALLOWLIST): {stale}"


@pytest.mark.parametrize("name", sorted(NO_VJP_ALLOWLIST))
def test_allowlisted_op_raises_no_gradient_error_naming_it(name):

    _reason, call, arg = NO_VJP_ALLOWLIST[name]
    x = ds.constant(arg)
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.reduce_sum(call(x))
    with pytest.raises(ds.NoGradientError, match=f"'{name}'"):
        tape.gradient(y, x)


def test_second_derivative_of_reduce_prod_raises_no_gradient_error():
    x = ds.constant(np.array([[0.5, 1.5, -2.0], [1.25, -0.75, 2.0]]))
    with ds.GradientTape() as outer:
        outer.watch(x)
        with ds.GradientTape() as inner:
            inner.watch(x)
            y = ds.reduce_sum(ds.reduce_prod(x, axis=1))
        g = inner.gradient(y, x)
    # first derivative: product of the other entries of the row
    expected = np.array([[1.5 * -2.0, 0.5 * -2.0, 0.5 * 1.5], [-0.75 * 2.0, 1.25 * 2.0, 1.25 * -0.75]])
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-12)
    with pytest.raises(ds.NoGradientError, match="_prod_of_others"):
        outer.gradient(g, x)

# d igamma / da (descend/ops/special_ops.py) has no gradient itself, as TF's IgammaGradA
NO_VJP_ALLOWLIST["lstm_sequence_grad"] = (
    "the fused LSTM's backward pass through time; as TF's CudnnRNNBackprop, no second derivative (the LSTM layer with "
    "use_cudnn=False has them)",
    lambda x: OPS["lstm_sequence_grad"](x, x, x, x, ds.concat([x] * 4, axis=-1), x, x[0], x[0],
                                        ds.ones((2, 8), ds.float64))[0],
    np.full((3, 1, 2), 0.5))
NO_VJP_ALLOWLIST["igamma_grad_a"] = ("TF's IgammaGradA has no gradient: igamma is differentiable once in a",
                                     lambda a: OPS["igamma_grad_a"](a, np.full(a.shape, 1.5)),
                                     np.array([0.5, 2.0, 3.5]))
