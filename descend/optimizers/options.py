"""The options an optimizer was built with, as one frozen object.

:class:`Options` holds every constructor argument of :class:`~descend.optimizers.Optimizer` that is
not a hyperparameter (those may be schedules: :mod:`descend.optimizers.hyper`): clipping, the sparse
mode, gradient accumulation, the non-finite policy, the moving average and Keras 3's fixed loss scale.
It is the single source of three things:

* **validation**: an ``Options`` exists only with valid values (its constructor checks them and says
  what was expected and what was received);
* **``get_config``**: :meth:`Options.config` gives these arguments as the optimizer's config holds them;
* **which stages an update runs** and **whether it can take the batched step**: every stage of the
  pipeline reads the options to say whether it is active (:meth:`~descend.optimizers.update_plan.Stage.active`)
  and whether it has a batched form for them (:meth:`~descend.optimizers.update_plan.Stage.batches`).

Changing an option (``opt.clipnorm = 1.0``) makes a new ``Options`` (checked as the constructor checks)
and puts it in place of the old one; nothing else holds a copy of a value.

Example:
    >>> from descend.optimizers.options import Options
    >>> o = Options(clipnorm=1.0)
    >>> o.replace(on_nonfinite="skip").config()["on_nonfinite"]
    'skip'
    >>> Options(on_nonfinite="ignore")
    Traceback (most recent call last):
    ...
    ValueError: `on_nonfinite` must be 'raise', 'skip', 'zero' or 'apply'. Received: on_nonfinite='ignore'
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .rule import NUMBERS

__all__ = ["Options", "SPARSE_MODES", "NONFINITE_POLICIES"]

SPARSE_MODES = ("exact", "lazy", "exact_lazy")
NONFINITE_POLICIES = ("raise", "skip", "zero", "apply")


@dataclasses.dataclass(frozen=True)
class Options:
    """Every non-hyperparameter constructor argument of an optimizer (see :class:`~descend.optimizers.Optimizer`
    for what each means); checked and normalized when made, never changed afterwards."""

    clipnorm: float | None = None
    clipvalue: float | None = None
    global_clipnorm: float | None = None
    sparse_updates: str | None = None           # None: the rule's default
    gradient_accumulation_steps: int | None = None
    on_nonfinite: str = "raise"
    use_ema: bool = False
    ema_momentum: float = 0.99
    ema_overwrite_frequency: int | None = None
    loss_scale_factor: float | None = None

    def __post_init__(self):
        for arg in ("clipnorm", "clipvalue", "global_clipnorm"):
            v = getattr(self, arg)
            if v is not None and not (isinstance(v, NUMBERS) and not isinstance(v, bool) and math.isfinite(v)
                                      and v >= 0):
                raise ValueError(f"`{arg}` must be a non-negative finite number. Received: {arg}={v!r}")
        if sum(v is not None for v in (self.clipnorm, self.clipvalue, self.global_clipnorm)) > 1:
            raise ValueError(
                "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                f"clipnorm={self.clipnorm}, clipvalue={self.clipvalue}, global_clipnorm={self.global_clipnorm}")
        if self.sparse_updates is not None and self.sparse_updates not in SPARSE_MODES:
            raise ValueError("`sparse_updates` must be 'exact', 'lazy' or 'exact_lazy'. "
                             f"Received: sparse_updates={self.sparse_updates!r}")
        k = self.gradient_accumulation_steps
        if k is not None and not (isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= 1):
            raise ValueError(f"`gradient_accumulation_steps` must be an integer >= 1. "
                             f"Received: gradient_accumulation_steps={k!r}")
        if self.on_nonfinite not in NONFINITE_POLICIES:
            raise ValueError("`on_nonfinite` must be 'raise', 'skip', 'zero' or 'apply'. "
                             f"Received: on_nonfinite={self.on_nonfinite!r}")
        f = self.loss_scale_factor
        if f is not None and not (isinstance(f, NUMBERS) and not isinstance(f, bool) and math.isfinite(f) and f > 0):
            raise ValueError("`loss_scale_factor` must be a positive finite number or None. "
                             f"Received: loss_scale_factor={f!r}")
        if not isinstance(self.use_ema, (bool, np.bool_)):
            raise TypeError(f"`use_ema` must be a bool. Received: use_ema={self.use_ema!r}")
        m = self.ema_momentum
        if not (isinstance(m, NUMBERS) and not isinstance(m, bool) and 0 <= m <= 1):
            raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={m!r}")
        n = self.ema_overwrite_frequency
        if n is not None and not (isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1):
            raise ValueError("`ema_overwrite_frequency` must be an integer >= 1 or None. "
                             f"Received: ema_overwrite_frequency={n!r}")
        normalized = {"gradient_accumulation_steps": None if k is None else int(k),
                      "loss_scale_factor": None if f is None else float(f), "use_ema": bool(self.use_ema),
                      "ema_momentum": float(m), "ema_overwrite_frequency": None if n is None else int(n)}
        for name, value in normalized.items():
            object.__setattr__(self, name, value)

    def replace(self, **changes) -> Options:
        """A new ``Options`` with ``changes`` (checked as the constructor checks)."""
        return dataclasses.replace(self, **changes)

    @property
    def clips(self) -> bool:
        """Whether one of ``clipnorm``, ``clipvalue`` and ``global_clipnorm`` is set."""
        return self.clipnorm is not None or self.clipvalue is not None or self.global_clipnorm is not None

    def config(self) -> dict:
        """These options as an optimizer's ``get_config`` holds them (``sparse_updates``: as given)."""
        return dataclasses.asdict(self)
