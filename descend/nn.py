"""``descend.nn``: neural-network ops, as ``tf.nn``."""

from __future__ import annotations

import numpy as np

from .api.lazy import lazy_facade as _lazy_facade
from .framework import context
from .framework.tensor import convert_to_tensor
from .ops import math_ops as _math
from .ops.conv_more_ops import conv1d_transpose, conv2d_transpose, conv3d, depthwise_conv2d, separable_conv2d
from .ops.conv_ops import avg_pool1d, avg_pool2d, conv1d, conv2d, max_pool1d, max_pool2d
from .math import approx_max_k, approx_min_k, l2_normalize, zero_fraction  # tf.nn's names for tf.math's functions
from .ops.math_ops import tanh
from .ops.selection_ops import in_top_k, top_k
from .ops.nn_more_ops import *  # noqa: F403
from .ops.nn_more_ops import __all__ as _nn_more_all
from .ops.nn_ops import *  # noqa: F403
from .ops.nn_extra_ops import *  # noqa: F403
from .ops.nn_extra_ops import __all__ as _nn_extra_all
from .ops.nn_ops import __all__ as _nn_all
from .ops.depthwise_backprop_ops import depthwise_conv2d_backprop_filter, depthwise_conv2d_backprop_input
from .composites.embedding_sparse import embedding_lookup_sparse, safe_embedding_lookup_sparse
from .ops.nn_misc_ops import ctc_unique_labels, isotonic_regression, with_space_to_batch
from .composites import nn_experimental as experimental  # tf.nn.experimental
from .composites.fractional_pooling import fractional_avg_pool, fractional_max_pool
from .composites.sampled_losses import (
    all_candidate_sampler,
    compute_accidental_hits,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    nce_loss,
    sampled_softmax_loss,
)

__all__ = list(_nn_all) + ["conv2d", "max_pool2d", "conv1d", "max_pool1d", "avg_pool1d", "avg_pool2d", "compute_average_loss",
                           "scale_regularization_loss", "conv1d_transpose", "conv2d_transpose", "conv3d",
                           "depthwise_conv2d", "separable_conv2d", "tanh", "top_k", "in_top_k", "l2_normalize",
                           "zero_fraction", "approx_max_k", "approx_min_k"] + list(_nn_more_all) + list(_nn_extra_all)
__all__ += ["depthwise_conv2d_backprop_filter", "depthwise_conv2d_backprop_input", "embedding_lookup_sparse",
            "safe_embedding_lookup_sparse", "all_candidate_sampler", "compute_accidental_hits",
            "fixed_unigram_candidate_sampler", "nce_loss", "sampled_softmax_loss", "ctc_unique_labels",
            "isotonic_regression", "with_space_to_batch", "fractional_avg_pool", "fractional_max_pool",
            "experimental", "RNNCellDropoutWrapper", "RNNCellResidualWrapper",
            "learned_unigram_candidate_sampler"]


def _refuse(name: str):
    from ._api_exclusions import refuse  # a name tf.nn has and descend leaves out says why

    return refuse("tf.nn", name, __name__)


# layers, imported on first use (descend.api.lazy; ``descend.layers`` is above the ops this module gathers)
_LAZY = {"layers.rnn_cell_wrappers": ("RNNCellDropoutWrapper", "RNNCellResidualWrapper")}
__getattr__, __dir__, _LAZY_NAMES = _lazy_facade(__name__, _LAZY, missing=_refuse)


def _replicas(what: str) -> int:
    """The number of replicas in sync of the active strategy (1 with none); refused in a cross-replica context."""
    if context.in_replica() is False:
        raise RuntimeError(f"You are calling `{what}` in cross replica context, while it was expected to be "
                           "called in replica context (inside strategy.run)")
    strategy = context.current_strategy()
    return 1 if strategy is None else strategy.num_replicas_in_sync


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The sum of this replica's per-example losses divided by the global batch size (``tf.nn``'s).

    The replicas' gradients are summed, so dividing by the global batch makes the sum the gradient
    of the mean over the global batch. ``global_batch_size`` defaults to this replica's batch size times
    ``num_replicas_in_sync`` (pass it when the replicas' batches differ in size).

    Args:
        per_example_loss: a Tensor of rank >= 1 (one loss per example).
        sample_weight: optional weights, broadcast against ``per_example_loss``.
        global_batch_size: a positive integer.

    Example:
        >>> import descend as ds
        >>> float(ds.nn.compute_average_loss(ds.constant([1.0, 2.0, 3.0]), global_batch_size=6))
        1.0
    """
    loss = convert_to_tensor(per_example_loss)
    if loss.ndim == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. "
                         f"Received: {per_example_loss!r}")
    dtype = loss.dtype
    if sample_weight is not None:
        loss = _math.cast(_math.multiply(loss, convert_to_tensor(sample_weight, dtype=dtype)), dtype)
    if global_batch_size is None:
        global_batch_size = loss.shape[0] * _replicas("compute_average_loss")
    if isinstance(global_batch_size, bool) or not isinstance(global_batch_size, (int, np.integer)):
        raise TypeError(f"`global_batch_size` must be an integer. Received: global_batch_size={global_batch_size!r}")
    if global_batch_size <= 0:
        raise ValueError(f"`global_batch_size` must be positive. Received: global_batch_size={global_batch_size}")
    return _math.divide(_math.reduce_sum(loss), convert_to_tensor(float(global_batch_size), dtype=dtype))


def scale_regularization_loss(regularization_loss):
    """The sum of ``regularization_loss`` divided by ``num_replicas_in_sync`` (``tf.nn``'s), so that the
    replicas' summed gradients count it once.

    Example:
        >>> import descend as ds
        >>> float(ds.nn.scale_regularization_loss(ds.constant([0.5, 0.25])))
        0.75
    """
    replicas = _replicas("scale_regularization_loss")
    loss = convert_to_tensor(regularization_loss)
    return _math.divide(_math.reduce_sum(loss), convert_to_tensor(float(replicas), dtype=loss.dtype))

