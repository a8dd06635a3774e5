"""``ExponentialMovingAverage`` (as ``tf.train.ExponentialMovingAverage``): shadow copies of variables that
follow them with exponential decay.

Each :meth:`~ExponentialMovingAverage.apply` moves every shadow towards its variable::

    shadow -= (1 - decay) * (shadow - variable)

where, when ``num_updates`` is given, ``decay = min(decay, (1 + num_updates) / (10 + num_updates))``. As
TensorFlow, the decay is computed in float32 and ``1 - decay`` is then cast to the variable's dtype, so the
shadows agree with TF's bit for bit.

Example:
    >>> import descend as ds
    >>> w = ds.Variable([1.0, 2.0], name="ema_doc_w")
    >>> ema = ds.train.ExponentialMovingAverage(decay=0.5)
    >>> ema.apply([w])
    >>> _ = w.assign([3.0, 6.0])
    >>> ema.apply([w])
    >>> ema.average(w).numpy()
    array([2., 4.], dtype=float32)
    >>> ema.average_name(w)
    'ema_doc_w/ExponentialMovingAverage'
"""

from __future__ import annotations

import numpy as np

from ..framework.variable import Variable

__all__ = ["ExponentialMovingAverage"]

_FLOATS = (np.float16, np.float32, np.float64)


def _base_name(var) -> str:
    return var.scoped_name  # TF's var.op.name


def _number(value, what: str) -> np.float32:
    """``value`` (a number, a Variable or a scalar Tensor) read now as float32, as TF converts it."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    arr = np.asarray(value)
    if arr.ndim != 0 or not (np.issubdtype(arr.dtype, np.number) and not np.issubdtype(arr.dtype, np.complexfloating)):
        raise TypeError(f"ExponentialMovingAverage: `{what}` must be a real scalar. Received: {what}={value!r}")
    return np.float32(arr)


class ExponentialMovingAverage:
    """Maintains exponential moving averages of variables (``tf.train.ExponentialMovingAverage``).

    Args:
        decay: the decay, a float (or a scalar Variable, read at each :meth:`apply`); typically close to 1.
        num_updates: optional count of updates (an int or a Variable such as ``optimizer.iterations``); when
            given, the decay used is ``min(decay, (1 + num_updates) / (10 + num_updates))``.
        zero_debias: TF's flag; it only concerns averages of Tensors, which this class refuses (it averages
            Variables, whose shadows start at the variable's value), so it changes nothing, as in TF.
        name: the suffix of the shadow variables' names.
    """

    def __init__(self, decay, num_updates=None, zero_debias: bool = False, name: str = "ExponentialMovingAverage"):
        if not isinstance(name, str) or not name:
            raise ValueError(f"ExponentialMovingAverage: `name` must be a non-empty string. Received: name={name!r}")
        _number(decay, "decay")  # refused now rather than at the first apply
        if num_updates is not None:
            _number(num_updates, "num_updates")
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = bool(zero_debias)
        self._name = name
        self._averages: dict[int, tuple[Variable, Variable]] = {}  # id(var) -> (var, shadow)

    @property
    def name(self) -> str:
        return self._name

    @property
    def num_updates(self):
        return self._num_updates

    def _effective_decay(self) -> np.float32:
        decay = _number(self._decay, "decay")
        if self._num_updates is not None:
            n = _number(self._num_updates, "num_updates")
            decay = min(decay, (np.float32(1.0) + n) / (np.float32(10.0) + n))
        return np.float32(decay)

    def apply(self, var_list=None):
        """Creates the shadows of ``var_list``'s variables not yet averaged (each starts at the variable's
        value), then moves every shadow of ``var_list`` one step towards its variable.

        Raises:
            TypeError: an element is not a Variable, or not of a float dtype (nothing is changed then).
            ValueError: ``var_list`` is None or names a variable twice.
        """
        if var_list is None:
            raise ValueError("ExponentialMovingAverage.apply: `var_list` must be given (descend has no global "
                             "collection of trainable variables). Received: var_list=None")
        var_list = list(var_list)
        for var in var_list:
            if not isinstance(var, Variable):
                raise TypeError("ExponentialMovingAverage.apply: every element of `var_list` must be a Variable "
                                f"(averages of Tensors are not supported). Received: {var!r}")
            if var.dtype.dtype.type not in _FLOATS:
                raise TypeError("ExponentialMovingAverage.apply: the variables must be half, float, or double. "
                                f"Received: {var.name} of dtype {var.dtype.name}")
        if len({id(v) for v in var_list}) != len(var_list):
            raise ValueError("ExponentialMovingAverage.apply: `var_list` names a variable more than once. "
                             f"Received: {[v.name for v in var_list]}")
        decay = self._effective_decay()
        for var in var_list:
            if id(var) not in self._averages:
                shadow = Variable(var.numpy().copy(), name=f"{_base_name(var)}/{self._name}", trainable=False,
                                  dtype=var.dtype)
                self._averages[id(var)] = (var, shadow)
        one_minus = np.float32(np.float32(1.0) - decay)
        for var in var_list:
            shadow = self._averages[id(var)][1]
            step = one_minus.astype(var.dtype.dtype)
            current = shadow.numpy()
            shadow.assign(current - (current - var.numpy()) * step)

    def average(self, var):
        """The shadow Variable of ``var``, or None when ``var`` is not averaged."""
        entry = self._averages.get(id(var))
        return None if entry is None or entry[0] is not var else entry[1]

    def average_name(self, var) -> str:
        """The name of ``var``'s shadow (``<var name>/<self.name>``), also before :meth:`apply` created it."""
        shadow = self.average(var)
        if shadow is not None:
            return _base_name(shadow)
        return f"{_base_name(var)}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """``{shadow name: variable}`` for restoring the averages into the variables themselves.

        ``moving_avg_variables`` defaults to the variables this object averages (TF's default reads the
        graph's collections, which descend does not keep).
        """
        if moving_avg_variables is None:
            moving_avg_variables = [var for var, _ in self._averages.values()]
        return {self.average_name(var): var for var in moving_avg_variables}
