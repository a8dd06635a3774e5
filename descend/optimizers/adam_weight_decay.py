"""AdamWeightDecay: Hugging Face's BERT-style Adam with decoupled weight decay.

Follows ``AdamWeightDecay`` in Hugging Face ``transformers``
(``src/transformers/optimization_tf.py``), a subclass of (legacy) Keras Adam.
Per variable, before the :class:`~descend.optimizers.Adam` update::

    var <- var - (lr * var) * weight_decay_rate      (if _do_use_weight_decay(var.name))

where ``lr`` is the learning rate of this step (a schedule evaluated at
``iterations``), not Adam's bias-corrected step size. Whether a variable
decays is decided by its name (``_do_use_weight_decay``)::

    weight_decay_rate == 0                                -> no
    some include_in_weight_decay regex re.search-matches   -> yes
    some exclude_from_weight_decay regex re.search-matches -> no
    otherwise                                              -> yes

``apply_gradients(grads_and_vars, clip_norm=...)`` first scales all the
gradients together to global norm ``clip_norm`` (BERT's recipe).
"""

from __future__ import annotations

import math
import re

from .adam import Adam, adam_scatter_update, adam_update, amsgrad_update
from .rule import NUMBERS, Rule, WeightDecay

__all__ = ["AdamWeightDecay", "HuggingFaceWeightDecay"]

#: Hugging Face extends Keras 2's Adam, whose sparse path is TF1's order (m*b1 + scatter)
ADAM_RULE = Rule(adam_update, sparse_fn=adam_scatter_update)


def _patterns(value, arg: str):
    """``None`` or a tuple of regex strings (a single string is one pattern); validated now."""
    if value is None:
        return None
    patterns = [value] if isinstance(value, str) else list(value)
    for p in patterns:
        if not isinstance(p, str):
            raise TypeError(f"`{arg}` must be a list of regular expressions (str). Received: {arg}={value!r}")
        try:
            re.compile(p)
        except re.error as e:
            raise ValueError(f"`{arg}` holds an invalid regular expression {p!r}: {e}") from None
    return tuple(patterns)


class AdamWeightDecay(Adam):
    """Adam with decoupled weight decay selected by name regexes (Hugging Face's ``AdamWeightDecay``).

    ``var <- var - lr * var * weight_decay_rate`` for the variables
    :meth:`_do_use_weight_decay` selects, then the :class:`Adam` update
    (Keras convention: ``epsilon`` added to ``sqrt(v)``, bias correction in
    the step size). ``include_in_weight_decay`` wins over
    ``exclude_from_weight_decay``; Keras 3's
    :meth:`~descend.optimizers.Optimizer.exclude_from_weight_decay` method
    exempts variables too. HF's ``create_optimizer`` uses
    ``exclude_from_weight_decay=["LayerNorm", "layer_norm", "bias"]``.

    Sparse updates default to ``"exact"`` as :class:`Adam` (and legacy Keras
    Adam, which HF extends): the whole variable decays and the moments of
    untouched rows decay. With ``sparse_updates="lazy"`` only the gradient's
    rows decay and update.

    Args:
        learning_rate: a number or schedule; default 0.001.
        beta_1: in [0, 1), default 0.9.
        beta_2: in [0, 1), default 0.999.
        epsilon: >= 0, default 1e-7 (HF's ``create_optimizer`` passes 1e-8).
        amsgrad: keep the running maximum of ``v``.
        weight_decay_rate: >= 0 (a number or schedule), default 0 (no decay).
        include_in_weight_decay: regexes (``re.search``) of variable names that
            always decay.
        exclude_from_weight_decay: regexes of variable names that do not decay.
        name: default ``"AdamWeightDecay"``.
        **kwargs: the other :class:`Optimizer` arguments (``clipnorm``,
            ``clipvalue``, ``global_clipnorm``, ``sparse_updates``). Keras 3's
            ``weight_decay`` is refused: use ``weight_decay_rate``.

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="dense/kernel")
        >>> b = ds.Variable([1.0], name="dense/bias")
        >>> opt = ds.optimizers.AdamWeightDecay(learning_rate=0.1, weight_decay_rate=0.5,
        ...                                     exclude_from_weight_decay=["bias"])
        >>> _ = opt.apply_gradients([(ds.constant([0.0]), w), (ds.constant([0.0]), b)])
        >>> w.numpy(), b.numpy()
        (array([0.95], dtype=float32), array([1.], dtype=float32))
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad: bool = False,
                 weight_decay_rate=0.0, include_in_weight_decay=None, exclude_from_weight_decay=None,
                 name: str = "AdamWeightDecay", **kwargs):
        if kwargs.get("weight_decay") is not None:
            raise TypeError(
                "AdamWeightDecay takes `weight_decay_rate` (Hugging Face's name), not `weight_decay`. "
                f"Received: weight_decay={kwargs['weight_decay']!r}"
            )
        kwargs.pop("weight_decay", None)
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, name=name, **kwargs)
        self.add_hyperparameter("weight_decay_rate", weight_decay_rate, low=0)
        self.weight_decay_form = HuggingFaceWeightDecay(_patterns(include_in_weight_decay, "include_in_weight_decay"),
                                                        _patterns(exclude_from_weight_decay, "exclude_from_weight_decay"))

    @property
    def update(self):
        return amsgrad_update if self.amsgrad else ADAM_RULE

    def coefficients(self, step, hyper, dtype):
        # legacy tf.keras Adam (TF's ApplyAdam kernel) computes 1 - beta in the variable's dtype,
        # where Keras 3's Adam computes it in double: cast the betas, as HF's base class does
        t = dtype.type
        c = super().coefficients(step, hyper, dtype)
        c.update(beta_1=t(hyper["beta_1"]), beta_2=t(hyper["beta_2"]), epsilon=t(hyper["epsilon"]))
        return c

    # ------------------------------------------------------------------ weight decay
    def _do_use_weight_decay(self, param_name: str) -> bool:
        """Whether the variable named ``param_name`` decays (Hugging Face's rule: never when the rate is 0)."""
        return self.current_hyper("weight_decay_rate") != 0 and self.weight_decay_form.selected(param_name)

    # ------------------------------------------------------------------ the update
    #: Hugging Face's ``apply_gradients(grads_and_vars, clip_norm=None, name=None, **kwargs)``
    call_arguments = ("clip_norm", "name", "*", "weight", "experimental_aggregate_gradients")

    def prepare(self, grads_and_vars, *, clip_norm=None, name=None, experimental_aggregate_gradients=None, **kwargs):
        """The plan of ``apply_gradients(grads_and_vars, clip_norm, name)``.

        Args:
            grads_and_vars: ``(gradient, variable)`` pairs.
            clip_norm: when given, first scale all gradients together so that
                their global norm is at most ``clip_norm``
                (:func:`descend.clip_by_global_norm`), then apply the
                optimizer's own ``clipnorm``/``clipvalue``/``global_clipnorm``
                if set. With ``gradient_accumulation_steps`` it clips the
                accumulated gradient, on the call that completes a cycle.
            name: accepted for TensorFlow compatibility; unused.
            experimental_aggregate_gradients: TensorFlow's; accepted and unused.
            **kwargs: ``weight`` (see :meth:`Optimizer.apply_gradients`).
        """
        if clip_norm is not None and (isinstance(clip_norm, bool) or not isinstance(clip_norm, NUMBERS)
                                      or not math.isfinite(clip_norm) or clip_norm < 0):
            raise ValueError(f"`clip_norm` must be in [0, inf). Received: clip_norm={clip_norm!r}")
        return super().prepare(grads_and_vars, raw_global_clipnorm=clip_norm, **kwargs)

    def get_config(self):
        config = super().get_config()
        config.update(self.weight_decay_form.get_config())
        return config


class HuggingFaceWeightDecay(WeightDecay):
    """Hugging Face's decay form: ``var <- var - (lr * var) * weight_decay_rate`` for the variables its
    name regexes select (``include_in_weight_decay`` wins over ``exclude_from_weight_decay``), and not
    for variables exempted with ``exclude_from_weight_decay(var_list=...)``."""

    fused = False

    def __init__(self, include=None, exclude=None):
        super().__init__()
        self.include, self.exclude_patterns = include, exclude

    def selected(self, name: str) -> bool:
        for r in self.include or ():
            if re.search(r, name) is not None:
                return True
        for r in self.exclude_patterns or ():
            if re.search(r, name) is not None:
                return False
        return True

    def applies_to(self, var) -> bool:
        return super().applies_to(var) and self.selected(var.scoped_name)

    def coefficients(self, var, hyper):
        rate = hyper.get("weight_decay_rate")
        if not rate or not self.applies_to(var):
            return None
        t = var.dtype.as_numpy_dtype
        return {"learning_rate": t(hyper["learning_rate"]), "rate": t(rate)}

    @staticmethod
    def apply(param, *, learning_rate, rate):
        # var <- var - (lr * var) * weight_decay_rate
        return param - (learning_rate * param) * rate

    def get_config(self) -> dict:
        return {"include_in_weight_decay": None if self.include is None else list(self.include),
                "exclude_from_weight_decay": None if self.exclude_patterns is None else list(self.exclude_patterns)}
