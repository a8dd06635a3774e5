"""Every compiled kernel descend caches on disk loads from that cache in the next process.

numba writes a kernel's machine code next to its source (``cache=True``) and reloads it in a later process, keyed by
the function's bytecode and by what its closure captures. A kernel that captures another compiled function (its
pickle differs from process to process) or calls itself is compiled again in every process, seconds each: the
reductions' row kernels once cost every ``descend train`` run and every subprocess of the test suite 5 to 17 s. The
second of two identical processes below must compile none of descend's cached kernels.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import descend

pytest.importorskip("numba")

#: a workload that reaches the kernels a training program uses, eager and compiled: dense and convolution layers,
#: pooling, a recurrent layer, an embedding (sparse rows), softmax cross-entropy, the optimizers' fused updates
WORKLOAD = textwrap.dedent(
    """
    import gc, json, sys
    import numpy as np
    from descend import keras
    from descend._native import backend, loops
    from numba.core.dispatcher import Dispatcher

    keras.utils.set_random_seed(1)
    rng = np.random.default_rng(0)
    cases = [
        ([keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3, activation="softmax")], (16, 5)),
        ([keras.layers.Conv2D(2, 3, activation="relu"), keras.layers.MaxPooling2D(), keras.layers.Flatten(),
          keras.layers.Dense(3)], (4, 8, 8, 1)),
        ([keras.layers.LSTM(4), keras.layers.Dense(3)], (4, 5, 3)),
        ([keras.layers.Embedding(10, 4), keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(3)], None),
    ]
    for layers, shape in cases:
        x = rng.random(shape).astype("float32") if shape else rng.integers(0, 10, (4, 6))
        y = rng.integers(0, 3, len(x))
        for jit, optimizer in ((False, "adam"), (True, "adamw"), (False, "rmsprop")):
            model = keras.Sequential([layer.__class__.from_config(layer.get_config()) for layer in layers])
            model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", jit_compile=jit)
            model.fit(x, y, epochs=1, batch_size=2, verbose=0)
    for dtype in ("float32", "float64"):  # the row kernels, whether or not the steps above reached them
        kernels = backend.row_kernels(dtype)
        assert kernels is not None, dtype
        out = np.empty(3, dtype)
        kernels[0](np.ones((3, 20), dtype), out)
        kernels[1](np.ones((3, 20), dtype), out)
    seen, compiled = 0, []
    for o in gc.get_objects():
        if isinstance(o, Dispatcher) and o.py_func.__module__.startswith("descend") and o._cache.__class__.__name__ != "NullCache":
            seen += 1
            if o.stats.cache_misses:
                compiled.append(o.py_func.__module__ + "." + o.py_func.__qualname__)
    print(json.dumps({"seen": seen, "compiled": sorted(compiled)}))
    """
)


def _run(env):
    proc = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_second_process_compiles_no_cached_kernel():
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(descend.__file__)))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("NUMBA_DISABLE_JIT", None)
    _run(env)  # fills the cache where this checkout's kernels were not cached yet
    second = _run(env)
    assert second["seen"] >= 10, second  # the workload reached the kernels
    assert second["compiled"] == [], (
        f"compiled again in a second process (their cache is never read: a captured compiled function, or "
        f"recursion?): {second['compiled']}")
