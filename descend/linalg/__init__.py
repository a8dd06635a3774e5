"""``descend.linalg``: the common ``tf.linalg`` subset, as descend ops and compositions of them.

Example:
    >>> import descend as ds
    >>> a = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> ds.linalg.matmul(a, ds.linalg.eye(2)).numpy().tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> float(ds.linalg.trace(a)), ds.linalg.matrix_transpose(a).numpy().tolist()
    (5.0, [[1.0, 3.0], [2.0, 4.0]])

The implementation lives in :mod:`descend.linalg.matrix_functions`; this module is the public namespace.
"""

from .matrix_functions import *  # noqa: F403
from .matrix_functions import __all__  # noqa: F401
from . import experimental  # noqa: F401 - tf.linalg.experimental


def __getattr__(name: str):
    from .._api_exclusions import refuse  # a name tf.linalg has and descend leaves out says why

    raise refuse("tf.linalg", name, __name__)
