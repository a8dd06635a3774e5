"""``tf.experimental.numpy`` (TensorFlow's NumPy API) on descend: the functions of :mod:`descend.keras.ops` that
carry a NumPy name (``matmul``, ``maximum``, ``mean``, ``square``...), the same objects (one implementation each):
they take Tensors, Variables, NumPy arrays and Python numbers, return descend Tensors and are differentiated by a
GradientTape, as TF's ``tnp`` functions are. Names of NumPy's that ``keras.ops`` lacks are absent (AttributeError).

Example:
    >>> import numpy as np
    >>> import descend.experimental.numpy as tnp
    >>> tnp.maximum(tnp.matmul(np.ones((2, 3), np.float32), np.ones((3, 1), np.float32)) - 4.0, 0.0).numpy()
    array([[0.],
           [0.]], dtype=float32)
"""

from __future__ import annotations

import numpy as _np

from ..keras import ops as _ops

#: the NumPy-named functions of keras.ops this module gives
__all__ = sorted(name for name in dir(_ops) if not name.startswith("_") and callable(getattr(_ops, name))
                 and hasattr(_np, name) and not isinstance(getattr(_ops, name), type))


def __getattr__(name):
    if name in __all__:
        return getattr(_ops, name)
    raise AttributeError(f"module 'descend.experimental.numpy' has no attribute '{name}' (descend gives the "
                         f"NumPy-named functions of descend.keras.ops: {len(__all__)} of them)")


def __dir__():
    return list(__all__)
