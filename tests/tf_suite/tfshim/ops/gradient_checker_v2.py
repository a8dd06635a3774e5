"""TF's ``gradient_checker_v2``: ``compute_gradient`` is descend's ``tf.test.compute_gradient`` (the tape's and the
numerical Jacobians); ``max_error`` is the largest absolute difference between two lists of Jacobians, as TF's."""

from __future__ import annotations

import numpy as np

from descend.test import compute_gradient  # noqa: F401


def max_error(grad1, grad2):
    """The largest ``|a - b|`` over the pairs of Jacobians (0 where both are empty)."""
    error = 0.0
    for a, b in zip(grad1, grad2):
        a, b = np.asarray(a), np.asarray(b)
        if a.size or b.size:
            error = max(error, float(np.max(np.abs(a - b))))
    return error
