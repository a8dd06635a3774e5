"""``LossScaleOptimizer``: dynamic loss scaling around another optimizer (mixed precision).

float16 gradients underflow to zero when they are small: the loss is multiplied by a large
scale before differentiating and the gradients are divided by it before they are applied.
The scale adapts (Keras 3's and TF 2's dynamic loss scaling):

* a step whose gradients hold a NaN or Inf is skipped -- the inner optimizer does not
  change at all: no variable, slot or ``iterations`` -- and the scale is halved;
* after ``dynamic_growth_steps`` consecutive steps with finite gradients the scale doubles.

Both spellings of a custom training loop work:

* Keras 3: ``scaled = opt.scale_loss(loss)``; gradients of ``scaled``;
  ``opt.apply_gradients(zip(grads, vars))`` (or ``opt.apply(grads, vars)``) divides them by
  the scale itself.
* TF 2: ``scaled = opt.get_scaled_loss(loss)``; ``grads = opt.get_unscaled_gradients(
  scaled_grads)``; ``opt.apply_gradients(zip(grads, vars))``. Gradients that came out of
  :meth:`LossScaleOptimizer.get_unscaled_gradients` are recognised and not divided again.

An update is all or nothing: the inner optimizer's ``prepare`` checks everything before its
``commit`` writes, and the scale and its counter change only after that.
"""

from __future__ import annotations

import math

import numpy as np

from ..framework.indexed_slices import IndexedSlices
from ..framework.tape import GradientTape
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable, no_name_scope, unique_name
from ..ops import math_ops
from . import bound
from .by_name import optimizer_class
from .optimizer import Optimizer
from .template import UpdateTemplate
from .update_plan import pairs_of

__all__ = ["LossScaleOptimizer"]


#: the arguments every optimizer takes, at their defaults (accepted, as Keras 3, when a config repeats them)
_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None, "use_ema": False,
                  "ema_momentum": 0.99, "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None}


class LossScaleOptimizer(UpdateTemplate):
    """Dynamic loss scaling around ``inner_optimizer`` (Keras 3's ``LossScaleOptimizer``).

    Args:
        inner_optimizer: the :class:`~descend.optimizers.Optimizer` that applies the unscaled gradients.
        initial_scale: the first loss scale (a positive finite number; default ``2**15``).
        dynamic_growth_steps: double the scale after this many consecutive finite steps (an integer >= 1).
        name: the name of its two state variables' prefix (default ``"loss_scale_optimizer"``, made unique:
            ``loss_scale_optimizer_1``... as Keras).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.optimizers.LossScaleOptimizer(ds.optimizers.SGD(0.5), initial_scale=8.0,
        ...                                        dynamic_growth_steps=2)
        >>> with ds.GradientTape() as tape:
        ...     scaled = opt.scale_loss(ds.reduce_sum(w * w))
        >>> _ = opt.apply_gradients(zip(tape.gradient(scaled, [w]), [w]))  # gradient 16 / 8 = 2
        >>> w.numpy(), float(opt.dynamic_scale)
        (array([0.], dtype=float32), 8.0)
        >>> _ = opt.apply_gradients([(ds.constant([float("inf")]), w)])  # skipped; the scale halves
        >>> w.numpy(), float(opt.dynamic_scale), int(opt.iterations)
        (array([0.], dtype=float32), 4.0, 1)
    """

    def __init__(self, inner_optimizer, initial_scale=2.0 ** 15, dynamic_growth_steps=2000, name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, set "
                             "`loss_scale_factor` directly on the `inner_optimizer` (a fixed scale).")
        # an optimizer's own arguments at their defaults come back in older Keras configs of the wrapper
        for arg, default in _BASE_DEFAULTS.items():
            if arg in kwargs:
                if kwargs.pop(arg) != default:
                    raise ValueError(f"LossScaleOptimizer does not support `{arg}`. Instead, set `{arg}` on the "
                                     "`inner_optimizer`.")
        if kwargs:
            raise ValueError(f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs)}`. Set them on "
                             "the `inner_optimizer`")
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError("`inner_optimizer` must be a descend.optimizers.Optimizer. "
                            f"Received: inner_optimizer={type(inner_optimizer).__name__}")
        if isinstance(initial_scale, bool) or not isinstance(initial_scale, (int, float, np.integer, np.floating)) \
                or not (math.isfinite(initial_scale) and initial_scale > 0):
            raise ValueError(f"`initial_scale` must be a positive finite number. Received: initial_scale={initial_scale!r}")
        if isinstance(dynamic_growth_steps, bool) or not isinstance(dynamic_growth_steps, (int, np.integer)) \
                or dynamic_growth_steps < 1:
            raise ValueError("`dynamic_growth_steps` must be an integer >= 1. "
                             f"Received: dynamic_growth_steps={dynamic_growth_steps!r}")
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError(f"`name` must be a non-empty string. Received: name={name!r}")
        self.inner_optimizer = inner_optimizer
        inner_optimizer.loss_scale_factor = None  # as Keras 3: the wrapper's dynamic scale replaces it (not twice)
        self.initial_scale = float(initial_scale)
        self.dynamic_growth_steps = int(dynamic_growth_steps)
        self.name = name or unique_name("loss_scale_optimizer")  # made unique as Keras: _1, _2...
        with no_name_scope():
            self.step_counter = Variable(np.int64(0), name=f"{self.name}/step_counter", trainable=False)
            self.dynamic_scale = Variable(np.float32(self.initial_scale), name=f"{self.name}/dynamic_scale",
                                          trainable=False)
        self._unscaled: list = []  # gradients get_unscaled_gradients returned since the last update

    # ------------------------------------------------------------------ facts
    dynamic = True

    @property
    def loss_scale(self) -> Tensor:
        """TF 2's name: the current scale (a float32 scalar)."""
        return self.dynamic_scale.read_value()

    @property
    def iterations(self) -> Variable:
        """The inner optimizer's update count (a skipped step does not count)."""
        return self.inner_optimizer.iterations

    @property
    def learning_rate(self):
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self.inner_optimizer.learning_rate = value

    lr = learning_rate

    def current_hyper(self, name: str) -> float:
        """The inner optimizer's value of ``name`` in its most recent update (for logs and plots)."""
        return self.inner_optimizer.current_hyper(name)

    def flush(self) -> None:
        """Bring every row the inner optimizer updates lazily up to date (``sparse_updates="exact_lazy"``)."""
        self.inner_optimizer.flush()

    @property
    def variables(self) -> list:
        """``step_counter``, ``dynamic_scale``, then the inner optimizer's variables."""
        return [self.step_counter, self.dynamic_scale, *self.inner_optimizer.variables]

    # ------------------------------------------------------------------ scaling
    def scale_loss(self, loss):
        """Keras 3: ``loss * scale``. A float16 loss is first cast to float32 (Keras 3 promotes it), so a
        large scale cannot overflow it."""
        loss = convert_to_tensor(loss)
        if loss.dtype.kind == "f" and loss.dtype.itemsize < 4:
            loss = math_ops.cast(loss, "float32")
        return math_ops.multiply(loss, math_ops.cast(self.dynamic_scale, loss.dtype))

    def get_scaled_loss(self, loss):
        """TF 2: ``loss * scale`` in the loss's dtype (a callable loss is called first)."""
        if callable(loss):
            loss = loss()
        loss = convert_to_tensor(loss)
        return math_ops.multiply(loss, math_ops.cast(self.dynamic_scale, loss.dtype))

    def get_unscaled_gradients(self, grads):
        """TF 2: each gradient times ``1 / scale`` in its own dtype (``None`` stays ``None``). Passing the
        result to :meth:`apply_gradients` applies it as is."""
        out = [None if g is None else _multiply(g, 1.0 / float(self.dynamic_scale.numpy())) for g in grads]
        self._unscaled.extend(g for g in out if g is not None)
        return out

    # ------------------------------------------------------------------ the update
    @property
    def call_arguments(self) -> tuple:
        """The inner optimizer's (``apply_gradients`` passes them to its ``prepare``)."""
        return self.inner_optimizer.call_arguments

    def bind(self, variables) -> _ScaledBound:
        """The bound plan of an update of ``variables``: the gradients divided by the scale (unless they came from
        :meth:`get_unscaled_gradients`), then the inner optimizer's bound plan; or, when one is not finite, a
        skipped step that halves the scale. ``apply_gradients`` returns the inner optimizer's ``iterations``."""
        return bound.bind(self, variables, _ScaledBound)

    def _variables_to_apply(self) -> list:
        return self.inner_optimizer.state.tracked()

    def _unscale(self, grads: list, variables: list):
        """The gradients to apply, or None when one is not finite (then the step is skipped: :meth:`_halve`).
        Under a distribution strategy the replicas decide together: a non-finite gradient on any of them skips
        the step on all (one integer all-reduced). Changes nothing but the record of unscaled gradients."""
        given = [g for g in grads if g is not None]
        mine = [any(g is u for u in self._unscaled) for g in given]
        if any(mine) and not all(mine):
            raise ValueError("apply_gradients: some gradients came from get_unscaled_gradients and some did not; "
                             "pass all of them scaled (Keras 3) or all unscaled (TF 2)")
        self._unscaled = []
        found = not all(_finite(g) for g in given)
        aggregation = self.inner_optimizer.aggregation_for([v for v in variables if isinstance(v, Variable)])
        if aggregation is not None:  # the replicas decide together
            found = aggregation.any(self.inner_optimizer, list(zip(grads, variables)), found)
        if found:
            return None
        if given and all(mine):
            return grads
        scale = float(self.dynamic_scale.numpy())
        return [None if g is None else _divide(g, scale) for g in grads]

    def _halve(self) -> None:
        """After a step skipped for a non-finite gradient: the scale halves and its counter restarts."""
        self.step_counter.assign(0)
        self.dynamic_scale.assign(self.dynamic_scale.numpy() * np.float32(0.5))

    def _grow(self) -> None:
        """After a finite step: double the scale every ``dynamic_growth_steps`` of them."""
        if int(self.step_counter.numpy()) == self.dynamic_growth_steps - 1:
            self.step_counter.assign(0)
            self.dynamic_scale.assign(self.dynamic_scale.numpy() * np.float32(2.0))
        else:
            self.step_counter.assign_add(1)

    def minimize(self, loss, var_list, tape: GradientTape | None = None):
        """Scale ``loss`` (a zero-argument callable), differentiate, unscale and apply."""
        if not callable(loss):
            raise ValueError("LossScaleOptimizer.minimize: `loss` must be a zero-argument callable, so that it "
                             "can be scaled before it is differentiated")
        var_list = list(var_list() if callable(var_list) else var_list)
        with GradientTape() as t:
            t.watch(var_list)
            scaled = self.scale_loss(loss())
        self.apply_gradients(zip(t.gradient(scaled, var_list), var_list))
        return self.iterations

    def build(self, var_list) -> None:
        """Create the inner optimizer's state of ``var_list`` now (Keras 3)."""
        self.inner_optimizer.build(var_list)

    @property
    def built(self) -> bool:
        """Whether the inner optimizer has built some state."""
        return self.inner_optimizer.built

    def finalize_variable_values(self, var_list) -> None:
        self.inner_optimizer.finalize_variable_values(var_list)

    # ------------------------------------------------------------------ config and state
    def get_config(self) -> dict:
        return {"name": self.name,
                "inner_optimizer": {"class_name": type(self.inner_optimizer).__name__,
                                    "config": self.inner_optimizer.get_config()},
                "initial_scale": self.initial_scale, "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        config = dict(config)
        inner = config.pop("inner_optimizer")
        if isinstance(inner, dict):  # a user's class, else a built-in one by name (the registry's)
            name = inner.get("class_name")
            inner_cls = (custom_objects or {}).get(name) or optimizer_class(name, (Optimizer, cls))
            inner = inner_cls.from_config(inner.get("config", {}))
        elif isinstance(inner, str):
            inner = optimizer_class(inner)()
        return cls(inner, **config)

    def state_dict(self, var_key=None) -> dict:
        """The inner optimizer's state plus ``loss_scale:dynamic_scale`` and ``loss_scale:step_counter``."""
        out = self.inner_optimizer.state_dict(var_key)
        out["loss_scale:dynamic_scale"] = self.dynamic_scale.numpy()
        out["loss_scale:step_counter"] = self.step_counter.numpy()
        return out

    def restore_plan(self, state: dict, var_key=None, *, strict: bool = True) -> _ScaleRestore:
        """Check :meth:`state_dict` output against this optimizer and change nothing: ``ValueError`` listing
        every problem, or a plan whose ``commit()`` writes the inner optimizer's state and the scale."""
        state = dict(state)
        scale = state.pop("loss_scale:dynamic_scale", None)
        counter = state.pop("loss_scale:step_counter", None)
        problems = []
        if scale is None or counter is None:
            if strict:
                problems.append("missing: loss_scale:dynamic_scale and loss_scale:step_counter")
            scale = counter = None
        else:
            scale, counter = np.asarray(scale), np.asarray(counter)
            if scale.shape != () or scale.dtype.kind != "f" or not (np.isfinite(scale) and scale > 0):
                problems.append(f"loss_scale:dynamic_scale must be a positive finite scalar, received {scale!r}")
            if counter.shape != () or counter.dtype.kind not in "iu" or counter < 0:
                problems.append(f"loss_scale:step_counter must be a non-negative integer scalar, received {counter!r}")
        if problems:
            raise ValueError(f"the state does not match LossScaleOptimizer '{self.name}': {'; '.join(problems)}")
        inner = self.inner_optimizer.restore_plan(state, var_key, strict=strict)  # raises before any write
        return _ScaleRestore(self, inner, scale, counter)

    def load_state_dict(self, state: dict, var_key=None, *, strict: bool = True) -> None:
        """Restore :meth:`state_dict` output: all of it, or nothing and an error."""
        self.restore_plan(state, var_key, strict=strict).commit()

    def pending_state(self) -> list[str]:
        """Keys of restored inner state still waiting for variables to be created."""
        return self.inner_optimizer.pending_state()

    def assert_state_consumed(self) -> None:
        self.inner_optimizer.assert_state_consumed()

    def __repr__(self):
        return (f"<LossScaleOptimizer '{self.name}' scale={float(self.dynamic_scale.numpy())} "
                f"inner={self.inner_optimizer!r}>")


class _ScaledBound:
    """An update of one list of variables by a :class:`LossScaleOptimizer`: the unscaled gradients through the
    inner optimizer's bound plan of the same variables."""

    __slots__ = ("_optimizer", "variables", "ids", "inner")

    def __init__(self, optimizer: LossScaleOptimizer, variables):
        self._optimizer, self.variables = bound.weak(optimizer), tuple(variables)
        self.ids = tuple(map(id, self.variables))
        self.inner = optimizer.inner_optimizer.bind(self.variables)

    @property
    def optimizer(self) -> LossScaleOptimizer:
        return bound.strong(self._optimizer)

    def prepare(self, grads_and_vars, *, buffers: bool = False, **call):
        """``(inner plan or None for a skipped step)``; changes nothing but the record of unscaled gradients."""
        pairs = []
        for g, v in pairs_of(grads_and_vars):
            pairs.append((g, v))
        variables = [v for _, v in pairs]
        grads = self.optimizer._unscale([g for g, _ in pairs], variables)
        if grads is None:
            return None
        return self.inner.prepare(list(zip(grads, variables)), **call)  # prepare may raise: no change

    def commit(self, plan) -> None:
        if plan is None:
            self.optimizer._halve()
            return
        self.inner.commit(plan)
        self.optimizer._grow()

    def apply(self, grads_and_vars, *, buffers: bool = False, **call):
        self.commit(self.prepare(grads_and_vars, buffers=buffers, **call))
        return self.optimizer.iterations


class _ScaleRestore:
    """A checked restore of a :class:`LossScaleOptimizer`: the inner optimizer's plan (its ``restored``,
    ``deferred``, ``missing``, ... lists) and the scale; ``commit()`` writes both and cannot fail."""

    def __init__(self, optimizer: LossScaleOptimizer, inner, scale, counter):
        self.optimizer, self.inner = optimizer, inner
        self._scale, self._counter = scale, counter

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def commit(self) -> None:
        if self.inner.committed:
            return
        self.inner.commit()
        if self._scale is not None:
            self.optimizer.dynamic_scale.assign(np.float32(self._scale))
            self.optimizer.step_counter.assign(np.int64(self._counter))

    __call__ = commit


def _finite(g) -> bool:
    v = g.values if isinstance(g, IndexedSlices) else g
    arr = v._value if isinstance(v, (Tensor, Variable)) else np.asarray(v)
    return arr.dtype.kind != "f" or bool(np.isfinite(arr).all())


def _multiply(g, factor: float):
    if isinstance(g, IndexedSlices):
        return IndexedSlices(_multiply(g.values, factor), g.indices, g.dense_shape)
    g = convert_to_tensor(g)
    return Tensor(g._value * g._value.dtype.type(factor))


def _divide(g, scale: float):
    if isinstance(g, IndexedSlices):
        return IndexedSlices(_divide(g.values, scale), g.indices, g.dense_shape)
    g = convert_to_tensor(g)
    return Tensor(g._value / g._value.dtype.type(scale))
