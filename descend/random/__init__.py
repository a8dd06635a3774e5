"""``descend.random``: random tensors with TensorFlow's seeding rules (``tf.random``).

Seeds
    As in TF 2 eager mode, a draw depends on a *global* seed
    (:func:`set_seed`) and an *operation* seed (the ``seed=`` argument):

    * neither set: a fresh, unreproducible draw each call;
    * global seed set, no op seed: each call takes the next op seed from a
      counter that :func:`set_seed` resets, so a program rerun after
      ``set_seed(s)`` draws the same sequence;
    * an op seed: calls with the same op seed continue one stream (two calls
      give different values, the sequence is reproducible); :func:`set_seed`
      restarts every stream. Without a global seed TF's default graph seed
      (87654321) stands in for it;
    * neither: fresh entropy, except under op determinism
      (``descend.config.experimental.enable_op_determinism``), where the draw
      raises ``RuntimeError`` as TF's does (such a draw cannot be repeated).

    The streams are NumPy PCG64 generators seeded with ``(global, op)``: a
    seeded program is reproducible with descend, but draws different numbers
    from TensorFlow's Philox. Values are drawn in float64 and then cast.

Example:
    >>> import descend as ds
    >>> ds.random.set_seed(3)
    >>> a = ds.random.uniform((2,))
    >>> ds.random.set_seed(3)
    >>> b = ds.random.uniform((2,))
    >>> bool((a.numpy() == b.numpy()).all()), a.dtype.name
    (True, 'float32')

The implementation lives in :mod:`descend.random.seeded_random`; this module is the public namespace.
"""

from .seeded_random import *  # noqa: F403
from .seeded_random import __all__  # noqa: F401
from .seeded_random import DEFAULT_GRAPH_SEED, check_shape, sample_categorical, sample_normal, sample_truncated_normal, sample_uniform  # noqa: F401 - used by descend's own modules
