"""The optimizer's side of the state protocol, seen from the checkpoint.

The optimizer owns its state: ``opt.state_dict(var_key)`` gives copies of
everything (iterations, step counters and step state, constant hyperparameters
``hyper:<name>``, slots keyed ``<var_key(v)>/<slot>`` including slots restored
but not created yet, partial sums of an accumulation cycle) and
``opt.restore_plan(state, var_key)`` validates a state (missing, unexpected and
mis-shaped keys; negative counters, negative values of non-negative slots,
non-finite values) and returns a commit that cannot fail. The checkpoint passes
a ``var_key`` naming each variable by its path from the checkpoint's roots, so
slots follow the object structure; the optimizer keeps that ``var_key`` for the
slots of variables it creates later. This module reads no private attribute.

Example:
    >>> import descend as ds
    >>> from descend.persistence.checkpoint import optimizer_protocol as optim
    >>> w = ds.Variable([1.0], name="w")
    >>> opt = ds.optimizers.Adam(0.1)
    >>> _ = opt.apply_gradients([(ds.constant([1.0]), w)])
    >>> sorted(k for k in optim.state_of(opt, lambda v: "model/w") if "/" in k)
    ['model/w/m', 'model/w/v']
"""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["state_of", "plan_for", "pending_of"]


def _check(opt) -> None:
    if not (callable(getattr(opt, "state_dict", None)) and callable(getattr(opt, "restore_plan", None))):
        raise TypeError(f"{type(opt).__name__} does not implement the optimizer state protocol "
                        "(state_dict(var_key) and restore_plan(state, var_key))")


def state_of(opt, var_key) -> dict[str, np.ndarray]:
    """Everything the optimizer holds, slots keyed by ``var_key``."""
    _check(opt)
    return dict(opt.state_dict(var_key=var_key))


def plan_for(opt, state: dict, var_key, strict: bool = True) -> Callable[[], None]:
    """Validate ``state`` for ``opt``: ValueError listing every problem (nothing changed), or the commit.
    With ``strict=False`` missing, unexpected and mis-shaped entries are left as they are and listed on
    the returned plan (``missing``, ``unexpected``, ``mismatched``); invalid values still raise."""
    _check(opt)
    return opt.restore_plan(dict(state), var_key=var_key, strict=strict)


def pending_of(opt) -> list[str]:
    """Keys of restored state still waiting for variables the optimizer has not created."""
    pending = getattr(opt, "pending_state", None)
    return list(pending()) if callable(pending) else []
