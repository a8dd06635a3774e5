"""The convention-case table: each optimizer option descend reproduces from PyTorch or optax, with the
reference's own constructor, and the runs that compare them.

Every case runs 25 steps of one fixed gradient sequence (steps 5, 6, 12 and 20 all zero) from the same
values, on a (3, 4) matrix and a (5,) vector (a case may name other shapes), in float64 and float32.
``tools/make_convention_goldens.py`` records the references' values after the steps in
``GOLDEN_STEPS`` into ``tests/data/convention_goldens.npz``, so that the comparison also runs where
PyTorch or optax is not installed; ``tests/test_conventions.py`` compares descend with those values
and, where the frameworks are installed, with live runs (which also check that the recorded values are
still what the frameworks give).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

import descend as ds

STEPS = 25
ZERO_STEPS = (4, 5, 11, 19)                # 0-based: all-zero gradients
GOLDEN_STEPS = (0, 4, 5, 6, 11, 12, 19, 24)  # 0-based steps whose values the golden file keeps
SHAPES = ((3, 4), (5,))
GOLDENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "convention_goldens.npz")
DTYPES = ("float64", "float32")


@dataclass
class ConvCase:
    id: str
    framework: str        # "torch" or "optax"
    cls: str              # descend.optimizers class name
    kwargs: dict          # descend arguments (convention= added)
    reference: str        # torch.optim class name, or optax function name
    ref_kwargs: dict      # its arguments
    shapes: tuple = SHAPES
    float32_family: bool = field(default=False)  # Adam, AdamW, SGD: the float32 agreement the issue states

    def make(self, **overrides):
        return getattr(ds.optimizers, self.cls)(**{**self.kwargs, "convention": self.framework, **overrides})


def _t(id, cls, kwargs, ref, ref_kwargs, **kw):
    return ConvCase(f"torch-{id}", "torch", cls, kwargs, ref, ref_kwargs, **kw)


def _o(id, cls, kwargs, ref, ref_kwargs, **kw):
    return ConvCase(f"optax-{id}", "optax", cls, kwargs, ref, ref_kwargs, **kw)


_F32 = dict(float32_family=True)

CASES = [
    # ---------------------------------------------------------------- PyTorch
    _t("adam", "Adam", {}, "Adam", {}, **_F32),
    _t("adam-lr-wd", "Adam", dict(learning_rate=0.01, weight_decay=0.1, beta_1=0.8), "Adam",
       dict(lr=0.01, weight_decay=0.1, betas=(0.8, 0.999)), **_F32),
    _t("adam-amsgrad", "Adam", dict(learning_rate=0.01, amsgrad=True), "Adam", dict(lr=0.01, amsgrad=True), **_F32),
    _t("adamw", "AdamW", dict(learning_rate=0.01), "AdamW", dict(lr=0.01), **_F32),
    _t("adamw-amsgrad", "AdamW", dict(learning_rate=0.01, amsgrad=True, weight_decay=0.05), "AdamW",
       dict(lr=0.01, amsgrad=True, weight_decay=0.05), **_F32),
    _t("sgd", "SGD", dict(learning_rate=0.05), "SGD", dict(lr=0.05), **_F32),
    _t("sgd-defaults", "SGD", {}, "SGD", {}, **_F32),
    _t("sgd-wd", "SGD", dict(learning_rate=0.05, weight_decay=0.1), "SGD", dict(lr=0.05, weight_decay=0.1), **_F32),
    _t("sgd-momentum", "SGD", dict(learning_rate=0.05, momentum=0.9), "SGD", dict(lr=0.05, momentum=0.9), **_F32),
    _t("sgd-nesterov", "SGD", dict(learning_rate=0.05, momentum=0.9, nesterov=True), "SGD",
       dict(lr=0.05, momentum=0.9, nesterov=True), **_F32),
    _t("sgd-dampening", "SGD", dict(learning_rate=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01), "SGD",
       dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01), **_F32),
    _t("rmsprop", "RMSprop", {}, "RMSprop", {}),
    _t("rmsprop-momentum", "RMSprop", dict(momentum=0.5), "RMSprop", dict(momentum=0.5)),
    _t("rmsprop-centered", "RMSprop", dict(centered=True, weight_decay=0.01), "RMSprop",
       dict(centered=True, weight_decay=0.01)),
    _t("rmsprop-centered-momentum", "RMSprop", dict(centered=True, momentum=0.5, rho=0.9), "RMSprop",
       dict(centered=True, momentum=0.5, alpha=0.9)),
    _t("adagrad", "Adagrad", {}, "Adagrad", {}),
    _t("adagrad-options", "Adagrad", dict(lr_decay=0.05, initial_accumulator_value=0.2, weight_decay=0.01,
                                          epsilon=1e-6), "Adagrad",
       dict(lr_decay=0.05, initial_accumulator_value=0.2, weight_decay=0.01, eps=1e-6)),
    _t("adadelta", "Adadelta", {}, "Adadelta", {}),
    _t("adadelta-wd", "Adadelta", dict(learning_rate=0.5, rho=0.95, weight_decay=0.1), "Adadelta",
       dict(lr=0.5, rho=0.95, weight_decay=0.1)),
    _t("adamax", "Adamax", {}, "Adamax", {}),
    _t("adamax-wd", "Adamax", dict(weight_decay=0.1), "Adamax", dict(weight_decay=0.1)),
    _t("nadam", "Nadam", {}, "NAdam", {}),
    _t("nadam-options", "Nadam", dict(momentum_decay=0.01, weight_decay=0.1), "NAdam",
       dict(momentum_decay=0.01, weight_decay=0.1)),
    _t("adafactor", "Adafactor", {}, "Adafactor", {}, shapes=((3, 4), (5,), (2, 3, 4))),
    _t("adafactor-options", "Adafactor", dict(learning_rate=0.05, epsilon_1=1e-10, epsilon_2=0.01,
                                              clip_threshold=2.0, beta_2_decay=-0.5), "Adafactor",
       dict(lr=0.05, eps=(1e-10, 0.01), d=2.0, beta2_decay=-0.5)),
    # ---------------------------------------------------------------- optax
    _o("adam", "Adam", dict(learning_rate=0.01), "adam", dict(learning_rate=0.01), **_F32),
    _o("adam-eps-root", "Adam", dict(learning_rate=0.01, eps_root=1e-6, beta_2=0.99), "adam",
       dict(learning_rate=0.01, eps_root=1e-6, b2=0.99), **_F32),
    _o("amsgrad", "Adam", dict(learning_rate=0.01, amsgrad=True), "amsgrad", dict(learning_rate=0.01), **_F32),
    _o("adamw", "AdamW", dict(learning_rate=0.01), "adamw", dict(learning_rate=0.01), **_F32),
    _o("adamw-wd", "AdamW", dict(learning_rate=0.01, weight_decay=0.1), "adamw",
       dict(learning_rate=0.01, weight_decay=0.1), **_F32),
    _o("sgd", "SGD", dict(learning_rate=0.05), "sgd", dict(learning_rate=0.05), **_F32),
    _o("sgd-momentum", "SGD", dict(learning_rate=0.05, momentum=0.9), "sgd",
       dict(learning_rate=0.05, momentum=0.9), **_F32),
    _o("sgd-nesterov", "SGD", dict(learning_rate=0.05, momentum=0.9, nesterov=True), "sgd",
       dict(learning_rate=0.05, momentum=0.9, nesterov=True), **_F32),
    _o("rmsprop", "RMSprop", dict(learning_rate=0.01), "rmsprop", dict(learning_rate=0.01)),
    _o("rmsprop-centered-momentum", "RMSprop", dict(learning_rate=0.01, centered=True, momentum=0.5), "rmsprop",
       dict(learning_rate=0.01, centered=True, momentum=0.5)),
    _o("adagrad", "Adagrad", dict(learning_rate=0.1), "adagrad", dict(learning_rate=0.1)),
    _o("adadelta", "Adadelta", dict(learning_rate=0.5), "adadelta", dict(learning_rate=0.5)),
    _o("adadelta-wd", "Adadelta", dict(learning_rate=0.5, weight_decay=0.1), "adadelta",
       dict(learning_rate=0.5, weight_decay=0.1)),
    _o("adamax", "Adamax", dict(learning_rate=0.01), "adamax", dict(learning_rate=0.01)),
    _o("nadam", "Nadam", dict(learning_rate=0.01), "nadam", dict(learning_rate=0.01)),
    _o("nadam-eps-root", "Nadam", dict(learning_rate=0.01, eps_root=1e-6), "nadam",
       dict(learning_rate=0.01, eps_root=1e-6)),
    _o("lion", "Lion", dict(learning_rate=0.01), "lion", dict(learning_rate=0.01)),
    _o("lion-wd", "Lion", dict(learning_rate=0.01, weight_decay=0.5), "lion", dict(learning_rate=0.01, weight_decay=0.5)),
    _o("adafactor", "Adafactor", dict(learning_rate=0.1), "adafactor", dict(learning_rate=0.1)),
    _o("adafactor-factored", "Adafactor", dict(min_dim_size_to_factor=2, clip_threshold=0.5), "adafactor",
       dict(min_dim_size_to_factor=2, clipping_threshold=0.5), shapes=((3, 4), (5,), (4, 2, 3))),
]


def gradients(shapes, dtype):
    """The fixed gradient sequence: one list of arrays per step (all zero at ``ZERO_STEPS``)."""
    rng = np.random.default_rng(0)
    out = []
    for k in range(STEPS):
        step = [rng.standard_normal(s) * (1 + k % 3) for s in shapes]
        out.append([np.zeros(s, dtype) if k in ZERO_STEPS else g.astype(dtype) for s, g in zip(shapes, step)])
    return out


def initial(shapes, dtype):
    rng = np.random.default_rng(1)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def run_descend(case: ConvCase, dtype: str, **overrides) -> list:
    """descend's values after every step: ``[step][variable] -> array``."""
    variables = [ds.Variable(x, name=f"v{k}") for k, x in enumerate(initial(case.shapes, dtype))]
    opt = case.make(**overrides)
    out = []
    for grads in gradients(case.shapes, dtype):
        opt.apply_gradients([(ds.constant(g), v) for g, v in zip(grads, variables)])
        out.append([v.numpy().copy() for v in variables])
    return out


def run_torch(case: ConvCase, dtype: str) -> list:
    import torch

    tdtype = getattr(torch, dtype)
    params = [torch.tensor(x, dtype=tdtype, requires_grad=True) for x in initial(case.shapes, dtype)]
    kwargs = dict(case.ref_kwargs)
    kwargs.setdefault("foreach", False)  # the per-tensor loop (the default on the CPU)
    opt = getattr(torch.optim, case.reference)(params, **kwargs)
    out = []
    for grads in gradients(case.shapes, dtype):
        for p, g in zip(params, grads):
            p.grad = torch.tensor(g, dtype=tdtype)
        opt.step()
        out.append([p.detach().numpy().copy() for p in params])
    return out


def run_optax(case: ConvCase, dtype: str) -> list:
    import jax

    jax.config.update("jax_enable_x64", True)  # float64 variables stay float64
    import jax.numpy as jnp
    import optax

    tx = getattr(optax, case.reference)(**case.ref_kwargs)
    params = [jnp.asarray(x) for x in initial(case.shapes, dtype)]
    state = tx.init(params)
    out = []
    for grads in gradients(case.shapes, dtype):
        updates, state = tx.update([jnp.asarray(g) for g in grads], state, params)
        params = optax.apply_updates(params, updates)
        out.append([np.asarray(p).copy() for p in params])
    return out


def run_reference(case: ConvCase, dtype: str) -> list:
    return (run_torch if case.framework == "torch" else run_optax)(case, dtype)


def golden_key(case: ConvCase, dtype: str, k: int) -> str:
    return f"{case.id}/{dtype}/{k}"


def load_goldens() -> dict:
    with np.load(GOLDENS, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def from_golden(goldens: dict, case: ConvCase, dtype: str) -> dict:
    """``{step: [arrays]}`` of the recorded steps."""
    per_var = [goldens[golden_key(case, dtype, k)] for k in range(len(case.shapes))]
    return {step: [a[i] for a in per_var] for i, step in enumerate(GOLDEN_STEPS)}


def disagreement(ours: list, theirs: dict, dtype: str) -> tuple[float, int | None]:
    """``(worst, first step out of tolerance or None)``. float64: each element's difference relative to its
    value (tolerance 1e-12), or to a thousandth of the variable's largest magnitude for an element smaller
    than that -- a value that cancels to near zero keeps the absolute rounding error of the terms it came
    from (one such element, -2.6e-6 in a variable of magnitude 0.73, differs by 9e-18: 3e-12 of itself);
    float32: the difference relative to the variable's largest magnitude (2e-6), for the same reason at
    float32's precision."""
    worst, first = 0.0, None
    tol = TOLERANCE[dtype]
    for step in sorted(theirs):
        for a, b in zip(ours[step], theirs[step]):
            a, b = a.astype(np.float64), np.asarray(b, np.float64)
            if dtype == "float64":
                floor = max(1e-3 * np.max(np.abs(b)), np.finfo(np.float64).tiny)
                err = float(np.max(np.abs(a - b) / np.maximum(np.abs(b), floor)))
            else:
                err = float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), np.finfo(np.float64).tiny))
            worst = max(worst, err)
            if err > tol and first is None:
                first = step
    return worst, first


TOLERANCE = {"float64": 1e-12, "float32": 2e-6}
