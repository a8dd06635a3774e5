"""TF 2's ``OptimizerV2`` (``tf.keras.optimizers.legacy.Optimizer``): an optimizer whose constructor takes
TF 2's arguments -- the name first, ``decay`` (inverse-time decay of the learning rate) -- for code that
subclasses it with TF 2's hooks (see :mod:`descend.optimizers.spellings`).

Example:
    >>> import descend as ds
    >>> class PlainSGD(ds.optimizers.legacy.Optimizer):
    ...     def __init__(self, learning_rate=0.1, name="PlainSGD", **kwargs):
    ...         super().__init__(name, **kwargs)
    ...         self._set_hyper("learning_rate", learning_rate)
    ...     def _resource_apply_dense(self, grad, var, apply_state=None):
    ...         var.assign_sub(grad * self._decayed_lr(var.dtype.base_dtype), use_locking=self._use_locking)
    >>> w = ds.Variable([1.0], name="w")
    >>> _ = PlainSGD(0.5, decay=0.5).apply_gradients([(ds.constant([1.0]), w)])
    >>> w.numpy()
    array([0.5], dtype=float32)
"""

from __future__ import annotations

from .optimizer import Optimizer as _Optimizer

__all__ = ["Optimizer", "OptimizerV2"]


class OptimizerV2(_Optimizer):
    """TF 2's ``OptimizerV2`` constructor: ``OptimizerV2(name, **kwargs)``.

    Args:
        name: the optimizer's name.
        gradient_aggregator, gradient_transformers: accepted for TF 2 compatibility; gradients are summed
            by the tape and transformed by the pipeline's clipping stage.
        **kwargs: ``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``decay`` (inverse-time decay of the
            learning rate, TF 2's ``lr / (1 + decay * iterations)``), ``lr``/``learning_rate``, and the
            :class:`~descend.optimizers.Optimizer` arguments.
    """

    takes_tf2_arguments = True

    def __init__(self, name="Optimizer", gradient_aggregator=None, gradient_transformers=None, **kwargs):
        # the base reads TF 2's arguments (``lr``, ``decay``); no learning rate unless one is given
        super().__init__(kwargs.pop("learning_rate", None), name=name, **kwargs)


Optimizer = OptimizerV2
