"""``tfshim``: TensorFlow's internal module paths over descend, so that TF's own test files run on descend.

The ported test files import ``tfshim.<path>`` where TF's import ``tensorflow.python.<path>``. Every ``tfshim``
module without a file here is made on first import: its names are looked up in the descend namespaces that hold
that TF module's public names (``tfshim.ops.nn_ops.relu`` is ``descend.nn.relu``, ``tfshim.ops.math_ops.lgamma`` is
``descend.math.lgamma``, ``tfshim.framework.constant_op.constant`` is ``descend.constant``...). A name descend does
not have resolves to a :class:`Missing` placeholder that raises ``NotImplementedError`` naming it when used, so a
test that needs it fails alone, with a message that says what is missing. The modules with a file here
(``platform.test``, ``framework.test_util``, ``ops.gradient_checker_v2``, ``ops.gen_nn_ops``) hold what is more
than a name lookup; each says why in its docstring.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types

import descend as ds
from descend.ops import sparse_segment_ops


class Missing:
    """A TensorFlow name descend does not have: any use raises NotImplementedError naming it."""

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)

    def _fail(self, *args, **kwargs):
        raise NotImplementedError(f"descend has no {self._name}")

    __call__ = _fail

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Missing(f"{self._name}.{attr}")

    def __repr__(self):
        return f"<missing {self._name}>"


def _namespaces(module: str) -> list:
    """descend's namespaces holding the public names of TF's ``tensorflow.python.<module>``, searched in order."""
    table = {
        "framework.constant_op": [ds],
        "framework.dtypes": [ds.dtypes, ds],
        "framework.errors": [ds.errors],
        "framework.errors_impl": [ds.errors],
        "framework.ops": [ds],
        "framework.tensor_shape": [ds],
        "framework.sparse_tensor": [ds.sparse, ds],
        "framework.config": [ds.config],
        "eager.backprop": [ds],
        "eager.context": [ds],
        "ops.array_ops": [ds, ds.compat.v1],
        "ops.math_ops": [ds.math, ds, sparse_segment_ops],  # math_ops.sparse_segment_* (tf.sparse.segment_*)
        "ops.gen_math_ops": [ds.math, ds],
        "ops.nn_ops": [ds.nn, ds],
        "ops.nn_impl": [ds.nn],
        "ops.special_math_ops": [ds.math, ds.math.special, ds],
        "ops.variables": [ds, ds.compat.v1],
        "ops.random_ops": [ds.random],
        "training.gradient_descent": [ds.compat.v1.train],
        "client.session": [ds.compat.v1],
    }
    return table.get(module, [])


#: TF internal names whose public name differs (``random_ops.random_normal`` is ``tf.random.normal``)
_ALIASES = {
    "ops.random_ops": {"random_normal": "normal", "random_uniform": "uniform"},
}


def _lookup(module_name: str, attr: str):
    if attr.startswith("__") and attr.endswith("__"):  # module protocol (__file__, __wrapped__...): not TF names
        raise AttributeError(f"module {module_name!r} has no attribute {attr!r}")
    module = module_name.split(".", 1)[1] if "." in module_name else ""
    name = _ALIASES.get(module, {}).get(attr, attr)
    for ns in _namespaces(module):
        if hasattr(ns, name):
            return getattr(ns, name)
    return Missing(f"{module}.{attr} (TensorFlow's tensorflow.python.{module}.{attr})")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes the ``tfshim.*`` modules that have no file here."""

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith(__name__ + ".") or fullname in sys.modules:
            return None
        if importlib.machinery.PathFinder.find_spec(fullname, path) is not None:
            return None  # a real module file
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = lambda attr, _n=spec.name: _lookup(_n, attr)
        return module

    def exec_module(self, module):
        pass


if not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.append(_Finder())
