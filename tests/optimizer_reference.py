"""Independent plain-NumPy reference implementations of optimizer update rules.

These functions are the golden values for the test suite. They never import
``descend``; each one runs ``T`` steps of one optimizer on one variable from a
list of gradients and returns the final variable and every slot, in float64.

Conventions shared by every function
------------------------------------
* ``var`` is the initial value; it is copied, never mutated.
* ``grads`` is a sequence of dense gradients (one per step) of ``var``'s shape.
  Sparse ("lazy") variants take a sequence of ``(indices, values)`` pairs
  instead, with unique 1-D integer ``indices`` into the first axis of ``var``
  and ``values`` of shape ``(len(indices),) + var.shape[1:]``.
* ``lr_schedule``, when given, is a callable of the 0-based step index
  ``it`` (the number of steps already applied, i.e. Keras'
  ``optimizer.iterations`` before the increment) returning the learning rate
  of that step; it replaces ``learning_rate``.  Step ``t = it + 1`` is the
  1-based step count used for bias corrections.
* The return value is a dict: ``{"var": ..., <slot name>: ..., ...}`` using
  the slot names of the source implementation (listed below).

Keras-convention optimizers (Keras 3, files ``keras/src/optimizers/*.py``)
-------------------------------------------------------------------------
Every Keras function also takes ``weight_decay=None``, ``clipnorm=None``,
``clipvalue=None``, ``global_clipnorm=None``, following
``keras/src/optimizers/base_optimizer.py``. Per step, in this order:

1. clip the gradient (only one of the three may be set; each acts only if
   ``> 0``):
   clipnorm:        ``g <- g * c / max(||g||_2, c)``   (per variable)
   global_clipnorm: ``g <- g * c * min(1/N, 1/c)``, ``N = sqrt(sum_i ||g_i||^2)``
                    (over all variables: see :func:`clip_by_global_norm`;
                    for a single variable it equals clipnorm)
   clipvalue:       ``g <- clip(g, -c, c)``
2. decoupled weight decay, if ``weight_decay is not None``:
   ``var <- var - var * wd * lr``   (lr = the scheduled lr of this step)
3. the optimizer's ``update_step``.

=============  ==============================  =============================================
function       source file                      defaults / slots
=============  ==============================  =============================================
sgd            keras/src/optimizers/sgd.py      lr=0.01, momentum=0.0, nesterov=False;
                                                slot ``momentum`` (only if momentum != 0)
adam           adam.py                          lr=0.001, beta_1=0.9, beta_2=0.999,
                                                epsilon=1e-7, amsgrad=False; slots
                                                ``momentum``, ``velocity``, ``velocity_hat``
adamw          adamw.py (= Adam + base wd)      as adam, weight_decay=0.004
adagrad        adagrad.py                       lr=0.001, initial_accumulator_value=0.1,
                                                epsilon=1e-7; slot ``accumulator``
rmsprop        rmsprop.py                       lr=0.001, rho=0.9, momentum=0.0,
                                                epsilon=1e-7, centered=False; slots
                                                ``velocity`` (starts at 0), ``momentum``
                                                (if momentum > 0), ``average_gradient``
                                                (if centered)
adadelta       adadelta.py                      lr=0.001, rho=0.95, epsilon=1e-7; slots
                                                ``accumulated_grad``, ``accumulated_delta_var``
adamax         adamax.py                        lr=0.001, beta_1=0.9, beta_2=0.999,
                                                epsilon=1e-7; slots ``momentum``, ``norm``
nadam          nadam.py                         lr=0.001, beta_1=0.9, beta_2=0.999,
                                                epsilon=1e-7; slots ``momentum``,
                                                ``velocity``; optimizer-level ``u_product``
ftrl           ftrl.py                          lr=0.001, learning_rate_power=-0.5,
                                                initial_accumulator_value=0.1, l1=l2=0,
                                                l2_shrinkage=0, beta=0; slots
                                                ``accumulator``, ``linear``
lion           lion.py                          lr=0.001, beta_1=0.9, beta_2=0.99;
                                                slot ``momentum``
lamb           lamb.py                          lr=0.001, beta_1=0.9, beta_2=0.999,
                                                epsilon=1e-7; slots ``momentum``, ``velocity``
=============  ==============================  =============================================

Other conventions
-----------------
* ``adam_weight_decay``: Hugging Face ``src/transformers/optimization_tf.py``
  ``AdamWeightDecay`` (a subclass of legacy ``tf.keras`` Adam,
  ``keras/optimizers/optimizer_v2/adam.py``). Defaults lr=0.001, beta_1=0.9,
  beta_2=0.999, epsilon=1e-7 (the class default; HF's ``create_optimizer``
  passes 1e-8), amsgrad=False, weight_decay_rate=0.0. Slots ``m``, ``v``,
  ``vhat``. Before the Adam step: ``var <- var - lr * var * weight_decay_rate``
  where lr is the *scheduled, un-bias-corrected* learning rate (``lr_t``).
  Decay decision (``_do_use_weight_decay``): rate == 0 -> no; any
  ``include_in_weight_decay`` regex ``re.search``-matches the name -> yes;
  else any ``exclude_from_weight_decay`` regex matches -> no; else yes.
* ``adagrad_decay``: DeepRec ``tensorflow/python/training/adagrad_decay.py``
  and ``tensorflow/core/kernels/training_ali_ops.cc`` (ApplyAdagradDecay).
  Defaults initial_accumulator_value=0.1, accumulator_decay_step=100000,
  accumulator_decay_rate=0.9 (learning_rate has no default in DeepRec).
  Slots ``accumulator`` (starts at initial_accumulator_value) and
  ``accumulator_decay_power`` (int, starts at 0).
* TF1 (``tensorflow/python/training/*.py`` with kernels in
  ``tensorflow/core/kernels/training_ops.cc``): learning_rate has no default
  except for Adam.
  gradient_descent_v1  GradientDescentOptimizer.
  momentum_v1          MomentumOptimizer(momentum, use_nesterov=False); slot ``momentum``.
  adagrad_v1           AdagradOptimizer(initial_accumulator_value=0.1), no epsilon;
                       slot ``accumulator``.
  adam_v1              AdamOptimizer(lr=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8);
                       slots ``m``, ``v``; non-slot ``beta1_power``, ``beta2_power``
                       (start at beta1/beta2, multiplied after every step, so they
                       equal beta^(T+1) after T steps).
  rmsprop_v1           RMSPropOptimizer(decay=0.9, momentum=0.0, epsilon=1e-10,
                       centered=False); slots ``rms`` (starts at ONES), ``momentum``
                       (always), ``mg`` (if centered).

Sparse "lazy" variants (``*_sparse``): only the rows named by the gradient's
indices change (variable and slots), using the dense formula on those rows with
the same global step count ``t`` (LazyAdam semantics; TF kernels
SparseApplyKerasMomentum, SparseApplyMomentum, SparseApplyAdagrad(V2),
SparseApplyRMSProp, SparseApplyFtrlV2, DeepRec SparseApplyAdagradDecay).
For SGD without momentum, Adagrad and Adagrad-v1 the lazy rule equals the dense
rule with zero rows elsewhere ("exact"). ``adam_v1_sparse`` is the one exact
non-lazy variant: TF1 Adam decays m and v everywhere and moves every row.
Note that Keras 3 itself (TF backend) gives IndexedSlices gradients the DENSE
semantics for SGD-momentum, Adam, RMSprop and FTRL; the lazy rules are those of
TF1 / legacy ``tf.keras`` kernels and LazyAdam.

Numerical notes
---------------
These functions compute the exact float64 math. When comparing with real
TF/Keras in float64, use hyperparameters exactly representable in float32
(0.125, 0.875, 2**-10, ...): Keras 3 passes Python constants through float32 in
``ops.cast`` (e.g. ``momentum``, the ``beta`` in ``beta**t``, Nadam's 0.96 in
``u_t`` but not in ``u_product``), TF1 converts every hyperparameter to a
float32 tensor, and TF1 Adam keeps ``beta1_power``/``beta2_power`` as float32
variables. With representable values every rule here matched TF 2.21 /
Keras 3.15 / tf_keras 2.21 / transformers 4.49 to <= 1e-15 (5 steps, float64).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np

__all__ = [
    "DENSE",
    "SPARSE",
    "adadelta",
    "adagrad",
    "adagrad_decay",
    "adagrad_decay_sparse",
    "adagrad_sparse",
    "adagrad_v1",
    "adagrad_v1_sparse",
    "adam",
    "adam_sparse",
    "adam_v1",
    "adam_v1_sparse",
    "adam_weight_decay",
    "adamax",
    "adamw",
    "clip_by_global_norm",
    "clip_by_norm",
    "clip_by_value",
    "densify",
    "ftrl",
    "ftrl_sparse",
    "gradient_descent_v1",
    "hf_do_use_weight_decay",
    "lamb",
    "lion",
    "momentum_v1",
    "momentum_v1_sparse",
    "nadam",
    "rmsprop",
    "rmsprop_sparse",
    "rmsprop_v1",
    "rmsprop_v1_sparse",
    "sgd",
    "sgd_sparse",
]

Schedule = Callable[[int], float] | None
SparseGrad = tuple  # (indices, values)


# ----------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------


def _f64(x) -> np.ndarray:
    return np.array(x, dtype=np.float64, copy=True)


def _lr(learning_rate: float, lr_schedule: Schedule, it: int) -> float:
    # lr of step it (0-based, steps already applied)
    return float(lr_schedule(it)) if lr_schedule is not None else float(learning_rate)


def clip_by_norm(g: np.ndarray, clip_norm: float) -> np.ndarray:
    """g * c / max(||g||_2, c) (tf.clip_by_norm / Keras ``clipnorm``)."""
    g = _f64(g)
    norm = np.sqrt(np.sum(g * g))
    return g * clip_norm / max(norm, clip_norm)


def clip_by_value(g: np.ndarray, clip_value: float) -> np.ndarray:
    """clip(g, -c, c) (Keras ``clipvalue``)."""
    return np.clip(_f64(g), -clip_value, clip_value)


def clip_by_global_norm(grads: Sequence[np.ndarray], clip_norm: float) -> list:
    """g_i * c * min(1/N, 1/c) with N = sqrt(sum_i ||g_i||^2) (Keras ``global_clipnorm``).

    ``None`` entries are kept as ``None`` and ignored by the norm. A non-finite N
    makes every output NaN, as in Keras (``scale + (N - N)``).
    """
    present = [_f64(g) for g in grads if g is not None]
    norm = np.sqrt(sum(float(np.sum(g * g)) for g in present))
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = clip_norm * min(1.0 / norm if norm != 0 else np.inf, 1.0 / clip_norm)
        scale = scale + (norm - norm)
    return [None if g is None else _f64(g) * scale for g in grads]


def _keras_clip(g, clipnorm, clipvalue, global_clipnorm):
    n_set = sum(c is not None for c in (clipnorm, clipvalue, global_clipnorm))
    if n_set > 1:
        raise ValueError("Only one of clipnorm, clipvalue and global_clipnorm can be set.")
    if clipnorm and clipnorm > 0:
        return clip_by_norm(g, clipnorm)
    if global_clipnorm and global_clipnorm > 0:
        return clip_by_global_norm([g], global_clipnorm)[0]
    if clipvalue and clipvalue > 0:
        return clip_by_value(g, clipvalue)
    return g


def _keras_steps(var, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm):
    """Yield (it, t, lr, g) for each Keras step after clipping; applies weight decay to
    ``var`` (a float64 array, modified in place) before yielding."""
    for it, g in enumerate(grads):
        g = _keras_clip(_f64(g), clipnorm, clipvalue, global_clipnorm)
        lr = _lr(learning_rate, lr_schedule, it)
        if weight_decay is not None:
            # var <- var - var*wd*lr   (decoupled, before the update)
            var -= var * weight_decay * lr
        yield it, it + 1, lr, g


def densify(var_shape, indices, values) -> np.ndarray:
    """Dense gradient from (indices, values); duplicates are summed."""
    out = np.zeros(var_shape, dtype=np.float64)
    np.add.at(out, np.asarray(indices), _f64(values))
    return out


def _rows(indices) -> np.ndarray:
    idx = np.asarray(indices, dtype=np.int64).reshape(-1)
    if len(np.unique(idx)) != len(idx):
        raise ValueError("sparse reference variants need unique indices")
    return idx


def hf_do_use_weight_decay(
    name: str,
    weight_decay_rate: float,
    include_in_weight_decay: Iterable[str] | None = None,
    exclude_from_weight_decay: Iterable[str] | None = None,
) -> bool:
    """Hugging Face ``AdamWeightDecay._do_use_weight_decay`` precedence."""
    if weight_decay_rate == 0:
        return False
    if include_in_weight_decay:
        for r in include_in_weight_decay:
            if re.search(r, name) is not None:
                return True
    if exclude_from_weight_decay:
        for r in exclude_from_weight_decay:
            if re.search(r, name) is not None:
                return False
    return True


# ----------------------------------------------------------------------------
# Keras 3 convention, dense
# ----------------------------------------------------------------------------


def sgd(
    var,
    grads,
    *,
    learning_rate=0.01,
    momentum=0.0,
    nesterov=False,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # momentum == 0:  w <- w - lr*g
    # else:           v <- momentum*v - lr*g
    #                 w <- w + v                       (nesterov: w <- w + momentum*v - lr*g)
    w = _f64(var)
    v = np.zeros_like(w)
    for _, _, lr, g in _keras_steps(
        w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm
    ):
        if momentum != 0:
            v = momentum * v - lr * g
            if nesterov:
                w += momentum * v - lr * g
            else:
                w += v
        else:
            w -= lr * g
    out = {"var": w}
    if momentum != 0:
        out["momentum"] = v
    return out


def adam(
    var,
    grads,
    *,
    learning_rate=0.001,
    beta_1=0.9,
    beta_2=0.999,
    epsilon=1e-7,
    amsgrad=False,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # alpha_t = lr * sqrt(1 - b2^t) / (1 - b1^t)
    # m <- m + (g - m)*(1 - b1);  v <- v + (g^2 - v)*(1 - b2)
    # amsgrad: v_hat <- max(v_hat, v), use v_hat below
    # w <- w - alpha_t * m / (sqrt(v) + eps)          (eps is "epsilon hat": outside the sqrt,
    #                                                   not bias-corrected)
    w = _f64(var)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    vh = np.zeros_like(w)
    for _, t, lr, g in _keras_steps(
        w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm
    ):
        alpha = lr * np.sqrt(1.0 - beta_2**t) / (1.0 - beta_1**t)
        m = m + (g - m) * (1.0 - beta_1)
        v = v + (g * g - v) * (1.0 - beta_2)
        denom_v = v
        if amsgrad:
            vh = np.maximum(vh, v)
            denom_v = vh
        w -= alpha * m / (np.sqrt(denom_v) + epsilon)
    out = {"var": w, "momentum": m, "velocity": v}
    if amsgrad:
        out["velocity_hat"] = vh
    return out


def adamw(
    var,
    grads,
    *,
    learning_rate=0.001,
    weight_decay=0.004,
    beta_1=0.9,
    beta_2=0.999,
    epsilon=1e-7,
    amsgrad=False,
    lr_schedule=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # w <- w - w*wd*lr ; then the Adam step above (Keras 3 AdamW = Adam + base weight decay)
    if weight_decay is None:
        raise ValueError("AdamW needs a float weight_decay")
    return adam(
        var,
        grads,
        learning_rate=learning_rate,
        beta_1=beta_1,
        beta_2=beta_2,
        epsilon=epsilon,
        amsgrad=amsgrad,
        lr_schedule=lr_schedule,
        weight_decay=weight_decay,
        clipnorm=clipnorm,
        clipvalue=clipvalue,
        global_clipnorm=global_clipnorm,
    )


def adagrad(
    var,
    grads,
    *,
    learning_rate=0.001,
    initial_accumulator_value=0.1,
    epsilon=1e-7,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # acc <- acc + g^2                 (acc starts at initial_accumulator_value)
    # w   <- w - lr * g / sqrt(acc + eps)       (Keras 3: eps INSIDE the sqrt)
    w = _f64(var)
    acc = np.full_like(w, initial_accumulator_value)
    for _, _, lr, g in _keras_steps(
        w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm
    ):
        acc = acc + g * g
        w -= lr * g / np.sqrt(acc + epsilon)
    return {"var": w, "accumulator": acc}


def rmsprop(
    var,
    grads,
    *,
    learning_rate=0.001,
    rho=0.9,
    momentum=0.0,
    epsilon=1e-7,
    centered=False,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # vel <- rho*vel + (1-rho)*g^2                  (vel starts at ZEROS in Keras 3)
    # centered: avg <- rho*avg + (1-rho)*g;  den = vel - avg^2 + eps   else den = vel + eps
    # inc = lr * g / sqrt(den)                       (eps INSIDE the sqrt)
    # momentum > 0: mom <- momentum*mom + inc; w <- w - mom     else  w <- w - inc
    w = _f64(var)
    vel = np.zeros_like(w)
    mom = np.zeros_like(w)
    avg = np.zeros_like(w)
    for _, _, lr, g in _keras_steps(
        w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm
    ):
        vel = rho * vel + (1.0 - rho) * g * g
        if centered:
            avg = rho * avg + (1.0 - rho) * g
            den = vel - avg * avg + epsilon
        else:
            den = vel + epsilon
        inc = lr * g / np.sqrt(den)
        if momentum > 0:
            mom = momentum * mom + inc
            w -= mom
        else:
            w -= inc
    out = {"var": w, "velocity": vel}
    if momentum > 0:
        out["momentum"] = mom
    if centered:
        out["average_gradient"] = avg
    return out


def adadelta(
    var,
    grads,
    *,
    learning_rate=0.001,
    rho=0.95,
    epsilon=1e-7,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # Eg  <- rho*Eg + (1-rho)*g^2
    # d   = -sqrt(Edx + eps) / sqrt(Eg + eps) * g
    # Edx <- rho*Edx + (1-rho)*d^2                  (d WITHOUT lr)
    # w   <- w + lr*d
    w = _f64(var)
    eg = np.zeros_like(w)
    edx = np.zeros_like(w)
    for _, _, lr, g in _keras_steps(
        w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm
    ):
        eg = rho * eg + (1.0 - rho) * g * g
        d = -np.sqrt(edx + epsilon) * g / np.sqrt(eg + epsilon)
        edx = rho * edx + (1.0 - rho) * d * d
        w += lr * d
    return {"var": w, "accumulated_grad": eg, "accumulated_delta_var": edx}


def adamax(
    var,
    grads,
    *,
    learning_rate=0.001,
    beta_1=0.9,
    beta_2=0.999,
    epsilon=1e-7,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # m <- m + (g - m)*(1 - b1);  u <- max(b2*u, |g|)
    # w <- w - lr * m / ((1 - b1^t) * (u + eps))
    w = _f64(var)
    m = np.zeros_like(w)
    u = np.zeros_like(w)
    for _, t, lr, g in _keras_steps(
        w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm
    ):
        m = m + (g - m) * (1.0 - beta_1)
        u = np.maximum(beta_2 * u, np.abs(g))
        w -= lr * m / ((1.0 - beta_1**t) * (u + epsilon))
    return {"var": w, "momentum": m, "norm": u}


def nadam(
    var,
    grads,
    *,
    learning_rate=0.001,
    beta_1=0.9,
    beta_2=0.999,
    epsilon=1e-7,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # mu_t = b1 * (1 - 0.5 * 0.96^t);  mu_{t+1} = b1 * (1 - 0.5 * 0.96^(t+1))
    # P_t = prod_{i<=t} mu_i   (optimizer-level u_product, starts at 1, updated once per step
    #                           before the per-variable updates)
    # m <- m + (g - m)*(1 - b1);  v <- v + (g^2 - v)*(1 - b2)
    # m_hat = mu_{t+1} * m / (1 - P_t * mu_{t+1}) + (1 - mu_t) * g / (1 - P_t)
    # v_hat = v / (1 - b2^t)
    # w <- w - lr * m_hat / (sqrt(v_hat) + eps)
    w = _f64(var)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    u_product = 1.0
    for _, t, lr, g in _keras_steps(
        w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm
    ):
        u_t = beta_1 * (1.0 - 0.5 * 0.96**t)
        u_t1 = beta_1 * (1.0 - 0.5 * 0.96 ** (t + 1))
        u_product = u_product * u_t
        u_product_t1 = u_product * u_t1
        m = m + (g - m) * (1.0 - beta_1)
        v = v + (g * g - v) * (1.0 - beta_2)
        m_hat = u_t1 * m / (1.0 - u_product_t1) + (1.0 - u_t) * g / (1.0 - u_product)
        v_hat = v / (1.0 - beta_2**t)
        w -= lr * m_hat / (np.sqrt(v_hat) + epsilon)
    return {"var": w, "momentum": m, "velocity": v, "u_product": np.float64(u_product)}


def _ftrl_rows(w, acc, lin, g, lr, learning_rate_power, l1, l2, l2_shrinkage, beta):
    # One FTRL-proximal step on arrays (whole variable or gathered rows); returns new arrays.
    p = -learning_rate_power
    l2_eff = l2 + beta / (2.0 * lr)
    g_shr = g + 2.0 * l2_shrinkage * w
    new_acc = acc + g * g  # accumulator uses the RAW gradient
    lin = lin + g_shr - (new_acc**p - acc**p) / lr * w
    quad = new_acc**p / lr + 2.0 * l2_eff
    w = (np.clip(lin, -l1, l1) - lin) / quad  # == 0 where |lin| <= l1
    return w, new_acc, lin


def ftrl(
    var,
    grads,
    *,
    learning_rate=0.001,
    learning_rate_power=-0.5,
    initial_accumulator_value=0.1,
    l1_regularization_strength=0.0,
    l2_regularization_strength=0.0,
    l2_shrinkage_regularization_strength=0.0,
    beta=0.0,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # p = -learning_rate_power;  l2' = l2 + beta/(2 lr)
    # g_s = g + 2*l2_shrinkage*w
    # n'  = n + g^2
    # z  <- z + g_s - (n'^p - n^p)/lr * w
    # w  <- (clip(z, -l1, l1) - z) / (n'^p/lr + 2 l2')    (0 where |z| <= l1)
    # n  <- n'
    w = _f64(var)
    acc = np.full_like(w, initial_accumulator_value)
    lin = np.zeros_like(w)
    for _, _, lr, g in _keras_steps(
        w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm
    ):
        new_w, acc, lin = _ftrl_rows(
            w,
            acc,
            lin,
            g,
            lr,
            learning_rate_power,
            l1_regularization_strength,
            l2_regularization_strength,
            l2_shrinkage_regularization_strength,
            beta,
        )
        w[...] = new_w
    return {"var": w, "accumulator": acc, "linear": lin}


def lion(
    var,
    grads,
    *,
    learning_rate=0.001,
    beta_1=0.9,
    beta_2=0.99,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # w <- w - lr * sign(b1*m + (1-b1)*g)      (sign(0) = 0)
    # m <- b2*m + (1-b2)*g
    w = _f64(var)
    m = np.zeros_like(w)
    for _, _, lr, g in _keras_steps(
        w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm
    ):
        w -= lr * np.sign(beta_1 * m + (1.0 - beta_1) * g)
        m = beta_2 * m + (1.0 - beta_2) * g
    return {"var": w, "momentum": m}


def lamb(
    var,
    grads,
    *,
    learning_rate=0.001,
    beta_1=0.9,
    beta_2=0.999,
    epsilon=1e-7,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # m <- m + (g - m)*(1-b1);  v <- v + (g^2 - v)*(1-b2)
    # r = (m/(1-b1^t)) / (sqrt(v/(1-b2^t)) + eps)      (eps outside sqrt of the CORRECTED v)
    # ratio = ||w|| / ||r|| if ||w|| > 0 and ||r|| > 0 else 1   (norms over the whole variable,
    #                                                             w after weight decay)
    # w <- w - ratio * lr * r
    w = _f64(var)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for _, t, lr, g in _keras_steps(
        w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue, global_clipnorm
    ):
        m = m + (g - m) * (1.0 - beta_1)
        v = v + (g * g - v) * (1.0 - beta_2)
        r = (m / (1.0 - beta_1**t)) / (np.sqrt(v / (1.0 - beta_2**t)) + epsilon)
        w_norm = np.sqrt(np.sum(w * w))
        r_norm = np.sqrt(np.sum(r * r))
        ratio = w_norm / r_norm if (w_norm > 0 and r_norm > 0) else 1.0
        w -= ratio * lr * r
    return {"var": w, "momentum": m, "velocity": v}


# ----------------------------------------------------------------------------
# Hugging Face AdamWeightDecay, DeepRec AdagradDecay
# ----------------------------------------------------------------------------


def adam_weight_decay(
    var,
    grads,
    *,
    name="variable",
    learning_rate=0.001,
    beta_1=0.9,
    beta_2=0.999,
    epsilon=1e-7,
    amsgrad=False,
    weight_decay_rate=0.0,
    include_in_weight_decay=None,
    exclude_from_weight_decay=None,
    lr_schedule=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # if decay(name):  w <- w - lr * w * weight_decay_rate     (lr = scheduled lr, NOT
    #                                                           bias-corrected)
    # then legacy-Keras Adam:
    # alpha_t = lr * sqrt(1 - b2^t)/(1 - b1^t); m <- b1 m + (1-b1) g; v <- b2 v + (1-b2) g^2
    # amsgrad: vhat <- max(vhat, v)
    # w <- w - alpha_t * m / (sqrt(v or vhat) + eps)
    do_decay = hf_do_use_weight_decay(name, weight_decay_rate, include_in_weight_decay, exclude_from_weight_decay)
    w = _f64(var)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    vh = np.zeros_like(w)
    for _, t, lr, g in _keras_steps(w, grads, learning_rate, lr_schedule, None, clipnorm, clipvalue, global_clipnorm):
        if do_decay:
            w -= lr * w * weight_decay_rate
        alpha = lr * np.sqrt(1.0 - beta_2**t) / (1.0 - beta_1**t)
        m = m + (g - m) * (1.0 - beta_1)
        v = v + (g * g - v) * (1.0 - beta_2)
        denom_v = v
        if amsgrad:
            vh = np.maximum(vh, v)
            denom_v = vh
        w -= alpha * m / (np.sqrt(denom_v) + epsilon)
    out = {"var": w, "m": m, "v": v}
    if amsgrad:
        out["vhat"] = vh
    return out


def adagrad_decay(
    var,
    grads,
    *,
    learning_rate=0.001,
    initial_accumulator_value=0.1,
    accumulator_decay_step=100000,
    accumulator_decay_rate=0.9,
    iterations=0,
    lr_schedule=None,
) -> dict:
    # gs = iterations + 1          (global_step before this step's increment, plus one)
    # if gs // decay_step > power:  acc <- max(acc * decay_rate, initial_accumulator_value)
    #                               power <- power + 1       (at most ONE decay per step)
    # acc <- acc + g^2
    # w   <- w - lr * g / sqrt(acc)                       (no epsilon)
    # ``iterations`` is the global step value before the first gradient (default 0).
    # Dense: the power is a single counter (DeepRec keeps a var-shaped int slot but only
    # reads/writes element [0] on the dense path); returned as an int64 scalar.
    w = _f64(var)
    acc = np.full_like(w, initial_accumulator_value)
    power = 0
    for k, g in enumerate(grads):
        it = iterations + k
        g = _f64(g)
        lr = _lr(learning_rate, lr_schedule, it)
        gs = it + 1
        if gs // accumulator_decay_step > power:
            acc = np.maximum(acc * accumulator_decay_rate, initial_accumulator_value)
            power += 1
        acc = acc + g * g
        w -= lr * g / np.sqrt(acc)
    return {"var": w, "accumulator": acc, "accumulator_decay_power": np.int64(power)}


# ----------------------------------------------------------------------------
# TF1 convention
# ----------------------------------------------------------------------------


def gradient_descent_v1(var, grads, *, learning_rate, lr_schedule=None) -> dict:
    # w <- w - lr * g
    w = _f64(var)
    for it, g in enumerate(grads):
        w -= _lr(learning_rate, lr_schedule, it) * _f64(g)
    return {"var": w}


def momentum_v1(var, grads, *, learning_rate, momentum, use_nesterov=False, lr_schedule=None) -> dict:
    # a <- momentum*a + g
    # w <- w - lr*a                 (nesterov: w <- w - lr*g - lr*momentum*a, with the NEW a)
    w = _f64(var)
    a = np.zeros_like(w)
    for it, g in enumerate(grads):
        g = _f64(g)
        lr = _lr(learning_rate, lr_schedule, it)
        a = momentum * a + g
        if use_nesterov:
            w -= g * lr + a * momentum * lr
        else:
            w -= a * lr
    return {"var": w, "momentum": a}


def adagrad_v1(var, grads, *, learning_rate, initial_accumulator_value=0.1, lr_schedule=None) -> dict:
    # acc <- acc + g^2 ;  w <- w - lr * g / sqrt(acc)          (no epsilon)
    w = _f64(var)
    acc = np.full_like(w, initial_accumulator_value)
    for it, g in enumerate(grads):
        g = _f64(g)
        acc = acc + g * g
        w -= _lr(learning_rate, lr_schedule, it) * g / np.sqrt(acc)
    return {"var": w, "accumulator": acc}


def adam_v1(var, grads, *, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, lr_schedule=None) -> dict:
    # beta1_power, beta2_power start at beta1, beta2 (= b^t during step t), then *= beta
    # lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
    # m <- m + (g - m)(1 - b1);  v <- v + (g^2 - v)(1 - b2)
    # w <- w - lr_t * m / (sqrt(v) + eps)            (same as Keras; only eps default differs)
    w = _f64(var)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    b1p, b2p = float(beta1), float(beta2)
    for it, g in enumerate(grads):
        g = _f64(g)
        lr = _lr(learning_rate, lr_schedule, it)
        alpha = lr * np.sqrt(1.0 - b2p) / (1.0 - b1p)
        m = m + (g - m) * (1.0 - beta1)
        v = v + (g * g - v) * (1.0 - beta2)
        w -= alpha * m / (np.sqrt(v) + epsilon)
        b1p *= beta1
        b2p *= beta2
    return {"var": w, "m": m, "v": v, "beta1_power": np.float64(b1p), "beta2_power": np.float64(b2p)}


def rmsprop_v1(
    var, grads, *, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False, lr_schedule=None
) -> dict:
    # ms  <- ms + (g^2 - ms)(1 - decay)          (ms = "rms" slot, starts at ONES)
    # centered: mg <- mg + (g - mg)(1 - decay);  den = ms - mg^2 + eps   else den = ms + eps
    # mom <- momentum*mom + lr * g / sqrt(den)   (eps INSIDE the sqrt)
    # w   <- w - mom
    w = _f64(var)
    ms = np.ones_like(w)
    mg = np.zeros_like(w)
    mom = np.zeros_like(w)
    for it, g in enumerate(grads):
        g = _f64(g)
        lr = _lr(learning_rate, lr_schedule, it)
        ms = ms + (g * g - ms) * (1.0 - decay)
        if centered:
            mg = mg + (g - mg) * (1.0 - decay)
            den = ms - mg * mg + epsilon
        else:
            den = ms + epsilon
        mom = momentum * mom + lr * g / np.sqrt(den)
        w -= mom
    out = {"var": w, "rms": ms, "momentum": mom}
    if centered:
        out["mg"] = mg
    return out


# ----------------------------------------------------------------------------
# sparse (lazy) variants: only rows in `indices` change, with the global step t
# ----------------------------------------------------------------------------


def sgd_sparse(var, sparse_grads, *, learning_rate=0.01, momentum=0.0, nesterov=False, lr_schedule=None) -> dict:
    # rows i:  v[i] <- momentum*v[i] - lr*g_i;  w[i] <- w[i] + v[i]
    #          (nesterov: w[i] <- w[i] + momentum*v[i] - lr*g_i);  TF SparseApplyKerasMomentum
    # momentum == 0: w[i] <- w[i] - lr*g_i  (exact)
    w = _f64(var)
    v = np.zeros_like(w)
    for it, (idx, g) in enumerate(sparse_grads):
        idx, g = _rows(idx), _f64(g)
        lr = _lr(learning_rate, lr_schedule, it)
        if momentum != 0:
            v[idx] = momentum * v[idx] - lr * g
            if nesterov:
                w[idx] += momentum * v[idx] - lr * g
            else:
                w[idx] += v[idx]
        else:
            w[idx] -= lr * g
    out = {"var": w}
    if momentum != 0:
        out["momentum"] = v
    return out


def adam_sparse(
    var, sparse_grads, *, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, lr_schedule=None
) -> dict:
    # LazyAdam: alpha_t with the GLOBAL t;  rows i only:
    # m[i] <- b1 m[i] + (1-b1) g_i;  v[i] <- b2 v[i] + (1-b2) g_i^2;  (amsgrad: vh[i] <- max)
    # w[i] <- w[i] - alpha_t * m[i] / (sqrt(v[i]) + eps)
    w = _f64(var)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    vh = np.zeros_like(w)
    for it, (idx, g) in enumerate(sparse_grads):
        idx, g = _rows(idx), _f64(g)
        t = it + 1
        lr = _lr(learning_rate, lr_schedule, it)
        alpha = lr * np.sqrt(1.0 - beta_2**t) / (1.0 - beta_1**t)
        m[idx] = m[idx] + (g - m[idx]) * (1.0 - beta_1)
        v[idx] = v[idx] + (g * g - v[idx]) * (1.0 - beta_2)
        denom_v = v[idx]
        if amsgrad:
            vh[idx] = np.maximum(vh[idx], v[idx])
            denom_v = vh[idx]
        w[idx] -= alpha * m[idx] / (np.sqrt(denom_v) + epsilon)
    out = {"var": w, "momentum": m, "velocity": v}
    if amsgrad:
        out["velocity_hat"] = vh
    return out


def adagrad_sparse(
    var, sparse_grads, *, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, lr_schedule=None
) -> dict:
    # rows i: acc[i] <- acc[i] + g_i^2;  w[i] <- w[i] - lr g_i / sqrt(acc[i] + eps)
    # (lazy == exact for Adagrad: zero-gradient rows are unchanged by the dense rule too)
    w = _f64(var)
    acc = np.full_like(w, initial_accumulator_value)
    for it, (idx, g) in enumerate(sparse_grads):
        idx, g = _rows(idx), _f64(g)
        acc[idx] = acc[idx] + g * g
        w[idx] -= _lr(learning_rate, lr_schedule, it) * g / np.sqrt(acc[idx] + epsilon)
    return {"var": w, "accumulator": acc}


def rmsprop_sparse(
    var, sparse_grads, *, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, lr_schedule=None
) -> dict:
    # Keras-3 RMSprop formula on rows i only (zeros-initialised velocity)
    w = _f64(var)
    vel = np.zeros_like(w)
    mom = np.zeros_like(w)
    avg = np.zeros_like(w)
    for it, (idx, g) in enumerate(sparse_grads):
        idx, g = _rows(idx), _f64(g)
        lr = _lr(learning_rate, lr_schedule, it)
        vel[idx] = rho * vel[idx] + (1.0 - rho) * g * g
        if centered:
            avg[idx] = rho * avg[idx] + (1.0 - rho) * g
            den = vel[idx] - avg[idx] ** 2 + epsilon
        else:
            den = vel[idx] + epsilon
        inc = lr * g / np.sqrt(den)
        if momentum > 0:
            mom[idx] = momentum * mom[idx] + inc
            w[idx] -= mom[idx]
        else:
            w[idx] -= inc
    out = {"var": w, "velocity": vel}
    if momentum > 0:
        out["momentum"] = mom
    if centered:
        out["average_gradient"] = avg
    return out


def ftrl_sparse(
    var,
    sparse_grads,
    *,
    learning_rate=0.001,
    learning_rate_power=-0.5,
    initial_accumulator_value=0.1,
    l1_regularization_strength=0.0,
    l2_regularization_strength=0.0,
    l2_shrinkage_regularization_strength=0.0,
    beta=0.0,
    lr_schedule=None,
) -> dict:
    # FTRL formula on rows i only (TF SparseApplyFtrlV2: shrinkage only on active rows)
    w = _f64(var)
    acc = np.full_like(w, initial_accumulator_value)
    lin = np.zeros_like(w)
    for it, (idx, g) in enumerate(sparse_grads):
        idx, g = _rows(idx), _f64(g)
        lr = _lr(learning_rate, lr_schedule, it)
        w[idx], acc[idx], lin[idx] = _ftrl_rows(
            w[idx],
            acc[idx],
            lin[idx],
            g,
            lr,
            learning_rate_power,
            l1_regularization_strength,
            l2_regularization_strength,
            l2_shrinkage_regularization_strength,
            beta,
        )
    return {"var": w, "accumulator": acc, "linear": lin}


def adagrad_decay_sparse(
    var,
    sparse_grads,
    *,
    learning_rate=0.001,
    initial_accumulator_value=0.1,
    accumulator_decay_step=100000,
    accumulator_decay_rate=0.9,
    iterations=0,
    lr_schedule=None,
) -> dict:
    # DeepRec SparseApplyAdagradDecay, per row i with its own power[i]:
    # gs = iterations + 1;  if gs // decay_step > power[i]:
    #     acc[i] <- max(acc[i]*rate, initial);  power[i] += 1
    # acc[i] <- acc[i] + g_i^2;  w[i] <- w[i] - lr g_i / sqrt(acc[i])
    # ``accumulator_decay_power`` is returned with shape (var.shape[0],) (one counter per row).
    w = _f64(var)
    acc = np.full_like(w, initial_accumulator_value)
    power = np.zeros(w.shape[0], dtype=np.int64)
    for k, (idx, g) in enumerate(sparse_grads):
        idx, g = _rows(idx), _f64(g)
        it = iterations + k
        lr = _lr(learning_rate, lr_schedule, it)
        gs = it + 1
        due = (gs // accumulator_decay_step) > power[idx]
        rows = idx[due]
        acc[rows] = np.maximum(acc[rows] * accumulator_decay_rate, initial_accumulator_value)
        power[rows] += 1
        acc[idx] = acc[idx] + g * g
        w[idx] -= lr * g / np.sqrt(acc[idx])
    return {"var": w, "accumulator": acc, "accumulator_decay_power": power}


def momentum_v1_sparse(var, sparse_grads, *, learning_rate, momentum, use_nesterov=False, lr_schedule=None) -> dict:
    # TF1 SparseApplyMomentum, rows i: a[i] <- momentum a[i] + g_i;  w[i] <- w[i] - lr a[i]
    # (nesterov: w[i] <- w[i] - lr g_i - lr momentum a[i])
    w = _f64(var)
    a = np.zeros_like(w)
    for it, (idx, g) in enumerate(sparse_grads):
        idx, g = _rows(idx), _f64(g)
        lr = _lr(learning_rate, lr_schedule, it)
        a[idx] = momentum * a[idx] + g
        if use_nesterov:
            w[idx] -= g * lr + a[idx] * momentum * lr
        else:
            w[idx] -= a[idx] * lr
    return {"var": w, "momentum": a}


def adagrad_v1_sparse(var, sparse_grads, *, learning_rate, initial_accumulator_value=0.1, lr_schedule=None) -> dict:
    # TF1 SparseApplyAdagrad, rows i: acc[i] += g_i^2; w[i] -= lr g_i / sqrt(acc[i])  (exact)
    w = _f64(var)
    acc = np.full_like(w, initial_accumulator_value)
    for it, (idx, g) in enumerate(sparse_grads):
        idx, g = _rows(idx), _f64(g)
        acc[idx] = acc[idx] + g * g
        w[idx] -= _lr(learning_rate, lr_schedule, it) * g / np.sqrt(acc[idx])
    return {"var": w, "accumulator": acc}


def rmsprop_v1_sparse(
    var, sparse_grads, *, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False, lr_schedule=None
) -> dict:
    # TF1 SparseApplyRMSProp / SparseApplyCenteredRMSProp: the dense TF1 formula on rows i
    w = _f64(var)
    ms = np.ones_like(w)
    mg = np.zeros_like(w)
    mom = np.zeros_like(w)
    for it, (idx, g) in enumerate(sparse_grads):
        idx, g = _rows(idx), _f64(g)
        lr = _lr(learning_rate, lr_schedule, it)
        ms[idx] = ms[idx] + (g * g - ms[idx]) * (1.0 - decay)
        if centered:
            mg[idx] = mg[idx] + (g - mg[idx]) * (1.0 - decay)
            den = ms[idx] - mg[idx] ** 2 + epsilon
        else:
            den = ms[idx] + epsilon
        mom[idx] = momentum * mom[idx] + lr * g / np.sqrt(den)
        w[idx] -= mom[idx]
    out = {"var": w, "rms": ms, "momentum": mom}
    if centered:
        out["mg"] = mg
    return out


def adam_v1_sparse(
    var, sparse_grads, *, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, lr_schedule=None
) -> dict:
    # TF1 AdamOptimizer._apply_sparse is NOT lazy: m <- b1 m; m[i] += (1-b1) g_i (same for v),
    # and every row moves. It equals the dense rule on the densified gradient (duplicates
    # summed by scatter_add).
    w = np.asarray(var)
    dense = [densify(w.shape, idx, g) for idx, g in sparse_grads]
    return adam_v1(
        var, dense, learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon, lr_schedule=lr_schedule
    )


# ----------------------------------------------------------------------------
# tables for table-driven tests
# ----------------------------------------------------------------------------

#: name -> dense reference function
DENSE = {
    "sgd": sgd,
    "adam": adam,
    "adamw": adamw,
    "adagrad": adagrad,
    "rmsprop": rmsprop,
    "adadelta": adadelta,
    "adamax": adamax,
    "nadam": nadam,
    "ftrl": ftrl,
    "lion": lion,
    "lamb": lamb,
    "adam_weight_decay": adam_weight_decay,
    "adagrad_decay": adagrad_decay,
    "gradient_descent_v1": gradient_descent_v1,
    "momentum_v1": momentum_v1,
    "adagrad_v1": adagrad_v1,
    "adam_v1": adam_v1,
    "rmsprop_v1": rmsprop_v1,
}

#: name of the dense optimizer -> (sparse reference function, "lazy" | "exact")
SPARSE = {
    "sgd": (sgd_sparse, "lazy"),  # exact when momentum == 0
    "adam": (adam_sparse, "lazy"),
    "adagrad": (adagrad_sparse, "exact"),
    "rmsprop": (rmsprop_sparse, "lazy"),
    "ftrl": (ftrl_sparse, "lazy"),
    "adagrad_decay": (adagrad_decay_sparse, "lazy"),
    "momentum_v1": (momentum_v1_sparse, "lazy"),
    "adagrad_v1": (adagrad_v1_sparse, "exact"),
    "rmsprop_v1": (rmsprop_v1_sparse, "lazy"),
    "adam_v1": (adam_v1_sparse, "exact"),
}


def adafactor(var, grads, *, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3,
              clip_threshold=1.0, relative_step=True, lr_schedule=None, weight_decay=None, clipnorm=None,
              clipvalue=None, global_clipnorm=None) -> dict:
    # Keras 3 keras/src/optimizers/adafactor.py. t = it + 1:
    # rho_t = min(lr, 1/sqrt(t)) (lr capped the same way first when relative_step and no schedule)
    # alpha_t = max(eps2, rms(w)) rho_t ; G = g^2 + eps1 ; b = 1 - t^beta_2_decay
    # rank >= 2: r = b r + (1-b) mean(G, -1) ; c = b c + (1-b) mean(G, -2) ; v = (r / mean(r, -1))[..., None] c[..., None, :]
    # else:      v = b v + (1-b) G
    # u = g / sqrt(v) ; u_hat = u / max(1, rms(u) / clip_threshold) ; w -= alpha_t u_hat
    w = _f64(var)
    v = np.zeros_like(w)
    factored = w.ndim >= 2
    r = np.zeros(w.shape[:-1]) if factored else np.zeros(())
    c = np.zeros(w.shape[:-2] + w.shape[-1:]) if factored else np.zeros(())
    for _it, t, lr, g in _keras_steps(w, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue,
                                      global_clipnorm):
        if relative_step and lr_schedule is None:
            lr = min(lr, 1.0 / np.sqrt(t))
        rho = min(lr, 1.0 / np.sqrt(t))
        alpha = max(epsilon_2, np.sqrt(np.mean(w * w))) * rho
        big_g = g * g + epsilon_1
        b = 1.0 - float(t) ** beta_2_decay
        if factored:
            r = b * r + (1.0 - b) * big_g.mean(axis=-1)
            c = b * c + (1.0 - b) * big_g.mean(axis=-2)
            v = (r / r.mean(axis=-1, keepdims=True))[..., None] * c[..., None, :]
        else:
            v = b * v + (1.0 - b) * big_g
        u = g / np.sqrt(v)
        w -= alpha * (u / max(1.0, np.sqrt(np.mean(u * u)) / clip_threshold))
    return {"var": w, "velocity": v, "r": r, "c": c}


# ----------------------------------------------------------------------------
# TF1 optimizers added with issue 17 (tensorflow/python/training/{ftrl,adadelta,
# proximal_adagrad,proximal_gradient_descent,adagrad_da}.py; kernels Apply*/SparseApply*
# in tensorflow/core/kernels/training_ops.cc). Each takes dense gradients; the
# ``*_sparse`` twin takes unique (indices, values) and changes only those rows (the
# SparseApply* kernels are lazy). Written from the kernels' formulas, in float64.
# ----------------------------------------------------------------------------


def _tf1_run(var, grads, slots, step, sparse):
    """Drive ``step(w, slots, g, it, rows)`` over dense or sparse gradients; rows is a slice or an index array."""
    w = _f64(var)
    for it, item in enumerate(grads):
        if sparse:
            idx, g = item
            step(w, slots, _f64(g), it, _rows(idx))
        else:
            step(w, slots, _f64(item), it, slice(None))
    return {"var": w, **slots}


def _ftrl_v1_step(learning_rate, learning_rate_power, l1, l2, l2_shrinkage, beta, lr_schedule):
    p = -learning_rate_power

    def step(w, s, g, it, r):
        # g_s = g + 2 l2s w ; n_new = n + g^2 ; z += g_s - (n_new^p - n^p) / lr * w
        lr = _lr(learning_rate, lr_schedule, it)
        n, z, x = s["accum"][r], s["linear"][r], w[r]
        n_new = n + g * g
        z = z + (g + 2.0 * l2_shrinkage * x) - (n_new ** p - n ** p) / lr * x
        # w = (l1 sign(z) - z) / (n_new^p / lr + 2 (l2 + beta / (2 lr))) where |z| > l1, else 0
        denom = n_new ** p / lr + 2.0 * (l2 + beta / (2.0 * lr))
        w[r] = np.where(np.abs(z) > l1, (l1 * np.sign(z) - z) / denom, 0.0)
        s["accum"][r], s["linear"][r] = n_new, z

    return step


def ftrl_v1(var, grads, *, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
            l1_regularization_strength=0.0, l2_regularization_strength=0.0,
            l2_shrinkage_regularization_strength=0.0, beta=0.0, lr_schedule=None, _sparse=False) -> dict:
    # FtrlOptimizer (ApplyFtrl / ApplyFtrlV2); slots ``accum`` (starts at initial_accumulator_value), ``linear``
    slots = {"accum": np.full(np.shape(var), float(initial_accumulator_value)), "linear": np.zeros(np.shape(var))}
    step = _ftrl_v1_step(learning_rate, learning_rate_power, l1_regularization_strength, l2_regularization_strength,
                         l2_shrinkage_regularization_strength, beta, lr_schedule)
    return _tf1_run(var, grads, slots, step, _sparse)


def ftrl_v1_sparse(var, sparse_grads, **kw) -> dict:
    return ftrl_v1(var, sparse_grads, _sparse=True, **kw)


def adadelta_v1(var, grads, *, learning_rate=0.001, rho=0.95, epsilon=1e-8, lr_schedule=None, _sparse=False) -> dict:
    # AdadeltaOptimizer (ApplyAdadelta); slots ``accum``, ``accum_update`` (zeros)
    def step(w, s, g, it, r):
        # accum = rho accum + (1-rho) g^2 ; u = sqrt(accum_update + eps) / sqrt(accum + eps) g
        # w -= lr u ; accum_update = rho accum_update + (1-rho) u^2
        a = rho * s["accum"][r] + (1.0 - rho) * g * g
        u = np.sqrt(s["accum_update"][r] + epsilon) / np.sqrt(a + epsilon) * g
        w[r] = w[r] - _lr(learning_rate, lr_schedule, it) * u
        s["accum"][r] = a
        s["accum_update"][r] = rho * s["accum_update"][r] + (1.0 - rho) * u * u

    slots = {"accum": np.zeros(np.shape(var)), "accum_update": np.zeros(np.shape(var))}
    return _tf1_run(var, grads, slots, step, _sparse)


def adadelta_v1_sparse(var, sparse_grads, **kw) -> dict:
    return adadelta_v1(var, sparse_grads, _sparse=True, **kw)


def _prox(v, shrink, scale):
    # sign(v) max(|v| - shrink, 0) / scale    (soft-thresholding, then L2 shrinkage)
    return np.sign(v) * np.maximum(np.abs(v) - shrink, 0.0) / scale


def proximal_gradient_descent_v1(var, grads, *, learning_rate, l1_regularization_strength=0.0,
                                 l2_regularization_strength=0.0, lr_schedule=None, _sparse=False) -> dict:
    # ProximalGradientDescentOptimizer: prox = w - lr g ; w = sign(prox) max(|prox| - lr l1, 0) / (1 + lr l2)
    def step(w, s, g, it, r):
        lr = _lr(learning_rate, lr_schedule, it)
        w[r] = _prox(w[r] - lr * g, lr * l1_regularization_strength, 1.0 + lr * l2_regularization_strength)

    return _tf1_run(var, grads, {}, step, _sparse)


def proximal_gradient_descent_v1_sparse(var, sparse_grads, **kw) -> dict:
    return proximal_gradient_descent_v1(var, sparse_grads, _sparse=True, **kw)


def proximal_adagrad_v1(var, grads, *, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                        l2_regularization_strength=0.0, lr_schedule=None, _sparse=False) -> dict:
    # ProximalAdagradOptimizer: acc += g^2 ; a = lr / sqrt(acc) ; prox = w - a g ;
    # w = sign(prox) max(|prox| - a l1, 0) / (1 + a l2)
    def step(w, s, g, it, r):
        acc = s["accumulator"][r] + g * g
        a = _lr(learning_rate, lr_schedule, it) / np.sqrt(acc)
        w[r] = _prox(w[r] - a * g, a * l1_regularization_strength, 1.0 + a * l2_regularization_strength)
        s["accumulator"][r] = acc

    slots = {"accumulator": np.full(np.shape(var), float(initial_accumulator_value))}
    return _tf1_run(var, grads, slots, step, _sparse)


def proximal_adagrad_v1_sparse(var, sparse_grads, **kw) -> dict:
    return proximal_adagrad_v1(var, sparse_grads, _sparse=True, **kw)


def adagrad_da_v1(var, grads, *, learning_rate, initial_gradient_squared_accumulator_value=0.1,
                  l1_regularization_strength=0.0, l2_regularization_strength=0.0, global_step=None,
                  lr_schedule=None, _sparse=False) -> dict:
    # AdagradDAOptimizer, T = global_step + 1 (global_step: a fixed number; None: the steps already taken):
    # g_acc += g ; gg_acc += g^2 ; w = -lr sign(g_acc) max(|g_acc| - l1 T, 0) / (l2 T lr + sqrt(gg_acc))
    def step(w, s, g, it, r):
        lr = _lr(learning_rate, lr_schedule, it)
        big_t = (it if global_step is None else global_step) + 1.0
        ga = s["gradient_accumulator"][r] + g
        gga = s["gradient_squared_accumulator"][r] + g * g
        w[r] = -lr * np.sign(ga) * np.maximum(np.abs(ga) - l1_regularization_strength * big_t, 0.0) / (
            l2_regularization_strength * big_t * lr + np.sqrt(gga))
        s["gradient_accumulator"][r], s["gradient_squared_accumulator"][r] = ga, gga

    slots = {"gradient_accumulator": np.zeros(np.shape(var)),
             "gradient_squared_accumulator": np.full(np.shape(var), float(initial_gradient_squared_accumulator_value))}
    return _tf1_run(var, grads, slots, step, _sparse)


def adagrad_da_v1_sparse(var, sparse_grads, **kw) -> dict:
    return adagrad_da_v1(var, sparse_grads, _sparse=True, **kw)


# ----------------------------------------------------------------------------
# self-check (python tests/optimizer_reference.py)
# ----------------------------------------------------------------------------


def _self_check() -> None:  # pragma: no cover - exercised by running the module
    rng = np.random.default_rng(0)

    # 1. each dense rule decreases f(x) = 0.5||x||^2 when gradients are fed back. The
    #    functions are stateful over a gradient list, so re-run from scratch with the
    #    growing gradient history (O(T^2) but tiny).
    x0 = np.array([1.0, -2.0, 0.5, 3.0])
    cfg = {
        "sgd": {"learning_rate": 0.1, "momentum": 0.9},
        "adam": {"learning_rate": 0.1},
        "adamw": {"learning_rate": 0.1},
        "adagrad": {"learning_rate": 0.5},
        "rmsprop": {"learning_rate": 0.05, "centered": True, "momentum": 0.5},
        "adadelta": {"learning_rate": 50.0},
        "adamax": {"learning_rate": 0.1},
        "nadam": {"learning_rate": 0.1},
        "ftrl": {"learning_rate": 0.5, "l1_regularization_strength": 0.01},
        "lion": {"learning_rate": 0.05},
        "lamb": {"learning_rate": 0.05},
        "adam_weight_decay": {"learning_rate": 0.1, "weight_decay_rate": 0.01},
        "adagrad_decay": {"learning_rate": 0.5, "accumulator_decay_step": 5},
        "gradient_descent_v1": {"learning_rate": 0.1},
        "momentum_v1": {"learning_rate": 0.05, "momentum": 0.9, "use_nesterov": True},
        "adagrad_v1": {"learning_rate": 0.5},
        "adam_v1": {"learning_rate": 0.1},
        "rmsprop_v1": {"learning_rate": 0.05, "momentum": 0.5, "centered": True},
    }
    for name, fn in DENSE.items():
        grads, x = [], x0.copy()
        for _ in range(40):
            grads.append(x.copy())
            x = fn(x0, grads, **cfg[name])["var"]
        f0, f1 = 0.5 * np.sum(x0**2), 0.5 * np.sum(x**2)
        assert f1 < f0, (name, f0, f1)
        print(f"{name:22s} f: {f0:.4f} -> {f1:.6f}")

    # 2. Adam step 1 moves every coordinate by ~lr (m/sqrt(v) = sign(g) at t=1)
    g = rng.normal(size=7)
    w = adam(np.zeros(7), [g], learning_rate=0.01)["var"]
    assert np.allclose(w, -0.01 * np.sign(g), rtol=1e-4), w
    w1 = adam_v1(np.zeros(7), [g], learning_rate=0.01)["var"]
    assert np.allclose(w1, -0.01 * np.sign(g), rtol=1e-4), w1  # eps_eff = eps/sqrt(1-b2)

    # 3. adam_v1 == adam when epsilon is equal; only the eps default differs
    grads = [rng.normal(size=(3, 2)) for _ in range(6)]
    a = adam(np.ones((3, 2)), grads, epsilon=1e-8)
    b = adam_v1(np.ones((3, 2)), grads)
    assert np.allclose(a["var"], b["var"], rtol=0, atol=1e-15)
    assert abs(b["beta1_power"] - 0.9**7) < 1e-15
    c = adam(np.ones((3, 2)), grads)
    print("adam(eps=1e-7) - adam_v1(eps=1e-8) max |diff| =", np.max(np.abs(c["var"] - b["var"])))

    # 4. sparse variants equal dense where lazy == exact, and touch only listed rows
    var = rng.normal(size=(5, 3))
    sp = [(np.array([0, 3]), rng.normal(size=(2, 3))), (np.array([3, 4]), rng.normal(size=(2, 3)))]
    dense = [densify(var.shape, i, v) for i, v in sp]
    assert np.allclose(adagrad_sparse(var, sp)["var"], adagrad(var, dense)["var"])
    assert np.allclose(
        adagrad_v1_sparse(var, sp, learning_rate=0.1)["var"], adagrad_v1(var, dense, learning_rate=0.1)["var"]
    )
    assert np.allclose(sgd_sparse(var, sp)["var"], sgd(var, dense)["var"])
    for fn, kw in [
        (adam_sparse, {}),
        (rmsprop_sparse, {"momentum": 0.5}),
        (ftrl_sparse, {}),
        (sgd_sparse, {"momentum": 0.9}),
        (momentum_v1_sparse, {"learning_rate": 0.1, "momentum": 0.9}),
        (rmsprop_v1_sparse, {"learning_rate": 0.1}),
        (adagrad_decay_sparse, {"accumulator_decay_step": 1}),
    ]:
        out = fn(var, sp, **kw)
        assert np.array_equal(out["var"][[1, 2]], var[[1, 2]]), fn.__name__
    # with a single step, lazy and dense agree on touched rows for adam
    one = [sp[0]]
    la = adam_sparse(var, one)["var"]
    de = adam(var, [densify(var.shape, *sp[0])])["var"]
    assert np.allclose(la[[0, 3]], de[[0, 3]])

    # 5. HF regex precedence
    assert hf_do_use_weight_decay("bert/LayerNorm/beta:0", 0.1, None, ["LayerNorm", "bias"]) is False
    assert hf_do_use_weight_decay("bert/LayerNorm/beta:0", 0.1, ["LayerNorm"], ["LayerNorm"])
    assert hf_do_use_weight_decay("dense/kernel:0", 0.1, None, ["bias"])
    assert hf_do_use_weight_decay("dense/kernel:0", 0.0) is False

    # 6. AdagradDecay decays once per step at most, floored at the initial value
    out = adagrad_decay(np.zeros(2), [np.zeros(2)] * 5, accumulator_decay_step=2, initial_accumulator_value=0.5)
    assert out["accumulator_decay_power"] == 2  # gs = 2 and gs = 4
    assert np.allclose(out["accumulator"], 0.5)
    # starting late: power catches up one decay per step (gs = 11, 12, 13 -> 5 > 0, 6 > 1, 6 > 2)
    out = adagrad_decay(np.zeros(2), [np.ones(2)] * 3, accumulator_decay_step=2, iterations=10)
    assert out["accumulator_decay_power"] == 3
    # sparse with every row touched each step == dense
    var = rng.normal(size=(3, 2))
    gl = [rng.normal(size=(3, 2)) for _ in range(7)]
    kw = {"learning_rate": 0.1, "accumulator_decay_step": 3, "accumulator_decay_rate": 0.5}
    d = adagrad_decay(var, gl, **kw)
    s = adagrad_decay_sparse(var, [(np.arange(3), g) for g in gl], **kw)
    assert np.allclose(d["var"], s["var"]) and np.allclose(d["accumulator"], s["accumulator"])
    assert d["accumulator_decay_power"] == 2  # gs = 3 and gs = 6
    assert np.all(s["accumulator_decay_power"] == 2)
    print("self-check OK")


if __name__ == "__main__":
    _self_check()


def schedule_free_adamw(
    var,
    grads,
    *,
    learning_rate=0.0025,
    beta_1=0.9,
    beta_2=0.999,
    epsilon=1e-8,
    warmup_steps=0,
    lr_schedule=None,
    weight_decay=None,
    clipnorm=None,
    clipvalue=None,
    global_clipnorm=None,
) -> dict:
    # z starts at the variable; v <- v + (g^2 - v)(1-b2); z <- z - lr_t g / (sqrt(v / (1-b2^t)) + eps)
    # x_old = (y - (1-b1) z_new) / b1 (Keras on TF reads z after its update); x = (1-1/t) x_old + z/t
    # y <- (1-b1) z + b1 x
    y = _f64(var)
    z = y.copy()
    v = np.zeros_like(y)
    for _, t, lr, g in _keras_steps(y, grads, learning_rate, lr_schedule, weight_decay, clipnorm, clipvalue,
                                    global_clipnorm):
        if warmup_steps > 0:
            lr = lr * min(t / warmup_steps, 1.0)
        v = v + (g * g - v) * (1.0 - beta_2)
        z = z - lr * g / (np.sqrt(v / (1.0 - beta_2**t)) + epsilon)
        x = (y - (1.0 - beta_1) * z) / beta_1 * (1.0 - 1.0 / t) + z / t
        y[...] = (1.0 - beta_1) * z + beta_1 * x
    return {"var": y, "momentum": z, "velocity": v}
