"""Compare descend's optimizers with TensorFlow's, Keras 3's and Hugging Face's own implementations.

Run it where TensorFlow, Keras 3, tf_keras and transformers are installed, with
descend installed too (``pip install -e . --no-deps``)::

    python tools/compare_with_tensorflow.py            # the tables; exit status 1 on a mismatch
    python tools/compare_with_tensorflow.py -k adam    # only the runs whose id contains "adam"

Every optimizer descend ships is run for 10 steps next to its reference, on the
same two variables (shapes (6, 3) and (7,), named ``dense/kernel`` and
``dense/bias``) with the same random gradients, in float32 and in float64:

* ``keras/*``: ``descend.optimizers.X`` against ``keras.optimizers.X`` (Keras 3,
  TensorFlow backend), configured and with default constructor arguments;
* ``hf/*``: ``descend.optimizers.AdamWeightDecay`` against transformers' TF
  ``AdamWeightDecay`` (include/exclude regexes, ``clip_norm``);
* ``tf1/*``: ``descend.compat.v1.train.X`` against ``tf.compat.v1.train.X``
  (eager ``apply_gradients`` on resource variables); ``tf1/ftrl*`` runs
  ``descend.optimizers.Ftrl`` against ``tf.compat.v1.train.FtrlOptimizer``,
  the TF kernels (``ApplyFtrlV2``/``SparseApplyFtrlV2``) that Keras' Ftrl restates.

descend runs on its NumPy reference path and, when numba is installed, on its
fused kernels too (``--path`` picks one).

Sparse runs feed ``tf.IndexedSlices`` to TensorFlow and ``descend.IndexedSlices``
to descend, with descend's ``sparse_updates`` set to the mode TensorFlow's code
path corresponds to: Keras 3 turns an ``IndexedSlices`` into a dense gradient
(``"exact"``); TF1's Momentum, RMSProp, Adagrad, GradientDescent and Ftrl sparse
kernels are lazy (``"lazy"``); TF1's Adam and legacy Keras Adam (Hugging Face)
are exact.

After every step the variables and every slot are compared. Columns: the
largest absolute difference of the variables over the trajectory; that
difference divided by the largest single step TensorFlow took (``Δ/step``); the
largest slot difference relative to the slot's magnitude; in float32, the
largest distance in units in the last place (``|a - b| / np.spacing(max(|a|,
|b|))`` elementwise over variables and slots) and where it was. A float64 run
fails above 1e-12 (variables relative to the step, slots relative to their
size), a float32 run above 64 ulp. A second table checks that descend's
constructor defaults equal the reference's.

A float64 run whose reference rounds its constants to float32 (a documented
TensorFlow-side dtype limitation: TF rounds Python-float constants to float32
before casting them to float64) is held to a stated, wider bound instead, the one
in its case (``f64_tol``, a small factor above the difference measured with
TensorFlow 2.21 and Keras 3.15.1): it passes as ``ok[key]`` under it and fails
above it. Outside tolerance, a run is ``LIMIT`` rather than ``FAIL`` only when
TensorFlow itself raises for a dtype it does not support (nothing to compare), or
for a numerical-library difference (TF's ``pow``, TF's reduction order) that the script
verifies by re-running descend with that one TF function swapped in: the run is
``LIMIT`` only if it is then within tolerance. Footnotes name every known
formula-order difference behind a non-zero difference, with the TF and descend
expressions.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import os
import sys
import textwrap
import time
from dataclasses import dataclass, field

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import descend as ds  # noqa: E402
from descend.compat.v1 import train as v1  # noqa: E402

__all__ = ["Case", "Result", "Run", "cases", "check_defaults", "compare", "format_table", "main", "runs"]

N_STEPS = 10
SHAPES = ((6, 3), (7,))
NAMES = ("dense/kernel", "dense/bias")
F64_TOL = 1e-12   # float64: relative to the step size (variables) or to the slot's magnitude
F32_ULP = 64      # float32: units in the last place

O = ds.optimizers

# ---------------------------------------------------------------------------------------- explanations
LIMITS = {
    "keras-f32-cast": (
        "Keras 3 (TensorFlow backend) rounds Python-float constants through float32 before using them with "
        "float64 variables: `ops.cast(self.beta_1, variable.dtype)` is `tf.cast(0.9, tf.float64)`, which makes "
        "0.9 a float32 tensor first (0.8999999761581421); so do `initializers.Constant(initial_accumulator_value)` "
        "(Adagrad, Ftrl), `ops.cast(self.weight_decay, ...)` (AdamW) and Nadam's literal "
        "`ops.cast(0.96, var_dtype)` (keras/src/optimizers/nadam.py, update_step). Affected: the beta powers of "
        "Adam/AdamW/Adamax/Lamb, Nadam's betas and 0.96, Lion's betas, the accumulators' initial value, AdamW's "
        "decay. descend uses the float64 values. The configured float64 keras/* runs pass every float "
        "hyperparameter as np.float64, which tf.cast keeps in float64; the default-argument runs and Nadam's "
        "literal 0.96 cannot be (the float32 runs check the defaults; with descend's 0.96 rounded to float32 "
        "the keras/nadam float64 run matches exactly)."
    ),
    "keras-floatx": (
        "Keras 3 keeps a number `learning_rate` in a Variable of dtype keras.config.floatx() (float32 by "
        "default) and casts it to the variable's dtype, so float64 variables step with the float32 rounding "
        "of the learning rate (keras/src/optimizers/base_optimizer.py, `backend.Variable(learning_rate, "
        "dtype=backend.floatx())`). descend casts the Python float to float64. The float64 keras/* runs "
        "therefore set keras.config.set_floatx('float64'), as a float64 Keras model does; this row shows the "
        "size of the effect with floatx='float32'."
    ),
    "tf1-f32-constants": (
        "TF1 optimizers turn Python-float hyperparameters into float32 tensors (ops.convert_to_tensor) and "
        "cast them to the variable's dtype, and AdamOptimizer creates beta1_power/beta2_power as float32 "
        "variables (`initial_value=self._beta1`) that it multiplies in float32. With float64 variables, "
        "TF1's learning rate, betas, epsilon, decay and momentum are float32 roundings. descend's TF1 "
        "classes use the float64 values (and float64 beta powers when every variable is float64). The "
        "configured float64 tf1/* runs pass every float hyperparameter as a float64 tensor, which TF1 keeps "
        "in float64; these default-argument runs cannot (their float32 runs check the defaults)."
    ),
    "hf-f64": (
        "transformers' AdamWeightDecay extends legacy tf_keras Adam, whose hyperparameters are float32 "
        "Variables (OptimizerV2.add_weight defaults dtype to float32), and multiplies a float64 product by "
        "`tf.constant(self.weight_decay_rate)` (float32): float64 variables either fail with a dtype error "
        "(weight decay on) or step with float32-rounded hyperparameters (off)."
    ),
    "tf-pow": (
        "float32 `pow` is computed three ways: NumPy's np.power (SIMD, used by descend/optimizers/ftrl.py), "
        "Eigen's vectorized pow (tf.pow / keras.ops.power, TF's dense ApplyFtrl kernels when "
        "learning_rate_power != -0.5) and, in TF's sparse FTRL kernels, which evaluate rows element by element, "
        "a correctly rounded scalar pow. They differ in the last bit, and FTRL subtracts two nearly equal "
        "powers (`n_new^p - n^p`), which turns that into larger differences in `linear` and in the variable. "
        "Verified: with TF's pow swapped in for np.power in descend/optimizers/ftrl.py, the run is within "
        "tolerance (a run on the fused path also has to match descend's NumPy path computing pow as numba does, "
        "i.e. correctly rounded)."
    ),
    "tf-reduction": (
        "tf.clip_by_global_norm sums the squares with Eigen's reduction order (2 * l2_loss per tensor); "
        "NumPy's pairwise sum rounds differently, so the global norm (and the clip factor) can differ in the "
        "last bit, which Adam's m / sqrt(v) then amplifies. Verified: with TF's global norm swapped in for "
        "descend.ops.clip_ops.global_norm, the run is within tolerance."
    ),
}

# Known formula-order differences (algebraically equal, rounded differently). Each names the reference
# expression and descend's. They are flagged on the rows they affect; a run they push over tolerance fails.
DIAGNOSES = {
    "adamw-decay-order": (
        "Keras 3 decays with `variable.assign_sub(variable * wd * lr)` = var - (var*wd)*lr "
        "(keras/src/backend/tensorflow/optimizer.py, TFOptimizer._apply_weight_decay); descend computes "
        "var - var*(wd*lr) (descend/optimizers/base.py, Optimizer._apply_weight_decay: `scale = t(wd) * "
        "t(hyper['learning_rate'])`, `var._value -= var._value * scale`). Verified: var - (var*t(wd))*t(lr) "
        "matches exactly."
    ),
    "adam-sparse-order": (
        "TF1 AdamOptimizer._apply_sparse_shared and legacy tf_keras Adam._resource_apply_sparse (Hugging Face's "
        "base) compute m <- m*b1, then scatter_add(m, idx, g*(1-b1)); v <- v*b2, then scatter_add(v, idx, "
        "(g*g)*(1-b2)); var -= lr_t*m/(sqrt(v)+eps). descend's exact sparse path scatters the gradient into "
        "zeros and applies the dense rule m + (g - m)*(1-b1), v + (g*g - v)*(1-b2) (descend/optimizers/base.py "
        "Optimizer.apply_sparse -> descend/optimizers/adam.py adam_update; AdamOptimizer and AdamWeightDecay "
        "inherit it). Verified: the TF form matches TF1 and Hugging Face (with clip_norm, weight decay and "
        "duplicate indices) exactly."
    ),
    "tf1-rmsprop-dense-order": (
        "TF's ApplyRMSProp / ApplyCenteredRMSProp kernels (tensorflow/core/kernels/training_ops.cc): "
        "ms += (g*g - ms)*(1-rho); mg += (g - mg)*(1-rho); denom = (ms - mg*mg) + eps; "
        "mom = mom*momentum + (g*lr)/sqrt(denom). descend's RMSPropOptimizer reuses the Keras rule "
        "v = rho*v + (1-rho)*(g*g), a = rho*a + (1-rho)*g (descend/optimizers/rmsprop.py, "
        "rmsprop_momentum_update / centered_rmsprop_momentum_update). Verified: the kernel form matches exactly."
    ),
    "tf1-rmsprop-sparse-order": (
        "TF's SparseApplyRMSProp / SparseApplyCenteredRMSProp kernels compute ms = ms*rho + (g*g)*(1-rho), "
        "mg = mg*rho + g*(1-rho), denom = (ms + eps) - mg*mg and mom = mom*momentum + (rsqrt(denom)*lr)*g with "
        "rsqrt = 1/sqrt (a different order from the dense kernel). descend's lazy path applies the dense rule "
        "to the rows: (lr*g)/sqrt(v - a*a + eps). Verified: the kernel form with 1/np.sqrt matches exactly."
    ),
    "tf1-gd-duplicates": (
        "TF1 GradientDescentOptimizer._resource_apply_sparse_duplicate_indices scatter-adds -lr*g for every "
        "slice without summing duplicate indices first (var - lr*g1 - lr*g2); descend sums duplicates first "
        "(var - lr*(g1 + g2)). Verified: per-slice scatter-add matches exactly."
    ),
    "tf1-adagrad-rsqrt": (
        "TF's ApplyAdagrad kernel computes var -= (g*lr) * rsqrt(acc) with Eigen's vectorized rsqrt (not "
        "1/sqrt); descend computes (lr*g) / sqrt(acc + 0) (descend/optimizers/adagrad.py adagrad_update). "
        "Verified: (g*lr) * tf.math.rsqrt(acc) matches exactly; NumPy has no bit-identical rsqrt."
    ),
    "tf1-nesterov-sparse-order": (
        "TF's SparseApplyMomentum with use_nesterov computes var -= g*lr + accum*(momentum*lr); descend "
        "computes var - (g*lr + accum*momentum*lr) (descend/optimizers/sgd.py tf1_nesterov_update), as the "
        "dense ApplyMomentum kernel does. Verified: accum*(momentum*lr) matches exactly on the sparse rows."
    ),
    "tf1-ftrl-sparse-1d": (
        "TF's SparseApplyFtrl(V2) kernel takes a scalar path for variables with one column (inner_dim == 1): "
        "`sigma = (pow(a_new, -p) - pow(a, -p)) / lr; l = l + g - sigma * v` = (l + g) - sigma*v, with "
        "scalar std::pow; its 2-D path and the dense kernels compute l + (g - sigma*v). descend's lazy Ftrl "
        "applies the dense rule to the rows (descend/optimizers/ftrl.py ftrl_update: "
        "`linear + (grad_shrunk - sigma * param)`). Verified: (l + g) - sigma*v with a correctly rounded pow "
        "on the 1-D rows matches TF1's sparse FTRL exactly."
    ),
    "ftrl-pow": "See LIMIT [tf-pow]: TensorFlow's float32 pow differs from NumPy's in the last bit.",
    "clip-reduction": "See LIMIT [tf-reduction]: TF's global norm sums in a different order.",
}

NOTES = [
    "Keras 3 sparse runs use unique indices: Keras applies elementwise ops to the IndexedSlices' values "
    "before summing duplicates (e.g. Adagrad's `assign_add(accumulator, ops.square(gradient))` adds "
    "g1^2 + g2^2 for a repeated row, not (g1 + g2)^2), which is not the gradient of a gather; descend "
    "sums duplicates first, as TF1's optimizers and tf.convert_to_tensor(IndexedSlices) do. TF1 and "
    "Hugging Face sparse runs repeat one index every step.",
    "transformers 4.x's AdamWeightDecay.apply_gradients no longer takes `clip_norm`; the hf/* run with "
    "clip_norm applies `tf.clip_by_global_norm(grads, clip_norm)` to the TF gradients first, which is what "
    "its `apply_gradients(grads_and_vars, clip_norm)` did (and what descend's `clip_norm=` does).",
    "Configured float64 runs give TF every float hyperparameter (given or defaulted) as np.float64 (Keras) or "
    "a float64 tensor (TF1), and Keras floatx='float64', so that TF computes in float64 throughout.",
]


# ---------------------------------------------------------------------------------------- emulations
class _PowShim:
    """``numpy`` for descend/optimizers/ftrl.py, with the float32 ``pow`` TensorFlow's kernel uses."""

    def __init__(self, scalar: bool):
        self.scalar = scalar

    def __getattr__(self, name):
        return getattr(np, name)

    def power(self, a, b):
        a = np.asarray(a)
        if a.dtype != np.float32:
            return np.power(a, b)
        if self.scalar:  # TF's sparse kernels evaluate rows element by element: std::pow, correctly rounded
            return np.power(a.astype(np.float64), np.float64(b)).astype(np.float32)
        return tf.pow(tf.constant(a), tf.constant(np.asarray(b, a.dtype))).numpy()  # Eigen's vectorized pow


@contextlib.contextmanager
def _pow(scalar: bool):
    from descend.optimizers import ftrl  # Keras 3's and TF 1's (its "tf1" convention) FTRL

    saved = [(ftrl, ftrl.np)]
    for m, _ in saved:
        m.np = _PowShim(scalar=scalar)
    try:
        yield
    finally:
        for m, old in saved:
            m.np = old


def _emulate_tf_pow(run: Run):
    """descend's Ftrl with TF's float32 pow: Eigen's vectorized pow for Keras and TF1's dense kernel, the
    scalar (correctly rounded) pow for TF1's sparse kernel."""
    return _pow(scalar=run.case.family == "tf1" and run.sparse)


@contextlib.contextmanager
def _emulate_tf_reduction(run: Run):
    """descend's clip_by_global_norm with TensorFlow's global norm."""
    from descend.ops import clip_ops

    saved = clip_ops.global_norm

    def tf_global_norm(t_list):
        arrays = [(t.values if isinstance(t, ds.IndexedSlices) else t) for t in t_list if t is not None]
        return ds.Tensor(np.asarray(tf.linalg.global_norm([tf.constant(a.numpy()) for a in arrays]).numpy()))

    clip_ops.global_norm = tf_global_norm
    try:
        yield
    finally:
        clip_ops.global_norm = saved


EMULATIONS = {"tf-pow": _emulate_tf_pow, "tf-reduction": _emulate_tf_reduction}
# the same functions as descend's fused kernels compute them, swapped into descend's NumPy path: a fused run
# may claim a LIMIT only if it equals that within tolerance (numba's float32 pow is the scalar libm one)
FUSED_NUMERICS = {"tf-pow": lambda run: _pow(scalar=True), "tf-reduction": lambda run: contextlib.nullcontext()}


# ---------------------------------------------------------------------------------------- cases
# float hyperparameters that TF would round through float32 when given as Python floats; in the
# configured float64 runs every one of them (given or defaulted) is passed so that TF keeps it in float64
_KERAS_HYPER = ("learning_rate", "beta_1", "beta_2", "epsilon", "rho", "momentum", "weight_decay",
                "initial_accumulator_value", "learning_rate_power", "l1_regularization_strength",
                "l2_regularization_strength", "l2_shrinkage_regularization_strength", "beta")
_TF1_HYPER = ("learning_rate", "momentum", "beta1", "beta2", "epsilon", "decay", "rho", "learning_rate_power",
              "l1_regularization_strength", "l2_regularization_strength", "l2_shrinkage_regularization_strength",
              "beta")


@dataclass
class Case:
    """One optimizer configuration and its reference implementation."""

    id: str
    family: str                         # "keras", "hf" or "tf1"
    descend_cls: type
    tf_cls: type
    tf_kwargs: dict                     # the reference's constructor arguments (Python values)
    slots: tuple                        # ((descend slot name, TF slot key), ...)
    descend_kwargs: dict | None = None  # descend's constructor arguments when they differ from tf_kwargs
    sparse: str | None = None           # descend's sparse_updates for the sparse run; None: no sparse run
    duplicates: bool = False            # sparse gradients repeat an index
    clip_norm: float | None = None      # hf: clip the gradients to this global norm first
    defaults: bool = False              # a default-arguments case: only the required arguments are given
    f64_limit: str | None = None        # a LIMITS key that explains a float64 difference (no emulation)
    f64_tol: float | None = None        # with f64_limit: the float64 bound (as F64_TOL) the difference it explains
                                        # must stay under; None: TF raises in float64, or no difference to explain
    limits: tuple = ()                  # EMULATIONS keys that may explain a difference (verified by re-running)
    diagnoses: tuple = ()               # ((DIAGNOSES key, "dense"/"sparse"/"any"), ...) known formula orders
    floatx32: bool = False              # keras float64 run with floatx left at float32
    exclude_names: tuple = ()           # Keras 3 exclude_from_weight_decay(var_names=...)

    @property
    def reference(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.tf_kwargs.items())
        mod = {"keras": "keras.optimizers", "tf1": "tf.compat.v1.train", "hf": "transformers"}[self.family]
        ref = f"{mod}.{self.tf_cls.__name__}({args})"
        if self.exclude_names:
            ref += f".exclude_from_weight_decay(var_names={list(self.exclude_names)!r})"
        if self.clip_norm is not None:
            ref += f" after tf.clip_by_global_norm(grads, {self.clip_norm})"
        return ref

    def make_descend(self, sparse_updates: str | None):
        kw = dict(self.tf_kwargs if self.descend_kwargs is None else self.descend_kwargs)
        if sparse_updates is not None:
            kw["sparse_updates"] = sparse_updates
        opt = self.descend_cls(**kw)
        if self.exclude_names:
            opt.exclude_from_weight_decay(var_names=list(self.exclude_names))
        return opt

    def tf_arguments(self, dtype: np.dtype) -> dict:
        """The reference's arguments: as given in float32 runs (and default-argument cases); in float64,
        every float hyperparameter, given or defaulted, as a value TF keeps in float64."""
        kw = dict(self.tf_kwargs)
        if dtype == np.float32 or self.defaults or self.family == "hf":
            return kw
        names = _KERAS_HYPER if self.family == "keras" else _TF1_HYPER
        for k, p in inspect.signature(self.tf_cls.__init__).parameters.items():
            if k in names and k not in kw and isinstance(p.default, float):
                kw[k] = p.default
        for k, v in kw.items():
            if k in names and isinstance(v, float):
                # Keras: tf.cast(np.float64) stays float64; TF1: convert_to_tensor keeps a float64 tensor
                kw[k] = np.float64(v) if self.family == "keras" else tf.constant(v, dtype=tf.float64)
        return kw

    def make_tf(self, dtype: np.dtype):
        opt = self.tf_cls(**self.tf_arguments(dtype))
        if self.exclude_names:
            opt.exclude_from_weight_decay(var_names=list(self.exclude_names))
        return opt


def _keras_cases() -> list[Case]:
    import keras

    K = keras.optimizers
    out = []
    FTRL_DIAG = (("ftrl-pow", "any"),)

    def add(id_, name, slots, sparse=None, limits=(), diagnoses=(), f64_limit=None, f64_tol=None, **kw):
        out.append(Case(id_, "keras", getattr(O, name), getattr(K, name), kw, slots, sparse=sparse, limits=limits,
                        diagnoses=diagnoses, f64_limit=f64_limit, f64_tol=f64_tol))

    SGD_M = (("momentum", "momentums"),)
    ADAM = (("m", "_momentums"), ("v", "_velocities"))
    AMS = ADAM + (("v_hat", "_velocity_hats"),)
    ADAGRAD = (("accumulator", "_accumulators"),)
    RMS = (("velocity", "_velocities"),)
    RMS_CM = (("velocity", "_velocities"), ("momentum", "_momentums"), ("average_gradient", "_average_gradients"))
    ADADELTA = (("accumulated_grad", "_accumulated_grads"), ("accumulated_delta_var", "_accumulated_delta_vars"))
    ADAMAX = (("momentum", "_m"), ("norm", "_u"))
    NADAM = (("momentum", "_momentums"), ("velocity", "_velocities"))
    FTRL = (("accumulator", "_accumulators"), ("linear", "_linears"))
    LION = (("momentum", "_momentums"),)
    LAMB = (("momentum", "_momentums"), ("velocity", "_velocities"))
    ADAFACTOR = (("v", "_v"),)  # descend keeps r and c broadcast to the variable's shape; v is the same
    WD = (("adamw-decay-order", "any"),)

    add("keras/sgd", "SGD", (), "exact", learning_rate=0.05)
    add("keras/sgd_momentum", "SGD", SGD_M, "exact", learning_rate=0.05, momentum=0.85)
    add("keras/sgd_nesterov", "SGD", SGD_M, learning_rate=0.05, momentum=0.85, nesterov=True)
    add("keras/adam", "Adam", ADAM, "exact", learning_rate=0.01, beta_1=0.85, beta_2=0.95, epsilon=1e-6)
    add("keras/adam_amsgrad", "Adam", AMS, learning_rate=0.01, amsgrad=True)
    add("keras/adamw", "AdamW", ADAM, diagnoses=WD, learning_rate=0.01, weight_decay=0.1)
    out.append(Case("keras/adamw_exclude", "keras", O.AdamW, K.AdamW,
                    dict(learning_rate=0.01, weight_decay=0.1, amsgrad=True), AMS, exclude_names=("bias",),
                    diagnoses=WD))
    add("keras/adagrad", "Adagrad", ADAGRAD, "exact", learning_rate=0.1, initial_accumulator_value=0.2)
    add("keras/rmsprop", "RMSprop", RMS, "exact", learning_rate=0.01, rho=0.85)
    add("keras/rmsprop_centered_momentum", "RMSprop", RMS_CM, "exact", learning_rate=0.01, momentum=0.6,
        centered=True)
    add("keras/adadelta", "Adadelta", ADADELTA, learning_rate=1.0, rho=0.85)
    add("keras/adamax", "Adamax", ADAMAX, learning_rate=0.01)
    # Nadam's literal 0.96 (its momentum schedule) is float32-rounded in Keras: measured 1.6e-7 of the step
    add("keras/nadam", "Nadam", NADAM, f64_limit="keras-f32-cast", f64_tol=5e-7, learning_rate=0.01)
    add("keras/ftrl", "Ftrl", FTRL, "exact", limits=("tf-pow",), diagnoses=FTRL_DIAG, learning_rate=0.1,
        l1_regularization_strength=0.001, l2_regularization_strength=0.01, l2_shrinkage_regularization_strength=0.005,
        beta=0.3)
    add("keras/ftrl_power", "Ftrl", FTRL, limits=("tf-pow",), diagnoses=FTRL_DIAG, learning_rate=0.1,
        learning_rate_power=-0.25, initial_accumulator_value=0.5, l1_regularization_strength=0.05)
    add("keras/lion", "Lion", LION, learning_rate=0.01, beta_1=0.8, beta_2=0.95)
    add("keras/lamb", "Lamb", LAMB, learning_rate=0.01)
    SF = (("momentum", "_momentums"), ("velocity", "_velocities"))
    add("keras/schedule_free_adamw", "ScheduleFreeAdamW", SF, learning_rate=0.01, warmup_steps=3)
    add("keras/schedule_free_adamw_decay", "ScheduleFreeAdamW", SF, learning_rate=0.01, beta_1=0.8, beta_2=0.95,
        weight_decay=0.1)
    add("keras/adafactor", "Adafactor", ADAFACTOR, "exact", learning_rate=0.05, clip_threshold=2.0)
    add("keras/adafactor_no_relative_step", "Adafactor", ADAFACTOR, learning_rate=0.1, relative_step=False,
        beta_2_decay=-0.5, epsilon_2=0.01)
    # default constructor arguments; in float64, Keras uses the float32 roundings of the default betas,
    # accumulator values and decay ([keras-f32-cast]), so each is held to a bound a few times the difference
    # measured (TF 2.21, Keras 3.15.1; max over variables/step and slots/size). No bound: the defaults that
    # reach float64 unrounded (SGD's 0.01 learning rate only multiplies; RMSprop, Adadelta and Adafactor
    # measured within F64_TOL).
    f64_defaults = {
        "Adam": 1.5e-4,      # 5.3e-5: the beta powers of 0.9f/0.999f, amplified by 1/(1 - beta_2^t) at t = 1..10
        "AdamW": 1.5e-4,     # 5.3e-5: Adam's, and the float32 weight decay 0.004
        "Adagrad": 1e-8,     # 2.9e-9: initial_accumulator_value 0.1f
        "Adamax": 4e-6,      # 1.2e-6: beta_1 0.9f in the bias correction
        "Nadam": 4e-5,       # 1.3e-5 (slots): 0.96f and the betas 0.9f/0.999f
        "Ftrl": 2e-8,        # 5.4e-9: initial_accumulator_value 0.1f
        "Lion": 3e-6,        # 9.2e-7 (slots): beta_2 0.99f in the momentum
        "Lamb": 1e-10,       # 2.0e-11: the beta powers; the trust ratio normalizes most of it away
    }
    for name, slots in (("SGD", ()), ("Adam", ADAM), ("AdamW", ADAM), ("Adagrad", ADAGRAD), ("RMSprop", RMS),
                        ("Adadelta", ADADELTA), ("Adamax", ADAMAX), ("Nadam", NADAM), ("Ftrl", FTRL),
                        ("Lion", LION), ("Lamb", LAMB), ("Adafactor", ADAFACTOR)):
        out.append(Case(f"keras/{name.lower()}(defaults)", "keras", getattr(O, name), getattr(K, name), {},
                        slots, defaults=True, f64_limit="keras-f32-cast" if name in f64_defaults else None,
                        f64_tol=f64_defaults.get(name), limits=("tf-pow",) if name == "Ftrl" else (),
                        diagnoses=WD if name == "AdamW" else FTRL_DIAG if name == "Ftrl" else ()))
    # what float64 variables see when floatx stays float32
    # the learning rate 0.01f: measured 1.8e-7 of the step
    out.append(Case("keras/adam(floatx=float32)", "keras", O.Adam, K.Adam, dict(learning_rate=0.01), ADAM,
                    floatx32=True, f64_limit="keras-floatx", f64_tol=6e-7))
    return out


def _hf_cases() -> list[Case]:
    try:
        from transformers.optimization_tf import AdamWeightDecay as HF
    except ImportError as e:  # transformers (with tf_keras) is optional: say so instead of failing
        NOTES.append(f"hf/* runs skipped: transformers' TF AdamWeightDecay is not importable ({e}).")
        return []

    # float64: with weight decay on, transformers raises a dtype error (a skip: nothing to compare); the defaults
    # (no weight decay) step with float32-rounded hyperparameters, Adam's defaults as keras/adam(defaults), whose
    # bound this takes. Not measured against transformers here (it was not installed when the bounds were set).
    def case(id_, sparse=None, clip_norm=None, defaults=False, diagnoses=(), **kw):
        slots = (("m", "m"), ("v", "v")) + ((("v_hat", "vhat"),) if kw.get("amsgrad") else ())
        return Case(id_, "hf", O.AdamWeightDecay, HF, kw, slots, sparse=sparse, duplicates=True,
                    clip_norm=clip_norm, defaults=defaults, f64_limit="hf-f64", f64_tol=1.5e-4 if defaults else None,
                    limits=("tf-reduction",) if clip_norm else (), diagnoses=diagnoses)

    return [
        case("hf/adam_weight_decay", "exact", clip_norm=1.0,
             diagnoses=(("clip-reduction", "any"), ("adam-sparse-order", "sparse")),
             learning_rate=0.01, weight_decay_rate=0.1, exclude_from_weight_decay=["LayerNorm", "layer_norm", "bias"],
             epsilon=1e-8),
        case("hf/adam_weight_decay_include", learning_rate=0.01, weight_decay_rate=0.2, amsgrad=True,
             include_in_weight_decay=["bias"], exclude_from_weight_decay=["bias", "kernel"]),
        case("hf/adam_weight_decay(defaults)", defaults=True),
    ]


def _tf1_cases() -> list[Case]:
    T = tf.compat.v1.train

    def case(id_, tf_name, ds_cls, slots, sparse=None, defaults=False, descend_kwargs=None, limits=(),
             diagnoses=(), f64_tol=None, **kw):
        return Case(id_, "tf1", ds_cls, getattr(T, tf_name), kw, slots, descend_kwargs=descend_kwargs,
                    sparse=sparse, duplicates=True, defaults=defaults,
                    f64_limit="tf1-f32-constants" if defaults else None, f64_tol=f64_tol, limits=limits,
                    diagnoses=diagnoses)

    MOM = (("momentum", "momentum"),)
    ACC = (("accumulator", "accumulator"),)
    ADAM = (("m", "m"), ("v", "v"))
    RMS = (("rms", "rms"), ("momentum", "momentum"))
    RMS_C = RMS + (("mg", "mg"),)
    FTRL = (("accumulator", "accum"), ("linear", "linear"))
    FTRL_V1 = (("accum", "accum"), ("linear", "linear"))
    ADADELTA = (("accum", "accum"), ("accum_update", "accum_update"))
    ADA_DA = (("gradient_accumulator", "gradient_accumulator"),
              ("gradient_squared_accumulator", "gradient_squared_accumulator"))
    RMS_D = (("tf1-rmsprop-dense-order", "dense"), ("tf1-rmsprop-sparse-order", "sparse"))
    FTRL_D = (("ftrl-pow", "any"), ("tf1-ftrl-sparse-1d", "sparse"))
    ADA_D = (("tf1-adagrad-rsqrt", "any"),)
    ftrl_kw = dict(learning_rate=0.1, l1_regularization_strength=0.001, l2_regularization_strength=0.01,
                   l2_shrinkage_regularization_strength=0.005, beta=0.3)
    ftrl_p = dict(learning_rate=0.1, learning_rate_power=-0.25, initial_accumulator_value=0.5,
                  l1_regularization_strength=0.05)
    return [
        case("tf1/gradient_descent", "GradientDescentOptimizer", v1.GradientDescentOptimizer, (), "lazy",
             diagnoses=(("tf1-gd-duplicates", "sparse"),), learning_rate=0.05),
        case("tf1/momentum", "MomentumOptimizer", v1.MomentumOptimizer, MOM, "lazy", learning_rate=0.05,
             momentum=0.85),
        case("tf1/momentum_nesterov", "MomentumOptimizer", v1.MomentumOptimizer, MOM, "lazy",
             diagnoses=(("tf1-nesterov-sparse-order", "sparse"),), learning_rate=0.05, momentum=0.85,
             use_nesterov=True),
        case("tf1/adagrad", "AdagradOptimizer", v1.AdagradOptimizer, ACC, "lazy", diagnoses=ADA_D,
             learning_rate=0.1, initial_accumulator_value=0.2),
        case("tf1/adam", "AdamOptimizer", v1.AdamOptimizer, ADAM, "exact",
             diagnoses=(("adam-sparse-order", "sparse"),), learning_rate=0.01, beta1=0.85, beta2=0.95,
             epsilon=1e-6),
        case("tf1/rmsprop", "RMSPropOptimizer", v1.RMSPropOptimizer, RMS, "lazy", diagnoses=RMS_D,
             learning_rate=0.01, decay=0.85, momentum=0.3, epsilon=1e-6),
        case("tf1/rmsprop_centered", "RMSPropOptimizer", v1.RMSPropOptimizer, RMS_C, "lazy", diagnoses=RMS_D,
             learning_rate=0.01, momentum=0.6, centered=True),
        case("tf1/ftrl", "FtrlOptimizer", O.Ftrl, FTRL, "lazy", limits=("tf-pow",), diagnoses=FTRL_D, **ftrl_kw),
        case("tf1/ftrl_power", "FtrlOptimizer", O.Ftrl, FTRL, "lazy", limits=("tf-pow",), diagnoses=FTRL_D,
             **ftrl_p),
        case("tf1/ftrl_v1", "FtrlOptimizer", v1.FtrlOptimizer, FTRL_V1, "lazy", limits=("tf-pow",), **ftrl_kw),
        case("tf1/ftrl_v1_power", "FtrlOptimizer", v1.FtrlOptimizer, FTRL_V1, "lazy", limits=("tf-pow",), **ftrl_p),
        case("tf1/adadelta", "AdadeltaOptimizer", v1.AdadeltaOptimizer, ADADELTA, "lazy", learning_rate=1.0,
             rho=0.85, epsilon=1e-6),
        case("tf1/proximal_gradient_descent", "ProximalGradientDescentOptimizer", v1.ProximalGradientDescentOptimizer,
             (), "lazy", learning_rate=0.05, l1_regularization_strength=0.05, l2_regularization_strength=0.1),
        case("tf1/proximal_adagrad", "ProximalAdagradOptimizer", v1.ProximalAdagradOptimizer, ACC, "lazy",
             learning_rate=0.1, initial_accumulator_value=0.2, l1_regularization_strength=0.05,
             l2_regularization_strength=0.1),
        # TF 1 needs a global step; both sides get one fixed at 4 (T = 5 in the kernel)
        case("tf1/adagrad_da", "AdagradDAOptimizer", v1.AdagradDAOptimizer, ADA_DA, "lazy",
             descend_kwargs=dict(learning_rate=0.1, global_step=ds.Variable(np.int64(4), name="cwt_global_step",
                                                                            trainable=False),
                                 l1_regularization_strength=0.05, l2_regularization_strength=0.1),
             learning_rate=0.1, global_step=tf.Variable(4, dtype=tf.int64), l1_regularization_strength=0.05,
             l2_regularization_strength=0.1),
        # default constructor arguments (only the required ones given); in float64 TF1 uses their float32
        # roundings ([tf1-f32-constants]): each run is held to a bound a few times the difference measured
        # (TF 2.21; the figure in the comment). ProximalAdagrad has no bound: TF raises in float64.
        case("tf1/momentum(defaults)", "MomentumOptimizer", v1.MomentumOptimizer, MOM, defaults=True,
             learning_rate=0.05, momentum=0.9, f64_tol=1.5e-6),  # 4.0e-7: 0.05f and 0.9f
        case("tf1/adagrad(defaults)", "AdagradOptimizer", v1.AdagradOptimizer, ACC, defaults=True,
             diagnoses=ADA_D, learning_rate=0.1, f64_tol=2e-7),  # 5.8e-8: 0.1f
        case("tf1/adam(defaults)", "AdamOptimizer", v1.AdamOptimizer, ADAM, defaults=True,
             f64_tol=6e-5),  # 2.0e-5: float32 beta1_power/beta2_power multiplied in float32, epsilon 1e-8f
        case("tf1/rmsprop(defaults)", "RMSPropOptimizer", v1.RMSPropOptimizer, RMS, defaults=True, diagnoses=RMS_D,
             learning_rate=0.01, f64_tol=6e-7),  # 1.8e-7: 0.01f, decay 0.9f, epsilon 1e-10f
        case("tf1/ftrl(defaults)", "FtrlOptimizer", O.Ftrl, FTRL, defaults=True, limits=("tf-pow",),
             diagnoses=FTRL_D, learning_rate=0.1, f64_tol=6e-8),  # 1.7e-8 (slots): 0.1f, accumulator 0.1f
        case("tf1/ftrl_v1(defaults)", "FtrlOptimizer", v1.FtrlOptimizer, FTRL_V1, defaults=True, limits=("tf-pow",),
             learning_rate=0.1, f64_tol=6e-8),  # 1.7e-8 (slots): as tf1/ftrl(defaults)
        case("tf1/adadelta(defaults)", "AdadeltaOptimizer", v1.AdadeltaOptimizer, ADADELTA, defaults=True,
             f64_tol=1e-6),  # 2.8e-7: rho 0.95f, epsilon 1e-8f
        case("tf1/proximal_adagrad(defaults)", "ProximalAdagradOptimizer", v1.ProximalAdagradOptimizer, ACC,
             defaults=True, learning_rate=0.1),
    ]


_CASES: list[Case] | None = None


def cases() -> list[Case]:
    """Every optimizer configuration compared (built once)."""
    global _CASES
    if _CASES is None:
        _CASES = _keras_cases() + _hf_cases() + _tf1_cases()
    return _CASES


@dataclass(frozen=True)
class Run:
    """One case, in one dtype, with dense or sparse gradients, on one of descend's code paths."""

    case: Case
    dtype: str          # "float32" / "float64"
    sparse: bool
    path: str = "numpy"  # descend's NumPy reference path, or its fused numba kernels ("fused")

    @property
    def id(self) -> str:
        return (f"{self.case.id}-{self.dtype}-{'sparse' if self.sparse else 'dense'}"
                + ("-fused" if self.path == "fused" else ""))


def _fused_module():
    try:
        from descend.optimizers import fused
    except ImportError:  # a descend without fused kernels
        return None
    return fused


def descend_paths() -> list[str]:
    """descend's update paths available here: the NumPy path, and the fused kernels when numba is installed
    (and DESCEND_DISABLE_FUSED is not set)."""
    f = _fused_module()
    return ["numpy", "fused"] if f is not None and f.enabled() else ["numpy"]


@contextlib.contextmanager
def descend_path(path: str):
    """Run descend on ``path`` ("numpy" or "fused")."""
    f = _fused_module()
    if f is None:
        if path != "numpy":
            raise ValueError(f"this descend has no fused kernels (path {path!r})")
        yield
        return
    previous = f.set_enabled(path == "fused")
    try:
        yield
    finally:
        f.set_enabled(previous)


def runs(filter_: str | None = None, paths: list[str] | None = None) -> list[Run]:
    """Every (case, dtype, dense/sparse, descend path) run, optionally only those whose id contains ``filter_``."""
    out = []
    for c in cases():
        for dtype in ("float32", "float64"):
            if c.floatx32 and dtype == "float32":
                continue
            for sparse in (False, True) if c.sparse is not None else (False,):
                for path in descend_paths() if paths is None else paths:
                    r = Run(c, dtype, sparse, path)
                    if filter_ is None or filter_ in r.id:
                        out.append(r)
    return out


# ---------------------------------------------------------------------------------------- data
@dataclass
class Data:
    init: list                 # initial values, one per variable
    grads: list                # per step: a list of dense arrays, or of (indices, values) pairs


def make_data(dtype, sparse: bool, duplicates: bool, seed: int = 1234) -> Data:
    """The same initial values and gradients for both sides (drawn in float64, then rounded)."""
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = []
    for _ in range(N_STEPS):
        step = []
        for s in SHAPES:
            if not sparse:
                step.append(rng.standard_normal(s).astype(dtype))
                continue
            rows = rng.choice(s[0], size=3, replace=False)
            if duplicates:  # repeat one row: the update sees the sum of its two slices
                rows = np.concatenate([rows, rows[:1]])
            rows = rows.astype(np.int64)
            step.append((rows, rng.standard_normal((rows.size,) + s[1:]).astype(dtype)))
        grads.append(step)
    return Data(init, grads)


# ---------------------------------------------------------------------------------------- running
@contextlib.contextmanager
def _keras_floatx(dtype: str):
    import keras

    old = keras.config.floatx()
    keras.config.set_floatx(dtype)
    try:
        yield
    finally:
        keras.config.set_floatx(old)


def _tf_slot(case: Case, opt, var, key):
    if case.family == "keras":
        return getattr(opt, key)[opt._get_variable_index(var)]
    return opt.get_slot(var, key)


def run_tf(run: Run, data: Data):
    """The trajectory under TensorFlow: per step, ([variables], {(i, slot): array})."""
    case = run.case
    floatx = "float32" if case.floatx32 else run.dtype
    ctx = _keras_floatx(floatx) if case.family == "keras" else contextlib.nullcontext()
    with ctx:
        # Keras 3's Adafactor.build names a placeholder after the variable (`backend.Variable(0, name=var.name)`),
        # which refuses the '/' of a tf.Variable's name: give it names without one
        names = [n.replace("/", "_") for n in NAMES] if case.tf_cls.__name__ == "Adafactor" else NAMES
        variables = [tf.Variable(x, name=n) for x, n in zip(data.init, names)]
        opt = case.make_tf(np.dtype(run.dtype))
        traj = []
        for step in data.grads:
            if run.sparse:
                grads = [tf.IndexedSlices(tf.constant(vals), tf.constant(rows), tf.constant(s, dtype=tf.int64))
                         for (rows, vals), s in zip(step, SHAPES)]
            else:
                grads = [tf.constant(g) for g in step]
            if case.clip_norm is not None:
                grads, _ = tf.clip_by_global_norm(grads, case.clip_norm)
            opt.apply_gradients(list(zip(grads, variables)))
            slots = {(i, d): _tf_slot(case, opt, v, k).numpy().copy()
                     for i, v in enumerate(variables) for d, k in case.slots}
            traj.append(([v.numpy().copy() for v in variables], slots))
    return traj


def run_descend(run: Run, data: Data, path: str | None = None):
    """The trajectory under descend (on ``run.path`` unless ``path`` is given), in the form of :func:`run_tf`."""
    with descend_path(run.path if path is None else path):
        return _run_descend(run, data)


def _run_descend(run: Run, data: Data):
    case = run.case
    ds.clear_session()
    variables = [ds.Variable(x, name=n) for x, n in zip(data.init, NAMES)]
    opt = case.make_descend(case.sparse if run.sparse else None)
    traj = []
    for step in data.grads:
        if run.sparse:
            grads = [ds.IndexedSlices(vals, rows, s) for (rows, vals), s in zip(step, SHAPES)]
        else:
            grads = [g.copy() for g in step]
        pairs = list(zip(grads, variables))
        if case.clip_norm is not None:
            opt.apply_gradients(pairs, clip_norm=case.clip_norm)
        else:
            opt.apply_gradients(pairs)
        slots = {(i, d): opt.get_slot(v, d).numpy().copy() for i, v in enumerate(variables) for d, _ in case.slots}
        traj.append(([v.numpy().copy() for v in variables], slots))
    return traj


@dataclass
class Diff:
    """How far descend's trajectory is from TensorFlow's."""

    var_abs: float = 0.0          # max |descend - tf| over the variables' trajectories
    var_rel: float = 0.0          # ... divided by TF's largest single step
    slot_rel: float = 0.0         # max |descend - tf| / max |tf| over the slots' trajectories
    ulp: float | None = None      # float32: max elementwise ulp distance over variables and slots
    worst: str = ""               # where the largest ulp distance (float32) or relative difference (float64) is
    failures: list = field(default_factory=list)


def _ulp(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
    spacing = np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(np.float32)).astype(np.float64)
    return np.where(diff == 0, 0.0, diff / spacing)


def measure(run: Run, tf_traj, ds_traj, init) -> Diff:
    """Compare two trajectories against the tolerances."""
    f32 = run.dtype == "float32"
    out = Diff(ulp=0.0 if f32 else None)
    prev = [np.asarray(x) for x in init]
    steps = [0.0] * len(SHAPES)
    var_diff = [0.0] * len(SHAPES)
    slot_diff: dict = {}
    slot_mag: dict = {}
    worst_ulp = (0.0, "")
    for step, ((tv, ts), (dv, dsl)) in enumerate(zip(tf_traj, ds_traj), start=1):
        for i, (t, d) in enumerate(zip(tv, dv)):
            var_diff[i] = max(var_diff[i], float(np.max(np.abs(t.astype(np.float64) - d))))
            steps[i] = max(steps[i], float(np.max(np.abs(t.astype(np.float64) - prev[i]))))
            if f32:
                u = float(np.max(_ulp(d, t)))
                if u > worst_ulp[0]:
                    worst_ulp = (u, f"{NAMES[i].split('/')[1]} step {step}")
        prev = tv
        for k, t in ts.items():
            d = dsl[k]
            if t.shape != d.shape or t.dtype != d.dtype:
                raise AssertionError(f"{run.id}: slot {k} is {d.dtype}{d.shape} in descend, {t.dtype}{t.shape} in TF")
            slot_diff[k] = max(slot_diff.get(k, 0.0), float(np.max(np.abs(t.astype(np.float64) - d))))
            slot_mag[k] = max(slot_mag.get(k, 0.0), float(np.max(np.abs(t))))
            if f32:
                u = float(np.max(_ulp(d, t)))
                if u > worst_ulp[0]:
                    worst_ulp = (u, f"{NAMES[k[0]].split('/')[1]}:{k[1]} step {step}")

    def rel(d, scale):
        return d / scale if scale > 0 else (0.0 if d == 0 else float("inf"))

    var_rels = [rel(dv, st) for dv, st in zip(var_diff, steps)]
    slot_rels = {k: rel(sd, slot_mag[k]) for k, sd in slot_diff.items()}
    out.var_abs = max(var_diff)
    out.var_rel = max(var_rels)
    out.slot_rel = max(slot_rels.values(), default=0.0)
    if f32:
        out.ulp, out.worst = worst_ulp
        if out.ulp > F32_ULP:
            out.failures.append(f"float32: {out.ulp:.0f} ulp > {F32_ULP} (at {out.worst})")
    else:
        if out.var_rel >= out.slot_rel and out.var_rel > 0:
            out.worst = NAMES[int(np.argmax(var_rels))].split("/")[1]
        elif out.slot_rel > 0:
            k = max(slot_rels, key=slot_rels.get)
            out.worst = f"{NAMES[k[0]].split('/')[1]}:{k[1]}"
        tol, why = F64_TOL, ""
        if run.case.f64_limit and run.case.f64_tol is not None:
            tol, why = run.case.f64_tol, f" (the bound stated for [{run.case.f64_limit}])"
        if out.var_rel > tol:
            out.failures.append(f"float64: variables differ by {out.var_rel:.1e} of the step size > {tol:g}{why}")
        if out.slot_rel > tol:
            out.failures.append(f"float64: slots differ by {out.slot_rel:.1e} of their size > {tol:g}{why}")
    return out


def _fmt(d: Diff) -> str:
    return f"{d.ulp:.0f} ulp" if d.ulp is not None else f"{max(d.var_rel, d.slot_rel):.1e} relative"


@dataclass
class Result:
    run: Run
    diff: Diff
    status: str = "exact"          # exact / ok / LIMIT / FAIL
    limit: str | None = None       # the LIMITS key of a LIMIT, or of an ok run within its case's f64_tol
    limit_detail: str = ""         # what the emulation showed, or why there is none
    error: str | None = None       # TF raised
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status != "FAIL"

    @property
    def diagnoses(self) -> list[str]:
        """The known formula-order differences that apply to this run, if it differs at all."""
        d = self.diff
        if self.error is not None or (d.var_abs == 0 and d.slot_rel == 0):
            return []
        kind = "sparse" if self.run.sparse else "dense"
        return [k for k, where in self.run.case.diagnoses if where in ("any", kind)]


def compare(run: Run) -> Result:
    """Run one comparison, classify it, and (for a numerical-library LIMIT) verify it by emulation."""
    start = time.perf_counter()
    case = run.case
    data = make_data(np.dtype(run.dtype), run.sparse, case.duplicates)
    try:
        tf_traj = run_tf(run, data)
    except Exception as e:  # noqa: BLE001  (a TF dtype limitation is reported, not raised)
        msg = f"{type(e).__name__}: {' '.join(str(e).split()).split(' [Op:')[0][:150]}"
        res = Result(run, Diff(failures=[f"TensorFlow raised {msg}"]), error=msg)
        if run.dtype == "float64" and case.f64_limit:
            res.status, res.limit, res.limit_detail = "LIMIT", case.f64_limit, f"TensorFlow raised {msg}"
        else:
            res.status = "FAIL"
        res.seconds = time.perf_counter() - start
        return res
    ds_traj = run_descend(run, data)
    diff = measure(run, tf_traj, ds_traj, data.init)
    res = Result(run, diff)
    if not diff.failures:
        res.status = "exact" if diff.var_abs == 0 and diff.slot_rel == 0 else "ok"
        if run.dtype == "float64" and case.f64_tol is not None and max(diff.var_rel, diff.slot_rel) > F64_TOL:
            res.limit = case.f64_limit  # within the case's stated bound, not within F64_TOL: say why
            res.limit_detail = (f"{_fmt(diff)} > {F64_TOL:g}, within the stated bound {case.f64_tol:g} "
                                "(TF-side dtype handling; no emulation)")
    else:
        res.status = "FAIL"
        # an emulation swaps a TF function into descend's NumPy path; a run on the fused path claims the
        # explanation only if the NumPy path computing that function as the fused kernels do reproduces it
        for key in case.limits:
            own = ""
            if run.path != "numpy":
                with FUSED_NUMERICS[key](run):
                    same = measure(run, run_descend(run, data, path="numpy"), ds_traj, data.init)
                if same.failures:
                    res.diff.failures.append(f"[{key}]: the {run.path} path differs from descend's NumPy path by "
                                             f"{'; '.join(same.failures)}")
                    continue
                own = f"; the {run.path} path is within {_fmt(same)} of the NumPy path with its numerics"
            with EMULATIONS[key](run):
                emulated = measure(run, tf_traj, run_descend(run, data, path="numpy"), data.init)
            if not emulated.failures:
                res.status, res.limit = "LIMIT", key
                res.limit_detail = (f"{'; '.join(diff.failures)}; NumPy path with TF's function swapped in: "
                                    f"{_fmt(emulated)}{own}")
                break
            res.diff.failures.append(f"with [{key}] emulated still {'; '.join(emulated.failures)}")
    res.seconds = time.perf_counter() - start
    return res


# ---------------------------------------------------------------------------------------- defaults
_SKIP_PARAMS = {"self", "name", "use_locking", "kwargs", "args"}
_EQUIVALENT_DEFAULTS = {("beta", None, 0.0)}  # TF1 Ftrl's beta=None means 0


def check_defaults() -> list[tuple[str, str, list[str], list[str]]]:
    """``(descend class, reference class, arguments compared, mismatches)`` for every pair of classes: the
    defaults of the constructor arguments both accept must be equal, and an argument descend requires must
    be required by the reference too (one the reference requires may have a default in descend)."""
    out, seen = [], set()
    for c in cases():
        pair = (c.descend_cls, c.tf_cls)
        if pair in seen:
            continue
        seen.add(pair)
        d_sig = inspect.signature(c.descend_cls.__init__).parameters
        t_sig = inspect.signature(c.tf_cls.__init__).parameters
        problems, compared = [], []
        for k, tp in t_sig.items():
            if k in _SKIP_PARAMS or k not in d_sig or tp.kind in (tp.VAR_KEYWORD, tp.VAR_POSITIONAL):
                continue
            dd, td = d_sig[k].default, tp.default
            if td is inspect.Parameter.empty and dd is not inspect.Parameter.empty:
                continue  # required by the reference (e.g. TF1 Ftrl's learning_rate); descend's own default
            compared.append(k)
            if dd == td or (k, td, dd) in _EQUIVALENT_DEFAULTS:
                continue
            show = {inspect.Parameter.empty: "(required)"}
            problems.append(f"{k}: descend {show.get(dd, repr(dd))}, reference {show.get(td, repr(td))}")
        d_name = f"{c.descend_cls.__module__.replace('descend.', '')}.{c.descend_cls.__name__}"
        out.append((d_name, c.reference.split("(")[0], compared, problems))
    return out


# ---------------------------------------------------------------------------------------- report
def _g(x: float | None) -> str:
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return f"{x:.1e}"


def _table(header, rows) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [line.format(*header), line.format(*("-" * w for w in widths))]
    out += [line.format(*row).rstrip() for row in rows]
    return "\n".join(out)


def format_table(results: list[Result]) -> str:
    header = ("optimizer", "dtype", "grad", "path", "var max|Δ|", "var Δ/step", "slot Δ/|slot|", "f32 ulp",
              "worst at", "result", "known differences")
    rows = []
    for r in results:
        d = r.diff
        status = f"{r.status}[{r.limit}]" if r.limit else r.status
        grad = "sparse" if r.run.sparse else "dense"
        if r.error is not None:
            rows.append((r.run.case.id, r.run.dtype, grad, r.run.path, "-", "-", "-", "-", "TF raised", status, ""))
            continue
        ulp = "-" if d.ulp is None else f"{d.ulp:.0f}" if d.ulp >= 1 or d.ulp == 0 else f"{d.ulp:.2f}"
        rows.append((r.run.case.id, r.run.dtype, grad, r.run.path, _g(d.var_abs), _g(d.var_rel), _g(d.slot_rel),
                     ulp, d.worst, status, ", ".join(r.diagnoses)))
    return _table(header, rows)


def _wrap(text: str, first: str = "    ", rest: str | None = None) -> str:
    return textwrap.fill(text, width=116, initial_indent=first, subsequent_indent=first if rest is None else rest)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", dest="filter", default=None, help="only runs whose id contains this string")
    parser.add_argument("--path", choices=("all", "numpy", "fused"), default="all",
                        help="descend's update path(s) to compare: its NumPy path, its fused numba kernels, or "
                             "every one available here (default)")
    parser.add_argument("--references", action="store_true", help="also list each case's reference call")
    args = parser.parse_args(argv)
    available = descend_paths()
    if args.path != "all" and args.path not in available:
        parser.error(f"descend's {args.path} path is not available here (available: {', '.join(available)})")
    paths = available if args.path == "all" else [args.path]
    import keras

    try:
        import transformers

        hf_version = transformers.__version__
    except ImportError:
        hf_version = "not installed"
    print(f"tensorflow {tf.__version__}, keras {keras.__version__}, transformers {hf_version}, "
          f"numpy {np.__version__}, descend {ds.__version__}")
    print(f"{N_STEPS} steps on variables {dict(zip(NAMES, SHAPES))}; tolerances: float64 {F64_TOL:g} relative, "
          f"float32 {F32_ULP} ulp; descend paths: {', '.join(paths)}"
          + ("" if "fused" in available else " (no fused kernels here: numba not installed or disabled)") + "\n")
    start = time.perf_counter()
    selected = runs(args.filter, paths)
    if not selected:
        print(f"no run matches {args.filter!r}")
        return 2
    results = [compare(r) for r in selected]
    print(format_table(results))
    counts = {s: sum(r.status == s for r in results) for s in ("exact", "ok", "LIMIT", "FAIL")}
    print(f"\n{len(results)} runs in {time.perf_counter() - start:.1f} s: "
          + ", ".join(f"{n} {s}" for s, n in counts.items()))

    defaults = check_defaults() if args.filter is None else []
    if defaults:
        print("\nConstructor defaults (arguments both accept):")
        print(_table(("descend", "reference", "compared", "result"),
                     [(d, t, ", ".join(c), "; ".join(p) if p else "same") for d, t, c, p in defaults]))

    if args.references:
        print("\nReferences:")
        for c in cases():
            print(f"  {c.id:34s} {c.reference}")

    used = sorted({r.limit for r in results if r.limit})
    if used:
        print("\nLimitations (LIMIT rows, which do not fail the run, and ok rows within a stated wider bound):")
        for key in used:
            print(f"  [{key}]")
            print(_wrap(LIMITS[key]))
            for r in results:
                if r.limit == key:
                    print(_wrap(f"{r.run.id}: {r.limit_detail}", first="      - ", rest="        "))
    keys = [k for k in DIAGNOSES if any(k in r.diagnoses for r in results)]
    if keys:
        print("\nKnown differences (formula order or numerics; rows with a non-zero difference they apply to):")
        for k in keys:
            print(f"  [{k}]")
            print(_wrap(DIAGNOSES[k]))
    print("\nNotes:")
    for n in NOTES:
        print(_wrap(n, first="  * ", rest="    "))

    failed = [r for r in results if not r.passed]
    bad_defaults = [(d, t, p) for d, t, _, p in defaults if p]
    if failed or bad_defaults:
        print(f"\nMISMATCHES ({len(failed) + len(bad_defaults)}):")
        for r in failed:
            extra = f" [known: {', '.join(r.diagnoses)}]" if r.diagnoses else ""
            print(_wrap(f"{r.run.id}: {'; '.join(r.diff.failures)}{extra}", first="  ", rest="      "))
        for d, t, p in bad_defaults:
            print(f"  defaults of {d} vs {t}: {'; '.join(p)}")
        return 1
    print(f"\nAll {len(results)} comparisons within tolerance ({counts['LIMIT']} documented limitations); "
          "constructor defaults agree.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
