"""The framework layer: Tensor, Variable, IndexedSlices, the op table and the tape.

Modules, each importing only those before it (checked by tests/test_import_layers.py)::

    validation, ops_bridge, nest, trace, unconnected_gradients   (no framework imports)
    tensor -> indexed_slices -> variable -> tape -> op -> custom_gradient
    tape, trace -> init_scope

(``trace`` is the tracing context of ``descend.function``, whose compiler,
:mod:`descend.compiler`, sits above the ops layer.)

The framework imports nothing from the ops layer: the arithmetic the tape and
``IndexedSlices`` need (adding gradients, densifying, de-duplicating, reading
a Variable, stacking Jacobian rows) is handed over by ``descend.ops`` at
import through :mod:`~descend.framework.ops_bridge`. The shared argument
checks (:func:`~descend.framework.validation.check_index_range`,
:func:`~descend.framework.validation.check_number`,
:func:`~descend.framework.validation.check_axis`) live in
:mod:`~descend.framework.validation`.
"""

from .custom_gradient import custom_gradient
from .indexed_slices import IndexedSlices, deduplicate
from .init_scope import init_scope
from .op import OPS, Op, defop
from .tape import GradientTape
from .tensor import Reference, Tensor, constant, convert_to_tensor
from .unconnected_gradients import UnconnectedGradients
from .variable import Variable, clear_session, current_name_scope, name_scope, unique_name

__all__ = [
    "IndexedSlices", "deduplicate", "OPS", "Op", "defop", "GradientTape", "custom_gradient",
    "Reference", "Tensor", "constant", "convert_to_tensor", "Variable", "clear_session",
    "current_name_scope", "name_scope", "unique_name", "UnconnectedGradients",
    "init_scope",
]
