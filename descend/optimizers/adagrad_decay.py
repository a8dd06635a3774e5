"""AdagradDecay: Adagrad whose accumulator decays every ``accumulator_decay_step`` steps.

Follows DeepRec's ``AdagradDecayOptimizer``
(``tensorflow/python/training/adagrad_decay.py``, kernels ``ApplyAdagradDecay``
and ``SparseApplyAdagradDecay``). With ``gs = iterations + 1`` (DeepRec's
``global_step + 1``) and a per-element decay counter ``power`` (starts at 0)::

    if gs // accumulator_decay_step > power:          (at most one decay per update)
        acc <- max(acc * accumulator_decay_rate, initial_accumulator_value)
        power <- power + 1
    acc <- acc + g^2
    param <- param - lr * g / sqrt(acc)                (no epsilon)

The accumulator never falls below its starting value, so it stays bounded away
from zero and the step size does not vanish over months of incremental training.

DeepRec's arithmetic is TF 1's: ``convention="tf1"`` (``descend.compat.v1.train.AdagradDecayOptimizer``)
computes the same, and takes DeepRec's ``global_step`` argument: the Variable whose value (not
``iterations``) counts the decay periods.
"""

from __future__ import annotations

import numpy as np

from ..framework.variable import Variable
from .adagrad import _check_constant
from .convention import Convention
from .exact_lazy import REPLAY
from .optimizer import Optimizer
from .rule import Rule, Slot

__all__ = ["AdagradDecay", "TF1AdagradDecay", "adagrad_decay_update"]


def adagrad_decay_update(param, grad, accumulator, accumulator_decay_power, *, learning_rate,
                         accumulator_decay_rate, baseline, decay_count):
    # decay once when gs // decay_step (= decay_count) is ahead of this element's power:
    #   acc <- max(acc * rate, baseline) ; power <- power + 1
    decay = decay_count > accumulator_decay_power
    accumulator = np.where(decay, np.maximum(accumulator * accumulator_decay_rate, baseline), accumulator)
    accumulator_decay_power = np.where(decay, accumulator_decay_power + 1, accumulator_decay_power)
    # acc <- acc + g^2 ; param <- param - lr g / sqrt(acc)
    accumulator = accumulator + grad * grad
    return param - (grad * learning_rate) / np.sqrt(accumulator), accumulator, accumulator_decay_power


class TF1AdagradDecay(Convention):
    """DeepRec's ``tf.compat.v1.train.AdagradDecayOptimizer``: the same arithmetic, with the decay periods counted
    on ``global_step`` when it is given."""

    framework = "tf1"
    reference = "DeepRec's tf.compat.v1.train.AdagradDecayOptimizer"
    accepts = ("global_step",)

    def coefficients(self, step, hyper, dtype):
        if self.global_step is not None:  # gs = global_step + 1, read when the update is prepared
            step = int(self.global_step.numpy())
        return AdagradDecay.coefficients(self, step, hyper, dtype)


class AdagradDecay(Optimizer):
    """Adagrad with a periodically decayed, floored accumulator (DeepRec's ``AdagradDecayOptimizer``).

    Every ``accumulator_decay_step`` steps the accumulator is multiplied by
    ``accumulator_decay_rate`` but kept at least ``initial_accumulator_value``;
    then ``acc <- acc + g^2`` and ``var <- var - lr * g / sqrt(acc)``.
    Whether to decay is decided per element by comparing
    ``(iterations + 1) // accumulator_decay_step`` with the slot
    ``accumulator_decay_power`` (the number of decays applied so far), which
    then advances by one; an element that missed several decay periods catches
    up by one decay per update, as in DeepRec. The power slot has the
    variable's shape and dtype (exact for counts below 2**24 in float32).

    Sparse updates default to ``"lazy"``, DeepRec's sparse semantics: only the
    gradient's rows are decayed and updated, each with its own decay power, so
    an embedding row that is rarely seen keeps its accumulator until it is seen
    again. ``"exact"`` applies the dense rule with zero gradient rows
    elsewhere: at each period boundary it decays every row of the table
    (touching the whole table), which is what a dense gradient would do.

    Args:
        learning_rate: default 0.001 (DeepRec has no default).
        initial_accumulator_value: > 0, the accumulators' starting value and
            the floor of the decay; default 0.1.
        accumulator_decay_step: a positive integer, the decay period in steps;
            default 100000.
        accumulator_decay_rate: in (0, 1), default 0.9.
        global_step: ``convention="tf1"`` only: an integer Variable the training loop advances; the decay
            periods count ``global_step + 1`` instead of ``iterations + 1`` (None: ``iterations``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.optimizers.AdagradDecay(learning_rate=0.1, initial_accumulator_value=1.0)
        >>> _ = opt.apply_gradients([(ds.constant([3.0]), w)])
        >>> w.numpy()
        array([0.9051317], dtype=float32)
    """

    #: DeepRec's own (TF 1) optimizer, which counts the periods on its global step
    conventions = {"tf1": TF1AdagradDecay}

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, accumulator_decay_step=100000,
                 accumulator_decay_rate=0.9, global_step=None, **kwargs):
        if global_step is not None and not isinstance(global_step, Variable):
            raise TypeError(f"global_step must be a Variable or None. Received: {type(global_step).__name__}")
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.global_step = self.conventional("global_step", global_step)
        self.initial_accumulator_value = _check_constant("initial_accumulator_value", initial_accumulator_value,
                                                         low=0, low_open=True)
        step = accumulator_decay_step
        if isinstance(step, (float, np.floating)) and float(step).is_integer():
            step = int(step)
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 1:
            raise ValueError(f"`accumulator_decay_step` must be a positive integer. "
                             f"Received: accumulator_decay_step={accumulator_decay_step!r}")
        self.accumulator_decay_step = int(step)
        self.add_hyperparameter("accumulator_decay_rate", accumulator_decay_rate, low=0, high=1, low_open=True,
                                high_open=True)

    @property
    def slots(self):
        return (Slot("accumulator", self.initial_accumulator_value, nonnegative=True),
                Slot("accumulator_decay_power", nonnegative=True))

    #: sparse_updates="exact_lazy": no O(1) closed form; the skipped steps are replayed per row (bit for bit
    #: the exact run)
    catch_up = REPLAY

    update = Rule(adagrad_decay_update, sparse="lazy")  # DeepRec updates only the rows a batch reads

    def coefficients(self, step, hyper, dtype):
        t = dtype.type
        # DeepRec's kernels compute in the variable's dtype
        return {"learning_rate": t(hyper["learning_rate"]), "accumulator_decay_rate": t(hyper["accumulator_decay_rate"]),
                "baseline": t(self.initial_accumulator_value),
                "decay_count": t((step + 1) // self.accumulator_decay_step)}

    def get_config(self):
        return {**super().get_config(), "initial_accumulator_value": self.initial_accumulator_value,
                "accumulator_decay_step": self.accumulator_decay_step}
