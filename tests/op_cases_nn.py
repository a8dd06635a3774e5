"""Op cases for ``descend/ops/nn_ops.py`` (``descend.nn``).

Every differentiable op registered by ``nn_ops`` appears here at least once
(``tests/test_op_gradients.py`` checks it). Inputs are float64 and chosen away
from kinks (relu/leaky_relu at 0, relu6 at 0 and 6, softsign's |x| at 0, the
``max_norm`` clip threshold). Elementwise activations, softmax/log_softmax,
l2_loss and the cross-entropy losses also get a second-order check. Integer
inputs (class labels, embedding ids) and dropout seeds live in the closures.
"""

from __future__ import annotations

import numpy as np

import descend as ds

try:
    from op_case import Case  # how tests/test_op_gradients.py imports it (tests/ is on sys.path)
except ImportError:
    try:
        from tests.op_case import Case
    except ImportError:
        import collections

        Case = collections.namedtuple("Case", "name fn args second_order", defaults=(False,))

_rng = np.random.default_rng(20240612)


def _u(*shape, lo=0.5, hi=1.5):
    """Uniform in [lo, hi)."""
    return _rng.uniform(lo, hi, size=shape).astype(np.float64)


def _signed(*shape, lo=0.5, hi=1.5):
    """Both signs, |x| in [lo, hi): away from the kinks at 0."""
    return _u(*shape, lo=lo, hi=hi) * _rng.choice([-1.0, 1.0], size=shape)


def _probs(*shape, axis=-1):
    """Positive rows that sum to 1 along ``axis`` (a label distribution)."""
    p = _u(*shape, lo=0.1, hi=1.0)
    return p / p.sum(axis=axis, keepdims=True)


# ---------------------------------------------------------------- elementwise activations
_ACTIVATIONS = [
    Case("relu", ds.nn.relu, [_signed(2, 3)], True),
    Case("relu_keyword", lambda x: ds.nn.relu(features=x), [_signed(4)], True),
    Case("relu6", ds.nn.relu6, [np.array([[-1.2, 0.4, 2.5, 5.7], [6.6, -0.3, 3.1, 8.0]])], True),
    Case("leaky_relu_default_alpha", ds.nn.leaky_relu, [_signed(2, 3)], True),
    Case("leaky_relu_alpha_0_05", lambda x: ds.nn.leaky_relu(x, alpha=0.05), [_signed(2, 3)], True),
    Case("leaky_relu_alpha_above_1", lambda x: ds.nn.leaky_relu(x, 1.5), [_signed(3)], True),
    Case("elu", ds.nn.elu, [_signed(2, 4, lo=0.2, hi=3.0)], True),
    Case("selu", ds.nn.selu, [_signed(2, 4, lo=0.2, hi=3.0)], True),
    Case("gelu_exact", ds.nn.gelu, [_signed(2, 3, lo=0.1, hi=3.0)], True),
    Case("gelu_tanh_approximation", lambda x: ds.nn.gelu(x, approximate=True), [_signed(2, 3, lo=0.1, hi=3.0)],
         True),
    Case("sigmoid", ds.nn.sigmoid, [_signed(2, 3, lo=0.0, hi=4.0)], True),
    Case("softplus", ds.nn.softplus, [_signed(2, 3, lo=0.0, hi=4.0)], True),
    Case("softsign", ds.nn.softsign, [_signed(2, 3, lo=0.3, hi=3.0)], True),
    Case("silu", ds.nn.silu, [np.array([[-3.1, -2.2, -0.6, 0.3], [0.9, 1.7, 2.8, 4.4]])], True),
    Case("swish_beta_1_7", lambda x: ds.nn.swish(x, beta=1.7), [_signed(2, 4, lo=0.0, hi=4.0)], True),
    Case("silu_tensor_beta_broadcast", lambda x, b: ds.nn.silu(x, beta=b),
         [_signed(2, 3, lo=0.0, hi=3.0), np.array([0.8])], True),
]

# ---------------------------------------------------------------- softmax, log_softmax
# log-probabilities and losses are shifted by log(num_classes) so that they sit near 0:
# the rounding error of a central difference grows with the size of the checked sum.
_LOG3 = float(np.log(3.0))
_LOG4 = float(np.log(4.0))

_SOFTMAX = [
    Case("softmax_last_axis", ds.nn.softmax, [_signed(2, 3, lo=0.0, hi=1.5)], True),
    Case("softmax_vector", ds.nn.softmax, [_signed(4, lo=0.0, hi=1.5)], True),
    Case("softmax_axis0", lambda x: ds.nn.softmax(x, axis=0), [_signed(3, 2, lo=0.0, hi=1.5)], True),
    Case("softmax_3d_axis1", lambda x: ds.nn.softmax(x, axis=1), [_signed(2, 3, 2, lo=0.0, hi=1.5)], True),
    Case("softmax_axis_none", lambda x: ds.nn.softmax(x, axis=None), [_signed(2, 3, lo=0.0, hi=1.5)], True),
    Case("softmax_large_offset_logits", lambda x: ds.nn.softmax(x + 500.0), [_signed(2, 3, lo=0.0, hi=2.0)], True),
    Case("log_softmax_last_axis", lambda x: ds.nn.log_softmax(x) + _LOG3, [_signed(2, 3, lo=0.0, hi=1.5)], True),
    Case("log_softmax_axis0", lambda x: ds.nn.log_softmax(x, axis=0) + _LOG3, [_signed(3, 2, lo=0.0, hi=1.5)],
         True),
    Case("log_softmax_3d_axis_neg2", lambda x: ds.nn.log_softmax(x, axis=-2) + _LOG3,
         [_signed(2, 3, 2, lo=0.0, hi=1.5)], True),
    Case("log_softmax_large_offset_logits", lambda x: ds.nn.log_softmax(x - 800.0) + _LOG3,
         [_signed(2, 3, lo=0.0, hi=2.0)], True),
]

# ---------------------------------------------------------------- dropout, l2_loss
_DROPOUT_L2 = [
    Case("dropout_rate_0_3", lambda x: ds.nn.dropout(x, 0.3, seed=7), [_signed(3, 5)]),
    Case("dropout_noise_shape_3x1", lambda x: ds.nn.dropout(x, rate=0.5, noise_shape=[3, 1], seed=11),
         [_signed(3, 4)]),
    Case("dropout_noise_shape_none_entry", lambda x: ds.nn.dropout(x, 0.4, noise_shape=[1, None], seed=5),
         [_signed(3, 4)]),
    Case("dropout_rate_0_is_identity", lambda x: ds.nn.dropout(x, 0.0), [_signed(2, 3)]),
    Case("l2_loss_matrix", ds.nn.l2_loss, [_signed(3, 4)], True),
    Case("l2_loss_scalar", ds.nn.l2_loss, [np.array(1.3)], True),
]

# ---------------------------------------------------------------- embedding_lookup
_IDS_2D = np.array([[0, 2], [4, 2]])  # a repeated id: its row's gradient adds up
_MAX_NORM_TABLE = np.array([  # row norms ~0.56, 2.87, 1.04, 3.54, 2.22: none near max_norm = 1.5
    [0.3, -0.4, 0.2],
    [1.5, 2.0, -1.6],
    [-0.6, 0.7, 0.5],
    [2.5, -1.5, 2.0],
    [0.9, 1.8, -0.9],
])

_EMBEDDING = [
    Case("embedding_lookup_2d_ids", lambda p: ds.nn.embedding_lookup(p, _IDS_2D), [_signed(5, 3)], True),
    Case("embedding_lookup_1d_ids", lambda p: ds.nn.embedding_lookup(p, [3, 0, 3, 1]), [_signed(4, 2)]),
    Case("embedding_lookup_scalar_id", lambda p: ds.nn.embedding_lookup(p, np.array(2)), [_signed(3, 4)]),
    Case("embedding_lookup_rank3_params", lambda p: ds.nn.embedding_lookup(p, np.array([1, 3, 1])),
         [_signed(4, 2, 3)]),
    Case("embedding_lookup_sharded_div",  # 5 rows over 3 shards: [0, 1], [2, 3], [4]
         lambda a, b, c: ds.nn.embedding_lookup([a, b, c], np.array([[4, 0], [3, 1], [2, 0]])),
         [_signed(2, 3), _signed(2, 3), _signed(1, 3)]),
    Case("embedding_lookup_max_norm", lambda p: ds.nn.embedding_lookup(p, _IDS_2D + np.array([[0, 1], [-1, 1]]),
                                                                       max_norm=1.5),
         [_MAX_NORM_TABLE.copy()]),
]

# ---------------------------------------------------------------- cross-entropy losses


def _centered(loss, labels, axis=-1):
    """``loss - log(3) * sum(labels, axis)``: near 0 in value and in its gradient for labels (3 classes)."""
    return loss - _LOG3 * ds.reduce_sum(labels, axis=axis)


_XENT = [
    Case("sparse_softmax_xent_2d",
         lambda x: ds.nn.sparse_softmax_cross_entropy_with_logits(labels=np.array([0, 3, 1]), logits=x) - _LOG4,
         [_signed(3, 4, lo=0.0, hi=1.5)], True),
    Case("sparse_softmax_xent_3d",
         lambda x: ds.nn.sparse_softmax_cross_entropy_with_logits(np.array([[0, 2], [1, 1]]), x) - _LOG3,
         [_signed(2, 2, 3, lo=0.0, hi=1.5)], True),
    Case("sparse_softmax_xent_1d_logits_scalar_label",
         lambda x: ds.nn.sparse_softmax_cross_entropy_with_logits(np.array(2, np.int64), x) - _LOG4,
         [_signed(4, lo=0.0, hi=1.5)], True),
    Case("sparse_softmax_xent_confident_logits",  # the label's probability is ~0.85 in row 0, ~0.05 in row 1
         lambda x: ds.nn.sparse_softmax_cross_entropy_with_logits(np.array([0, 0]), x) - _LOG3,
         [np.array([[2.5, -1.5, 0.5], [-1.0, 2.0, 0.5]])], True),
    Case("softmax_xent_normalized_labels",
         lambda y, x: _centered(ds.nn.softmax_cross_entropy_with_logits(labels=y, logits=x), y),
         [_probs(2, 3), _signed(2, 3, lo=0.0, hi=1.5)], True),
    Case("softmax_xent_unnormalized_labels", lambda y, x: _centered(ds.nn.softmax_cross_entropy_with_logits(y, x), y),
         [_u(2, 3, lo=0.1, hi=0.6), _signed(2, 3, lo=0.0, hi=1.5)], True),
    Case("softmax_xent_axis0", lambda y, x: _centered(ds.nn.softmax_cross_entropy_with_logits(y, x, axis=0), y, 0),
         [_probs(3, 2, axis=0), _signed(3, 2, lo=0.0, hi=1.5)], True),
    Case("softmax_xent_3d_axis1", lambda y, x: _centered(ds.nn.softmax_cross_entropy_with_logits(y, x, axis=1), y, 1),
         [_probs(2, 3, 2, axis=1), _signed(2, 3, 2, lo=0.0, hi=1.5)], True),
    Case("softmax_xent_broadcast_labels", lambda y, x: _centered(ds.nn.softmax_cross_entropy_with_logits(y, x), y),
         [_probs(3), _signed(2, 3, lo=0.0, hi=1.5)], True),
    Case("softmax_xent_broadcast_logits", lambda y, x: _centered(ds.nn.softmax_cross_entropy_with_logits(y, x), y),
         [_probs(2, 3), _signed(1, 3, lo=0.0, hi=1.5)], True),
    Case("sigmoid_xent", lambda z, x: ds.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
         [_u(2, 3, lo=0.0, hi=1.0), _signed(2, 3, lo=0.2, hi=2.5)], True),
    Case("sigmoid_xent_hard_labels",
         lambda x: ds.nn.sigmoid_cross_entropy_with_logits(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]), x),
         [_signed(2, 3, lo=0.0, hi=2.5)], True),
]

CASES = _ACTIVATIONS + _SOFTMAX + _DROPOUT_L2 + _EMBEDDING + _XENT

# descend/ops/nn_extra_ops.py (issue 37): compositions; their gradients are the composed ops', checked here
_VOLUME = _rng.permutation(60).reshape(1, 3, 4, 5, 1) * 0.1 - 2.95  # distinct: no ties in the max windows
CASES += [
    Case("max_pool3d_same", lambda x: ds.nn.max_pool3d(x, 2, (1, 2, 2), "SAME"), [_VOLUME.copy()]),
    Case("avg_pool3d_same", lambda x: ds.nn.avg_pool3d(x, (2, 3, 2), (2, 1, 2), "SAME"), [_signed(1, 3, 4, 5, 2)]),
    Case("pool_avg_2d", lambda x: ds.nn.pool(x, [2, 3], "AVG", [2, 2], "SAME"), [_signed(2, 4, 5, 2)]),
    Case("space_to_batch_2d", lambda x: ds.nn.space_to_batch(x, [2, 3], [[1, 0], [0, 1]]), [_signed(2, 3, 5, 2)]),
]
CASES += [
    Case("dilation2d_same", lambda x, k: ds.nn.dilation2d(x, k, [1, 2, 1, 1], "SAME", "NHWC", [1, 1, 2, 1]),
         [_rng.permutation(40).reshape(1, 4, 5, 2) * 0.1, _rng.permutation(12).reshape(3, 2, 2) * 0.013]),
    Case("erosion2d_valid", lambda x, k: ds.nn.erosion2d(x, k, [1, 1, 1, 1], "VALID", "NHWC", [1, 1, 1, 1]),
         [_rng.permutation(40).reshape(1, 4, 5, 2) * 0.1, _rng.permutation(12).reshape(3, 2, 2) * 0.013]),
]
CASES += [
    Case("conv3d_transpose_same", lambda x, k: ds.nn.conv3d_transpose(x, k, (1, 4, 3, 5, 2), (2, 1, 2), "SAME"),
         [_signed(1, 2, 3, 3, 2), _signed(2, 2, 3, 2, 2)]),
]

# tf.math's special functions (descend/ops/special_ops.py), segment products, the depthwise backprops and the
# sparse embedding lookups (issue 37); TF's values in tests/test_special_functions.py, test_nn_sparse_embedding.py
_SP_IDS = ds.RaggedTensor.from_row_lengths(np.array([1, 3, 1, 0, 2], np.int64), [3, 0, 2])
_ORDERS = np.array([[0.0, 1.0, 2.0], [3.0, 1.0, 0.0]])
_AWAY_FROM_POLES = np.array([[-0.45, 1.3, 2.6], [-1.6, 0.7, 3.9]])  # lgamma/digamma: poles at 0, -1, -2...
CASES += [
    Case("lgamma", ds.math.lgamma, [_AWAY_FROM_POLES.copy()], True),
    Case("digamma", ds.math.digamma, [_AWAY_FROM_POLES.copy()], True),
    Case("polygamma_x", lambda x: ds.math.polygamma(_ORDERS, x), [_u(2, 3, lo=0.3, hi=3.0)], True),
    Case("zeta_q", lambda q: ds.math.zeta(np.full((2, 3), 3.5), q), [_u(2, 3, lo=0.3, hi=3.0)], True),
    Case("igamma", ds.math.igamma, [_u(2, 3, lo=0.5, hi=4.0), _u(2, 3, lo=0.2, hi=6.0)]),
    Case("igammac", ds.math.igammac, [_u(2, 3, lo=0.5, hi=4.0), _u(2, 3, lo=0.2, hi=6.0)]),
    Case("igamma_x_second_order", lambda x: ds.math.igamma(np.full((2, 3), 2.5), x), [_u(2, 3, lo=0.2, hi=6.0)],
         True),
    Case("igammac_x_second_order", lambda x: ds.math.igammac(np.full((2, 3), 0.7), x), [_u(2, 3, lo=0.2, hi=6.0)],
         True),
    Case("betainc_x", lambda x: ds.math.betainc(np.full((2, 3), 1.7), np.full((2, 3), 2.3), x),
         [_u(2, 3, lo=0.05, hi=0.95)], True),
    Case("lbeta", ds.math.lbeta, [_u(2, 4, lo=0.3, hi=3.0)], True),
    Case("bessel_i0", ds.math.bessel_i0, [_signed(2, 3, lo=0.2, hi=4.0)], True),
    Case("bessel_i0e", ds.math.bessel_i0e, [_signed(2, 3, lo=0.2, hi=4.0)], True),
    Case("bessel_i1", ds.math.bessel_i1, [_signed(2, 3, lo=0.2, hi=4.0)], True),
    Case("bessel_i1e", ds.math.bessel_i1e, [_signed(2, 3, lo=0.2, hi=4.0)], True),
    # tf.math.special: away from each function's singular points (x > 0 for Y, K, expint and spence)
    *[Case(f"special_{name}", getattr(ds.math.special, name), [_u(2, 3, lo=0.3, hi=3.0)], True)
      for name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e", "bessel_k1",
                   "bessel_k1e", "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence")],
    *[Case(f"sparse_segment_{mode}", lambda x, f=getattr(ds.sparse, f"segment_{mode}"): f(
        x, np.array([0, 2, 2, 3]), np.array([0, 0, 1, 1])), [_signed(4, 3)], True) for mode in ("sum", "mean", "sqrt_n")],
    Case("sparse_segment_mean_grad", lambda g: __import__("descend.ops.sparse_segment_ops", fromlist=["x"])
         .sparse_segment_mean_grad(g, np.array([0, 2, 2, 3]), np.array([0, 0, 1, 1]), 5), [_signed(2, 3)], True),
    Case("unsorted_segment_prod", lambda x: ds.math.unsorted_segment_prod(x, np.array([1, 0, 1, 1]), 3),
         [_signed(4, 2)], True),
    Case("unsorted_segment_prod_one_zero", lambda x: ds.math.unsorted_segment_prod(
        ds.multiply(x, np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 1.0]])), np.array([0, 0, 1]), 2), [_signed(3, 2)]),
    Case("segment_prod", lambda x: ds.math.segment_prod(x, np.array([0, 0, 2, 2])), [_signed(4, 3)], True),
    Case("depthwise_conv2d_backprop_input", lambda k, g: ds.nn.depthwise_conv2d_backprop_input(
        [1, 4, 5, 2], k, g, [1, 2, 2, 1], "SAME"), [_signed(2, 3, 2, 2), _signed(1, 2, 3, 4)]),
    Case("depthwise_conv2d_backprop_filter", lambda x, g: ds.nn.depthwise_conv2d_backprop_filter(
        x, [2, 3, 2, 2], g, [1, 1, 1, 1], "VALID"), [_signed(1, 4, 5, 2), _signed(1, 3, 3, 4)]),
    Case("embedding_lookup_sparse_sqrtn", lambda t: ds.nn.embedding_lookup_sparse(t, _SP_IDS, None, combiner="sqrtn"),
         [_signed(4, 3)]),
    Case("safe_embedding_lookup_sparse_max_norm", lambda t: ds.nn.safe_embedding_lookup_sparse(
        t, _SP_IDS, combiner="mean", default_id=2, max_norm=1.2), [_signed(4, 3)]),
]
CASES += [  # descend/ops/nn_misc_ops.py: the block mean is its own VJP (covered by the second-order check)
    Case("isotonic_regression", lambda x: ds.square(ds.nn.isotonic_regression(x)[0]), [_signed(3, 5)], True),
    Case("isotonic_regression_increasing_axis0",
         lambda x: ds.nn.isotonic_regression(x, decreasing=False, axis=0)[0], [_signed(4, 2)]),
]
from descend.composites.fractional_pooling import pool_with_sequences as _fractional  # noqa: E402

_FRACTIONAL_IN = _rng.permutation(2 * 7 * 5 * 2).reshape(2, 7, 5, 2) * 0.05 - 3.4  # distinct: no ties in a window
CASES += [  # descend/composites/fractional_pooling.py on fixed pooling sequences (the draws are tested in test_nn_fractional.py)
    Case("fractional_max_pool_overlapping", lambda x: _fractional(x, [0, 2, 3, 5, 7], [0, 2, 3, 5], True, "max"),
         [_FRACTIONAL_IN.copy()]),
    Case("fractional_avg_pool", lambda x: _fractional(x, [0, 2, 3, 5, 7], [0, 2, 3, 5], False, "avg"),
         [_signed(2, 7, 5, 2)]),
]
