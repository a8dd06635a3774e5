"""``keras.preprocessing.sequence``: ``pad_sequences`` (the ``keras.utils`` one)."""

from ..utils import pad_sequences

__all__ = ["pad_sequences"]
