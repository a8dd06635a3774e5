"""Convolutional LSTMs (Shi et al. 2015), as Keras' ``ConvLSTM1D``, ``ConvLSTM2D`` and ``ConvLSTM3D``.

An LSTM whose matmuls are convolutions: over ``(batch, time, *spatial, channels)`` inputs (or ``(batch, time,
channels, *spatial)`` with ``data_format="channels_first"``), with states ``h``, ``c`` of shape ``(batch,
*out_spatial, filters)``, each step computes (gates ``i, f, c, o``, as Keras)::

    z = conv(x_t, kernel, strides, padding, dilation) + bias + conv(h, recurrent_kernel, stride 1, "same")
    i, f, g, o = split(z, 4, channel axis)
    c = sigmoid(f) * c + sigmoid(i) * tanh(g);  h = sigmoid(o) * tanh(c)

with ``recurrent_activation`` for the sigmoids and ``activation`` for the tanhs. The weights are Keras':
``kernel`` ``(*kernel_size, channels, 4 * filters)``, ``recurrent_kernel`` ``(*kernel_size, filters, 4 *
filters)``, ``bias`` ``(4 * filters,)`` (the forget gate's quarter starting at 1 with ``unit_forget_bias``), under
``<layer>/conv_lstm_cell/``. The time loop runs descend ops, so the tape differentiates through time.

``dropout`` / ``recurrent_dropout``: in training, one mask per gate (four each) for the whole call, on the inputs
and on ``h``, as Keras (the draws are descend's, from ``seed``). A mask ``(batch, time)`` (given, or carried by
the inputs) keeps the states of masked steps and repeats the previous output, as the other recurrent layers.

Example:
    >>> import descend as ds
    >>> ds.clear_session()
    >>> layer = ds.layers.ConvLSTM2D(4, 3, padding="same", return_sequences=True)
    >>> layer(ds.ones((2, 5, 8, 8, 3))).shape, layer.weights[1].path, layer.weights[1].shape
    (TensorShape([2, 5, 8, 8, 4]), 'conv_lstm2d/conv_lstm_cell/recurrent_kernel', TensorShape([3, 3, 4, 16]))
"""

from __future__ import annotations

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..framework.tensor import Tensor
from ..ops import array_ops, math_ops, random_draw
from ..ops.conv_more_ops import conv3d
from ..ops.conv_ops import conv1d, conv2d, conv_output_size
from ._conv_common import padding_mode, sizes
from ._seeded import layer_rng
from .base import Layer, _serialize_activation
from .core import _data_format
from .rnn import _ForgetBias

__all__ = ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]


def _conv(rank: int, x, kernel, strides, padding: str, dilations):
    pad = padding.upper()
    if rank == 1:
        return conv1d(x, kernel, stride=strides[0], padding=pad, dilations=dilations[0])
    if rank == 2:
        return conv2d(x, kernel, strides=strides, padding=pad, dilations=dilations)
    return conv3d(x, kernel, strides, pad, dilations=dilations)


def _rate(value, what: str, owner: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not 0 <= value < 1:
        raise ValueError(f"{owner}: `{what}` must be a float in [0, 1). Received: {what}={value!r}")
    return float(value)


class _ConvLSTMCell(Layer):
    """One step of a ConvLSTM on channels-last tensors (the weights live here, as Keras' ``ConvLSTMCell``)."""

    def __init__(self, rank, filters, kernel_size, strides, padding, dilation_rate, activation, recurrent_activation,
                 use_bias, kernel_initializer, recurrent_initializer, bias_initializer, unit_forget_bias,
                 kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint, recurrent_constraint,
                 bias_constraint, **kwargs):
        super().__init__(**kwargs)
        self.rank, self.filters = rank, filters
        self.kernel_size, self.strides, self.padding, self.dilation_rate = kernel_size, strides, padding, dilation_rate
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias, self.unit_forget_bias = use_bias, unit_forget_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.kernel = self.recurrent_kernel = self.bias = None

    def build(self, channels: int):
        n = 4 * self.filters
        self.kernel = self.add_weight(shape=(*self.kernel_size, channels, n), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(*self.kernel_size, self.filters, n),
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint, name="recurrent_kernel")
        if self.use_bias:
            init = _ForgetBias(self.bias_initializer, self.filters) if self.unit_forget_bias \
                else self.bias_initializer
            self.bias = self.add_weight(shape=(n,), initializer=init, regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, name="bias")
        self.built = True

    def _gates(self, x, h, masks, rmasks):
        """The pre-activations ``[z_i, z_f, z_c, z_o]``: one convolution per side, or one per gate under dropout."""
        ones = (1,) * self.rank
        if masks is None and rmasks is None:
            z = math_ops.add(_conv(self.rank, x, self.kernel, self.strides, self.padding, self.dilation_rate),
                             _conv(self.rank, h, self.recurrent_kernel, ones, "same", ones))
            if self.bias is not None:
                z = math_ops.add(z, self.bias)
            return array_ops.split(z, 4, axis=-1)
        kernels = array_ops.split(self.kernel, 4, axis=-1)
        recurrent = array_ops.split(self.recurrent_kernel, 4, axis=-1)
        biases = array_ops.split(self.bias, 4) if self.bias is not None else [None] * 4
        out = []
        for g in range(4):
            xg = x if masks is None else math_ops.multiply(x, masks[g])
            hg = h if rmasks is None else math_ops.multiply(h, rmasks[g])
            z = math_ops.add(_conv(self.rank, xg, kernels[g], self.strides, self.padding, self.dilation_rate),
                             _conv(self.rank, hg, recurrent[g], ones, "same", ones))
            out.append(z if biases[g] is None else math_ops.add(z, biases[g]))
        return out

    def step(self, x, h, c, masks=None, rmasks=None):
        zi, zf, zc, zo = self._gates(x, h, masks, rmasks)
        i = self.recurrent_activation(zi)
        f = self.recurrent_activation(zf)
        o = self.recurrent_activation(zo)
        c = math_ops.add(math_ops.multiply(f, c), math_ops.multiply(i, self.activation(zc)))
        h = math_ops.multiply(o, self.activation(c))
        return h, c


class _ConvLSTM(Layer):
    """What ConvLSTM1D/2D/3D share (``rank`` spatial axes)."""

    rank = 2
    supports_masking = True

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation="tanh", recurrent_activation="sigmoid", use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros", unit_forget_bias=True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, seed=None, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        kwargs.pop("time_major", None)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        owner = type(self).__name__
        if isinstance(filters, bool) or not isinstance(filters, (int, np.integer)) or filters <= 0:
            raise ValueError(f"{owner}: `filters` must be a positive int. Received: filters={filters!r}")
        kernel_size = sizes(kernel_size, "kernel_size", owner, self.rank)
        strides = sizes(strides, "strides", owner, self.rank)
        dilation_rate = sizes(dilation_rate, "dilation_rate", owner, self.rank)
        if max(strides) > 1 and max(dilation_rate) > 1:
            raise ValueError(f"{owner}: `strides > 1` is not compatible with `dilation_rate > 1`. Received: "
                             f"strides={strides} and dilation_rate={dilation_rate}")
        self.data_format = _data_format(data_format)
        self.dropout = _rate(dropout, "dropout", owner)
        self.recurrent_dropout = _rate(recurrent_dropout, "recurrent_dropout", owner)
        self.seed, self._rng = layer_rng(seed, owner)
        if stateful:
            raise ValueError(f"{owner}: descend's recurrent layers do not support stateful=True: pass the final "
                             "states (return_state=True) as initial_state of the next call instead")
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.cell = _ConvLSTMCell(self.rank, int(filters), kernel_size, strides, padding_mode(padding, owner),
                                  dilation_rate, activation, recurrent_activation, bool(use_bias), kernel_initializer,
                                  recurrent_initializer, bias_initializer, bool(unit_forget_bias),
                                  kernel_regularizer, recurrent_regularizer, bias_regularizer, kernel_constraint,
                                  recurrent_constraint, bias_constraint, name="conv_lstm_cell",
                                  dtype=kwargs.get("dtype"))

    filters = property(lambda self: self.cell.filters)
    kernel_size = property(lambda self: self.cell.kernel_size)
    strides = property(lambda self: self.cell.strides)
    padding = property(lambda self: self.cell.padding)
    dilation_rate = property(lambda self: self.cell.dilation_rate)

    def _channels_last(self) -> bool:
        return self.data_format == "channels_last"

    def _step_shape(self, input_shape) -> tuple:
        """``(spatial, channels)`` of one step's input."""
        input_shape = tuple(input_shape)
        if len(input_shape) != self.rank + 3:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected "
                             f"ndim={self.rank + 3} (batch, time, {self.rank} spatial axes, channels), found "
                             f"ndim={len(input_shape)}. Full shape received: {input_shape}")
        if self._channels_last():
            spatial, channels = input_shape[2:-1], input_shape[-1]
        else:
            spatial, channels = input_shape[3:], input_shape[2]
        if channels is None or any(s is None for s in spatial):
            raise ValueError(f"Layer '{self.name}' needs known spatial and channel dimensions. Received: "
                             f"{input_shape}")
        return tuple(int(s) for s in spatial), int(channels)

    def _out_spatial(self, spatial) -> tuple:
        c = self.cell
        return tuple(conv_output_size(n, k, s, c.padding, d)[0]
                     for n, k, s, d in zip(spatial, c.kernel_size, c.strides, c.dilation_rate))

    def build(self, input_shape):
        _, channels = self._step_shape(input_shape)
        if not self.cell.built:
            self.cell.build(channels)

    def _to_last(self, x, offset: int):
        """Channels moved last (``offset`` leading non-spatial axes before the channel axis)."""
        if self._channels_last():
            return x
        perm = (*range(offset), *range(offset + 1, offset + 1 + self.rank), offset)
        return array_ops.transpose(x, perm=perm)

    def _from_last(self, y, offset: int):
        if self._channels_last():
            return y
        perm = (*range(offset), offset + self.rank, *range(offset, offset + self.rank))
        return array_ops.transpose(y, perm=perm)

    def _masks(self, rate: float, shape: tuple, dtype, training):
        if not training or rate == 0:
            return None
        # an op: descend.function draws new masks on every call; one mask per gate, as Keras
        drawn = random_draw.draw(fn=lambda: ((self._rng.random((4, *shape)) >= rate) / (1.0 - rate)).astype(dtype))
        return array_ops.unstack(drawn, axis=0)

    def call(self, inputs, mask=None, training=None, initial_state=None):
        x = self._float_input(inputs)
        spatial, channels = self._step_shape(tuple(x.shape))
        cell = self.cell
        if x.shape[-1 if self._channels_last() else 2] != channels or cell.kernel.shape[-2] != channels:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected {channels} "
                             f"channels. Full shape received: {tuple(x.shape)}")
        x = self._to_last(x, 2)
        batch, steps = x.shape[0], x.shape[1]
        dtype = x.dtype.dtype
        state_shape = (batch, *self._out_spatial(spatial), cell.filters)
        if initial_state is None:
            h = c = Tensor(np.zeros(state_shape, dtype=dtype))
        else:
            given = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            if len(given) != 2:
                raise ValueError(f"Layer '{self.name}' expects 2 initial states [h, c]; received {len(given)}")
            h, c = (self._to_last(self._float_input(self._convert_inputs(s)), 1) for s in given)
            for s in (h, c):
                if tuple(s.shape) != state_shape:
                    raise ValueError(f"Layer '{self.name}': each initial state must have shape {state_shape} "
                                     f"(channels last). Received {tuple(s.shape)}")
        keep = None
        if mask is not None:
            keep = np.asarray(mask.numpy() if hasattr(mask, "numpy") else mask).astype(bool)
            if keep.shape != (batch, steps):
                raise ValueError(f"Layer '{self.name}': the mask must have shape (batch, timesteps) = "
                                 f"{(batch, steps)}. Received {keep.shape}")
        masks = self._masks(self.dropout, (batch, *spatial, channels), dtype, training)
        rmasks = self._masks(self.recurrent_dropout, state_shape, dtype, training)
        per_step = array_ops.unstack(x, axis=1) if steps else []
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        output = Tensor(np.zeros(state_shape, dtype=dtype))
        outputs = []
        for t in order:
            new_h, new_c = cell.step(per_step[t], h, c, masks, rmasks)
            out = new_h
            if keep is not None and not keep[:, t].all():
                k = Tensor(np.broadcast_to(keep[:, t].reshape((batch,) + (1,) * (len(state_shape) - 1)),
                                           state_shape))
                new_h, new_c = math_ops.where(k, new_h, h), math_ops.where(k, new_c, c)
                out = math_ops.where(k, out, output)
            h, c, output = new_h, new_c, out
            if self.return_sequences:
                if self.zero_output_for_mask and keep is not None and not keep[:, t].all():
                    out = math_ops.multiply(out, Tensor(keep[:, t].reshape((batch,) + (1,) * (len(state_shape) - 1))
                                                        .astype(dtype)))
                outputs.append(out)
        if self.return_sequences:
            result = array_ops.stack(outputs, axis=1) if outputs else Tensor(np.zeros((batch, 0, *state_shape[1:]),
                                                                                     dtype=dtype))
            result = self._from_last(result, 2)
        else:
            result = self._from_last(output, 1)
        if self.return_state:
            return [result, self._from_last(h, 1), self._from_last(c, 1)]
        return result

    def compute_mask(self, inputs, mask=None):
        out = mask if self.return_sequences else None
        return [out, None, None] if self.return_state else out

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        spatial, _ = self._step_shape(input_shape)
        out = self._out_spatial(spatial)
        state = (*out, self.cell.filters) if self._channels_last() else (self.cell.filters, *out)
        seq = (input_shape[0], input_shape[1], *state) if self.return_sequences else (input_shape[0], *state)
        if self.return_state:
            return [seq, (input_shape[0], *state), (input_shape[0], *state)]
        return seq

    def get_config(self) -> dict:
        c = self.cell
        return {
            **super().get_config(),
            "return_sequences": self.return_sequences, "return_state": self.return_state,
            "go_backwards": self.go_backwards, "stateful": False, "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
            "filters": c.filters, "kernel_size": c.kernel_size, "strides": c.strides, "padding": c.padding,
            "data_format": self.data_format, "dilation_rate": c.dilation_rate,
            "activation": _serialize_activation(c.activation),
            "recurrent_activation": _serialize_activation(c.recurrent_activation),
            "use_bias": c.use_bias,
            "kernel_initializer": initializers.serialize(c.kernel_initializer),
            "recurrent_initializer": initializers.serialize(c.recurrent_initializer),
            "bias_initializer": initializers.serialize(c.bias_initializer),
            "unit_forget_bias": c.unit_forget_bias,
            "kernel_regularizer": regularizers.serialize(c.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(c.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(c.bias_regularizer),
            "kernel_constraint": constraints.serialize(c.kernel_constraint),
            "recurrent_constraint": constraints.serialize(c.recurrent_constraint),
            "bias_constraint": constraints.serialize(c.bias_constraint),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout, "seed": self.seed,
        }


class ConvLSTM1D(_ConvLSTM):
    """1-D convolutional LSTM over ``(batch, time, steps, channels)``; the arguments as :class:`ConvLSTM2D`."""

    rank = 1


class ConvLSTM2D(_ConvLSTM):
    """2-D convolutional LSTM over ``(batch, time, rows, cols, channels)`` (``keras.layers.ConvLSTM2D``).

    Args:
        filters: the number of output channels (the states' depth).
        kernel_size, strides, dilation_rate: an int or one per spatial axis (strides and dilation not both > 1).
        padding: ``"valid"`` (default) or ``"same"`` (the input convolution's; the recurrent one is always
            ``"same"`` with stride 1).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        activation (``"tanh"``), recurrent_activation (``"sigmoid"``), use_bias, unit_forget_bias, the
            initializers (``"glorot_uniform"``, ``"orthogonal"``, ``"zeros"``), regularizers and constraints of
            ``kernel``, ``recurrent_kernel`` and ``bias``, dropout, recurrent_dropout, seed: as Keras.
        return_sequences, return_state, go_backwards: as for ``RNN``; ``stateful=True`` is refused.
    """

    rank = 2


class ConvLSTM3D(_ConvLSTM):
    """3-D convolutional LSTM over ``(batch, time, d1, d2, d3, channels)``; the arguments as :class:`ConvLSTM2D`."""

    rank = 3
