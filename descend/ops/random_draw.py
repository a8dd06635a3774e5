"""``draw``: a random array as an op, so a trace records the draw and a compiled plan draws again.

Random values made with a NumPy generator and wrapped in a Tensor would be, to
a trace of ``descend.function``, a constant: every call would reuse the first
call's draws (the same dropout mask on every step). Drawing through
:func:`draw` records the draw as an op whose forward calls ``fn`` again on
each call of the compiled function (the generator's stream goes on, as a TF
stateful random op's does). Eagerly it is ``fn(*arrays)``, at once.

Example:
    >>> import numpy as np
    >>> from descend.ops.random_draw import draw
    >>> rng = np.random.default_rng(0)
    >>> draw(fn=lambda: rng.random(2)).shape
    TensorShape([2])
"""

from __future__ import annotations

import numpy as np

from ..framework.op import Op

__all__: list = []


def _draw(*inputs, fn=None):
    return np.asarray(fn(*inputs))


#: ``draw(*tensors, fn=f)``: the array ``f(*arrays)`` returns (no gradient); not in the op table
draw = Op(_draw, name="random_draw", differentiable=False, register=False)
