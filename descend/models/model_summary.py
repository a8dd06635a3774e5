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
import shutil
from typing import NamedTuple

import numpy as np

from .. import backend

__all__ = ["KERAS_LEARNING_RATE", "column_widths", "readable_size", "render_table", "summary_text"]


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
    """Words of ``text`` on lines of at most ``width`` characters; a longer word is cut."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            while len(word) > width:
                if line:
                    lines.append(line)
                    line = ""
                lines.append(word[:width])
                word = word[width:]
            if not line:
                line = word
            elif len(line) + 1 + len(word) <= width:
                line = f"{line} {word}"
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines or [""]


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
                parts.append(" " + (text.rjust(w - 2) if a == "right" else text.ljust(w - 2)) + " ")
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
                 line_length=None, positions=None) -> str:
    """Keras 3's summary of a model named ``name``: ``rows`` of ``(layer (Type), output shape, params)``
    (and ``connected to`` unless ``sequential_like``), then the parameter totals of the weights given."""
    if sequential_like:
        default, positions = 88, positions or [0.45, 0.80, 1.0]
        header, align = ["Layer (type)", "Output Shape", "Param #"], ["left", "left", "right"]
    else:
        default, positions = 108, positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        align = ["left", "left", "right", "left"]
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
