"""``kshim``: Keras 3's module paths over descend, so that Keras' own test files run on descend.

The ported test files import ``kshim.<path>`` where Keras' import ``keras.src.<path>``. Every ``kshim`` module
without a file here is made on first import; its names are looked up in descend's namespace for that part of
Keras (``kshim.layers.core.dense.Dense`` is ``descend.layers.Dense``, ``kshim.ops.sum`` is
``descend.keras.ops.sum``...). A name descend does not have resolves to a :class:`Missing` placeholder that
raises ``NotImplementedError`` naming it when used, so a test that needs a missing feature fails alone, with a
message that says which feature.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

import descend as ds
import descend.keras
import descend.keras.config
from descend.layers.keras_tensor import KerasTensor


class Missing:
    """A Keras name descend does not have: any use raises NotImplementedError naming it."""

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)

    def _fail(self, *args, **kwargs):
        raise NotImplementedError(f"descend has no keras.{self._name}")

    __call__ = _fail

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Missing(f"{self._name}.{attr}")

    def __mro_entries__(self, bases):
        self._fail()

    def __repr__(self):
        return f"<missing keras.{self._name}>"


def _namespaces(top: str) -> list:
    """descend's namespaces that hold Keras' ``keras.src.<top>...`` names, searched in order."""
    from . import extras

    table = {
        "layers": [ds.layers, extras.layers],
        "losses": [ds.losses, extras.losses],
        "metrics": [ds.metrics, extras.metrics],
        "ops": [ds.keras.ops, types.SimpleNamespace(KerasTensor=KerasTensor)],  # (keras.src.ops has KerasTensor)
        "ops_image": [ds.keras.ops.image, ds.keras.ops],
        "random": [ds.keras.random],
        "models": [ds.models, extras.models],
        "initializers": [ds.initializers],
        "constraints": [ds.constraints],
        "regularizers": [ds.regularizers],
        "activations": [ds.activations],
        "optimizers": [ds.optimizers],
        "callbacks": [ds.callbacks],
        "saving": [m for m in (getattr(ds.keras, "saving", None), ds.saving, extras.saving) if m is not None],
        "utils": [ds.keras.utils, extras.utils],
        "dtype_policies": [extras.dtype_policies, ds.mixed_precision],
        "tree": [extras.tree],
        # keras.config: the backend is "descend" (as kshim.backend.backend()), the rest descend's keras.config
        "config": [types.SimpleNamespace(backend=lambda: "descend"), ds.keras.config],
    }
    return table.get(top, [])


#: Keras module names the test files import from a package (``from keras.src.metrics import metrics_utils``)
_SUBMODULES = frozenset({
    "losses", "loss", "metrics", "metric", "metrics_utils", "regression_metrics", "reduction_metrics",
    "hinge_metrics", "accuracy_metrics", "confusion_metrics", "probabilistic_metrics", "random", "seed_generator",
    "rng_utils", "quantizers", "quantization_config", "gptq_config", "awq_config", "preprocessing", "data_layer",
    "core", "dense", "embedding", "rnn", "dtypes", "keras_tensor", "global_state", "common", "config",
    # keras.src.ops' modules (``from keras.src.ops import math as kmath``): their names are keras.ops'
    "math", "numpy", "nn", "image", "linalg", "object_registration",
})


def _lookup(module_name: str, attr: str):
    if attr.startswith("__") and attr.endswith("__"):  # module protocol (__file__, __wrapped__...): not Keras names
        raise AttributeError(f"module {module_name!r} has no attribute {attr!r}")
    parts = module_name.split(".")
    if parts[-1].endswith("_test"):  # a helper of another Keras test file (conv_test.np_conv1d): the ported copy's
        import os

        if os.path.exists(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                       f"{parts[-1]}.py")):
            return getattr(importlib.import_module(parts[-1]), attr)
    if parts == ["kshim", "ops"] and attr in ("numpy", "nn", "math", "linalg", "image", "core"):
        # keras.src.ops' modules (``from keras.src.ops import numpy as knp``): kshim modules over keras.ops, so that a
        # name descend lacks is a Missing placeholder there too (knp.Arccos, Keras' Operation class)
        return importlib.import_module(f"{module_name}.{attr}")
    # keras.src.ops.random is Keras' random module (keras.ops re-exports it)
    top = {"random": "random", "image": "ops_image"}.get(parts[2], parts[1]) if parts[1:2] == ["ops"] and len(
        parts) > 2 else parts[1] if len(parts) > 1 else ""
    for ns in _namespaces(top):
        if hasattr(ns, attr):
            return getattr(ns, attr)
    if attr in _SUBMODULES:
        return importlib.import_module(f"{module_name}.{attr}")
    return Missing(f"{'.'.join(parts[1:])}.{attr}")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes the ``kshim.*`` modules that have no file here."""

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


def __getattr__(attr):
    # ``import kshim as keras``: keras.layers, keras.Sequential, keras.backend...
    if attr[:1].islower():
        return importlib.import_module(f"{__name__}.{attr}")
    if hasattr(ds.keras, attr):
        return getattr(ds.keras, attr)
    return Missing(attr)
