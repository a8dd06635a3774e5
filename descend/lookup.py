"""``tf.lookup``: immutable hash tables from keys to values, filled from tensors or text files.

The public namespace; the implementation is :mod:`descend.composites.lookup_tables`."""

from .composites.lookup_tables import (  # noqa: F401
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)

__all__ = ['KeyValueTensorInitializer', 'StaticHashTable', 'StaticVocabularyTable', 'TextFileIndex', 'TextFileInitializer']
