"""``tf.compat.v1``-style APIs: ``descend.compat.v1.train``, graph collections, ``variable_scope`` and
``get_variable`` (over the Variables that are alive)."""

from . import train
from .variables import (
    AUTO_REUSE,
    GraphKeys,
    VariableScope,
    add_to_collection,
    add_to_collections,
    all_variables,
    get_collection,
    get_collection_ref,
    get_variable,
    get_variable_scope,
    global_variables,
    reset_default_graph,
    trainable_variables,
    variable_scope,
    zeros_initializer,
)

__all__ = [
    "AUTO_REUSE", "GraphKeys", "VariableScope", "add_to_collection", "add_to_collections", "all_variables",
    "get_collection", "get_collection_ref", "get_variable", "get_variable_scope", "global_variables",
    "reset_default_graph", "train", "trainable_variables", "variable_scope", "zeros_initializer",
]
