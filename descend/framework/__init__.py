"""The framework layer: Tensor, Variable, IndexedSlices, the op table and the tape."""

from .custom_gradient import custom_gradient
from .indexed_slices import IndexedSlices, deduplicate
from .op import OPS, Op, defop
from .tape import GradientTape
from .tensor import Reference, Tensor, constant, convert_to_tensor
from .variable import Variable, clear_session, current_name_scope, name_scope, unique_name

__all__ = [
    "IndexedSlices", "deduplicate", "OPS", "Op", "defop", "GradientTape", "custom_gradient",
    "Reference", "Tensor", "constant", "convert_to_tensor", "Variable", "clear_session",
    "current_name_scope", "name_scope", "unique_name",
]
