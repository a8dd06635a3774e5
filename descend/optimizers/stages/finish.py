"""Stage ``ema``: Keras 3's moving averages of the variables."""

from __future__ import annotations

from ..update_plan import Stage, UpdatePlan

__all__ = ["MovingAverage", "moving_average", "overwrite_with_averages"]


class MovingAverage(Stage):
    """Stage ``ema`` (with ``use_ema``): the moving average of every variable that has one or was updated
    now, and every ``ema_overwrite_frequency`` updates the averages copied into the variables."""

    name = "ema"

    def active(self, optimizer) -> bool:
        return optimizer.options.use_ema

    def commit(self, plan: UpdatePlan) -> None:
        opt = plan.optimizer
        state = opt.state
        fresh = []
        for var in plan.variables:
            if "average" not in state.slots[id(var)][1]:
                restored = state.pending_value(var, "average", var.shape, var._value.dtype)
                state.register_slot(var, "average", var._value.copy() if restored is None else restored)
                if restored is None:
                    fresh.append(var)
        pairs = [(var, slots["average"]) for var, slots in state.slots.values() if "average" in slots]
        moving_average(pairs, opt.ema_momentum, first=plan.step == 0, fresh={id(v) for v in fresh})
        if opt.ema_overwrite_frequency and (plan.step + 1) % opt.ema_overwrite_frequency == 0:
            overwrite_with_averages(state, [v for v, _ in pairs])


def moving_average(pairs, momentum: float, *, first: bool, fresh=frozenset()) -> None:
    """``average <- m * average + (1 - m) * var`` for each ``(var, average)``, in the variable's dtype (Keras
    3's arithmetic). ``m`` is 0 on the optimizer's first update (``first``) and for the averages created by
    this update (``id(var)`` in ``fresh``), else ``momentum``."""
    for var, average in pairs:
        value = var._value
        m = value.dtype.type(0.0 if first or id(var) in fresh else momentum)
        average._value[...] = m * average._value + (value.dtype.type(1) - m) * value
        average._mark_updated()


def overwrite_with_averages(state, var_list) -> None:
    """Copy each variable's moving average into it (those without one are left as they are)."""
    for var in var_list:
        entry = state.slots.get(id(var))
        if entry is not None and "average" in entry[1]:
            var._value[...] = entry[1]["average"]._value
            var._mark_updated()
