"""What every ``keras.ops.image`` function shares: reading ``images`` and ``data_format`` as Keras does, and
moving the channel axis to the end (where descend's ``tf.image`` ops want it) and back."""

from __future__ import annotations

from ... import ops as _o
from ...framework import Tensor, Variable
from ...framework import convert_to_tensor as _to_tensor
from ...framework.image_format import image_data_format


def tensor(x) -> Tensor:
    """``x`` (a Variable's value, a Tensor, an array-like) as a Tensor."""
    x = x.value() if isinstance(x, Variable) else x
    return x if isinstance(x, Tensor) else _to_tensor(x)


def channels_first(data_format, owner: str) -> bool:
    """Whether ``data_format`` (``None``: ``keras.config.image_data_format()``) puts channels first."""
    data_format = data_format or image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{owner}: `data_format` must be 'channels_last' or 'channels_first'. Received: "
                         f"data_format={data_format!r}")
    return data_format == "channels_first"


def images(x, data_format, owner: str, name: str = "images"):
    """``(x as a rank 3 or 4 Tensor, whether channels come first)``; Keras' error for another rank."""
    x = tensor(x)
    if x.ndim not in (3, 4):
        raise ValueError(f"{owner}: Invalid {name} rank: expected rank 3 (single image) or rank 4 (batch of "
                         f"images). Received input with shape: {name}.shape={tuple(x.shape)}")
    return x, channels_first(data_format, owner)


def to_last(x: Tensor, first: bool) -> Tensor:
    """Channels moved from axis -3 to the end (``first``), else ``x``."""
    return _o.transpose(x, (0, 2, 3, 1) if x.ndim == 4 else (1, 2, 0)) if first else x


def from_last(x: Tensor, first: bool) -> Tensor:
    """Channels moved back from the end to axis -3 (``first``), else ``x``."""
    return _o.transpose(x, (0, 3, 1, 2) if x.ndim == 4 else (2, 0, 1)) if first else x


def batch(x: Tensor):
    """``(x with a batch axis, whether it had one)``."""
    return (x, True) if x.ndim == 4 else (_o.expand_dims(x, 0), False)


def unbatch(x: Tensor, had: bool) -> Tensor:
    return x if had else _o.squeeze(x, axis=0)


def back_to(x: Tensor, dtype) -> Tensor:
    """``x`` in ``dtype`` as Keras returns a float computation on ``dtype`` images: ints rounded (halves to even)
    and clamped to their range, floats cast."""
    if x.dtype == dtype:
        return x
    if dtype.kind in "iub":
        return _o.saturate_cast(_o.round(x), dtype)
    return _o.cast(x, dtype)
