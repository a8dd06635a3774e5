"""Learning-rate schedules: callables of the optimizer's step that serialize to JSON.

The base class and the registry live here; the schedule family is added on
top of them.
"""

from __future__ import annotations

import math

__all__ = [
    "LearningRateSchedule", "register_serializable", "serialize", "deserialize", "ExponentialDecay",
    "PiecewiseConstantDecay", "PolynomialDecay", "InverseTimeDecay", "CosineDecay", "CosineDecayRestarts", "WarmUp",
]

_REGISTRY: dict[str, type] = {}


def register_serializable(cls=None, *, name: str | None = None):
    """Class decorator: make a custom schedule (or other config object) reloadable by name.

    Example:
        >>> import descend as ds
        >>> @ds.optimizers.schedules.register_serializable
        ... class Halving(ds.optimizers.schedules.LearningRateSchedule):
        ...     def __init__(self, lr): self.lr = lr
        ...     def __call__(self, step): return self.lr * 0.5 ** step
        ...     def get_config(self): return {"lr": self.lr}
    """
    def wrap(c):
        key = name or c.__name__
        if key in _REGISTRY and _REGISTRY[key] is not c:
            raise ValueError(f"A serializable class named '{key}' is already registered ({_REGISTRY[key]!r})")
        _REGISTRY[key] = c
        return c

    return wrap(cls) if cls is not None else wrap


class LearningRateSchedule:
    """A hyperparameter that changes with the step: ``schedule(step) -> float``.

    ``step`` is the optimizer's ``iterations`` before the update (0 on the
    first step), as in Keras. Subclasses implement ``__call__`` and
    ``get_config``; ``from_config`` calls ``cls(**config)``.
    """

    def __call__(self, step):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(step)")

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} must implement get_config()")

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        return cls(**config)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _REGISTRY.setdefault(cls.__name__, cls)
        call = cls.__dict__.get("__call__")
        if call is not None and cls.__module__ == __name__:  # descend's schedules compute on one step
            cls.__call__ = _elementwise(call)


def _elementwise(call):
    """A schedule's ``__call__`` that also takes an array (or Tensor) of steps, as TF's: the rate at each step,
    a float32 Tensor of the steps' shape (the tutorials plot ``schedule(np.linspace(...))``)."""
    import functools

    @functools.wraps(call)
    def schedule(self, step):
        if not isinstance(step, (int, float)) and getattr(step, "ndim", 0) > 0:
            import numpy as np

            from ..framework.tensor import Tensor

            steps = np.asarray(step.numpy() if hasattr(step, "numpy") else step, np.float64)
            return Tensor(np.array([float(call(self, float(x))) for x in steps.reshape(-1)],
                                   np.float32).reshape(steps.shape))
        return call(self, step)
    return schedule


def serialize(obj) -> dict:
    """``{"class_name": ..., "config": ...}`` for a schedule (or any object with get_config)."""
    return {"class_name": type(obj).__name__, "config": obj.get_config()}


def deserialize(data: dict, custom_objects: dict | None = None):
    """Rebuild an object from :func:`serialize` output, looking names up in
    ``custom_objects`` first, then in the registry."""
    if not isinstance(data, dict) or "class_name" not in data:
        raise ValueError(f"Expected a dict with 'class_name' and 'config'. Received: {data!r}")
    name = data["class_name"]
    cls = (custom_objects or {}).get(name) or _REGISTRY.get(name)
    if cls is None:
        raise ValueError(
            f"Unknown class '{name}'. Pass it in custom_objects or decorate it with "
            f"@descend.optimizers.schedules.register_serializable"
        )
    config = dict(data.get("config", {}))
    try:
        return cls.from_config(config, custom_objects=custom_objects)
    except TypeError:
        return cls.from_config(config)


def _check_positive(cls, **kw):
    for k, v in kw.items():
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
            raise ValueError(f"{cls}: `{k}` must be a positive number. Received: {k}={v!r}")


def _check_finite(cls, **kw):
    for k, v in kw.items():
        if not (isinstance(v, (int, float)) and math.isfinite(v)):
            raise ValueError(f"{cls}: `{k}` must be a finite number. Received: {k}={v!r}")


def _step(step) -> float:
    """The step as a float: any finite number (a negative step is allowed, as in TF and Keras: a piecewise
    schedule gives its first value, the formulas extend below 0)."""
    s = float(step)
    if not math.isfinite(s):
        raise ValueError(f"a schedule's step must be a finite number. Received: step={step!r}")
    return s


class _StaircaseDecay(LearningRateSchedule):
    """The schedules of ``initial_learning_rate``, ``decay_steps``, ``decay_rate`` and ``staircase``
    (exponential and inverse-time decay): their arguments, checks, config and ``step / decay_steps``."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase: bool = False, name=None):
        cls = type(self).__name__
        _check_finite(cls, initial_learning_rate=initial_learning_rate, decay_rate=decay_rate)
        _check_positive(cls, decay_steps=decay_steps)
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.decay_rate, self.staircase, self.name = decay_rate, bool(staircase), name

    def _progress(self, step) -> float:
        """``step / decay_steps``, floored when ``staircase``."""
        p = _step(step) / self.decay_steps
        return math.floor(p) if self.staircase else p

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_StaircaseDecay):
    """``lr * decay_rate ** (step / decay_steps)`` (the exponent floored when ``staircase``)."""

    def __call__(self, step):
        return self.initial_learning_rate * self.decay_rate**self._progress(step)


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` for ``step <= boundaries[0]``, ``values[i]`` for
    ``boundaries[i-1] < step <= boundaries[i]``, ``values[-1]`` after the last boundary."""

    def __init__(self, boundaries, values, name=None):
        boundaries, values = list(boundaries), list(values)
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseConstantDecay: expected len(values) == len(boundaries) + 1. Received "
                             f"{len(values)} values and {len(boundaries)} boundaries")
        if any(b2 < b1 for b1, b2 in zip(boundaries, boundaries[1:])):
            raise ValueError(f"PiecewiseConstantDecay: boundaries must be increasing. Received: {boundaries}")
        self.boundaries, self.values, self.name = boundaries, values, name

    def __call__(self, step):
        s = _step(step)
        for b, v in zip(self.boundaries, self.values):
            if s <= b:
                return v
        return self.values[-1]

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """``(lr - end) * (1 - step / decay_steps) ** power + end``, step capped at
    ``decay_steps``; with ``cycle``, ``decay_steps`` grows to the next multiple above the step."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle: bool = False, name=None):
        _check_finite("PolynomialDecay", initial_learning_rate=initial_learning_rate,
                      end_learning_rate=end_learning_rate, power=power)
        _check_positive("PolynomialDecay", decay_steps=decay_steps)
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.end_learning_rate, self.power, self.cycle, self.name = end_learning_rate, power, bool(cycle), name

    def __call__(self, step):
        s = _step(step)
        decay_steps = float(self.decay_steps)
        if self.cycle:
            # decay_steps * ceil(step / decay_steps), with step 0 counting as the first cycle
            decay_steps *= 1.0 if s == 0 else math.ceil(s / decay_steps)
        else:
            s = min(s, decay_steps)
        frac = 1 - s / decay_steps
        return (self.initial_learning_rate - self.end_learning_rate) * frac**self.power + self.end_learning_rate

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "end_learning_rate": self.end_learning_rate, "power": self.power, "cycle": self.cycle,
                "name": self.name}


class InverseTimeDecay(_StaircaseDecay):
    """``lr / (1 + decay_rate * step / decay_steps)`` (the ratio floored when ``staircase``)."""

    def __call__(self, step):
        return self.initial_learning_rate / (1 + self.decay_rate * self._progress(step))


def _cosine(completed: float, alpha: float) -> float:
    # (1 - alpha) * 0.5 * (1 + cos(pi * completed)) + alpha
    return (1 - alpha) * 0.5 * (1 + math.cos(math.pi * completed)) + alpha


class CosineDecay(LearningRateSchedule):
    """Cosine decay from ``initial_learning_rate`` (or, after a linear warm-up of
    ``warmup_steps`` to ``warmup_target``, from ``warmup_target``) down to
    ``alpha`` times it over ``decay_steps`` (Keras 3)."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name=None, warmup_target=None,
                 warmup_steps=0):
        _check_finite("CosineDecay", initial_learning_rate=initial_learning_rate, alpha=alpha)
        _check_positive("CosineDecay", decay_steps=decay_steps)
        if warmup_steps < 0:
            raise ValueError(f"CosineDecay: `warmup_steps` must be >= 0. Received: warmup_steps={warmup_steps}")
        self.initial_learning_rate, self.decay_steps, self.alpha = initial_learning_rate, decay_steps, alpha
        self.name, self.warmup_target, self.warmup_steps = name, warmup_target, warmup_steps

    def __call__(self, step):
        s = _step(step)
        if self.warmup_target is None:
            start = self.initial_learning_rate
        else:
            if s < self.warmup_steps:
                # linear: initial + (target - initial) * step / warmup_steps
                return (self.warmup_target - self.initial_learning_rate) * (s / self.warmup_steps) + \
                    self.initial_learning_rate
            start = self.warmup_target
            s -= self.warmup_steps
        return start * _cosine(min(s, self.decay_steps) / self.decay_steps, self.alpha)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "alpha": self.alpha, "name": self.name, "warmup_target": self.warmup_target,
                "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR): periods grow by ``t_mul``, peaks shrink by ``m_mul``."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0, name=None):
        _check_finite("CosineDecayRestarts", initial_learning_rate=initial_learning_rate, alpha=alpha)
        _check_positive("CosineDecayRestarts", first_decay_steps=first_decay_steps, t_mul=t_mul, m_mul=m_mul)
        self.initial_learning_rate, self.first_decay_steps = initial_learning_rate, first_decay_steps
        self.t_mul, self.m_mul, self.alpha, self.name = t_mul, m_mul, alpha, name

    def __call__(self, step):
        completed = _step(step) / self.first_decay_steps
        if self.t_mul == 1.0:
            i_restart = math.floor(completed)
            completed -= i_restart
        else:
            # the restart index i solves sum_{k<i} t_mul^k <= completed
            i_restart = math.floor(math.log(1 - completed * (1 - self.t_mul)) / math.log(self.t_mul))
            sum_r = (1 - self.t_mul**i_restart) / (1 - self.t_mul)
            completed = (completed - sum_r) / self.t_mul**i_restart
        m_fac = self.m_mul**i_restart
        cosine = 0.5 * m_fac * (1 + math.cos(math.pi * completed))
        return self.initial_learning_rate * ((1 - self.alpha) * cosine + self.alpha)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate, "first_decay_steps": self.first_decay_steps,
                "t_mul": self.t_mul, "m_mul": self.m_mul, "alpha": self.alpha, "name": self.name}


class WarmUp(LearningRateSchedule):
    """Hugging Face's warm-up: ``initial_learning_rate * (step / warmup_steps) ** power``
    while ``step < warmup_steps``, then ``decay_schedule_fn(step - warmup_steps)``.

    Step 0 gives 0 (Hugging Face's current behaviour): the first update of a
    run that starts with warm-up does not move the weights.
    """

    def __init__(self, initial_learning_rate, decay_schedule_fn, warmup_steps, power=1.0, name=None):
        _check_finite("WarmUp", initial_learning_rate=initial_learning_rate, power=power)
        _check_positive("WarmUp", warmup_steps=warmup_steps)
        if not callable(decay_schedule_fn):
            raise TypeError(f"WarmUp: decay_schedule_fn must be callable. Received: {decay_schedule_fn!r}")
        self.initial_learning_rate, self.decay_schedule_fn = initial_learning_rate, decay_schedule_fn
        self.warmup_steps, self.power, self.name = warmup_steps, power, name

    def __call__(self, step):
        s = _step(step)
        if s < self.warmup_steps:
            return self.initial_learning_rate * (s / self.warmup_steps) ** self.power
        return float(self.decay_schedule_fn(s - self.warmup_steps))

    def get_config(self):
        fn = self.decay_schedule_fn
        if not isinstance(fn, LearningRateSchedule):
            raise TypeError("WarmUp.get_config needs decay_schedule_fn to be a LearningRateSchedule "
                            f"(a plain function cannot be saved). Received: {fn!r}")
        return {"initial_learning_rate": self.initial_learning_rate, "decay_schedule_fn": serialize(fn),
                "warmup_steps": self.warmup_steps, "power": self.power, "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if isinstance(config.get("decay_schedule_fn"), dict):
            config["decay_schedule_fn"] = deserialize(config["decay_schedule_fn"], custom_objects)
        return cls(**config)
