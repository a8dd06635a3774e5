"""``tf.ragged`` over descend's :class:`~descend.RaggedTensor` (one ragged dimension, ``ragged_rank`` 1):

The public namespace; the implementation is :mod:`descend.composites.ragged_tensor`."""

from .composites.ragged_tensor import (  # noqa: F401
    boolean_mask,
    constant,
    map_flat_values,
    range,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
)

__all__ = ['boolean_mask', 'constant', 'map_flat_values', 'range', 'row_splits_to_segment_ids', 'segment_ids_to_row_splits']
