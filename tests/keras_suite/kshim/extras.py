"""Keras names the test files reach that live elsewhere in descend, or that Keras' test harness itself defines."""

from __future__ import annotations

import types

import numpy as np

import descend as ds
from descend.framework import nest

layers = types.SimpleNamespace(Input=ds.keras.Input, InputLayer=ds.layers.InputLayer)
losses = types.SimpleNamespace(Loss=ds.losses.Loss)
metrics = types.SimpleNamespace(Metric=ds.metrics.Metric)
models = types.SimpleNamespace(Functional=ds.models.Model)
dtype_policies = types.SimpleNamespace(
    dtype_policy=types.SimpleNamespace(dtype_policy=ds.mixed_precision.global_policy,
                                       set_dtype_policy=ds.mixed_precision.set_global_policy))
saving = types.SimpleNamespace(register_keras_serializable=ds.saving.register_serializable)
utils = types.SimpleNamespace(set_random_seed=ds.keras.utils.set_random_seed)


def _map_structure(fn, *structures):
    flat = [nest.flatten(s) for s in structures]
    return nest.pack_like(structures[0], [fn(*xs) for xs in zip(*flat)])


tree = types.SimpleNamespace(flatten=nest.flatten, map_structure=_map_structure,
                             is_nested=lambda x: isinstance(x, (list, tuple, dict)))
del np
