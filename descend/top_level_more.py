"""Top-level names of ``tf`` that are thin calls of descend's namespaces' functions (issue 37).

Example:
    >>> import descend as ds
    >>> values, indices = ds.approx_top_k([[1.0, 5.0, 3.0, 2.0]], 2)
    >>> values.numpy().tolist(), indices.numpy().tolist()
    ([[5.0, 3.0]], [[1, 2]])
"""

from __future__ import annotations

from . import math as _math
from .framework import convert_to_tensor

__all__ = ["approx_top_k"]


def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,  # noqa: A002 - TF's name
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """``(values, indices)``: the ``k`` largest (``is_max_k``) or smallest values along the last axis and their
    indices, as ``tf.approx_top_k`` (float16/float32 only, as TF's kernel). descend returns the exact answer, which meets every ``recall_target``;
    differentiable in ``input`` as ``top_k``."""
    if isinstance(is_max_k, bool) is False:
        raise TypeError(f"approx_top_k: `is_max_k` must be a bool; received {is_max_k!r}")
    x = convert_to_tensor(input, dtype_hint="float32")
    if x.dtype.name not in ("float16", "float32"):  # TF's ApproxTopK kernel takes only these
        raise TypeError(f"approx_top_k: `input` must be float16 or float32; received {x.dtype.name}")
    pick = _math.approx_max_k if is_max_k else _math.approx_min_k
    return tuple(pick(x, k, reduction_dimension, recall_target, reduction_input_size_override,
                      aggregate_to_topk))
