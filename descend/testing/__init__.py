"""Numerical gradient checking for ops, layers and user code.

The implementation lives in :mod:`descend.testing.gradient_check`; this module is the public namespace.
"""

from .gradient_check import *  # noqa: F403
from .gradient_check import __all__  # noqa: F401
