"""Keras' ``image_data_format``: where images keep their channels by default. A leaf at the bottom of descend
(it imports nothing), so that the layers (which resolve ``data_format=None`` from it when they are made),
``keras.backend``, ``keras.config`` and the image ops read one setting.

Example:
    >>> from descend.framework import image_format
    >>> image_format.image_data_format()
    'channels_last'
"""

from __future__ import annotations

__all__ = ["image_data_format", "resolve_data_format", "set_image_data_format"]

_DATA_FORMAT = "channels_last"


def image_data_format() -> str:
    """``"channels_last"`` unless :func:`set_image_data_format` chose ``"channels_first"``."""
    return _DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    """Set :func:`image_data_format` (``"channels_last"`` or ``"channels_first"``)."""
    global _DATA_FORMAT
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"data_format must be 'channels_last' or 'channels_first'. Received: {data_format!r}")
    _DATA_FORMAT = data_format


def resolve_data_format(data_format, owner: str | None = None) -> str:
    """``data_format`` checked (either spelling's case), or :func:`image_data_format` when it is None (as Keras'
    ``standardize_data_format``).

    Raises:
        ValueError: naming ``owner`` (a layer's class, where given) and the value received.
    """
    if data_format is None:
        return _DATA_FORMAT
    fmt = str(data_format).lower()
    if fmt not in ("channels_last", "channels_first"):
        raise ValueError(f"{owner + ': ' if owner else ''}data_format must be 'channels_last' or 'channels_first'. "
                         f"Received: data_format={data_format!r}")
    return fmt
