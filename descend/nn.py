"""``descend.nn``: neural-network ops, as ``tf.nn``."""

from .ops.conv_ops import avg_pool1d, avg_pool2d, conv1d, conv2d, max_pool1d, max_pool2d
from .ops.nn_ops import *  # noqa: F403
from .ops.nn_ops import __all__ as _nn_all

__all__ = list(_nn_all) + ["conv2d", "max_pool2d", "conv1d", "max_pool1d", "avg_pool1d", "avg_pool2d"]
