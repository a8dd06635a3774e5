"""``Model.summary()``: Keras 3's table of layers, output shapes and parameter counts, as the text Keras prints
(Keras draws it with ``rich``: the same box characters, column widths and word wrapping, without colours).

Column widths follow Keras: the line is ``min(88, terminal columns - 4)`` characters for a sequential-like
model (``min(108, ...)`` with a "Connected to" column otherwise), split at the fractions ``positions``;
the table then shrinks its columns by the width of its borders, as rich does.

Example:
    >>> import descend as ds
    >>> ds.clear_session()
    >>> model = ds.Sequential([ds.keras.Input((4,)), ds.layers.Dense(3)], name="tiny")
    >>> model.summary(line_length=60)
    Model: "tiny"
    ┏━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┓
    ┃ Layer (type)             ┃ Output Shape      ┃   Param # ┃
    ┡━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━┩
    │ dense (Dense)            │ (None, 3)         │        15 │
    └──────────────────────────┴───────────────────┴───────────┘
     Total params: 15 (60.00 B)
     Trainable params: 15 (60.00 B)
     Non-trainable params: 0 (0.00 B)
"""

from __future__ import annotations

import math
import re
import shutil
from typing import NamedTuple

import numpy as np

from .. import backend

__all__ = ["KERAS_LEARNING_RATE", "class_name", "column_widths", "layer_range_bounds", "nested_prefix", "readable_size",
           "render_table", "summary_text", "trainable_mark"]


class _Weight(NamedTuple):
    shape: tuple
    dtype: str


#: the learning rate Keras 3 keeps among an optimizer's variables (a float32 scalar) where descend keeps a float
KERAS_LEARNING_RATE = _Weight((), "float32")

_UNITS = ("B", "KB", "MB", "GB", "TB", "PB")


def readable_size(n_bytes: float) -> str:
    """``124.00 B``, ``1.50 KB``...: Keras' size of the weights (powers of 1024, two decimals)."""
    for unit in _UNITS:
        if n_bytes / 1024 < 1:
            return f"{n_bytes:.2f} {unit}"
        n_bytes /= 1024
    return f"{n_bytes:.2f} {_UNITS[-1]}"


def layer_range_bounds(names: list[str], layer_range) -> tuple[int, int]:
    """``(first, last + 1)``: the rows ``layer_range`` keeps of the layers named ``names``, as Keras 3: the
    first name matching (``re.match``) ``layer_range[0]`` to the last matching ``layer_range[1]``, both
    included; ``None`` keeps all.

    Raises:
        ValueError: for a ``layer_range`` that is not two strings, or one that matches no layer.
    """
    if layer_range is None:
        return 0, len(names)
    if not isinstance(layer_range, (list, tuple)) or len(layer_range) != 2:
        length = len(layer_range) if hasattr(layer_range, "__len__") else "none"
        raise ValueError(f"summary: layer_range must be a list or tuple of length 2. Received: "
                         f"layer_range={layer_range!r} of length {length}")
    if not all(isinstance(p, str) for p in layer_range):
        raise ValueError(f"summary: layer_range should contain strings only (layer names or regexes). "
                         f"Received: layer_range={layer_range!r}")
    lower = [k for k, name in enumerate(names) if re.match(layer_range[0], name)]
    upper = [k for k, name in enumerate(names) if re.match(layer_range[1], name)]
    if not lower or not upper:
        raise ValueError(f"summary: layer_range does not match the layer names of the model {names}. "
                         f"Received: layer_range={layer_range!r}")
    if min(lower) > max(upper):  # the range given backwards: Keras takes it the other way round
        return min(upper), max(lower) + 1
    return min(lower), max(upper) + 1


def nested_prefix(level: int) -> str:
    """What goes before the name of a layer ``level`` models deep in an ``expand_nested`` summary."""
    return "   " * level + "└ " if level else ""


def class_name(layer) -> str:
    """The type a summary shows: the class name, ``Functional`` for a ``Model(inputs, outputs)`` (Keras 3's class
    of a functional model)."""
    name = type(layer).__name__
    if name == "Model" and getattr(layer, "_graph_nodes", None) is not None:
        return "Functional"
    return name


def trainable_mark(layer) -> str:
    """The "Trainable" column of ``show_trainable``: ``Y``/``N`` for a layer with weights, ``-`` without."""
    if not list(getattr(layer, "weights", ())):
        return "-"
    return "Y" if layer.trainable else "N"


def _reduce(excess: int, widths: list[int]) -> list[int]:
    # take ``excess`` columns of text away, shared evenly from the first column on (rounding half to even)
    out, left, parts = [], excess, len(widths)
    for w in widths:
        taken = min(w, round(left / parts))
        out.append(w - taken)
        left -= taken
        parts -= 1
    return out


def column_widths(line_length: int, positions) -> list[int]:
    """The width of each column, its one space of padding either side included, borders excluded: Keras'
    split of ``line_length`` at ``positions`` (fractions, or absolute positions when > 1), reduced by the
    borders' width."""
    if not positions:
        raise ValueError("summary: `positions` must name at least one column")
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    widths, current = [], 0
    for pos in positions:
        width = int(pos) - current
        if width < 4:
            raise ValueError(f"summary: insufficient width to print the summary: column {len(widths) + 1} would be "
                             f"{width} characters wide (line_length={line_length}, positions={list(positions)})")
        widths.append(width)
        current += width
    padded = [w + 2 for w in widths]
    room = line_length - (len(widths) + 1)
    if sum(padded) > room:
        padded = _reduce(sum(padded) - room, padded)
    return padded


def _wrap(text: str, width: int) -> list[str]:
    """Words of ``text`` on lines of at most ``width`` characters, as rich wraps a cell (its ``ellipsis``
    overflow): the leading spaces kept, a word longer than a line alone on its line and cut to ``width - 1``
    characters and ``…``."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        indent = len(paragraph) - len(paragraph.lstrip(" "))
        line = None
        for word in paragraph[indent:].split(" "):
            if line is None:
                line = " " * indent + word
            elif len(line) + 1 + len(word) <= width:
                line = f"{line} {word}"
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return [line if len(line) <= width else line[:width - 1] + "…" for line in lines] or [""]


def _justify(text: str, width: int, align: str) -> str:
    if align == "right":
        return text.rjust(width)
    if align == "center":  # rich's: the odd space of the excess on the right
        left = (width - len(text)) // 2
        return " " * left + text + " " * (width - len(text) - left)
    return text.ljust(width)


def render_table(header, rows, widths, align) -> list[str]:
    """The lines of a table drawn as rich's ``HEAVY_HEAD`` box with a line between rows (``show_lines``)."""

    def cells(values, heavy):
        wrapped = [_wrap(str(v), w - 2) for v, w in zip(values, widths)]
        bar = "┃" if heavy else "│"
        out = []
        for k in range(max(len(c) for c in wrapped)):
            parts = []
            for c, w, a in zip(wrapped, widths, align):
                text = c[k] if k < len(c) else ""
                parts.append(" " + _justify(text, w - 2, a) + " ")
            out.append(bar + bar.join(parts) + bar)
        return out

    def rule(left, fill, mid, right):
        return left + mid.join(fill * w for w in widths) + right

    out = [rule("┏", "━", "┳", "┓"), *cells(header, True), rule("┡", "━", "╇", "┩")]
    for k, row in enumerate(rows):
        if k:
            out.append(rule("├", "─", "┼", "┤"))
        out += cells(row, False)
    out.append(rule("└", "─", "┴", "┘"))
    return out


def _count(weights) -> tuple[int, int]:
    """Number of parameters and their bytes, each weight once."""
    unique = {id(w): w for w in weights}.values()
    n = sum(int(math.prod(w.shape)) for w in unique)
    size = sum(int(math.prod(w.shape)) * np.dtype(backend.np_dtype(w.dtype)).itemsize for w in unique)
    return n, size


def summary_text(name: str, rows, *, sequential_like: bool, trainable, non_trainable, optimizer=None,
                 line_length=None, positions=None, show_trainable: bool = False) -> str:
    """Keras 3's summary of a model named ``name``: ``rows`` of ``(layer (Type), output shape, params)``
    (and ``connected to`` unless ``sequential_like``, and ``Y``/``N``/``-`` last with ``show_trainable``),
    then the parameter totals of the weights given."""
    if sequential_like:
        default, positions = 88, positions or [0.45, 0.80, 1.0]
        header, align = ["Layer (type)", "Output Shape", "Param #"], ["left", "left", "right"]
    else:
        default, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        align = ["left", "left", "right", "left"]
    if show_trainable:  # Keras: 12 more characters, the other columns in 90% of the line
        default += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header, align = [*header, "Trainable"], [*align, "center"]
    line_length = line_length or min(default, shutil.get_terminal_size().columns - 4)
    widths = column_widths(line_length, positions)
    lines = [f'Model: "{name}"', *render_table(header, rows, widths, align)]
    t, t_size = _count(trainable)
    n, n_size = _count(non_trainable)
    o, o_size = _count(optimizer) if optimizer is not None else (0, 0)
    lines += [f" Total params: {t + n + o:,} ({readable_size(t_size + n_size + o_size)})",
              f" Trainable params: {t:,} ({readable_size(t_size)})",
              f" Non-trainable params: {n:,} ({readable_size(n_size)})"]
    if optimizer is not None:
        lines.append(f" Optimizer params: {o:,} ({readable_size(o_size)})")
    return "\n".join(lines) + "\n"
