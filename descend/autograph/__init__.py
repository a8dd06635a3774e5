"""``descend.autograph``: TF's ``tf.autograph`` names for descend's AutoGraph (:mod:`descend.compiler.autograph`).

* :func:`to_code`: the source of a function as ``descend.function`` converts it;
* :func:`experimental.do_not_convert`: a decorator that keeps a function as it is.
"""

from ..compiler.autograph import to_code
from . import experimental

__all__ = ["experimental", "to_code"]
