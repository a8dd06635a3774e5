"""The optimizer-case table: every optimizer descend ships, with the independent
NumPy reference it must match (tests/optimizer_reference.py) and how its slot
names map onto the reference's. Shared tests in test_optimizers.py and
test_accumulation.py run over every row; a coverage test fails when an
optimizer class is missing here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import optimizer_reference as R

import descend as ds
from descend.compat.v1 import train as v1

O = ds.optimizers


@dataclass
class OptCase:
    id: str
    cls: type
    kwargs: dict                     # descend constructor arguments
    ref: Callable                    # ref(var, grads) -> dict of final arrays (dense path)
    slots: dict                      # descend slot name -> reference key
    lazy_ref: Callable | None = None  # ref(var, [(indices, values)]) for the lazy sparse path
    conv_lr: tuple = (0.1, 0.01)     # learning rates that converge on (quadratic, Rosenbrock)
    conv_kwargs: dict = field(default_factory=dict)

    def make(self, **overrides):
        return self.cls(**{**self.kwargs, **overrides})


def _r(fn, **kw):
    return lambda var, grads: fn(var, grads, **kw)


ADAM_SLOTS = {"m": "momentum", "v": "velocity"}

CASES = [
    OptCase("sgd", O.SGD, dict(learning_rate=0.05), _r(R.sgd, learning_rate=0.05), {},
            lazy_ref=_r(R.sgd_sparse, learning_rate=0.05)),
    OptCase("sgd_momentum", O.SGD, dict(learning_rate=0.05, momentum=0.875),
            _r(R.sgd, learning_rate=0.05, momentum=0.875), {},
            lazy_ref=_r(R.sgd_sparse, learning_rate=0.05, momentum=0.875)),
    OptCase("sgd_nesterov", O.SGD, dict(learning_rate=0.05, momentum=0.875, nesterov=True),
            _r(R.sgd, learning_rate=0.05, momentum=0.875, nesterov=True), {}),
    OptCase("adam", O.Adam, dict(learning_rate=0.01, beta_1=0.875, beta_2=0.9375, epsilon=1e-6),
            _r(R.adam, learning_rate=0.01, beta_1=0.875, beta_2=0.9375, epsilon=1e-6), ADAM_SLOTS,
            lazy_ref=_r(R.adam_sparse, learning_rate=0.01, beta_1=0.875, beta_2=0.9375, epsilon=1e-6)),
    OptCase("adam_amsgrad", O.Adam, dict(learning_rate=0.01, amsgrad=True),
            _r(R.adam, learning_rate=0.01, amsgrad=True), ADAM_SLOTS,
            lazy_ref=_r(R.adam_sparse, learning_rate=0.01, amsgrad=True)),
    OptCase("adamw", O.AdamW, dict(learning_rate=0.01, weight_decay=0.125),
            _r(R.adamw, learning_rate=0.01, weight_decay=0.125), ADAM_SLOTS),
    OptCase("adagrad", O.Adagrad, dict(learning_rate=0.1, initial_accumulator_value=0.25),
            _r(R.adagrad, learning_rate=0.1, initial_accumulator_value=0.25), {"accumulator": "accumulator"},
            lazy_ref=_r(R.adagrad_sparse, learning_rate=0.1, initial_accumulator_value=0.25)),
    OptCase("rmsprop", O.RMSprop, dict(learning_rate=0.01, rho=0.875),
            _r(R.rmsprop, learning_rate=0.01, rho=0.875), {"velocity": "velocity"},
            lazy_ref=_r(R.rmsprop_sparse, learning_rate=0.01, rho=0.875)),
    OptCase("rmsprop_centered_momentum", O.RMSprop, dict(learning_rate=0.01, momentum=0.5, centered=True),
            _r(R.rmsprop, learning_rate=0.01, momentum=0.5, centered=True),
            {"velocity": "velocity", "momentum": "momentum", "average_gradient": "average_gradient"},
            lazy_ref=_r(R.rmsprop_sparse, learning_rate=0.01, momentum=0.5, centered=True)),
    OptCase("adadelta", O.Adadelta, dict(learning_rate=1.0, rho=0.875),
            _r(R.adadelta, learning_rate=1.0, rho=0.875),
            {"accumulated_grad": "accumulated_grad", "accumulated_delta_var": "accumulated_delta_var"}),
    OptCase("adamax", O.Adamax, dict(learning_rate=0.01), _r(R.adamax, learning_rate=0.01),
            {"momentum": "momentum", "norm": "norm"}),
    OptCase("nadam", O.Nadam, dict(learning_rate=0.01), _r(R.nadam, learning_rate=0.01),
            {"momentum": "momentum", "velocity": "velocity"}),
    OptCase("ftrl", O.Ftrl, dict(learning_rate=0.1, l1_regularization_strength=0.001,
                                 l2_regularization_strength=0.01, l2_shrinkage_regularization_strength=0.005,
                                 beta=0.25),
            _r(R.ftrl, learning_rate=0.1, l1_regularization_strength=0.001, l2_regularization_strength=0.01,
               l2_shrinkage_regularization_strength=0.005, beta=0.25),
            {"accumulator": "accumulator", "linear": "linear"},
            lazy_ref=_r(R.ftrl_sparse, learning_rate=0.1, l1_regularization_strength=0.001,
                        l2_regularization_strength=0.01, l2_shrinkage_regularization_strength=0.005, beta=0.25),
            conv_kwargs=dict(l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                             l2_shrinkage_regularization_strength=0.0, beta=0.0)),
    OptCase("lion", O.Lion, dict(learning_rate=0.001), _r(R.lion, learning_rate=0.001), {"momentum": "momentum"}),
    OptCase("schedule_free_adamw", O.ScheduleFreeAdamW, dict(learning_rate=0.01, warmup_steps=2),
            _r(R.schedule_free_adamw, learning_rate=0.01, warmup_steps=2), {"momentum": "momentum",
                                                                           "velocity": "velocity"}),
    OptCase("lamb", O.Lamb, dict(learning_rate=0.01), _r(R.lamb, learning_rate=0.01),
            {"momentum": "momentum", "velocity": "velocity"}),
    OptCase("adam_weight_decay", O.AdamWeightDecay,
            dict(learning_rate=0.01, weight_decay_rate=0.125, exclude_from_weight_decay=["bias"]),
            _r(R.adam_weight_decay, name="v", learning_rate=0.01, weight_decay_rate=0.125,
               exclude_from_weight_decay=["bias"]), {"m": "m", "v": "v"}),
    OptCase("adagrad_decay", O.AdagradDecay,
            dict(learning_rate=0.1, initial_accumulator_value=0.25, accumulator_decay_step=4,
                 accumulator_decay_rate=0.5),
            _r(R.adagrad_decay, learning_rate=0.1, initial_accumulator_value=0.25, accumulator_decay_step=4,
               accumulator_decay_rate=0.5), {"accumulator": "accumulator"},
            lazy_ref=_r(R.adagrad_decay_sparse, learning_rate=0.1, initial_accumulator_value=0.25,
                        accumulator_decay_step=4, accumulator_decay_rate=0.5)),
    OptCase("adafactor", O.Adafactor, dict(learning_rate=0.05, clip_threshold=2.0),
            _r(R.adafactor, learning_rate=0.05, clip_threshold=2.0), {"v": "velocity"}),
    OptCase("adafactor_no_relative_step", O.Adafactor, dict(learning_rate=0.5, relative_step=False,
                                                                 beta_2_decay=-0.5, epsilon_2=0.01),
            _r(R.adafactor, learning_rate=0.5, relative_step=False, beta_2_decay=-0.5, epsilon_2=0.01),
            {"v": "velocity"}),
    # TF1 conventions
    OptCase("gradient_descent_v1", v1.GradientDescentOptimizer, dict(learning_rate=0.05),
            _r(R.gradient_descent_v1, learning_rate=0.05), {}),
    OptCase("momentum_v1", v1.MomentumOptimizer, dict(learning_rate=0.05, momentum=0.875),
            _r(R.momentum_v1, learning_rate=0.05, momentum=0.875), {"momentum": "momentum"},
            lazy_ref=_r(R.momentum_v1_sparse, learning_rate=0.05, momentum=0.875)),
    OptCase("momentum_v1_nesterov", v1.MomentumOptimizer, dict(learning_rate=0.05, momentum=0.875, use_nesterov=True),
            _r(R.momentum_v1, learning_rate=0.05, momentum=0.875, use_nesterov=True), {"momentum": "momentum"},
            lazy_ref=_r(R.momentum_v1_sparse, learning_rate=0.05, momentum=0.875, use_nesterov=True)),
    OptCase("adagrad_v1", v1.AdagradOptimizer, dict(learning_rate=0.1), _r(R.adagrad_v1, learning_rate=0.1),
            {"accumulator": "accumulator"}, lazy_ref=_r(R.adagrad_v1_sparse, learning_rate=0.1)),
    OptCase("adam_v1", v1.AdamOptimizer, dict(learning_rate=0.01), _r(R.adam_v1, learning_rate=0.01),
            {"m": "m", "v": "v"}),
    OptCase("rmsprop_v1", v1.RMSPropOptimizer, dict(learning_rate=0.01, momentum=0.25),
            _r(R.rmsprop_v1, learning_rate=0.01, momentum=0.25), {"rms": "rms", "momentum": "momentum"},
            lazy_ref=_r(R.rmsprop_v1_sparse, learning_rate=0.01, momentum=0.25)),
    OptCase("rmsprop_v1_centered", v1.RMSPropOptimizer, dict(learning_rate=0.01, centered=True),
            _r(R.rmsprop_v1, learning_rate=0.01, centered=True), {"rms": "rms", "momentum": "momentum", "mg": "mg"},
            lazy_ref=_r(R.rmsprop_v1_sparse, learning_rate=0.01, centered=True)),
    OptCase("adagrad_decay_v1", v1.AdagradDecayOptimizer,
            dict(learning_rate=0.1, accumulator_decay_step=3, accumulator_decay_rate=0.5),
            _r(R.adagrad_decay, learning_rate=0.1, accumulator_decay_step=3, accumulator_decay_rate=0.5),
            {"accumulator": "accumulator"},
            lazy_ref=_r(R.adagrad_decay_sparse, learning_rate=0.1, accumulator_decay_step=3,
                        accumulator_decay_rate=0.5)),
    OptCase("ftrl_v1", v1.FtrlOptimizer, dict(learning_rate=0.25, l1_regularization_strength=0.0625,
                                              l2_regularization_strength=0.125,
                                              l2_shrinkage_regularization_strength=0.03125, beta=0.5),
            _r(R.ftrl_v1, **(_FTRL1 := dict(learning_rate=0.25, l1_regularization_strength=0.0625,
                                            l2_regularization_strength=0.125,
                                            l2_shrinkage_regularization_strength=0.03125, beta=0.5))),
            {"accum": "accum", "linear": "linear"}, lazy_ref=_r(R.ftrl_v1_sparse, **_FTRL1),
            conv_kwargs=dict(l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                             l2_shrinkage_regularization_strength=0.0, beta=0.0)),
    OptCase("ftrl_v1_power", v1.FtrlOptimizer, dict(learning_rate=0.25, learning_rate_power=-0.25,
                                                    initial_accumulator_value=0.5),
            _r(R.ftrl_v1, learning_rate=0.25, learning_rate_power=-0.25, initial_accumulator_value=0.5),
            {"accum": "accum", "linear": "linear"},
            lazy_ref=_r(R.ftrl_v1_sparse, learning_rate=0.25, learning_rate_power=-0.25, initial_accumulator_value=0.5)),
    OptCase("adadelta_v1", v1.AdadeltaOptimizer, dict(learning_rate=1.0, rho=0.875, epsilon=1e-6),
            _r(R.adadelta_v1, learning_rate=1.0, rho=0.875, epsilon=1e-6),
            {"accum": "accum", "accum_update": "accum_update"},
            lazy_ref=_r(R.adadelta_v1_sparse, learning_rate=1.0, rho=0.875, epsilon=1e-6)),
    OptCase("proximal_gradient_descent_v1", v1.ProximalGradientDescentOptimizer,
            dict(learning_rate=0.0625, l1_regularization_strength=0.125, l2_regularization_strength=0.25),
            _r(R.proximal_gradient_descent_v1, learning_rate=0.0625, l1_regularization_strength=0.125,
               l2_regularization_strength=0.25), {},
            lazy_ref=_r(R.proximal_gradient_descent_v1_sparse, learning_rate=0.0625, l1_regularization_strength=0.125,
                        l2_regularization_strength=0.25),
            conv_kwargs=dict(l1_regularization_strength=0.0, l2_regularization_strength=0.0)),
    OptCase("proximal_adagrad_v1", v1.ProximalAdagradOptimizer,
            dict(learning_rate=0.25, initial_accumulator_value=0.5, l1_regularization_strength=0.0625,
                 l2_regularization_strength=0.125),
            _r(R.proximal_adagrad_v1, learning_rate=0.25, initial_accumulator_value=0.5,
               l1_regularization_strength=0.0625, l2_regularization_strength=0.125), {"accumulator": "accumulator"},
            lazy_ref=_r(R.proximal_adagrad_v1_sparse, learning_rate=0.25, initial_accumulator_value=0.5,
                        l1_regularization_strength=0.0625, l2_regularization_strength=0.125),
            conv_kwargs=dict(l1_regularization_strength=0.0, l2_regularization_strength=0.0)),
    OptCase("adagrad_da_v1", v1.AdagradDAOptimizer,
            dict(learning_rate=0.5, l1_regularization_strength=0.015625, l2_regularization_strength=0.03125),
            _r(R.adagrad_da_v1, learning_rate=0.5, l1_regularization_strength=0.015625,
               l2_regularization_strength=0.03125),
            {"gradient_accumulator": "gradient_accumulator",
             "gradient_squared_accumulator": "gradient_squared_accumulator"},
            lazy_ref=_r(R.adagrad_da_v1_sparse, learning_rate=0.5, l1_regularization_strength=0.015625,
                        l2_regularization_strength=0.03125),
            conv_kwargs=dict(l1_regularization_strength=0.0, l2_regularization_strength=0.0)),
]

_CONV_LR = {'sgd': (0.03, 0.001),
            'sgd_momentum': (0.01, 0.001),
            'sgd_nesterov': (0.01, 0.001),
            'adam': (0.1, 0.01),
            'adam_amsgrad': (0.1, 0.1),
            'adamw': (0.3, 0.1),
            'adagrad': (1.0, 1.0),
            'rmsprop': (0.01, 0.003),
            'rmsprop_centered_momentum': (0.01, 0.003),
            'adadelta': (10.0, 0.3),
            'adamax': (0.3, 0.3),
            'nadam': (0.1, 0.03),
            'ftrl': (1.0, 1.0),
            'lion': (0.01, 0.001),
            'schedule_free_adamw': (0.1, 0.01),
            'lamb': (0.01, 0.01),
            'adam_weight_decay': (0.3, 0.1),
            'adagrad_decay': (0.1, 0.01),
            'adafactor': (0.3, 0.03),
            'adafactor_no_relative_step': (0.3, 0.03),
            'gradient_descent_v1': (0.03, 0.001),
            'momentum_v1': (0.01, 0.001),
            'momentum_v1_nesterov': (0.01, 0.001),
            'adagrad_v1': (1.0, 1.0),
            'adam_v1': (0.1, 0.03),
            'rmsprop_v1': (0.01, 0.003),
            'rmsprop_v1_centered': (0.01, 0.003),
            'adagrad_decay_v1': (0.1, 0.01),
            'ftrl_v1': (1.0, 1.0),
            'ftrl_v1_power': (1.0, 0.03),
            'adadelta_v1': (10.0, 0.3),
            'proximal_gradient_descent_v1': (0.03, 0.001),
            'proximal_adagrad_v1': (1.0, 1.0),
            'adagrad_da_v1': (1.0, 1.0)}
for _c in CASES:
    _c.conv_lr = _CONV_LR[_c.id]

BY_ID = {c.id: c for c in CASES}
