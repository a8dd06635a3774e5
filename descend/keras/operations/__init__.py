"""Keras 3's Operation classes over descend's ``keras.ops`` functions (issue 37): ``Operation`` (``keras.Operation``)
and, per family of ``keras.src.ops`` (core, image, linalg, math, nn, numpy), the classes of its table
(``<family>_table.py``) whose function descend has, each made by :func:`operation_class`. ``descend.keras.ops``
re-exports them (``ops.Softmax``; the image ones in ``ops.image``, each family in its sub-namespace), where Keras'
tests find them (``keras.src.ops.nn.Softmax``). ``NOT_MADE`` names the table rows descend has no function for.
"""

from __future__ import annotations

from . import core_table, image_table, linalg_table, math_table, nn_table, numpy_table
from .operation import Operation, operation_class

__all__ = ["Operation", "operation_class", "FAMILIES", "NOT_MADE", "register"]

#: the ops whose output's shape depends on the input's values: no output spec from probes
_VALUE_DEPENDENT = frozenset({"Nonzero", "Unique", "Bincount"})
#: the loops, whose output has the spec of their state (Keras' rule; running them on probes may never end)
_SPEC_ARGUMENT = {"WhileLoop": "loop_vars", "ForiLoop": "init_val"}


def _build(family: str, rows: tuple, namespace) -> tuple:
    made, not_made = {}, []
    for class_name, function_name, init_params, call_params in rows:
        function = getattr(namespace, function_name, None)
        if not callable(function):
            not_made.append(class_name)
            continue
        made[class_name] = operation_class(class_name, function, init_params, call_params,
                                           module=f"{__name__}.{family}",
                                           value_dependent_shape=class_name in _VALUE_DEPENDENT,
                                           spec_argument=_SPEC_ARGUMENT.get(class_name))
    return made, tuple(not_made)


_TABLES = {"core": core_table, "image": image_table, "linalg": linalg_table, "math": math_table, "nn": nn_table,
           "numpy": numpy_table}

#: {family: {class name: class}}, and {family: (class names of the table descend has no function for)}: filled by
#: :func:`register`, which ``descend.keras.ops`` calls once its functions exist (this package imports nothing above it)
FAMILIES: dict = {}
NOT_MADE: dict = {}


def register(ops_namespace, image_namespace) -> None:
    """Make each family's classes from the functions of ``ops_namespace`` (the image family's from
    ``image_namespace``) into :data:`FAMILIES` and :data:`NOT_MADE`."""
    for family, table in _TABLES.items():
        FAMILIES[family], NOT_MADE[family] = _build(family, table.ROWS,
                                                    image_namespace if family == "image" else ops_namespace)
