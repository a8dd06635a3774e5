"""``EinsumDense`` (as Keras'): a dense layer whose product is an einsum ``equation`` between the input and a
kernel, e.g. ``"abc,cde->abde"`` (a sequence of vectors to a sequence of matrices) or ``"...b,bc->...c"``.

The kernel's shape comes from the equation: a kernel axis named in the output takes its size from
``output_shape`` (the output's shape without the batch axis; ``None`` where the input decides), one named in
the input from the input. ``bias_axes`` names the output axes with a bias. An ellipsis (``...`` at the start
of the input and output, or at the end of both) stands for the axes the equation does not name.

Example:
    >>> import descend as ds
    >>> layer = ds.layers.EinsumDense("abc,cde->abde", output_shape=(None, 4, 2), bias_axes="de")
    >>> layer(ds.ones((3, 5, 6))).shape, tuple(layer.kernel.shape), tuple(layer.bias.shape)
    (TensorShape([3, 5, 4, 2]), (6, 4, 2), (4, 2))
"""

from __future__ import annotations

import re
import string

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..ops import array_ops, math_ops
from .base import Layer, _serialize_activation

__all__ = ["EinsumDense"]

_FORMS = ((r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", None), (r"\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+)", "left"),
          (r"([a-zA-Z]{2,})\.\.\.,([a-zA-Z]+)->([a-zA-Z]+)\.\.\.", "right"))


def _parse(equation: str):
    for pattern, elided in _FORMS:
        match = re.fullmatch(pattern, equation)
        if match:
            return match.group(1), match.group(2), match.group(3), elided
    raise ValueError(f"EinsumDense: invalid einsum equation {equation!r}. Expected the form 'X,Y->Z', '...X,Y->...Z' "
                     "or 'X...,Y->Z...' (letters only)")


class EinsumDense(Layer):
    """``activation(einsum(equation, inputs, kernel) + bias)``.

    Args:
        equation: ``"<input>,<kernel>-><output>"`` with letters (one may use ``...``; see the module).
        output_shape: the output's shape without the batch axis: an int or a tuple (``None`` where the
            input gives the size).
        activation: a name or callable; None is linear.
        bias_axes: letters of the output spec that get a bias (None: no bias).
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, kernel_constraint,
        bias_constraint: as ``Dense``. A variance-scaling kernel initializer (Glorot, He, LeCun) counts
        the kernel's input axes as its fan-in and its output axes as its fan-out, as Keras.
    """

    def __init__(self, equation, output_shape, activation=None, bias_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(equation, str):
            raise ValueError(f"EinsumDense: `equation` must be a string. Received: equation={equation!r}")
        self._specs = _parse(equation.replace(" ", ""))
        self.equation = equation
        shape = (output_shape,) if isinstance(output_shape, (int, np.integer)) else output_shape
        try:
            shape = tuple(None if d is None else int(d) for d in shape)
        except (TypeError, ValueError):
            raise ValueError("EinsumDense: `output_shape` must be an int or a tuple of ints (or None). "
                             f"Received: output_shape={output_shape!r}") from None
        if any(d is not None and d <= 0 for d in shape):
            raise ValueError(f"EinsumDense: `output_shape` sizes must be positive. Received: {output_shape!r}")
        self.partial_output_shape = shape
        if bias_axes is not None and (not isinstance(bias_axes, str) or any(c not in self._specs[2] for c in bias_axes)):
            raise ValueError(f"EinsumDense: every letter of `bias_axes` must be in the output spec "
                             f"{self._specs[2]!r}. Received: bias_axes={bias_axes!r}")
        self.bias_axes = bias_axes
        self.activation = activations.get(activation)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.kernel = self.bias = None
        self._explicit = None

    def _analyze(self, input_shape):
        """``(kernel shape, bias shape or None, full output shape, kernel input axes, kernel output axes)``."""
        ins, ws, outs, elided_side = self._specs
        ndim = len(input_shape)
        elided = ndim - len(ins)
        if elided < 0 or (elided_side is None and elided != 0):
            raise ValueError(f"Layer '{self.name}': the equation {self.equation!r} names {len(ins)} input axes; the "
                             f"input has shape {tuple(input_shape)}")
        full = [input_shape[0], *self.partial_output_shape]
        if elided_side == "left":
            full[1:1] = list(input_shape[1:elided])
            in_pos = {c: i + elided for i, c in enumerate(ins)}
            out_pos = {c: i + elided for i, c in enumerate(outs)}
        else:
            if elided_side == "right":
                full += list(input_shape[ndim - elided:])
            in_pos = {c: i for i, c in enumerate(ins)}
            out_pos = {c: i for i, c in enumerate(outs)}
        if len(full) != len(outs) + max(elided, 0):
            raise ValueError(f"Layer '{self.name}': `output_shape` {self.partial_output_shape} does not match the "
                             f"output spec {outs!r} of {self.equation!r} (the batch axis is not counted)")
        for c, i in in_pos.items():
            if c in out_pos:
                o = out_pos[c]
                if full[o] is not None and input_shape[i] is not None and full[o] != input_shape[i]:
                    raise ValueError(f"Layer '{self.name}': input and output sizes differ at shared axis '{c}': "
                                     f"input {input_shape[i]}, output {full[o]}")
                if full[o] is None:
                    full[o] = input_shape[i]
        for c in outs:
            if c not in ins and c not in ws:
                raise ValueError(f"Layer '{self.name}': output axis '{c}' of {self.equation!r} is in neither the "
                                 "input nor the kernel spec")
        kernel, in_axes, out_axes = [], [], []
        for k, c in enumerate(ws):
            if c in out_pos:
                kernel.append(full[out_pos[c]])
                out_axes.append(k)
            elif c in in_pos:
                kernel.append(input_shape[in_pos[c]])
                in_axes.append(k)
            else:
                raise ValueError(f"Layer '{self.name}': kernel axis '{c}' of {self.equation!r} is in neither the "
                                 "input nor the output spec")
        if any(d is None for d in kernel):
            raise ValueError(f"Layer '{self.name}': the kernel's shape {kernel} needs sizes the input shape "
                             f"{tuple(input_shape)} and output_shape {self.partial_output_shape} leave unknown")
        bias = None
        if self.bias_axes is not None:
            first = min(outs.index(c) for c in self.bias_axes)
            bias = [full[out_pos[c]] if c in self.bias_axes else 1 for c in outs[first:]]
            if elided_side == "right":
                bias += [1] * elided
        return kernel, bias, full, in_axes, out_axes

    def build(self, input_shape):
        input_shape = tuple(None if d is None else int(d) for d in input_shape)
        kernel, bias, _, in_axes, out_axes = self._analyze(input_shape)
        init = self.kernel_initializer
        if isinstance(init, initializers.VarianceScaling):
            fan_in = int(np.prod([kernel[a] for a in in_axes]))
            fan_out = int(np.prod([kernel[a] for a in out_axes]))
            base = init

            def init(shape, dtype=None):  # i.i.d. draws: a (fan_in, fan_out) matrix reshaped has the same law
                return array_ops.reshape(base((fan_in, fan_out), dtype=dtype), shape=tuple(shape))
        self.kernel = self.add_weight(shape=tuple(kernel), initializer=init, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        if bias is not None:
            self.bias = self.add_weight(shape=tuple(bias), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        name="bias")
        ins, ws, outs, side = self._specs
        spare = [c for c in string.ascii_letters if c not in ins + ws + outs]
        rest = "".join(spare[:len(input_shape) - len(ins)])
        if side == "left":
            ins, outs = rest + ins, rest + outs
        elif side == "right":
            ins, outs = ins + rest, outs + rest
        self._explicit = f"{ins},{ws}->{outs}"

    def call(self, inputs):
        x = self._float_input(inputs)
        if x.ndim != len(self._explicit.split(",")[0]):
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected "
                             f"ndim={len(self._explicit.split(',')[0])}, found ndim={x.ndim}. Full shape received: "
                             f"{tuple(x.shape)}")
        y = math_ops.einsum(self._explicit, x, self.kernel)
        if self.bias is not None:
            y = math_ops.add(y, self.bias)
        return y if self.activation is None else self.activation(y)

    def compute_output_shape(self, input_shape):
        return tuple(self._analyze(tuple(input_shape))[2])

    def get_config(self) -> dict:
        return {
            **super().get_config(), "equation": self.equation, "output_shape": self.partial_output_shape,
            "activation": _serialize_activation(self.activation), "bias_axes": self.bias_axes,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }
