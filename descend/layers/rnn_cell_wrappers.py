"""``tf.nn.RNNCellResidualWrapper`` and ``tf.nn.RNNCellDropoutWrapper``: layers that wrap an RNN cell (Keras'
cell API: ``state_size`` and ``call(inputs, states)`` returning ``(output, new_states)``), usable step by step
or inside ``layers.RNN``.

* ``RNNCellResidualWrapper(cell, residual_fn=None)``: the output is ``residual_fn(inputs, output)``, by default
  ``inputs + output`` (the cell's output size must equal the input size); the states are the cell's.
* ``RNNCellDropoutWrapper(cell, input_keep_prob, output_keep_prob, state_keep_prob, variational_recurrent, ...)``:
  inverted dropout of the inputs before the cell, and of its new states and output after it, keeping each
  element with the given probability. As TF's wrapper it applies on every call (there is no ``training``
  switch; a probability of 1 turns a dropout off). Each call draws new masks from ``descend.random`` (TF's
  salted op seeds when ``seed`` is given), except with ``variational_recurrent=True``: one mask per input,
  state and output, drawn when the wrapper is made (``input_size`` needed for the inputs) and shared by every
  step and example, as TF's. ``dropout_state_filter_visitor(state) -> bool`` says which states are dropped
  (all by default).

Example:
    >>> import descend as ds, numpy as np
    >>> cell = ds.nn.RNNCellResidualWrapper(ds.layers.SimpleRNNCell(2, kernel_initializer="zeros",
    ...                                                                recurrent_initializer="zeros"))
    >>> out, states = cell(np.ones((1, 2), np.float32), [np.zeros((1, 2), np.float32)])
    >>> out.numpy().tolist()
    [[1.0, 1.0]]
"""

from __future__ import annotations

import hashlib
import numbers

import numpy as np

from .. import random as _random
from ..framework.tensor import Tensor, convert_to_tensor
from .base import Layer
from ..ops import math_ops

__all__ = ["RNNCellResidualWrapper", "RNNCellDropoutWrapper"]


def _sizes(size) -> list:
    return [int(s) for s in size] if isinstance(size, (list, tuple)) else [int(size)]


class _Wrapper(Layer):
    def __init__(self, cell, **kwargs):
        if not hasattr(cell, "state_size") or not callable(cell):
            raise TypeError(f"{type(self).__name__}: `cell` must be an RNN cell (a layer with `state_size`). "
                            f"Received: {cell!r}")
        super().__init__(**kwargs)
        self.cell = cell

    @property
    def wrapped_cell(self):
        return self.cell

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return getattr(self.cell, "output_size", _sizes(self.cell.state_size)[0])

    def get_initial_state(self, batch_size=None, dtype="float32"):
        """Zeros for each state, ``(batch_size, size)``."""
        return [Tensor(np.zeros((int(batch_size), n), dtype)) for n in _sizes(self.state_size)]

    def build(self, input_shape):
        if not getattr(self.cell, "built", True):
            self.cell.build(input_shape)
        self.built = True


class RNNCellResidualWrapper(_Wrapper):
    """A cell whose output is ``residual_fn(inputs, cell_output)`` (default ``inputs + cell_output``)."""

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        if residual_fn is not None and not callable(residual_fn):
            raise TypeError(f"RNNCellResidualWrapper: `residual_fn` must be callable. Received: {residual_fn!r}")
        self._residual_fn = residual_fn

    def call(self, inputs, states, **kwargs):
        output, new_states = self.cell(inputs, states, **kwargs)
        if self._residual_fn is not None:
            return self._residual_fn(inputs, output), new_states
        x = convert_to_tensor(inputs)
        if tuple(x.shape) != tuple(output.shape):
            raise ValueError(f"RNNCellResidualWrapper: the inputs {tuple(x.shape)} and the cell's output "
                             f"{tuple(output.shape)} must have one shape to be added")
        return math_ops.add(x, output), new_states


class RNNCellDropoutWrapper(_Wrapper):
    """Dropout on a cell's inputs, output and new states (see the module's notes)."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent: bool = False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, **kwargs)
        for what, p in (("input_keep_prob", input_keep_prob), ("output_keep_prob", output_keep_prob),
                        ("state_keep_prob", state_keep_prob)):
            if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 < p <= 1:
                raise ValueError(f"RNNCellDropoutWrapper: `{what}` must be in (0, 1]. Received: {what}={p!r}")
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError("RNNCellDropoutWrapper: dropout_state_filter_visitor must be callable")
        self.input_keep_prob, self.output_keep_prob = float(input_keep_prob), float(output_keep_prob)
        self.state_keep_prob = float(state_keep_prob)
        self._filter = dropout_state_filter_visitor or (lambda state: True)
        self._seed, self._variational = seed, bool(variational_recurrent)
        self._noise = {}
        if self._variational:
            if dtype is None:
                raise ValueError("RNNCellDropoutWrapper: when variational_recurrent=True, dtype must be provided")
            if self.input_keep_prob < 1.0 and input_size is None:
                raise ValueError("RNNCellDropoutWrapper: when variational_recurrent=True and input_keep_prob < 1.0, "
                                 "input_size must be provided")
            sizes = {"state": _sizes(self.state_size), "output": _sizes(self.output_size)}
            if input_size is not None:
                sizes["input"] = _sizes(input_size)
            # one uniform draw of shape (1, size) per input, state and output: the same masks on every step
            self._noise = {(kind, i): _random.uniform((1, n), dtype="float64", seed=self._gen_seed(kind, i)).numpy()
                           for kind, ns in sizes.items() for i, n in enumerate(ns)}
            self._dtype = dtype

    def _gen_seed(self, kind: str, index: int):
        # TF's salted op seed: the first 8 hex digits of md5(str(seed) + "<kind>_<index>"), 31 bits
        if self._seed is None:
            return None
        return int(hashlib.md5(f"{self._seed}{kind}_{index}".encode()).hexdigest()[:8], 16) & 0x7FFFFFFF

    def _drop(self, value, kind: str, index: int, keep: float):
        v = convert_to_tensor(value)
        if self._variational:
            # keep where keep + noise >= 1, i.e. floor(keep + noise) = 1
            mask = np.floor(keep + self._noise[(kind, index)]).astype(v.dtype.name)
            return math_ops.multiply(math_ops.divide(v, Tensor(np.asarray(keep, v.dtype.name))), Tensor(mask))
        u = _random.uniform(tuple(v.shape), dtype="float64", seed=self._gen_seed(kind, index)).numpy()
        scaled = math_ops.multiply(v, Tensor(np.asarray(1.0 / keep, v.dtype.name)))
        return math_ops.where(Tensor(u >= 1.0 - keep), scaled, math_ops.zeros_like(scaled))

    def call(self, inputs, states, **kwargs):
        if self.input_keep_prob < 1.0:
            inputs = self._drop(inputs, "input", 0, self.input_keep_prob)
        output, new_states = self.cell(inputs, states, **kwargs)
        if self.state_keep_prob < 1.0:
            new_states = [self._drop(s, "state", i, self.state_keep_prob) if self._filter(s) else s
                          for i, s in enumerate(new_states)]
        if self.output_keep_prob < 1.0:
            output = self._drop(output, "output", 0, self.output_keep_prob)
        return output, new_states
