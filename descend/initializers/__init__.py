"""Weight initializers, as ``keras.initializers`` (Keras 3 names, arguments and defaults).

An initializer is a callable ``init(shape, dtype=None) -> Tensor``; ``dtype``
defaults to :func:`descend.floatx` (float32). Random initializers take a
``seed``:

* an ``int``: every call draws from ``numpy.random.default_rng(seed)`` afresh,
  so the same seed gives the same values, call after call (Keras 3);
* a ``numpy.random.Generator``: calls draw from it in turn (different values
  each call, one reproducible sequence);
* ``None``: after :func:`descend.random.set_seed` (``tf.random.set_seed``), each
  call takes the next seed of that global seed's sequence, so a program rerun
  after ``set_seed(s)`` creates the same weights (TF 2's rule for an op without
  a seed); without a global seed, a fresh seed from Python's ``random``, as
  Keras 3 (``keras.utils.set_random_seed(s)`` makes it reproducible; NumPy's
  global state is left alone) (:func:`draw_seed`).

Values are drawn in float64 and then cast, so one seed gives the same
numbers (up to rounding) in float32 and float64.

Example:
    >>> import descend as ds
    >>> init = ds.initializers.get("glorot_uniform")
    >>> init((3, 4)).shape
    TensorShape([3, 4])
    >>> a = ds.initializers.HeNormal(seed=1)((2, 2)).numpy()
    >>> b = ds.initializers.HeNormal(seed=1)((2, 2)).numpy()
    >>> bool((a == b).all())
    True

The implementation lives in :mod:`descend.initializers.keras_initializers`; this module is the public namespace.
"""

from .keras_initializers import *  # noqa: F403
from .keras_initializers import __all__  # noqa: F401
from .keras_initializers import RandomInitializer, draw_seed  # noqa: F401 - used by descend's own modules
