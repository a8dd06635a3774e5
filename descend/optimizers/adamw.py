"""AdamW: Adam with decoupled weight decay: Keras 3's, and PyTorch's and optax's conventions.

``var <- var - lr * weight_decay * var`` before the Adam update; the decay
uses the learning rate of this step (not the bias-corrected step size).

``convention="torch"`` (``torch.optim.AdamW``): the same decay (PyTorch writes it
``var <- var * (1 - lr * weight_decay)``) before PyTorch's Adam (``adam.TorchAdam``);
weight_decay 0.01, epsilon 1e-8. ``convention="optax"`` (``optax.adamw``):
``var <- var - lr * (adam_update + weight_decay * var)``, the same decay of the old
value, with optax's Adam (``adam.OptaxAdam``); weight_decay 1e-4, epsilon 1e-8.
TensorFlow 1 has no AdamW.
"""

from __future__ import annotations

from .adam import Adam, OptaxAdam, TorchAdam
from .convention import Default

__all__ = ["AdamW", "OptaxAdamW", "TorchAdamW"]


class TorchAdamW(TorchAdam):
    """``torch.optim.AdamW``: PyTorch's Adam after the decoupled decay."""

    reference = "torch.optim.AdamW"
    defaults = {"epsilon": 1e-8, "weight_decay": 0.01}
    weight_decay = "decoupled"


class OptaxAdamW(OptaxAdam):
    """``optax.adamw``: optax's Adam plus the decoupled decay (``optax.add_decayed_weights``)."""

    reference = "optax.adamw"
    defaults = {"epsilon": 1e-8, "eps_root": 0.0, "weight_decay": 1e-4}
    lacks = ()


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter), as Keras 3's ``AdamW``.

    ``var <- var - lr * wd * var``, then the :class:`Adam` update. Exempt
    variables with :meth:`exclude_from_weight_decay`. With
    ``sparse_updates="lazy"`` only the gradient's rows decay.
    ``convention="torch"`` or ``"optax"`` gives PyTorch's or optax's AdamW
    (module docstring).

    Args:
        learning_rate: default 0.001.
        weight_decay: default 0.004 (0.01 under ``"torch"``, 1e-4 under
            ``"optax"``); a number or a schedule.
        beta_1, beta_2, epsilon, amsgrad, eps_root: as :class:`Adam`.

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
        >>> _ = opt.apply_gradients([(ds.constant([0.0]), w)])
        >>> w.numpy()
        array([0.95], dtype=float32)
    """

    #: the other frameworks' AdamW (TF 1 has none)
    conventions = {"torch": TorchAdamW, "optax": OptaxAdamW}

    def __init__(self, learning_rate=0.001, weight_decay=Default(0.004), beta_1=0.9, beta_2=0.999,
                 epsilon=Default(1e-7), amsgrad: bool = False, eps_root=None, **kwargs):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, eps_root=eps_root, weight_decay=weight_decay, **kwargs)
