"""AdamW: Adam with decoupled weight decay (Keras 3 convention).

``var <- var - lr * weight_decay * var`` before the Adam update; the decay
uses the learning rate of this step (not the bias-corrected step size).
"""

from __future__ import annotations

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter), as Keras 3's ``AdamW``.

    ``var <- var - lr * wd * var``, then the :class:`Adam` update. Exempt
    variables with :meth:`exclude_from_weight_decay`. With
    ``sparse_updates="lazy"`` only the gradient's rows decay.

    Args:
        learning_rate: default 0.001.
        weight_decay: default 0.004 (a number or a schedule).
        beta_1, beta_2, epsilon, amsgrad: as :class:`Adam`.

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
        >>> _ = opt.apply_gradients([(ds.constant([0.0]), w)])
        >>> w.numpy()
        array([0.95], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad: bool = False, **kwargs):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, weight_decay=weight_decay, **kwargs)
