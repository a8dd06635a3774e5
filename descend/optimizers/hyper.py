"""An optimizer's hyperparameters: declared with a range, a number, a zero-argument callable or a
schedule, checked when set (numbers) or when evaluated (callables and schedules)."""

from __future__ import annotations

import math
import weakref

import numpy as np

from ..framework.tensor import Tensor
from ..framework.variable import Variable
from . import schedules
from .rule import NUMBERS

__all__ = ["Hyperparameters", "LearningRateValue"]

# ranges that hold for any optimizer whatever declares them
_DEFAULT_RANGES = {"learning_rate": (0, None, False, False), "weight_decay": (0, None, False, False)}


def _fmt(v):
    return repr(float(v)) if isinstance(v, NUMBERS) else repr(v)


class Hyperparameters:
    """Name -> value (a float, a zero-argument callable or a schedule), with each name's range."""

    __slots__ = ("values", "_ranges", "_messages")

    def __init__(self):
        self.values: dict = {}
        self._ranges: dict = {}
        self._messages: dict = {}

    def declare(self, name: str, value, *, low=None, high=None, low_open: bool = False, high_open: bool = False,
                message: str | None = None) -> None:
        """Declare ``name`` with its range (open ends with ``low_open``/``high_open``) and set it.
        ``message``, a ``str.format`` template of ``name`` and ``value``, words the error of a value out of
        range (ported optimizers keep their reference's wording, which tests match)."""
        self._ranges[name] = (low, high, low_open, high_open)
        if message is not None:
            self._messages[name] = message
        self.set(name, value)

    def check_range(self, name: str, v: float) -> None:
        """Raise ``ValueError`` when ``v`` is not a finite number in ``name``'s range."""
        if not math.isfinite(v):
            raise ValueError(f"`{name}` must be a finite number. Received: {name}={v!r}")
        low, high, lo_open, hi_open = self._ranges.get(name, _DEFAULT_RANGES.get(name, (None, None, False, False)))
        bad = (low is not None and (v < low or (lo_open and v == low))) or (
            high is not None and (v > high or (hi_open and v == high)))
        if bad:
            lo = "-inf" if low is None else low
            hi = "inf" if high is None else high
            rng = f"{'(' if lo_open or low is None else '['}{lo}, {hi}{')' if hi_open or high is None else ']'}"
            message = self._messages.get(name)
            if message is not None:
                raise ValueError(message.format(name=name, value=v))
            raise ValueError(f"`{name}` must be in {rng}. Received: {name}={_fmt(v)}")

    def set(self, name: str, value) -> None:
        """Set ``name`` to a number (checked against its range), a callable or a schedule."""
        if isinstance(value, (Tensor, Variable)):
            value = float(value)
        if isinstance(value, NUMBERS) and not isinstance(value, bool):
            self.check_range(name, float(value))
            value = float(value)
        elif not (isinstance(value, schedules.LearningRateSchedule) or callable(value)):
            raise TypeError(f"`{name}` must be a number, a zero-argument callable or a LearningRateSchedule. "
                            f"Received: {name}={value!r}")
        self.values[name] = value

    def resolve(self, name: str, step: int) -> float:
        """``name``'s value at ``step`` (a schedule or callable evaluated and range-checked)."""
        value = self.values[name]
        if isinstance(value, float):
            return value
        v = value(step) if isinstance(value, schedules.LearningRateSchedule) else value()
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise TypeError(f"`{name}` must evaluate to a number. Received: {v!r}") from None
        self.check_range(name, v)
        return v

    def resolve_all(self, step: int) -> dict:
        return {name: self.resolve(name, step) for name in self.values}

    def serialize(self, name: str):
        """A JSON-friendly form of ``name`` (a schedule as its config dict, a callable as its current value)."""
        value = self.values[name]
        if isinstance(value, schedules.LearningRateSchedule):
            return schedules.serialize(value)
        if callable(value):
            return float(value())
        return value


class LearningRateValue(float):
    """What ``optimizer.learning_rate`` gives: the rate at the current step, a float that code written for
    Keras or TF, where it is a variable, can also set in place (``assign``) and read (``numpy``).

    Example:
        >>> import descend as ds
        >>> opt = ds.optimizers.SGD(0.1)
        >>> opt.learning_rate.assign(0.05)
        >>> opt.learning_rate, float(opt.learning_rate.numpy())
        (0.05, 0.05)
    """

    def __new__(cls, value, optimizer):
        obj = float.__new__(cls, value)
        obj._optimizer = weakref.ref(optimizer)
        return obj

    def assign(self, value) -> None:
        """Set the optimizer's learning rate to the number ``value`` (as ``optimizer.learning_rate = value``)."""
        optimizer = self._optimizer()
        if optimizer is None:
            raise RuntimeError("the optimizer this learning rate belongs to no longer exists")
        current = optimizer.hyperparameters().get("learning_rate")
        if not isinstance(current, float):
            raise TypeError("the learning rate is a schedule or a callable, not a value to assign; set a new one "
                            "with `optimizer.learning_rate = ...`")
        optimizer.learning_rate = float(value.numpy() if hasattr(value, "numpy") else value)

    def numpy(self) -> np.ndarray:
        return np.asarray(float(self))

    def __reduce__(self):  # a copy or a pickle is the plain number
        return (float, (float(self),))
