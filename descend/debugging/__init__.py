"""``descend.debugging``: why is my gradient ``None``?

:func:`explain_gradient` reads what a :class:`~descend.GradientTape` noted
while it recorded and says, naming the variables and ops involved, why
``tape.gradient(target, source)`` gives ``None`` (or zeros with
``unconnected_gradients="zero"``):

- the source is not watched (a constant never passed to ``tape.watch``, a
  non-trainable variable, ``watch_accessed_variables=False``, a variable read
  only outside the block);
- the source is not on any path to the target (and what the target does
  depend on);
- the path is cut by ``stop_gradient``;
- the path goes through an integer value (a ``cast`` to ``int32``...);
- the path goes through an op that has no gradient (``argmax``, ``round``...);
- the target was computed outside the tape's block;
- the gradient was asked of a non-persistent tape a second time.

:func:`explain_missing_gradients` gives the same explanations for the
variables an optimizer received ``None`` gradients for, from the latest
``gradient()`` call of the thread that left a source without a gradient
(while its tape is alive).

Example:
    >>> import descend as ds
    >>> w = ds.Variable([1.0, 2.0], name="w")
    >>> with ds.GradientTape() as tape:
    ...     loss = ds.reduce_sum(ds.stop_gradient(w * 2.0))
    >>> print(tape.gradient(loss, w))
    None
    >>> print(ds.debugging.explain_gradient(tape, loss, w))  # doctest: +ELLIPSIS
    The gradient of the target with respect to variable 'w' is None: the path from variable 'w' to the target is cut by stop_gradient ...

The implementation lives in :mod:`descend.debugging.gradient_checks`; this module is the public namespace.
"""

from .gradient_checks import *  # noqa: F403
from .gradient_checks import __all__  # noqa: F401
