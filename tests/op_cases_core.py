"""Op cases for ``descend/ops/math_ops.py`` and ``descend/ops/array_ops.py``.

Every differentiable op registered by those modules appears here at least once
(``tests/test_op_gradients.py`` checks it). Inputs are float64 and chosen away
from kinks (|x| at 0, clip bounds), ties (max/min) and poles (log, 1/x).
Elementwise ops also get a second-order check.

``REFERENCES`` maps every case name to a NumPy function of the same arguments
(NumPy arrays in, array or list of arrays out): the gradient check only proves
the gradient matches descend's own forward, so the forward is checked too.
"""

from __future__ import annotations

import math

import numpy as np
from op_case import Case

import descend as ds

_rng = np.random.default_rng(20240611)

CASES: list = []
REFERENCES: dict = {}


def _case(name, fn, args, ref, second_order=False):
    CASES.append(Case(name, fn, args, second_order))
    REFERENCES[name] = ref


def _u(*shape, lo=0.5, hi=1.5):
    """Uniform in [lo, hi): positive and away from zero by default."""
    return np.asarray(_rng.uniform(lo, hi, size=shape), dtype=np.float64)


def _signed(*shape):
    """Both signs, |x| in [0.5, 1.5): away from the kink of abs/sign at 0."""
    return np.asarray(_u(*shape) * _rng.choice([-1.0, 1.0], size=shape), dtype=np.float64)


def _grid(*shape, offset=0.0):
    """Distinct values 0.2 apart (shuffled): no ties, for max/min-like ops.

    Values are ``offset + 0.2 * k`` for integers k, so two grids whose offsets
    differ by 0.1 never share a value, and with offset 0.05 no two values have
    the same magnitude.
    """
    n = int(np.prod(shape)) if shape else 1
    vals = offset + 0.2 * (np.arange(n) - n // 2)
    return _rng.permutation(vals).reshape(shape).astype(np.float64)


# ---------------------------------------------------------------- NumPy references
_np_erf = np.vectorize(math.erf, otypes=[np.float64])


def _np_logsumexp(x, axis=None, keepdims=False):
    return np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))


def _np_cumsum(x, axis=0, exclusive=False, reverse=False):
    a = np.flip(x, axis) if reverse else x
    out = np.cumsum(a, axis=axis)
    if exclusive:
        out = out - a  # sum of the strictly earlier entries
    return np.flip(out, axis) if reverse else out


def _np_segment_sum(x, ids, n):
    out = np.zeros((n,) + x.shape[np.ndim(ids):])
    np.add.at(out, ids, x)
    return out


def _np_scatter_nd(indices, updates, shape):
    out = np.zeros(shape)
    np.add.at(out, tuple(np.moveaxis(np.asarray(indices), -1, 0)), updates)
    return out


def _np_gather_nd(x, indices):
    return x[tuple(np.moveaxis(np.asarray(indices), -1, 0))]


# ---------------------------------------------------------------- elementwise unary
_case("negative", ds.negative, [_signed(2, 3)], np.negative, True)
_case("negative_operator", lambda x: -x, [_signed(3)], np.negative, True)
_case("reciprocal", ds.reciprocal, [_signed(2, 3)], np.reciprocal, True)
_case("square", ds.square, [_signed(2, 3)], np.square, True)
_case("sqrt", ds.sqrt, [_u(2, 3)], np.sqrt, True)
_case("rsqrt", ds.rsqrt, [_u(2, 3)], lambda x: 1 / np.sqrt(x), True)
_case("exp", ds.exp, [_signed(2, 3)], np.exp, True)
_case("log", ds.log, [_u(2, 3)], np.log, True)
_case("log1p", ds.log1p, [_u(2, 3, lo=-0.5, hi=1.5)], np.log1p, True)
_case("expm1", ds.expm1, [_signed(2, 3)], np.expm1, True)
_case("abs", ds.abs, [_signed(2, 3)], np.abs, True)
_case("abs_operator", lambda x: abs(x), [_signed(4)], np.abs, True)
_case("sign", ds.sign, [_signed(2, 3)], np.sign, True)
_case("sin", ds.sin, [_signed(2, 3)], np.sin, True)
_case("cos", ds.cos, [_signed(2, 3)], np.cos, True)
_case("tanh", ds.tanh, [_signed(2, 3)], np.tanh, True)
_case("erf", ds.erf, [_signed(2, 3)], _np_erf, True)
_case("identity", ds.identity, [_signed(2, 3)], lambda x: x, True)
_case("cast_float64_to_float64", lambda x: ds.cast(x, dtype="float64"), [_signed(2, 3)], lambda x: x, True)
_case("cast_float64_dtype_object", lambda x: ds.cast(x, dtype=ds.float64), [_signed(3)], lambda x: x, True)
_case("clip_by_value", lambda t: ds.clip_by_value(t, -0.8, 0.9),
      [np.array([[-1.3, -0.5, 0.2], [0.6, 1.2, -0.1]])], lambda t: np.clip(t, -0.8, 0.9), True)
_CLIP_HI = np.array([0.9, 0.1, 0.5])
_case("clip_by_value_tensor_bounds",
      lambda t: ds.clip_by_value(t, ds.constant(np.full((3,), -0.8)), ds.constant(_CLIP_HI)),
      [np.array([[-1.3, -0.5, 0.2], [0.6, 1.2, -0.1]])], lambda t: np.clip(t, -0.8, _CLIP_HI), True)

# ---------------------------------------------------------------- elementwise binary (with broadcasting)
for _name, _fn, _ref in [("add", ds.add, np.add), ("subtract", ds.subtract, np.subtract),
                         ("multiply", ds.multiply, np.multiply)]:
    _case(f"{_name}_same_shape", _fn, [_signed(2, 3), _signed(2, 3)], _ref, True)
    _case(f"{_name}_broadcast_3x1_4", _fn, [_signed(3, 1), _signed(4)], _ref, True)
    _case(f"{_name}_scalar_matrix", _fn, [_signed(), _signed(2, 3)], _ref, True)
    _case(f"{_name}_matrix_scalar", _fn, [_signed(2, 3), _signed()], _ref, True)
    _case(f"{_name}_broadcast_both_2x1x3_4x1", _fn, [_signed(2, 1, 3), _signed(4, 1)], _ref, True)

_case("add_operator", lambda x, y: x + y, [_signed(3, 1), _signed(4)], np.add, True)
_case("add_python_scalar", lambda x: x + 2.5, [_signed(2, 3)], lambda x: x + 2.5, True)
_case("radd_python_scalar", lambda x: 2.5 + x, [_signed(2, 3)], lambda x: 2.5 + x, True)
_case("subtract_operator", lambda x, y: x - y, [_signed(3, 1), _signed(4)], np.subtract, True)
_case("rsub_python_scalar", lambda x: 1.5 - x, [_signed(2, 3)], lambda x: 1.5 - x, True)
_case("multiply_operator", lambda x, y: x * y, [_signed(3, 1), _signed(4)], np.multiply, True)
_case("multiply_python_int", lambda x: x * 3, [_signed(2, 3)], lambda x: x * 3, True)
_case("divide_same_shape", ds.divide, [_signed(2, 3), _signed(2, 3)], np.divide, True)
_case("divide_broadcast_3x1_4", ds.divide, [_signed(3, 1), _signed(4)], np.divide, True)
_case("divide_scalar_matrix", ds.divide, [_signed(), _signed(2, 3)], np.divide, True)
_case("divide_matrix_scalar", ds.divide, [_signed(2, 3), _signed()], np.divide, True)
_case("truediv_operator", lambda x, y: x / y, [_signed(3, 1), _signed(4)], np.divide, True)
# mod: x in (1.05, 2.95) and y in (0.5, 0.9) keep x / y away from integers (the jumps of floor)
_case("mod_broadcast", ds.mod, [np.array([[1.1], [2.3], [2.9]]), np.array([0.7, 0.85])], np.mod, True)
_case("mod_operator", lambda x, y: x % y, [np.array([1.3, -1.7]), np.array([0.55, 0.6])], np.mod, True)
_case("truediv_python_scalar", lambda x: x / 4.0, [_signed(2, 3)], lambda x: x / 4.0, True)
_case("rtruediv_python_scalar", lambda x: 2.0 / x, [_signed(2, 3)], lambda x: 2.0 / x, True)
_case("pow_same_shape", ds.pow, [_u(2, 3), _signed(2, 3)], np.power, True)
_case("pow_broadcast_3x1_4", ds.pow, [_u(3, 1), _signed(4)], np.power, True)
_case("pow_scalar_base", ds.pow, [_u(), _signed(2, 3)], np.power, True)
_case("pow_scalar_exponent", ds.pow, [_u(2, 3), _signed()], np.power, True)
_case("pow_operator", lambda x, y: x ** y, [_u(3, 1), _signed(4)], np.power, True)
_case("pow_python_int_exponent", lambda x: x ** 3, [_signed(2, 3)], lambda x: x ** 3, True)
_case("pow_python_float_exponent", lambda x: x ** 2.5, [_u(2, 3)], lambda x: x ** 2.5, True)
_case("rpow_python_float_base", lambda x: 2.0 ** x, [_signed(2, 3)], lambda x: 2.0 ** x, True)


def _sqd(x, y):
    return (x - y) ** 2


_case("squared_difference_same_shape", ds.squared_difference, [_signed(2, 3), _signed(2, 3)], _sqd, True)
_case("squared_difference_broadcast", ds.squared_difference, [_signed(3, 1), _signed(4)], _sqd, True)
_case("squared_difference_scalar_matrix", ds.squared_difference, [_signed(), _signed(2, 3)], _sqd, True)
_case("maximum_same_shape", ds.maximum, [_grid(2, 3), _grid(2, 3, offset=0.1)], np.maximum, True)
_case("maximum_broadcast_3x1_4", ds.maximum, [_grid(3, 1), _grid(4, offset=0.1)], np.maximum, True)
_case("maximum_scalar_matrix", ds.maximum, [np.array(0.05), _grid(2, 3)], np.maximum, True)
_case("maximum_python_scalar", lambda x: ds.maximum(x, 0.05), [_grid(2, 3)], lambda x: np.maximum(x, 0.05), True)
_case("minimum_same_shape", ds.minimum, [_grid(2, 3), _grid(2, 3, offset=0.1)], np.minimum, True)
_case("minimum_broadcast_3x1_4", ds.minimum, [_grid(3, 1), _grid(4, offset=0.1)], np.minimum, True)
_case("minimum_matrix_scalar", ds.minimum, [_grid(2, 3), np.array(0.05)], np.minimum, True)
_COND23 = np.array([[True, False, True], [False, False, True]])
_COND3 = np.array([True, False, True])
_COND22 = np.array([[True, False], [False, True]])
_case("where_same_shape", lambda x, y: ds.where(ds.constant(_COND23), x, y), [_signed(2, 3), _signed(2, 3)],
      lambda x, y: np.where(_COND23, x, y), True)
_case("where_broadcast", lambda x, y: ds.where(ds.constant(_COND3), x, y), [_signed(2, 1), _signed(3)],
      lambda x, y: np.where(_COND3, x, y), True)
_case("where_scalar_branch", lambda x, y: ds.where(ds.constant(_COND22), x, y), [_signed(2, 2), _signed()],
      lambda x, y: np.where(_COND22, x, y), True)

# ---------------------------------------------------------------- reductions, scans
for _name, _fn, _ref in [("reduce_sum", ds.reduce_sum, np.sum), ("reduce_mean", ds.reduce_mean, np.mean),
                         ("reduce_prod", ds.reduce_prod, np.prod),
                         ("reduce_logsumexp", ds.reduce_logsumexp, _np_logsumexp)]:
    _case(f"{_name}_all", _fn, [_signed(2, 3, 2)], _ref)
    _case(f"{_name}_axis1", lambda x, _fn=_fn: _fn(x, axis=1), [_signed(2, 3, 2)],
          lambda x, _ref=_ref: _ref(x, axis=1))
    _case(f"{_name}_axis_neg1_keepdims", lambda x, _fn=_fn: _fn(x, axis=-1, keepdims=True), [_signed(2, 3, 2)],
          lambda x, _ref=_ref: _ref(x, axis=-1, keepdims=True))
    _case(f"{_name}_axes_0_2", lambda x, _fn=_fn: _fn(x, axis=[0, 2]), [_signed(2, 3, 2)],
          lambda x, _ref=_ref: _ref(x, axis=(0, 2)))
    _case(f"{_name}_all_keepdims", lambda x, _fn=_fn: _fn(x, keepdims=True), [_signed(2, 3)],
          lambda x, _ref=_ref: _ref(x, keepdims=True))
for _name, _fn, _ref in [("reduce_max", ds.reduce_max, np.max), ("reduce_min", ds.reduce_min, np.min)]:
    _case(f"{_name}_all", _fn, [_grid(2, 3, 2)], _ref)
    _case(f"{_name}_axis1", lambda x, _fn=_fn: _fn(x, axis=1), [_grid(2, 3, 2)], lambda x, _ref=_ref: _ref(x, axis=1))
    _case(f"{_name}_axis0_keepdims", lambda x, _fn=_fn: _fn(x, axis=0, keepdims=True), [_grid(3, 4)],
          lambda x, _ref=_ref: _ref(x, axis=0, keepdims=True))
    _case(f"{_name}_axes_0_2", lambda x, _fn=_fn: _fn(x, axis=(0, 2)), [_grid(2, 3, 2)],
          lambda x, _ref=_ref: _ref(x, axis=(0, 2)))

_case("reduce_sum_scalar_input", ds.reduce_sum, [_signed()], np.sum)
_case("cumsum_default", ds.cumsum, [_signed(4, 3)], _np_cumsum)
_case("cumsum_axis1", lambda x: ds.cumsum(x, axis=1), [_signed(3, 4)], lambda x: _np_cumsum(x, axis=1))
_case("cumsum_exclusive", lambda x: ds.cumsum(x, axis=1, exclusive=True), [_signed(3, 4)],
      lambda x: _np_cumsum(x, axis=1, exclusive=True))
_case("cumsum_reverse", lambda x: ds.cumsum(x, axis=0, reverse=True), [_signed(4, 3)],
      lambda x: _np_cumsum(x, axis=0, reverse=True))
_case("cumsum_exclusive_reverse", lambda x: ds.cumsum(x, axis=1, exclusive=True, reverse=True), [_signed(3, 4)],
      lambda x: _np_cumsum(x, axis=1, exclusive=True, reverse=True))
_case("cumsum_negative_axis", lambda x: ds.cumsum(x, axis=-1), [_signed(2, 2, 3)], lambda x: _np_cumsum(x, axis=-1))
_case("add_n_three", lambda a, b, c: ds.add_n([a, b, c]), [_signed(2, 3), _signed(2, 3), _signed(2, 3)],
      lambda a, b, c: a + b + c)
_case("add_n_same_input_twice", lambda a: ds.add_n([a, a]), [_signed(2, 3)], lambda a: 2 * a)
_case("add_n_one", lambda a: ds.add_n([a]), [_signed(3)], lambda a: a)

# ---------------------------------------------------------------- linear algebra


def _T(a):
    return np.swapaxes(a, -1, -2)


_case("matmul_2d", ds.matmul, [_signed(2, 3), _signed(3, 4)], np.matmul)
_case("matmul_operator", lambda a, b: a @ b, [_signed(2, 3), _signed(3, 4)], np.matmul)
_case("matmul_transpose_a", lambda a, b: ds.matmul(a, b, transpose_a=True), [_signed(3, 2), _signed(3, 4)],
      lambda a, b: _T(a) @ b)
_case("matmul_transpose_b", lambda a, b: ds.matmul(a, b, transpose_b=True), [_signed(2, 3), _signed(4, 3)],
      lambda a, b: a @ _T(b))
_case("matmul_transpose_both", lambda a, b: ds.matmul(a, b, transpose_a=True, transpose_b=True),
      [_signed(3, 2), _signed(4, 3)], lambda a, b: _T(a) @ _T(b))
_case("matmul_batched", ds.matmul, [_signed(2, 2, 3), _signed(2, 3, 4)], np.matmul)
_case("matmul_batched_broadcast", ds.matmul, [_signed(2, 1, 3, 4), _signed(3, 4, 2)], np.matmul)
_case("matmul_matrix_times_batch", ds.matmul, [_signed(2, 3), _signed(2, 3, 4)], np.matmul)
_case("matmul_batched_broadcast_transposed", lambda a, b: ds.matmul(a, b, transpose_a=True, transpose_b=True),
      [_signed(2, 1, 4, 3), _signed(3, 2, 4)], lambda a, b: _T(a) @ _T(b))
_case("matmul_second_order", ds.matmul, [_signed(2, 3), _signed(3, 2)], np.matmul, True)
for _name, _eq, _shapes in [
    ("einsum_matmul", "ij,jk->ik", [(2, 3), (3, 4)]),
    ("einsum_batched_transposed_out", "bij,bjk->bki", [(2, 2, 3), (2, 3, 4)]),
    ("einsum_sum_axis", "ij->j", [(2, 3)]),
    ("einsum_sum_all", "ij->", [(2, 3)]),
    ("einsum_transpose", "ij->ji", [(2, 3)]),
    ("einsum_outer", "i,j->ij", [(3,), (2,)]),
    ("einsum_dot", "i,i->", [(4,), (4,)]),
    ("einsum_three_operands", "ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]),
    ("einsum_index_only_in_one_operand", "ij,kl->ik", [(2, 3), (2, 2)]),
]:
    _case(_name, lambda *xs, _eq=_eq: ds.einsum(_eq, *xs), [_signed(*s) for s in _shapes],
          lambda *xs, _eq=_eq: np.einsum(_eq, *xs))
_case("einsum_second_order", lambda a, b: ds.einsum("ij,jk->ik", a, b), [_signed(2, 3), _signed(3, 2)],
      np.matmul, True)
_case("norm_euclidean_all", ds.norm, [_signed(2, 3)], lambda x: np.sqrt(np.sum(x * x)))
_case("norm_euclidean_axis1_keepdims", lambda x: ds.norm(x, axis=1, keepdims=True), [_signed(3, 4)],
      lambda x: np.linalg.norm(x, axis=1, keepdims=True))
_case("norm_fro", lambda x: ds.norm(x, ord="fro", axis=[0, 1]), [_signed(3, 2)], lambda x: np.linalg.norm(x, "fro"))
_case("norm_ord1", lambda x: ds.norm(x, ord=1, axis=0), [_signed(3, 4)], lambda x: np.sum(np.abs(x), axis=0))
_case("norm_inf", lambda x: ds.norm(x, ord=np.inf, axis=-1), [_grid(3, 4, offset=0.05)],
      lambda x: np.max(np.abs(x), axis=-1))

# ---------------------------------------------------------------- shapes
_case("reshape", lambda x: ds.reshape(x, shape=(3, 4)), [_signed(2, 3, 2)], lambda x: x.reshape(3, 4))
_case("reshape_minus_one", lambda x: ds.reshape(x, shape=[-1, 2]), [_signed(2, 3, 2)], lambda x: x.reshape(-1, 2))
_case("reshape_to_scalar", lambda x: ds.reshape(x, shape=()), [_signed(1, 1)], lambda x: x.reshape(()))
_case("transpose_default", ds.transpose, [_signed(2, 3, 4)], np.transpose)
_case("transpose_perm", lambda x: ds.transpose(x, perm=[2, 0, 1]), [_signed(2, 3, 4)],
      lambda x: np.transpose(x, (2, 0, 1)))
_case("transpose_2d", lambda x: ds.transpose(x, perm=(1, 0)), [_signed(2, 3)], lambda x: x.T)
_case("expand_dims_0", lambda x: ds.expand_dims(x, axis=0), [_signed(2, 3)], lambda x: x[None])
_case("expand_dims_negative", lambda x: ds.expand_dims(x, axis=-1), [_signed(2, 3)], lambda x: x[..., None])
_case("squeeze_all", ds.squeeze, [_signed(2, 1, 3, 1)], np.squeeze)
_case("squeeze_axis", lambda x: ds.squeeze(x, axis=1), [_signed(2, 1, 3, 1)], lambda x: x[:, 0])
_case("broadcast_to", lambda x: ds.broadcast_to(x, shape=(2, 3, 4)), [_signed(3, 1)],
      lambda x: np.broadcast_to(x, (2, 3, 4)))
_case("broadcast_to_from_scalar", lambda x: ds.broadcast_to(x, shape=(2, 3)), [_signed()],
      lambda x: np.full((2, 3), x))
_case("concat_axis0", lambda a, b: ds.concat([a, b], axis=0), [_signed(2, 3), _signed(1, 3)],
      lambda a, b: np.concatenate([a, b], 0))
_case("concat_axis_neg1", lambda a, b, c: ds.concat([a, b, c], axis=-1), [_signed(2, 3), _signed(2, 1), _signed(2, 2)],
      lambda a, b, c: np.concatenate([a, b, c], -1))
_case("concat_same_tensor_twice", lambda a: ds.concat([a, a], axis=1), [_signed(2, 3)],
      lambda a: np.concatenate([a, a], 1))
_case("stack_axis0", lambda a, b: ds.stack([a, b]), [_signed(2, 3), _signed(2, 3)], lambda a, b: np.stack([a, b]))
_case("stack_axis1", lambda a, b, c: ds.stack([a, b, c], axis=1), [_signed(2, 3), _signed(2, 3), _signed(2, 3)],
      lambda a, b, c: np.stack([a, b, c], 1))
_case("unstack_axis1", lambda a: ds.unstack(a, axis=1), [_signed(2, 3)], lambda a: [a[:, k] for k in range(3)])
_case("split_equal", lambda x: ds.split(x, 3, axis=0), [_signed(6, 2)], lambda x: np.split(x, 3, axis=0))
_case("split_sizes_with_minus_one", lambda x: ds.split(x, [1, -1, 2], axis=1), [_signed(2, 6)],
      lambda x: [x[:, :1], x[:, 1:4], x[:, 4:]])
_case("split_use_one_output", lambda x: ds.split(x, 3, axis=1)[1], [_signed(2, 6)], lambda x: x[:, 2:4])
_case("split_use_two_of_three", lambda x: [ds.split(x, [2, 1, 3], axis=0)[k] for k in (0, 2)], [_signed(6, 2)],
      lambda x: [x[:2], x[3:]])
_case("split_outputs_combined", lambda x: ds.multiply(*ds.split(x, 3, axis=-1)[::2]), [_signed(2, 6)],
      lambda x: x[:, :2] * x[:, 4:])
_case("pad_constant", lambda x: ds.pad(x, [[1, 2], [0, 1]]), [_signed(2, 3)], lambda x: np.pad(x, [[1, 2], [0, 1]]))
_case("pad_constant_value", lambda x: ds.pad(x, [[0, 1], [2, 0]], constant_values=1.5), [_signed(2, 3)],
      lambda x: np.pad(x, [[0, 1], [2, 0]], constant_values=1.5))
_case("pad_reflect", lambda x: ds.pad(x, [[1, 2], [2, 1]], mode="REFLECT"), [_signed(4, 4)],
      lambda x: np.pad(x, [[1, 2], [2, 1]], mode="reflect"))
_case("pad_symmetric", lambda x: ds.pad(x, [[1, 2], [2, 1]], mode="SYMMETRIC"), [_signed(3, 4)],
      lambda x: np.pad(x, [[1, 2], [2, 1]], mode="symmetric"))
_case("pad_reflect_lowercase_mode", lambda x: ds.pad(x, [[2, 2]], mode="reflect"), [_signed(4)],
      lambda x: np.array([x[2], x[1], x[0], x[1], x[2], x[3], x[2], x[1]]))
# square() after padding makes the first derivative depend on x, so the
# second-order check differentiates the padding's gradient op too
_case("pad_reflect_second_order", lambda x: ds.square(ds.pad(x, [[1, 2], [2, 1]], mode="REFLECT")), [_signed(4, 4)],
      lambda x: np.square(np.pad(x, [[1, 2], [2, 1]], mode="reflect")), True)
_case("pad_symmetric_second_order", lambda x: ds.square(ds.pad(x, [[1, 0], [1, 2]], mode="SYMMETRIC")),
      [_signed(3, 3)], lambda x: np.square(np.pad(x, [[1, 0], [1, 2]], mode="symmetric")), True)
_case("pad_constant_second_order", lambda x: ds.square(ds.pad(x, [[1, 0], [1, 2]])), [_signed(2, 3)],
      lambda x: np.square(np.pad(x, [[1, 0], [1, 2]])), True)
_case("tile", lambda x: ds.tile(x, [2, 3]), [_signed(2, 3)], lambda x: np.tile(x, (2, 3)))
_case("tile_3d", lambda x: ds.tile(x, (1, 2, 2)), [_signed(2, 1, 3)], lambda x: np.tile(x, (1, 2, 2)))

# ---------------------------------------------------------------- gathers, scatters, indexing
_case("gather_axis0", lambda x: ds.gather(x, [2, 0]), [_signed(3, 4)], lambda x: x[[2, 0]])
_case("gather_axis0_repeated", lambda x: ds.gather(x, np.array([1, 1, 0, 1])), [_signed(3, 2)],
      lambda x: x[[1, 1, 0, 1]])
_case("gather_axis0_2d_indices", lambda x: ds.gather(x, np.array([[0, 2], [1, 1]])), [_signed(3, 2)],
      lambda x: x[np.array([[0, 2], [1, 1]])])
_case("gather_axis0_tensor_indices", lambda x: ds.gather(x, ds.constant([2, 2, 1])), [_signed(4)],
      lambda x: x[[2, 2, 1]])
_case("gather_axis1", lambda x: ds.gather(x, np.array([3, 0, 3]), axis=1), [_signed(2, 4, 2)],
      lambda x: x[:, [3, 0, 3]])
_case("gather_axis1_2d_indices", lambda x: ds.gather(x, np.array([[0, 2], [1, 1]]), axis=1), [_signed(3, 4, 2)],
      lambda x: x[:, np.array([[0, 2], [1, 1]])])
_case("gather_axis_neg1", lambda x: ds.gather(x, np.array([0, 2, 2]), axis=-1), [_signed(3, 4)],
      lambda x: x[:, [0, 2, 2]])
_case("gather_second_order", lambda x: ds.gather(ds.square(x), np.array([0, 2, 2])) * ds.gather(x, [1, 1, 0]),
      [_signed(3, 2)], lambda x: np.square(x)[[0, 2, 2]] * x[[1, 1, 0]], True)
_case("gather_nd_full_depth", lambda x: ds.gather_nd(x, np.array([[0, 1], [2, 0], [0, 1]])), [_signed(3, 2)],
      lambda x: _np_gather_nd(x, [[0, 1], [2, 0], [0, 1]]))
_case("gather_nd_partial_depth", lambda x: ds.gather_nd(x, np.array([[1], [0], [1]])), [_signed(2, 3)],
      lambda x: x[[1, 0, 1]])
_case("gather_nd_batched_indices", lambda x: ds.gather_nd(x, np.array([[[0, 1, 1]], [[1, 0, 0]]])),
      [_signed(2, 2, 2)], lambda x: _np_gather_nd(x, [[[0, 1, 1]], [[1, 0, 0]]]))
_case("gather_nd_second_order", lambda x: ds.square(ds.gather_nd(x, np.array([[0, 1], [1, 0], [0, 1]]))),
      [_signed(2, 2)], lambda x: np.square(_np_gather_nd(x, [[0, 1], [1, 0], [0, 1]])), True)
_case("scatter_nd", lambda u: ds.scatter_nd(np.array([[1], [3], [1]]), u, shape=(5, 2)), [_signed(3, 2)],
      lambda u: _np_scatter_nd([[1], [3], [1]], u, (5, 2)))
_case("scatter_nd_full_depth", lambda u: ds.scatter_nd(np.array([[0, 1], [2, 0], [0, 1]]), u, shape=(3, 2)),
      [_signed(3)], lambda u: _np_scatter_nd([[0, 1], [2, 0], [0, 1]], u, (3, 2)))
_case("scatter_nd_second_order", lambda u: ds.square(ds.scatter_nd(np.array([[1], [0], [1]]), u, shape=(3, 2))),
      [_signed(3, 2)], lambda u: np.square(_np_scatter_nd([[1], [0], [1]], u, (3, 2))), True)
_case("unsorted_segment_sum", lambda x: ds.unsorted_segment_sum(x, np.array([0, 2, 0, 3]), num_segments=5),
      [_signed(4, 3)], lambda x: _np_segment_sum(x, [0, 2, 0, 3], 5))
_IDS22 = np.array([[0, 1], [1, 1]])
_case("unsorted_segment_sum_2d_ids", lambda x: ds.unsorted_segment_sum(x, _IDS22, num_segments=3),
      [_signed(2, 2, 3)], lambda x: _np_segment_sum(x, _IDS22, 3))
_case("unsorted_segment_sum_second_order",
      lambda x: ds.square(ds.unsorted_segment_sum(ds.square(x), np.array([1, 0, 1]), num_segments=2)),
      [_signed(3, 2)], lambda x: np.square(_np_segment_sum(np.square(x), [1, 0, 1], 2)), True)

for _name, _key in [
    ("getitem_int", 1),
    ("getitem_negative_int", (-1, 2)),
    ("getitem_slices", (slice(1, 3), slice(None, 2))),
    ("getitem_negative_step", (slice(None, None, -1), slice(2, 0, -1))),
    ("getitem_step2_negative", slice(None, None, -2)),
    ("getitem_none", (None, 1, slice(None), None)),
    ("getitem_ellipsis", (Ellipsis, 1)),
    ("getitem_int_array_repeated", np.array([0, 2, 2, 0])),
    ("getitem_two_int_arrays", (np.array([0, 2, 0]), np.array([1, 1, 1]))),
    ("getitem_int_array_then_slice", (slice(None), np.array([1, 1, 0]))),
]:
    _shape = (2, 3, 4) if _name == "getitem_ellipsis" else (5, 3)
    _case(_name, lambda x, _key=_key: x[_key], [_signed(*_shape)], lambda x, _key=_key: x[_key])
_case("getitem_list_of_ints", lambda x: x[[1, 0, 1]], [_signed(3, 2)], lambda x: x[[1, 0, 1]])
_case("getitem_tensor_index", lambda x: x[ds.constant([2, 0, 2])], [_signed(3, 2)], lambda x: x[[2, 0, 2]])
_case("getitem_second_order", lambda x: ds.square(x[::-1, np.array([0, 2, 2])]), [_signed(3, 3)],
      lambda x: np.square(x[::-1, [0, 2, 2]]), True)

# ---------------------------------------------------------------- second order through non-elementwise ops
# (a square() around a linear op makes its first derivative depend on the input,
# so the check differentiates the op's VJP)
_case("reshape_second_order", lambda x: ds.square(ds.reshape(x, shape=(3, 2))), [_signed(2, 3)],
      lambda x: np.square(x.reshape(3, 2)), True)
_case("transpose_second_order", lambda x: ds.square(ds.transpose(x, perm=[1, 0])), [_signed(2, 3)],
      lambda x: np.square(x.T), True)
_case("expand_squeeze_second_order", lambda x: ds.square(ds.squeeze(ds.expand_dims(x, axis=1), axis=1)),
      [_signed(2, 3)], np.square, True)
_case("broadcast_to_second_order", lambda x: ds.square(ds.broadcast_to(x, shape=(2, 3))), [_signed(3)],
      lambda x: np.square(np.broadcast_to(x, (2, 3))), True)
_case("concat_second_order", lambda a, b: ds.square(ds.concat([a, b], axis=1)), [_signed(2, 3), _signed(2, 1)],
      lambda a, b: np.square(np.concatenate([a, b], 1)), True)
_case("stack_second_order", lambda a, b: ds.square(ds.stack([a, b], axis=1)), [_signed(2, 3), _signed(2, 3)],
      lambda a, b: np.square(np.stack([a, b], 1)), True)
_case("split_second_order", lambda x: [ds.square(p) for p in ds.split(x, [2, 4], axis=1)[1:]], [_signed(2, 6)],
      lambda x: [np.square(x[:, 2:])], True)
_case("tile_second_order", lambda x: ds.square(ds.tile(x, [2, 2])), [_signed(2, 3)],
      lambda x: np.square(np.tile(x, (2, 2))), True)
_case("cumsum_second_order", lambda x: ds.square(ds.cumsum(x, axis=1, exclusive=True, reverse=True)),
      [_signed(2, 3)], lambda x: np.square(_np_cumsum(x, axis=1, exclusive=True, reverse=True)), True)
_case("reduce_sum_second_order", lambda x: ds.square(ds.reduce_sum(x, axis=0)), [_signed(2, 3)],
      lambda x: np.square(np.sum(x, axis=0)), True)
_case("reduce_mean_second_order", lambda x: ds.square(ds.reduce_mean(x, axis=1, keepdims=True)), [_signed(2, 3)],
      lambda x: np.square(np.mean(x, axis=1, keepdims=True)), True)
_case("reduce_max_second_order", lambda x: ds.square(ds.reduce_max(x, axis=1)), [_grid(2, 3)],
      lambda x: np.square(np.max(x, axis=1)), True)
_case("reduce_logsumexp_second_order", lambda x: ds.reduce_logsumexp(x, axis=1), [_signed(2, 3)],
      lambda x: _np_logsumexp(x, axis=1), True)
_case("norm_second_order", lambda x: ds.norm(x, axis=1), [_signed(2, 3)], lambda x: np.linalg.norm(x, axis=1), True)
_case("add_n_second_order", lambda a, b: ds.square(ds.add_n([a, b, a])), [_signed(2, 3), _signed(2, 3)],
      lambda a, b: np.square(2 * a + b), True)
_case("einsum_three_operands_second_order", lambda a, b, c: ds.einsum("ij,jk,kl->il", a, b, c),
      [_signed(2, 3), _signed(3, 2), _signed(2, 2)], lambda a, b, c: a @ b @ c, True)
_case("matmul_batched_broadcast_second_order", lambda a, b: ds.matmul(a, b, transpose_b=True),
      [_signed(2, 1, 3, 4), _signed(3, 2, 4)], lambda a, b: a @ _T(b), True)
_case("gather_axis1_second_order", lambda x: ds.square(ds.gather(x, [2, 0, 2], axis=1)), [_signed(2, 3)],
      lambda x: np.square(x[:, [2, 0, 2]]), True)

# ---------------------------------------------------------------- elementwise_ops (issue 37)
_unit = _u(2, 3, lo=-0.8, hi=0.8)  # inside (-1, 1): acos, asin, atanh
_np_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_case("tan", ds.tan, [_signed(2, 3)], np.tan, True)
_case("acos", ds.acos, [_unit], np.arccos, True)
_case("asin", ds.asin, [_unit], np.arcsin, True)
_case("atan", ds.atan, [_signed(2, 3)], np.arctan, True)
_case("sinh", ds.sinh, [_signed(2, 3)], np.sinh, True)
_case("cosh", ds.cosh, [_signed(2, 3)], np.cosh, True)
_case("asinh", ds.asinh, [_signed(2, 3)], np.arcsinh, True)
_case("acosh", ds.acosh, [_u(2, 3, lo=1.2, hi=2.5)], np.arccosh, True)
_case("atanh", ds.atanh, [_unit], np.arctanh, True)
_case("erfc", ds.erfc, [_signed(2, 3)], _np_erfc, True)
_case("cbrt", ds.cbrt, [_signed(2, 3)], np.cbrt, True)
_case("atan2_broadcast", ds.atan2, [_signed(2, 3), _signed(3)], np.arctan2, True)
_case("divide_no_nan", ds.divide_no_nan, [_signed(2, 3), _signed(2, 1)], np.divide, True)
_case("multiply_no_nan", ds.multiply_no_nan, [_signed(2, 3), _signed(3)], np.multiply, True)
_case("reciprocal_no_nan", ds.reciprocal_no_nan, [_signed(2, 3)], np.reciprocal, True)
_case("xlogy", ds.xlogy, [_signed(2, 3), _u(2, 3)], lambda x, y: x * np.log(y), True)
_case("xdivy", ds.xdivy, [_signed(2, 3), _signed(1, 3)], np.divide, True)
_case("xlog1py", ds.xlog1py, [_signed(2, 3), _u(3)], lambda x, y: x * np.log1p(y), True)

# ---------------------------------------------------------------- selection_ops, manipulation_ops (issue 37)
_idx23 = np.array([[2, 0, 0], [1, 2, 1]])
_case("take_along_axis_repeats", lambda x: ds.square(ds.take_along_axis(x, _idx23, axis=1)), [_signed(2, 3)],
      lambda x: np.square(np.take_along_axis(x, _idx23, 1)), True)
_case("sort_descending", lambda x: ds.square(ds.sort(x, axis=0, direction="DESCENDING")), [_grid(3, 2)],
      lambda x: np.square(-np.sort(-x, axis=0)), True)
_case("top_k_values", lambda x: ds.square(ds.top_k(x, 2)[0]), [_grid(2, 4)],
      lambda x: np.square(-np.sort(-x, axis=1)[:, :2]), True)
_case("reverse_two_axes", lambda x: ds.square(ds.reverse(x, [0, 1])), [_signed(2, 3)],
      lambda x: np.square(x[::-1, ::-1]), True)
_case("roll_two_axes", lambda x: ds.square(ds.roll(x, shift=[1, -1], axis=[0, 1])), [_signed(2, 3)],
      lambda x: np.square(np.roll(x, (1, -1), (0, 1))), True)
_case("cumprod", lambda x: ds.cumprod(x, axis=1), [_signed(2, 3)], lambda x: np.cumprod(x, 1), True)
_case("cumprod_exclusive_reverse", lambda x: ds.cumprod(x, axis=0, exclusive=True, reverse=True), [_signed(3, 2)],
      lambda x: np.stack([x[1] * x[2], x[2], np.ones(2)]), True)
_seg = np.array([0, 1, 0, 1])
_case("unsorted_segment_max", lambda x: ds.square(ds.unsorted_segment_max(x, _seg, num_segments=2)),
      [_grid(4, 2)], lambda x: np.square(np.stack([np.maximum(x[0], x[2]), np.maximum(x[1], x[3])])), True)
_case("unsorted_segment_min", lambda x: ds.square(ds.unsorted_segment_min(x, _seg, num_segments=2)),
      [_grid(4, 2)], lambda x: np.square(np.stack([np.minimum(x[0], x[2]), np.minimum(x[1], x[3])])), True)
_case("unsorted_segment_mean", lambda x: ds.unsorted_segment_mean(x, _seg, 3), [_signed(4, 2)],
      lambda x: np.stack([(x[0] + x[2]) / 2, (x[1] + x[3]) / 2, np.zeros(2)]))
_case("repeat_axis1", lambda x: ds.square(ds.repeat(x, [2, 0, 1], axis=1)), [_signed(2, 3)],
      lambda x: np.square(np.repeat(x, [2, 0, 1], axis=1)), True)
_bmask = np.array([[True, False, True], [False, True, True]])
_case("boolean_mask_2d", lambda x: ds.square(ds.boolean_mask(x, _bmask)), [_signed(2, 3)],
      lambda x: np.square(x[_bmask]), True)
_case("tensor_scatter_nd_update", lambda x, u: ds.tensor_scatter_nd_update(x, [[0, 1], [1, 2]], u),
      [_signed(2, 3), _signed(2)], lambda x, u: np.where(np.array([[0, 1, 0], [0, 0, 1]], bool),
                                                          np.array([[0, u[0], 0], [0, 0, u[1]]]), x))
_case("tensor_scatter_nd_add", lambda x, u: ds.tensor_scatter_nd_add(x, [[0, 1], [0, 1]], u),
      [_signed(2, 3), _signed(2)], lambda x, u: x + np.array([[0, u[0] + u[1], 0], [0, 0, 0]]))

# ---------------------------------------------------------------- linalg_ops (issue 37)
_sq = _rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
_lower = np.tril(_rng.standard_normal((3, 3))) + 3 * np.eye(3)


def _np_chol_of_gram(x):
    return np.linalg.cholesky(x @ np.swapaxes(x, -1, -2) + 3 * np.eye(x.shape[-1]))


_case("matrix_inverse_batched", ds.linalg.inv, [_sq], np.linalg.inv, True)
_case("matrix_determinant_batched", ds.linalg.det, [_sq], np.linalg.det, True)
_case("log_abs_determinant", lambda a: ds.linalg.slogdet(a)[1], [_sq], lambda a: np.linalg.slogdet(a)[1], True)
_case("matrix_solve", ds.linalg.solve, [_sq, _rng.standard_normal((2, 3, 2))], np.linalg.solve, True)
_case("matrix_solve_adjoint", lambda a, b: ds.linalg.solve(a, b, adjoint=True),
      [_sq, _rng.standard_normal((2, 3, 2))], lambda a, b: np.linalg.solve(np.swapaxes(a, -1, -2), b), True)
_case("cholesky_of_gram",
      lambda x: ds.linalg.cholesky(ds.matmul(x, x, transpose_b=True) + ds.linalg.eye(3, dtype=x.dtype) * 3.0),
      [_rng.standard_normal((3, 3))], _np_chol_of_gram, True)
_case("matrix_triangular_solve_lower", ds.linalg.triangular_solve, [_lower, _rng.standard_normal((3, 2))],
      lambda a, b: np.linalg.solve(np.tril(a), b), True)
_case("matrix_triangular_solve_upper_adjoint",
      lambda a, b: ds.linalg.triangular_solve(a, b, lower=False, adjoint=True),
      [_lower.T.copy(), _rng.standard_normal((3, 2))], lambda a, b: np.linalg.solve(np.triu(a).T, b), True)
_case("einsum_diagonal_and_trace", lambda a, b: ds.einsum("iij,jk->ik", a, b), [_signed(3, 3, 2), _signed(2, 2)],
      lambda a, b: np.einsum("iij,jk->ik", a, b), True)
_case("einsum_trace", lambda a: ds.square(ds.einsum("ii->", a)), [_signed(3, 3)], lambda a: np.trace(a) ** 2, True)
def _np_erfinv_ref(y, lo=-6.0, hi=6.0):
    """erf's inverse by bisection on math.erf (independent of descend's Newton iteration)."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if math.erf(mid) < y else (lo, mid)
    return 0.5 * (lo + hi)


_case("erfinv", ds.math.erfinv, [_unit], lambda y: np.array([[_np_erfinv_ref(v) for v in row] for row in y]), True)


# ---------------------------------------------------------------- linalg_more_ops (issue 37): decompositions
_tall = 0.3 * _rng.standard_normal((2, 4, 3)) + np.eye(4, 3) * np.array([3.0, 2.0, 1.0])  # s apart
_wide = _rng.standard_normal((3, 5))
_sym = (lambda a: a + np.swapaxes(a, -1, -2))(_rng.standard_normal((2, 3, 3)))
_weights3 = _rng.uniform(0.5, 1.5, (3, 3))


def _np_eigh_lower(a):
    lower = np.tril(a)
    return np.linalg.eigh(lower + np.swapaxes(np.tril(lower, -1), -1, -2))


def _np_lu_reference(a):
    """A[p] = L U by Doolittle with partial pivoting (an independent loop, one matrix at a time)."""
    out = []
    for m in a.reshape(-1, a.shape[-1], a.shape[-1]):
        m = m.copy()
        n = m.shape[0]
        for j in range(n):
            k = j + int(np.argmax(np.abs(m[j:, j])))
            m[[j, k]] = m[[k, j]]
            m[j + 1:, j] /= m[j, j]
            m[j + 1:, j + 1:] -= np.outer(m[j + 1:, j], m[j, j + 1:])
        out.append(m)
    return np.stack(out).reshape(a.shape)


_case("qr_tall", lambda a: [ds.square(t) for t in ds.linalg.qr(a)], [_tall],
      lambda a: [np.square(t) for t in np.linalg.qr(a)], True)
_case("svd_values", lambda a: ds.linalg.svd(a, compute_uv=False), [_tall],
      lambda a: np.linalg.svd(a, compute_uv=False), True)
_case("svd_vectors_wide", lambda a: [ds.square(t) for t in ds.linalg.svd(a)], [_wide],
      lambda a: [np.square(np.linalg.svd(a)[1]), np.square(np.linalg.svd(a, full_matrices=False)[0]),
                 np.square(np.linalg.svd(a, full_matrices=False)[2].T)], True)
_case("svd_vectors_tall", lambda a: [ds.square(t) for t in ds.linalg.svd(a)[1:]], [_tall],
      lambda a: [np.square(np.linalg.svd(a, full_matrices=False)[0]),
                 np.square(np.swapaxes(np.linalg.svd(a, full_matrices=False)[2], -1, -2))], True)
_case("self_adjoint_eig", lambda a: [ds.linalg.eigh(a)[0], ds.square(ds.linalg.eigh(a)[1])], [_sym],
      lambda a: [_np_eigh_lower(a)[0], np.square(_np_eigh_lower(a)[1])], True)
_case("self_adjoint_eig_reads_lower", lambda a: ds.linalg.eigvalsh(a), [_rng.standard_normal((3, 3))],
      lambda a: _np_eigh_lower(a)[0], True)
_case("lu_packed", lambda a: ds.multiply(ds.linalg.lu(a)[0], _weights3), [_sq],
      lambda a: _np_lu_reference(a) * _weights3, True)
_case("matrix_exponential", ds.linalg.expm, [0.7 * _sq],
      lambda a: np.stack([sum(np.linalg.matrix_power(m, k) / math.factorial(k) for k in range(60)) for m in a]),
      True)
_case("matrix_exponential_squared", ds.linalg.expm, [4.0 * _rng.standard_normal((3, 3))],
      lambda a: np.linalg.matrix_power(sum(np.linalg.matrix_power(a / 64, k) / math.factorial(k)
                                           for k in range(30)), 64))
_case("matrix_square_root", ds.linalg.sqrtm, [_sq], lambda a: _np_sqrtm_by_eigen(a), True)


def _np_sqrtm_by_eigen(a):
    """The principal root from an eigendecomposition (complex, then real): independent of Denman-Beavers."""
    e, v = np.linalg.eig(a)
    return np.real(v @ (np.sqrt(e.astype(complex))[..., None] * np.linalg.inv(v)))


# descend/ops/fft_ops.py (issue 37: keras.ops' Fourier transforms), and i0 / segment_prod against NumPy and a
# series (the ops are tf.math's, descend/ops/special_ops.py and segment_prod_ops.py); the transforms are linear, so each case squares an output for the second-order check
from descend.ops.fft_ops import complex_fft, inverse_real_fft, real_fft  # noqa: E402
from descend.ops.segment_prod_ops import unsorted_segment_prod  # noqa: E402
from descend.ops.special_ops import bessel_i0, bessel_i1  # noqa: E402

_w_fft = _rng.uniform(0.5, 1.5, (2, 3, 4))
_case("complex_fft_1d", lambda a, b: ds.square(ds.add(*complex_fft(a, b))), [_signed(2, 3, 4), _signed(2, 3, 4)],
      lambda a, b: (lambda z: (z.real + z.imag) ** 2)(np.fft.fft(a + 1j * b)), True)
_case("complex_fft_2d_inverse", lambda a, b: ds.multiply(*complex_fft(a, b, rank=2, inverse=True)),
      [_signed(2, 3, 4), _signed(2, 3, 4)], lambda a, b: (lambda z: z.real * z.imag)(np.fft.ifft2(a + 1j * b)), True)
_case("real_fft_padded", lambda x: ds.square(ds.subtract(*real_fft(x, 6))), [_signed(2, 4)],
      lambda x: (lambda z: (z.real - z.imag) ** 2)(np.fft.rfft(x, 6)), True)
_case("real_fft_cropped", lambda x: ds.square(ds.add(*real_fft(x, 3))), [_signed(2, 5)],
      lambda x: (lambda z: (z.real + z.imag) ** 2)(np.fft.rfft(x, 3)), True)
_case("inverse_real_fft_even", lambda a, b: ds.square(inverse_real_fft(a, b)), [_signed(2, 4), _signed(2, 4)],
      lambda a, b: np.fft.irfft(a + 1j * b) ** 2, True)
_case("inverse_real_fft_odd_padded", lambda a, b: ds.square(inverse_real_fft(a, b, 9)), [_signed(2, 3), _signed(2, 3)],
      lambda a, b: np.fft.irfft(a + 1j * b, 9) ** 2, True)
_case("inverse_real_fft_cropped", lambda a, b: ds.square(inverse_real_fft(a, b, 4)), [_signed(2, 5), _signed(2, 5)],
      lambda a, b: np.fft.irfft((a + 1j * b)[:, :3], 4) ** 2, True)
_case("bessel_i0_against_numpy", bessel_i0, [3.0 * _signed(2, 3)], np.i0, True)
_case("bessel_i1_against_its_series", bessel_i1, [3.0 * _signed(2, 3)],
      lambda x: sum((x / 2) ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1)) for k in range(60)), True)
_SEG_PROD = np.array([0, 2, 0, 0])
_case("unsorted_segment_prod_empty_segments", lambda x: unsorted_segment_prod(x, _SEG_PROD, 4), [_signed(4, 3)],
      lambda x: np.stack([np.prod(x[_SEG_PROD == s], axis=0) for s in range(4)]), True)


# descend/ops/ctc_ops.py: the CTC loss against the sum over every path of classes ** steps (issue 37)
from descend.ops.ctc_ops import ctc_loss_dense  # noqa: E402


def _np_ctc_by_paths(logits, labels, label_length, logit_length, blank):
    import itertools

    out = []
    for u, lab, n_lab, steps in zip(logits, labels, label_length, logit_length):
        y = np.exp(u[:steps] - u[:steps].max(-1, keepdims=True))
        y /= y.sum(-1, keepdims=True)
        want = [int(v) for v in lab[:n_lab]]
        total = 0.0
        for path in itertools.product(range(u.shape[1]), repeat=int(steps)):
            merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
            if [k for k in merged if k != blank] == want:
                total += np.prod(y[np.arange(steps), path])
        out.append(-np.log(total))
    return np.array(out)


_CTC_LAB, _CTC_LAB_LEN, _CTC_STEPS = np.array([[1, 1], [2, 0], [0, 0]]), np.array([2, 1, 0]), np.array([4, 3, 2])
_case("ctc_loss_dense", lambda x: ctc_loss_dense(_CTC_LAB, x, _CTC_LAB_LEN, _CTC_STEPS), [_signed(3, 4, 3)],
      lambda x: _np_ctc_by_paths(x, _CTC_LAB, _CTC_LAB_LEN, _CTC_STEPS, 0))
_case("ctc_loss_dense_last_blank_time_major",
      lambda x: ctc_loss_dense(_CTC_LAB, x, _CTC_LAB_LEN, _CTC_STEPS, blank_index=-1, logits_time_major=True),
      [_signed(4, 3, 4)],
      lambda x: _np_ctc_by_paths(x.transpose(1, 0, 2), _CTC_LAB, _CTC_LAB_LEN, _CTC_STEPS, 3))
