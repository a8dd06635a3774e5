"""How a global batch splits over the replicas: ``numpy.array_split``'s rule (the first ``B % N`` replicas
get one row more)."""

from __future__ import annotations

import numpy as np

from ..framework import nest
from ..framework.tensor import Tensor, to_array

__all__ = ["split_bounds", "slice_batch"]


def split_bounds(n: int, parts: int, index: int) -> tuple[int, int]:
    """Rows ``[start, stop)`` of replica ``index`` when ``n`` rows split over ``parts`` replicas (array_split)."""
    base, extra = divmod(n, parts)
    start = index * base + min(index, extra)
    return start, start + base + (1 if index < extra else 0)


def slice_batch(element, parts, index):
    leaves = nest.flatten(element)
    sizes = set()
    for leaf in leaves:
        shape = np.shape(to_array(leaf)) if not isinstance(leaf, np.ndarray) else leaf.shape
        if len(shape) == 0:
            raise ValueError("experimental_distribute_dataset expects a batched dataset (every component with a "
                             f"leading batch dimension). Received a scalar component: {leaf!r}")
        sizes.add(shape[0])
    if len(sizes) > 1:
        raise ValueError(f"the components of a batch have different batch sizes: {sorted(sizes)}")
    start, stop = split_bounds(sizes.pop(), parts, index)
    out = []
    for leaf in leaves:
        if isinstance(leaf, Tensor):
            out.append(Tensor(leaf._value[start:stop]))
        elif isinstance(leaf, np.ndarray):
            out.append(leaf[start:stop])
        else:
            out.append(Tensor(np.asarray(to_array(leaf))[start:stop]))
    return nest.pack_like(element, out)
