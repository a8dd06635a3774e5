"""``tf.nest``: flatten, map and rebuild nested structures with TensorFlow's rules.

The public namespace; the implementation is :mod:`descend.framework.tf_nest`."""

from .framework.tf_nest import (  # noqa: F401
    assert_same_structure,
    flatten,
    is_nested,
    map_structure,
    pack_sequence_as,
)

__all__ = ['assert_same_structure', 'flatten', 'is_nested', 'map_structure', 'pack_sequence_as']
