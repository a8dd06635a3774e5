"""``StackedRNNCells`` (as Keras'): several recurrent cells run as one, each step's output of a cell the next
cell's input; ``RNN([cell_a, cell_b])`` makes one.

Its ``state_size`` is the list of its cells' (nested: ``[[h_a, c_a], h_b]`` for an ``LSTMCell`` then a
``GRUCell``), its ``output_size`` the last cell's. ``call(inputs, states)`` takes the states nested that way and
returns ``(last cell's output, new states nested the same way)``; an RNN over it returns, with
``return_state``, the output then one entry per cell, nested as the initial states: a list for descend's cells
(their ``get_initial_state`` gives a list), a Tensor for a cell with one int state and no ``get_initial_state``,
as Keras.

Example:
    >>> import descend as ds
    >>> cells = ds.layers.StackedRNNCells([ds.layers.LSTMCell(4), ds.layers.GRUCell(3)])
    >>> cells.state_size, cells.output_size
    ([[4, 4], 3], 3)
    >>> out, lstm_states, gru_states = ds.layers.RNN(cells, return_state=True)(ds.ones((2, 5, 6)))
    >>> out.shape, [s.shape for s in lstm_states], [s.shape for s in gru_states]
    (TensorShape([2, 3]), [TensorShape([2, 4]), TensorShape([2, 4])], [TensorShape([2, 3])])
"""

from __future__ import annotations

import numpy as np

from ..persistence import object_config as _serialization
from ..framework.tensor import Tensor
from .base import Layer

__all__ = ["StackedRNNCells"]


def _first_size(cell) -> int:
    """A cell's output width: its ``output_size``, else its (first) state size (Keras' rule)."""
    size = getattr(cell, "output_size", None)
    if size is not None:
        return size
    state = cell.state_size
    return state[0] if isinstance(state, (list, tuple)) else state


class StackedRNNCells(Layer):
    """A stack of recurrent cells used as one cell (``keras.layers.StackedRNNCells``).

    Args:
        cells: a non-empty list of cells (each a Layer with ``call(inputs, states)`` and ``state_size``).
            descend's own cells must have ``dropout=0`` and ``recurrent_dropout=0`` here: their dropout masks
            belong to one RNN call and a stack does not carry them (use stacked RNN layers for dropout).
        **kwargs: the base layer's arguments.
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(cells, (list, tuple)) or not cells:
            raise ValueError(f"StackedRNNCells: `cells` must be a non-empty list of cells. Received: cells={cells!r}")
        for cell in cells:
            if not callable(getattr(cell, "call", None)):
                raise ValueError(f"StackedRNNCells: every cell needs a `call` method. Received: {cell!r}")
            if not hasattr(cell, "state_size"):
                raise ValueError(f"StackedRNNCells: every cell needs a `state_size` attribute. Received: {cell!r}")
            if getattr(cell, "dropout", 0) or getattr(cell, "recurrent_dropout", 0):
                raise ValueError(f"StackedRNNCells: descend does not apply the dropout of a stacked cell. Received "
                                 f"{type(cell).__name__} with dropout={getattr(cell, 'dropout', 0)}, "
                                 f"recurrent_dropout={getattr(cell, 'recurrent_dropout', 0)}; stack RNN layers "
                                 "(return_sequences=True) to use dropout")
        self.cells = list(cells)

    @property
    def state_size(self) -> list:
        return [cell.state_size for cell in self.cells]

    @property
    def output_size(self) -> int:
        return _first_size(self.cells[-1])

    def get_initial_state(self, batch_size=None) -> list:
        """Each cell's initial states (its ``get_initial_state`` where it has one, else zeros), nested as
        ``state_size``."""
        states = []
        dtype = self.compute_dtype.dtype
        for cell in self.cells:
            fn = getattr(cell, "get_initial_state", None)
            if callable(fn):
                states.append(fn(batch_size=batch_size))
            elif isinstance(cell.state_size, (list, tuple)):
                states.append([Tensor(np.zeros((batch_size, n), dtype)) for n in cell.state_size])
            else:
                states.append(Tensor(np.zeros((batch_size, cell.state_size), dtype)))
        return states

    def build(self, input_shape):
        shape = tuple(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell.build(shape)
                cell.built = True
            shape = (shape[0], _first_size(cell))

    def call(self, inputs, states, training=None):
        if len(states) != len(self.cells):
            raise ValueError(f"StackedRNNCells: expected {len(self.cells)} state entries (one per cell). Received "
                             f"{len(states)}")
        new_states = []
        x = inputs
        for cell, cell_states in zip(self.cells, states):
            nested = isinstance(cell_states, (list, tuple))
            cell_states = list(cell_states) if nested else [cell_states]
            kwargs = {"training": training} if isinstance(cell, Layer) and cell._accepts("training") else {}
            x, cell_new = cell(x, cell_states, **kwargs)
            cell_new = list(cell_new) if isinstance(cell_new, (list, tuple)) else [cell_new]
            new_states.append(cell_new[0] if len(cell_new) == 1 and not nested else cell_new)
        return x, new_states

    def get_config(self) -> dict:
        return {**super().get_config(), "cells": [_serialization.serialize_keras_object(c) for c in self.cells]}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        from .wrapper import inner_layer

        config = dict(config)
        cells = config.pop("cells", None)
        if not isinstance(cells, list):
            raise ValueError(f"StackedRNNCells.from_config: 'cells' must be a list of cell configs. Received: "
                             f"{cells!r}")
        return cls([inner_layer(c, custom_objects) for c in cells], **config)
