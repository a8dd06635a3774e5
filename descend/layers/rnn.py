"""Recurrent layers: ``SimpleRNN``, ``LSTM``, ``GRU`` (and their cells and the ``RNN`` base),
``Bidirectional`` and ``TimeDistributed``, with Keras 3's arguments, weights and masking.

A recurrent layer runs its cell over the time axis of ``(batch, timesteps,
features)`` inputs, one step at a time, with descend ops (so the tape
differentiates through time). The input projection ``x @ kernel + bias`` of
all steps is one matmul before the loop. Weights are named as Keras':
``lstm/lstm_cell/kernel``, ``recurrent_kernel``, ``bias``.

Masking (a Keras mask from ``Embedding(mask_zero=True)``, or ``mask=``): at
a masked step the states are carried over unchanged and the output repeats
the previous step's, as Keras. ``go_backwards`` reads the sequence from the
end (and, as Keras, returns the sequence of outputs in that reversed order).

Dropout: ``dropout`` masks the inputs and ``recurrent_dropout`` the state
fed back, with one mask per call shared by all steps (Keras 3), in training
only. The masks come from the layer's generator (``seed``).

An LSTM with ``tanh`` and ``sigmoid``, no mask and no recurrent dropout in
training (Keras' conditions for cuDNN) runs as one op over all steps,
``lstm_sequence`` (:mod:`descend.ops.rnn_ops`), with the outputs of the
step-by-step path bit for bit; ``use_cudnn=False`` takes the step-by-step
path (which has second derivatives), ``use_cudnn=True`` requires the op.

Gates: LSTM ``i, f, c, o`` (``unit_forget_bias`` starts the forget bias at
1); GRU ``z, r, h`` with ``reset_after=True`` (Keras 3's default, a bias of
shape ``(2, 3 * units)``) or ``False``.
"""

from __future__ import annotations

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..framework.tensor import Tensor
from ..ops import array_ops, math_ops, random_draw, rnn_ops
from ..persistence import object_config as _serialization
from ._seeded import check_seed, start_rng
from .base import Layer, _serialize_activation
from .core import _positive_int
from .stacked_rnn_cells import StackedRNNCells
from .wrapper import Wrapper
from .wrapper import inner_layer as _inner_layer

__all__ = ["RNN", "SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU", "Bidirectional",
           "TimeDistributed"]


def _rate(value, what: str, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not 0 <= value < 1:
        raise ValueError(f"{owner}: `{what}` must be a float in [0, 1). Received: {what}={value!r}")
    return float(value)


class _Cell(Layer):
    """What the three cells share: their arguments, weights and dropout masks."""

    _gates = 1

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias: bool = True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        super().__init__(**kwargs)
        owner = type(self).__name__
        self.units = _positive_int(units, "units", owner)
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = _rate(dropout, "dropout", owner)
        self.recurrent_dropout = _rate(recurrent_dropout, "recurrent_dropout", owner)
        self.seed = check_seed(seed, owner)
        self._rng = None  # the dropout masks' generator, made at the first mask: a cell without dropout draws nothing
        self.kernel = self.recurrent_kernel = self.bias = None

    @property
    def state_size(self):
        return self.units

    def _bias_shape(self):
        return (self._gates * self.units,)

    def _bias_initializer(self):
        return self.bias_initializer

    def build(self, input_shape):
        d = input_shape[-1]
        if d is None:
            raise ValueError(f"Layer '{self.name}' needs a known feature dimension. Received: {tuple(input_shape)}")
        n = self._gates * self.units
        self.kernel = self.add_weight(shape=(int(d), n), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, n), initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint, name="recurrent_kernel")
        if self.use_bias:
            self.bias = self.add_weight(shape=self._bias_shape(), initializer=self._bias_initializer(),
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        name="bias")

    def _input_bias(self):
        return self.bias

    def project_inputs(self, x):
        """``x @ kernel (+ input bias)`` for every step at once: ``(B, T, d)`` -> ``(B, T, gates * units)``."""
        b, t, d = x.shape
        y = math_ops.matmul(array_ops.reshape(x, shape=(b * t, d)), self.kernel)
        bias = self._input_bias()
        if bias is not None:
            y = math_ops.add(y, bias)
        return array_ops.reshape(y, shape=(b, t, self._gates * self.units))

    def dropout_masks(self, batch: int, features: int, dtype, training) -> tuple:
        """``(input mask, recurrent mask)`` for one call (None where no dropout applies)."""
        if not training:
            return None, None

        def draw(rate, n):
            if rate == 0:
                return None
            if self._rng is None:  # unseeded: a seed from Python's random, as Keras (set_random_seed reproduces it)
                self._rng = start_rng(self.seed)
            # an op: descend.function draws a new mask on every call
            return random_draw.draw(fn=lambda: ((self._rng.random((batch, n)) >= rate) / (1.0 - rate)).astype(dtype))

        return draw(self.dropout, features), draw(self.recurrent_dropout, self.units)

    def initial_states(self, batch: int, dtype) -> list:
        return [Tensor(np.zeros((batch, self.units), dtype=dtype))]

    def get_initial_state(self, batch_size=None) -> list:
        """The zero states of ``batch_size`` rows, a list (Keras' cell API)."""
        return self.initial_states(int(batch_size), self.compute_dtype.dtype)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": _serialize_activation(self.activation),
            "recurrent_activation": _serialize_activation(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "recurrent_constraint": constraints.serialize(self.recurrent_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        }

    def call(self, inputs, states, training=None):
        """One step on ``(batch, features)`` inputs (Keras' cell API); returns ``(output, new states)``."""
        x = self._float_input(inputs)
        projected = self.project_inputs(array_ops.expand_dims(x, axis=1))
        return self.step(array_ops.squeeze(projected, axis=1), list(states), None)


class SimpleRNNCell(_Cell):
    """The cell of :class:`SimpleRNN`: ``h = activation(x @ kernel + h @ recurrent_kernel + bias)``."""

    def __init__(self, units, activation="tanh", **kwargs):
        kwargs.pop("recurrent_activation", None)
        super().__init__(units, activation=activation, **kwargs)

    def step(self, xw, states, rmask):
        h = states[0]
        hr = h if rmask is None else math_ops.multiply(h, rmask)
        out = self.activation(math_ops.add(xw, math_ops.matmul(hr, self.recurrent_kernel)))
        return out, [out]

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("recurrent_activation")
        return config


class _ForgetBias(initializers.Initializer):
    """LSTM's ``unit_forget_bias`` (``LSTMCell`` and ``ConvLSTM``): the bias initializer's values for the four
    gates, with ones for the forget gate (the second quarter), as Keras."""

    def __init__(self, base, units: int):
        self.base, self.units = base, units

    def __call__(self, shape, dtype=None):
        u = self.units
        values = np.asarray(self.base((4 * u,), dtype=dtype)).copy()
        values[u:2 * u] = 1.0
        return Tensor(values)


class LSTMCell(_Cell):
    """The cell of :class:`LSTM` (gates ``i, f, c, o``): ``c = f * c + i * tanh(z_c)``,
    ``h = o * tanh(c)``; states ``[h, c]``."""

    _gates = 4

    def __init__(self, units, unit_forget_bias: bool = True, **kwargs):
        kwargs.pop("implementation", None)
        super().__init__(units, **kwargs)
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_initializer(self):
        if self.unit_forget_bias:
            return _ForgetBias(self.bias_initializer, self.units)
        return self.bias_initializer

    def initial_states(self, batch, dtype):
        return [Tensor(np.zeros((batch, self.units), dtype=dtype)) for _ in range(2)]

    def step(self, xw, states, rmask):
        h, c = states
        hr = h if rmask is None else math_ops.multiply(h, rmask)
        z = math_ops.add(xw, math_ops.matmul(hr, self.recurrent_kernel))
        zi, zf, zc, zo = array_ops.split(z, 4, axis=1)
        i = self.recurrent_activation(zi)
        f = self.recurrent_activation(zf)
        o = self.recurrent_activation(zo)
        c = math_ops.add(math_ops.multiply(f, c), math_ops.multiply(i, self.activation(zc)))
        h = math_ops.multiply(o, self.activation(c))
        return h, [h, c]

    def get_config(self) -> dict:
        return {**super().get_config(), "unit_forget_bias": self.unit_forget_bias}


class GRUCell(_Cell):
    """The cell of :class:`GRU` (gates ``z, r, h``): ``h = z * h + (1 - z) * hh``.

    With ``reset_after=True`` (default) ``hh = tanh(x W_h + b_h + r * (h U_h + b'_h))``
    and the bias is ``(2, 3 * units)`` (input and recurrent biases); with
    False, ``hh = tanh(x W_h + (r * h) U_h + b_h)`` and the bias is ``(3 * units,)``.
    """

    _gates = 3

    def __init__(self, units, reset_after: bool = True, **kwargs):
        kwargs.pop("implementation", None)
        super().__init__(units, **kwargs)
        self.reset_after = bool(reset_after)

    def _bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _input_bias(self):
        if self.bias is None:
            return None
        return self.bias[0] if self.reset_after else self.bias

    def step(self, xw, states, rmask):
        h = states[0]
        u = self.units
        hr = h if rmask is None else math_ops.multiply(h, rmask)
        xz, xr, xh = array_ops.split(xw, 3, axis=1)
        if self.reset_after:
            rec = math_ops.matmul(hr, self.recurrent_kernel)
            if self.bias is not None:
                rec = math_ops.add(rec, self.bias[1])
            hz, hrr, hh_rec = array_ops.split(rec, 3, axis=1)
            z = self.recurrent_activation(math_ops.add(xz, hz))
            r = self.recurrent_activation(math_ops.add(xr, hrr))
            hh = self.activation(math_ops.add(xh, math_ops.multiply(r, hh_rec)))
        else:
            rec = math_ops.matmul(hr, self.recurrent_kernel[:, :2 * u])
            hz, hrr = array_ops.split(rec, 2, axis=1)
            z = self.recurrent_activation(math_ops.add(xz, hz))
            r = self.recurrent_activation(math_ops.add(xr, hrr))
            hh = self.activation(math_ops.add(xh, math_ops.matmul(math_ops.multiply(r, hr),
                                                                    self.recurrent_kernel[:, 2 * u:])))
        out = math_ops.add(math_ops.multiply(z, h), math_ops.multiply(math_ops.subtract(1.0, z), hh))
        return out, [out]

    def get_config(self) -> dict:
        return {**super().get_config(), "reset_after": self.reset_after}


def _flat_sizes(size) -> list:
    sizes = list(size) if isinstance(size, (list, tuple)) else [size]
    flat = []
    for s in sizes:
        flat.extend(_flat_sizes(s) if isinstance(s, (list, tuple)) else [s])
    return flat


def _state_sizes(cell) -> list:
    """A cell's state sizes as a flat list of ints (Keras' ``state_size``: an int, or a list/tuple, one per state,
    nested for :class:`StackedRNNCells`)."""
    size = cell.state_size
    sizes = _flat_sizes(size)
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s <= 0:
            raise ValueError(f"RNN: the cell's `state_size` must be a positive int or a list/tuple of them, one per "
                             f"state (descend has no states of rank > 1). Received: state_size={size!r} from "
                             f"{type(cell).__name__}")
    return [int(s) for s in sizes]


def _flatten(states) -> list:
    flat = []
    for s in states if isinstance(states, (list, tuple)) else [states]:
        flat.extend(_flatten(s) if isinstance(s, (list, tuple)) else [s])
    return flat


def _nest(flat: list, template) -> list:
    """The flat states nested as ``template`` (the initial states as given or as the cell made them, or a
    ``state_size``): a list with one entry per top-level entry, a list where the template has one."""
    it = iter(flat)

    def take(s):
        return [take(t) for t in s] if isinstance(s, (list, tuple)) else next(it)

    return [take(s) for s in (template if isinstance(template, (list, tuple)) else [template])]


def _top_level(cell) -> int:
    size = cell.state_size
    return len(size) if isinstance(size, (list, tuple)) else 1


def _output_size(cell) -> int:
    """A cell's ``output_size`` when it has one, else its first state's size (Keras' rule)."""
    size = getattr(cell, "output_size", None)
    return _state_sizes(cell)[0] if size is None else int(size)


class RNN(Layer):
    """Runs a cell over the time axis: descend's ``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``, or your own.

    Your own cell is a Layer, as in Keras, with a ``state_size`` attribute (an int, or a list/tuple of ints,
    one per state), optionally ``output_size`` (default: the first state's size) and
    ``get_initial_state(batch_size)`` (default: zeros), and ``call(inputs, states[, training])`` that takes
    one step's ``(batch, features)`` inputs and the list of states and returns ``(output, new_states)``.
    Its ``build`` gets the shape of one step's inputs ``(batch, features)``.

    Args:
        cell: the cell.
        return_sequences: return every step's output ``(batch, timesteps,
            units)`` instead of the last one ``(batch, units)``.
        return_state: also return the final states (``[output, *states]``).
        go_backwards: read the sequence from its end.
        stateful, unroll: ``stateful=True`` is not supported; ``unroll`` is
            accepted (the loop always runs in Python, or inside one op: :class:`LSTM`).

    Call arguments: ``inputs`` ``(batch, timesteps, features)``, ``mask``
    (bool ``(batch, timesteps)``, or the Keras mask the inputs carry),
    ``initial_state`` (a list of ``(batch, units)`` Tensors), ``training``.
    """

    supports_masking = True

    def __init__(self, cell, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, **kwargs):
        kwargs.pop("time_major", None)
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):  # as Keras: a list of cells runs as one StackedRNNCells
            cell = StackedRNNCells(cell)
        if not isinstance(cell, Layer) or not callable(getattr(cell, "call", None)):
            raise ValueError(f"RNN: `cell` must be a Layer with a `call(inputs, states)` method. Received: {cell!r}")
        if not hasattr(cell, "state_size"):
            raise ValueError(f"RNN: the cell {type(cell).__name__} must have a `state_size` attribute (an int, or a "
                             "list/tuple of ints, one per state)")
        _state_sizes(cell)
        if stateful:
            raise ValueError("descend's recurrent layers do not support stateful=True: pass the final states "
                             "(return_state=True) as initial_state of the next call instead")
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = False
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)

    def build(self, input_shape):
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected ndim=3, found "
                             f"ndim={len(input_shape)}. Full shape received: {input_shape}")
        if not self.cell.built:
            self.cell.build((input_shape[0], input_shape[2]))
        self.cell.built = True

    def call(self, inputs, mask=None, training=None, initial_state=None):
        x = self._float_input(inputs)
        if x.ndim != 3:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected ndim=3, found "
                             f"ndim={x.ndim}. Full shape received: {tuple(x.shape)}")
        cell = self.cell
        batch, steps, features = x.shape
        dtype = x.dtype.dtype
        own = isinstance(cell, _Cell)  # descend's cells: the input projection of all steps at once
        sizes = _state_sizes(cell)
        imask = rmask = None
        if own:
            imask, rmask = cell.dropout_masks(batch, features, dtype, training)
        if imask is not None:
            x = math_ops.multiply(x, array_ops.expand_dims(imask, axis=1))
        if initial_state is None:
            template = self._initial_states(batch, dtype)
        else:
            template = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        states = _flatten(template)
        if initial_state is not None:
            if len(states) != len(sizes):
                raise ValueError(f"Layer '{self.name}' expects {len(sizes)} initial state(s); received {len(states)}")
            states = [self._float_input(self._convert_inputs(s)) for s in states]
        keep = None
        if mask is not None:
            keep = np.asarray(mask).astype(bool)
            if keep.shape != (batch, steps):
                raise ValueError(f"Layer '{self.name}': the mask must have shape (batch, timesteps) = "
                                 f"{(batch, steps)}. Received {keep.shape}")
        if steps and keep is None and rmask is None and self._fused_lstm():
            return self._lstm_sequence(x, states, template)
        if getattr(self, "use_cudnn", None) is True:
            raise ValueError(f"Layer '{self.name}': use_cudnn=True, but this call cannot run as one fused LSTM op "
                             "(it needs activation='tanh', recurrent_activation='sigmoid', no mask, no "
                             "recurrent_dropout in training and at least one time step). Use use_cudnn='auto'")
        per_step = array_ops.unstack(cell.project_inputs(x) if own else x, axis=1) if steps else []
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        outputs = []
        units = _output_size(cell)
        output = Tensor(np.zeros((batch, units), dtype=dtype))
        for t in order:
            if own:
                out, new_states = cell.step(per_step[t], states, rmask)
            else:
                out, new_states = self._user_step(per_step[t], states, template, training)
            if keep is not None and not keep[:, t].all():
                k = keep[:, t:t + 1]
                new_states = [math_ops.where(Tensor(np.broadcast_to(k, tuple(s.shape))), n, s)
                              for n, s in zip(new_states, states)]
                out = math_ops.where(Tensor(np.broadcast_to(k, tuple(out.shape))), out, output)
            states, output = new_states, out
            if self.return_sequences:
                if self.zero_output_for_mask and keep is not None and not keep[:, t].all():
                    # a masked step's output is 0 (not the last unmasked step's), as Keras' zero_output_for_mask
                    out = math_ops.multiply(out, Tensor(keep[:, t:t + 1].astype(out.dtype.dtype)))
                outputs.append(out)
        if self.return_sequences:
            result = (array_ops.stack(outputs, axis=1) if outputs
                      else Tensor(np.zeros((batch, 0, units), dtype=dtype)))
        else:
            result = output
        if self.return_state:
            return [result, *_nest(states, template)]
        return result

    def _fused_lstm(self) -> bool:
        """Whether this call runs as one ``lstm_sequence`` op (:mod:`descend.ops.rnn_ops`, as Keras' cuDNN path):
        an ``LSTMCell`` with ``tanh`` and ``sigmoid``, no mask, no recurrent dropout, ``use_cudnn`` not False."""
        cell = self.cell
        return (type(cell) is LSTMCell and getattr(self, "use_cudnn", "auto") is not False
                and cell.activation is activations.tanh and cell.recurrent_activation is activations.sigmoid)

    def _lstm_sequence(self, x, states, template):
        """The LSTM over ``x`` as one op: the input projection of every step, time major, one product; then
        ``lstm_sequence``; the outputs back in batch-major order (of processing, as Keras' ``go_backwards``)."""
        cell = self.cell
        xt = array_ops.transpose(x, perm=(1, 0, 2))
        if self.go_backwards:
            xt = xt[::-1]
        h, c, _, _ = rnn_ops.lstm_sequence(cell.project_inputs(xt), states[0], states[1], cell.recurrent_kernel)
        last_h, last_c = h[-1], c[-1]
        result = array_ops.transpose(h, perm=(1, 0, 2)) if self.return_sequences else last_h
        if self.return_state:
            return [result, *_nest([last_h, last_c], template)]
        return result

    def _initial_states(self, batch: int, dtype) -> list:
        cell = self.cell
        if isinstance(cell, _Cell):
            return cell.initial_states(batch, dtype)
        if callable(getattr(cell, "get_initial_state", None)):
            states = cell.get_initial_state(batch_size=batch)
            states = list(states) if isinstance(states, (list, tuple)) else [states]
            flat = [self._float_input(self._convert_inputs(s)) for s in _flatten(states)]
            return _nest(flat, states)
        return _nest([Tensor(np.zeros((batch, n), dtype=dtype)) for n in _state_sizes(cell)], cell.state_size)

    def _user_step(self, x, states, template, training):
        """One step of a user's cell: ``cell(x, states)`` (nested as ``template``), its new states checked against
        ``state_size``."""
        cell = self.cell
        out, new_states = cell(x, _nest(states, template), training=training)
        new_states = _flatten(new_states)
        sizes = _state_sizes(cell)
        if len(new_states) != len(sizes):
            raise ValueError(f"Layer '{self.name}': the cell {type(cell).__name__} returned {len(new_states)} "
                             f"state(s); its state_size {cell.state_size!r} says {len(sizes)}")
        for k, (s, n) in enumerate(zip(new_states, sizes)):
            if tuple(s.shape) != (x.shape[0], n):
                raise ValueError(f"Layer '{self.name}': state {k} returned by the cell {type(cell).__name__} has "
                                 f"shape {tuple(s.shape)}; expected (batch, state_size) = {(x.shape[0], n)}")
        return out, new_states

    def compute_mask(self, inputs, mask=None):
        out = mask if self.return_sequences else None
        if self.return_state:
            return [out] + [None] * _top_level(self.cell)
        return out

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        units = _output_size(self.cell)
        out = (input_shape[0], input_shape[1], units) if self.return_sequences else (input_shape[0], units)
        if self.return_state:
            shapes = [(input_shape[0], n) for n in _state_sizes(self.cell)]
            return [out] + _nest(shapes, self.cell.state_size)
        return out

    def get_config(self) -> dict:
        config = {**super().get_config(), "return_sequences": self.return_sequences,
                  "return_state": self.return_state, "go_backwards": self.go_backwards, "stateful": False,
                  "unroll": self.unroll, "zero_output_for_mask": self.zero_output_for_mask}
        if not isinstance(self, _CellRNN):  # a plain RNN names its cell, as Keras (the others flatten it)
            config["cell"] = _serialization.serialize_keras_object(self.cell)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        config = dict(config)
        if isinstance(config.get("cell"), dict):  # Keras' config holds the cell's config
            config["cell"] = _inner_layer(config["cell"], custom_objects)
        return cls(**config)

    # the three layers below flatten their cell's arguments into their own, as Keras
    def _cell_config(self) -> dict:
        config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            config.pop(key, None)
        return config


def _split_kwargs(kwargs: dict) -> tuple[dict, dict]:
    layer_keys = {"return_sequences", "return_state", "go_backwards", "stateful", "unroll", "name", "trainable",
                  "dtype", "activity_regularizer", "input_shape", "input_dim", "batch_size", "batch_input_shape",
                  "time_major", "zero_output_for_mask", "autocast"}
    layer = {k: v for k, v in kwargs.items() if k in layer_keys}
    cell = {k: v for k, v in kwargs.items() if k not in layer_keys}
    return layer, cell


class _CellRNN(RNN):
    """An :class:`RNN` that builds its own cell (``_cell_class``) from the layer's arguments, as Keras'
    ``SimpleRNN``, ``LSTM`` and ``GRU``."""

    _cell_class: type = None
    _cell_name = ""

    def __init__(self, units, **kwargs):
        layer_kwargs, cell_kwargs = _split_kwargs(kwargs)
        cell = self._cell_class(units, name=self._cell_name, dtype=layer_kwargs.get("dtype"), **cell_kwargs)
        super().__init__(cell, **layer_kwargs)

    units = property(lambda self: self.cell.units)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._cell_config()}


class SimpleRNN(_CellRNN):
    """Fully-connected RNN: ``h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias)``.

    Args:
        units: the state size.
        activation: default ``"tanh"``.
        use_bias, kernel_initializer (``"glorot_uniform"``), recurrent_initializer
            (``"orthogonal"``), bias_initializer (``"zeros"``), the regularizers and constraints
            of the three weights, dropout, recurrent_dropout, seed: as Keras.
        return_sequences, return_state, go_backwards: see :class:`RNN`.

    Example:
        >>> import descend as ds
        >>> ds.clear_session()
        >>> layer = ds.layers.SimpleRNN(4, return_sequences=True)
        >>> layer(ds.ones((2, 5, 3))).shape, [w.path for w in layer.weights]
        (TensorShape([2, 5, 4]), ['simple_rnn/simple_rnn_cell/kernel', 'simple_rnn/simple_rnn_cell/recurrent_kernel', \
'simple_rnn/simple_rnn_cell/bias'])
    """

    _cell_class, _cell_name = SimpleRNNCell, "simple_rnn_cell"


class LSTM(_CellRNN):
    """Long short-term memory (Hochreiter 1997), as ``keras.layers.LSTM``.

    Args:
        units: the state size.
        activation: default ``"tanh"``; recurrent_activation: default ``"sigmoid"``.
        unit_forget_bias: start the forget gate's bias at 1 (default True).
        use_cudnn: ``"auto"`` (default): run as one ``lstm_sequence`` op where Keras would use cuDNN
            (``tanh``, ``sigmoid``, no mask, no recurrent dropout in training); False: one op per step
            (second derivatives); True: the op, or ValueError where the call cannot use it.
        The other arguments: as :class:`SimpleRNN`.

    Example:
        >>> import descend as ds
        >>> out, h, c = ds.layers.LSTM(4, return_state=True)(ds.ones((2, 5, 3)))
        >>> out.shape, h.shape, c.shape
        (TensorShape([2, 4]), TensorShape([2, 4]), TensorShape([2, 4]))
    """

    _cell_class, _cell_name = LSTMCell, "lstm_cell"

    def __init__(self, units, use_cudnn="auto", **kwargs):
        if use_cudnn not in ("auto", True, False):
            raise ValueError(f"LSTM: `use_cudnn` must be 'auto', True or False. Received: use_cudnn={use_cudnn!r}")
        super().__init__(units, **kwargs)
        self.use_cudnn = use_cudnn


class GRU(_CellRNN):
    """Gated recurrent unit (Cho 2014), as ``keras.layers.GRU`` (``reset_after=True`` by default).

    Args:
        units: the state size.
        reset_after: apply the reset gate after the recurrent matmul (default True).
        The other arguments: as :class:`LSTM`.

    Example:
        >>> import descend as ds
        >>> ds.layers.GRU(4)(ds.ones((2, 5, 3))).shape
        TensorShape([2, 4])
    """

    _cell_class, _cell_name = GRUCell, "gru_cell"


_MERGE_MODES = ("concat", "sum", "mul", "ave", None)


class Bidirectional(Layer):
    """Runs a recurrent layer forwards and a copy backwards, and merges their outputs.

    The backward copy is made from the layer's config with ``go_backwards``
    flipped; with ``return_sequences`` its outputs are put back in time order
    before merging.

    Args:
        layer: a ``SimpleRNN``, ``LSTM`` or ``GRU``.
        merge_mode: ``"concat"`` (default), ``"sum"``, ``"mul"``, ``"ave"`` or
            None (a list ``[forward, backward]``).
        backward_layer: an explicit backward layer (it must have ``go_backwards=True``).

    Example:
        >>> import descend as ds
        >>> ds.clear_session()
        >>> bi = ds.layers.Bidirectional(ds.layers.LSTM(4, return_sequences=True))
        >>> bi(ds.ones((2, 5, 3))).shape, bi.weights[0].path
        (TensorShape([2, 5, 8]), 'bidirectional/forward_lstm/lstm_cell/kernel')
    """

    supports_masking = True

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, RNN):
            raise ValueError(f"Bidirectional: `layer` must be a recurrent layer (SimpleRNN, LSTM, GRU). Received: "
                             f"{layer!r}")
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"Bidirectional: invalid merge_mode; expected one of {_MERGE_MODES}. Received: "
                             f"merge_mode={merge_mode!r}")
        if weights is not None:
            raise ValueError("Bidirectional: `weights` is not supported; call set_weights() after building")
        config = layer.get_config()
        self.forward_layer = type(layer).from_config({**config, "name": f"forward_{config['name']}"})
        if backward_layer is None:
            backward_layer = type(layer).from_config({**config, "name": f"backward_{config['name']}",
                                                      "go_backwards": not layer.go_backwards})
        elif backward_layer.go_backwards == layer.go_backwards:
            raise ValueError("Bidirectional: `backward_layer` must have go_backwards set opposite to `layer`")
        self.backward_layer = backward_layer
        for inner in (self.forward_layer, self.backward_layer):  # as Keras: masked steps of a sequence are 0
            inner.zero_output_for_mask = inner.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self._layer_config = _serialization.serialize_keras_object(layer)

    def build(self, input_shape):
        for layer in (self.forward_layer, self.backward_layer):
            if not layer.built:  # a backward_layer given built keeps its weights (Keras 3)
                layer.build(input_shape)
                layer.built = True

    def call(self, inputs, mask=None, training=None, initial_state=None):
        f_init = b_init = None
        if initial_state is not None:
            half = len(initial_state) // 2
            f_init, b_init = list(initial_state[:half]), list(initial_state[half:])
        f = self.forward_layer(inputs, mask=mask, training=training, initial_state=f_init)
        b = self.backward_layer(inputs, mask=mask, training=training, initial_state=b_init)
        f_states = b_states = []
        if self.return_state:
            f, f_states = f[0], f[1:]
            b, b_states = b[0], b[1:]
        if self.return_sequences:
            b = b[:, ::-1]  # back in time order
        if self.merge_mode == "concat":
            out = array_ops.concat([f, b], axis=-1)
        elif self.merge_mode == "sum":
            out = math_ops.add(f, b)
        elif self.merge_mode == "mul":
            out = math_ops.multiply(f, b)
        elif self.merge_mode == "ave":
            out = math_ops.multiply(math_ops.add(f, b), 0.5)
        else:
            out = [f, b]
        if self.return_state:
            return (out if isinstance(out, list) else [out]) + list(f_states) + list(b_states)
        return out

    def compute_output_shape(self, input_shape):
        """The merged output's shape (the last axis doubled by ``"concat"``), then each direction's states'."""
        forward = self.forward_layer.compute_output_shape(input_shape)
        out, states = (forward[0], list(forward[1:])) if self.return_state else (forward, [])
        out = tuple(out)
        if self.merge_mode == "concat":
            merged = [out[:-1] + (None if out[-1] is None else 2 * out[-1],)]
        elif self.merge_mode is None:
            merged = [out, out]
        else:
            merged = [out]
        if self.return_state:
            return merged + [tuple(s) for s in states] * 2
        return merged[0] if len(merged) == 1 else merged

    def compute_mask(self, inputs, mask=None):
        out = mask if self.return_sequences else None
        n_out = 2 if self.merge_mode is None else 1
        if self.return_state:
            n_states = 2 * _top_level(self.forward_layer.cell)
            return [out] * n_out + [None] * n_states
        return [out] * n_out if n_out == 2 else out

    def get_config(self) -> dict:
        return {**super().get_config(), "layer": self._layer_config, "merge_mode": self.merge_mode}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        config = dict(config)
        if isinstance(config.get("backward_layer"), dict):  # Keras writes the backward layer's config too
            config["backward_layer"] = _inner_layer(config["backward_layer"], custom_objects)
        return cls(_inner_layer(config.pop("layer", None), custom_objects), **config)


class TimeDistributed(Wrapper):
    """Applies a layer to every step of ``(batch, timesteps, ...)`` inputs (one set of weights).

    The steps are folded into the batch axis, the layer runs once on
    ``(batch * timesteps, ...)``, and the result is unfolded.

    Example:
        >>> import descend as ds
        >>> ds.layers.TimeDistributed(ds.layers.Dense(4))(ds.ones((2, 5, 3))).shape
        TensorShape([2, 5, 4])
    """

    supports_masking = True

    def build(self, input_shape):
        input_shape = tuple(input_shape)
        if len(input_shape) < 3:
            raise ValueError(f"TimeDistributed needs inputs of rank >= 3 (batch, timesteps, ...). Received shape "
                             f"{input_shape}")

    def call(self, inputs, training=None, mask=None):
        x = inputs
        if x.ndim < 3:
            raise ValueError(f"TimeDistributed needs inputs of rank >= 3 (batch, timesteps, ...). Received shape "
                             f"{tuple(x.shape)}")
        b, t = x.shape[:2]
        kwargs = {}
        if mask is not None:
            keep = np.asarray(mask.numpy() if hasattr(mask, "numpy") else mask)
            if keep.ndim < 2 or keep.shape[:2] != (b, t):  # extra trailing axes are allowed, as Keras
                raise ValueError(f"The `mask` passed to the `TimeDistributed` layer has a shape {keep.shape} "
                                 f"incompatible with the inputs' (batch_size, timesteps) = {(b, t)}")
            if self.layer._accepts("mask"):  # each step's mask entry goes with its step, as Keras
                kwargs["mask"] = keep.reshape((b * t,) + keep.shape[2:])
        y = self.layer(array_ops.reshape(x, shape=(b * t, *x.shape[2:])), training=training, **kwargs)
        return array_ops.reshape(y, shape=(b, t, *y.shape[1:]))

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        inner = self.layer.compute_output_shape((input_shape[0],) + input_shape[2:])
        return (input_shape[0], input_shape[1], *tuple(inner)[1:])

