"""``descend.data`` (``tf.data``): input pipelines with exact, resumable iteration.

The pipeline lives in :mod:`descend.data.dataset` (see its docstring for the semantics: shuffling,
epochs, exact resume, prefetch threads); this module is the public namespace.
"""

from .dataset import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    DatasetIterator,
    default_seed,
)

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetIterator",
]
