"""TF programs call ops with TF's keyword arguments: every function descend has under a TF namespace accepts
``name=`` where TF's does (accepted and unused: an eager op has no graph name), so ``tf.reshape(x, s,
name="r")`` ports by changing the import. Checked against TF's own signatures where TF is installed."""

from __future__ import annotations

import inspect
import sys

import numpy as np
import pytest

import descend as ds
from descend.framework.op import Op

sys.path.insert(0, __file__.rsplit("/", 1)[0])


def _accepts_name(fn) -> bool:
    if isinstance(fn, Op):  # every op's call takes name= (Op.__call__)
        return True
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "name" or p.kind is p.VAR_KEYWORD for p in params)


def test_every_function_takes_name_where_tensorflows_does():
    tf = pytest.importorskip("tensorflow")
    import test_api_coverage as coverage

    missing = []
    for label, (ref, ours) in coverage.NAMESPACES.items():
        if not label.startswith("tf"):
            continue
        theirs, mine = coverage._resolve(ref), coverage._resolve(ours)
        for n in coverage._public(theirs):
            a, b = getattr(theirs, n, None), getattr(mine, n, None)
            if b is None or not callable(a) or inspect.isclass(a) or inspect.isclass(b):
                continue
            try:
                takes = "name" in inspect.signature(a).parameters
            except (TypeError, ValueError):
                continue
            if takes and not _accepts_name(b):
                missing.append(f"{label}.{n}")
    assert tf is not None and missing == [], missing


@pytest.mark.parametrize("call", [
    lambda: ds.reshape(np.ones(4), [2, 2], name="r"),
    lambda: ds.concat([np.ones(2), np.ones(2)], 0, name="c"),
    lambda: ds.nn.relu(np.ones(2), name="relu"),
    lambda: ds.nn.conv2d(np.ones((1, 3, 3, 1), np.float32), np.ones((2, 2, 1, 1), np.float32), 1, "VALID", name="c"),
    lambda: ds.clip_by_value(np.ones(2), 0.0, 0.5, name="clip"),
    lambda: ds.math.reduce_std(np.ones(3), name="s"),
    lambda: ds.image.rot90(np.ones((2, 2, 1)), name="rot"),
    lambda: ds.data.Dataset.range(3).batch(2, name="b"),
])
def test_name_is_accepted_and_changes_nothing(call):
    assert call() is not None
