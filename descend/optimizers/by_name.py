"""An optimizer class by its name, read from the registry of built-in objects (``descend.persistence.registry``,
filled by ``descend.optimizers``): the one look-up behind ``optimizers.get`` and a ``LossScaleOptimizer``
config's inner optimizer."""

from __future__ import annotations

from ..persistence.registry import builtin_objects
from .optimizer import Optimizer

__all__ = ["optimizer_class"]


def optimizer_class(name, kinds: tuple = (Optimizer,)) -> type:
    """The built-in class named ``name`` (its case ignored: ``"adam"``, ``"Adam"``) among the subclasses of
    ``kinds`` (the base class ``Optimizer`` itself excluded); a ValueError naming the known names when none is."""
    known = {n.lower(): c for n, c in builtin_objects("optimizers").items()
             if isinstance(c, type) and issubclass(c, kinds) and c is not Optimizer}
    cls = known.get(name.lower()) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"Unknown optimizer {name!r}. Known: {sorted(known)}")
    return cls
