"""``tf.data.experimental``: the parts of it descend has (``CsvDataset``; ``AUTOTUNE``, as TF 2 still offers
it there)."""

from .dataset import AUTOTUNE, CsvDataset

__all__ = ["AUTOTUNE", "CsvDataset"]
