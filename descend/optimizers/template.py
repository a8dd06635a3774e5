"""The one way into an update: :meth:`UpdateTemplate.apply_gradients`, defined here and nowhere else.

Every optimizer -- the Keras ones, TF 1's ``compat.v1.train`` classes, Hugging Face's ``AdamWeightDecay``,
the wrappers (``MultiOptimizer``, ``LossScaleOptimizer``) and a user's subclass in any spelling -- derives
from :class:`UpdateTemplate`, and ``apply_gradients`` is this closed template::

    apply_gradients(pairs, *call_arguments) = bind(variables of pairs).apply(pairs, **call_arguments)

A class does not override it. It says two things instead:

* ``call_arguments``: the arguments ``apply_gradients`` takes after the pairs, as a signature would list
  them (names before ``"*"`` may also be given by position): TF 1's ``("global_step", "name", "*",
  "weight")``, Hugging Face's ``("clip_norm", "name", ...)``. Its ``prepare`` consumes them.
* ``bind(variables)``: the bound plan of an update of these variables (:mod:`descend.optimizers.bound`:
  the pipeline's plan, with its batched form), cached per variable list. A wrapper's bound plan is a
  composition of its optimizers' bound plans.

``apply_gradients`` is marked for :func:`descend.function`: a trace records the call as one optimizer node
(:mod:`descend.compiler.nodes`), which runs the same bound plan at every call of the compiled step.
"""

from __future__ import annotations

import operator

from ..framework import trace as _trace

__all__ = ["UpdateTemplate", "variables_of"]

_SECOND, _PAIR, _SEQUENCES = operator.itemgetter(1), {2}, {tuple, list}


def variables_of(pairs) -> tuple:
    """The variable of each ``(gradient, variable)`` pair (a tuple or list of two), None for an item that is
    not one (the ``validate`` stage says what is wrong with it)."""
    if set(map(type, pairs)) <= _SEQUENCES and set(map(len, pairs)) == _PAIR:  # (the usual call: no per-item
        return tuple(map(_SECOND, pairs))                                   # Python, which a step pays for)
    return tuple(item[1] if type(item) in (tuple, list) and len(item) == 2 else None for item in pairs)


class UpdateTemplate:
    """The root of every optimizer class: the update's template (``apply_gradients``, ``apply``).

    A subclass implements :meth:`bind` and :meth:`_variables_to_apply`, and declares ``call_arguments``."""

    #: the arguments ``apply_gradients`` takes after the pairs (before ``"*"``: positional too); ``prepare``
    #: consumes them
    call_arguments: tuple = ("*", "weight")

    def bind(self, variables):
        """The bound plan of an update of ``variables`` (an object with ``prepare``, ``commit`` and ``apply``)."""
        raise NotImplementedError

    def _variables_to_apply(self) -> list:
        """The variables :meth:`apply` updates when it is not given any (those the optimizer was built for)."""
        raise NotImplementedError

    def call_arguments_of(self, args: tuple, kwargs: dict) -> dict:
        """``{name: value}`` of the arguments an ``apply_gradients`` call gave after the pairs, checked against
        ``call_arguments`` (a ``TypeError`` as Python's for an argument the class does not take)."""
        if not args and not kwargs:
            return {}
        names = tuple(self.call_arguments)
        star = names.index("*") if "*" in names else len(names)
        positional = names[:star]
        if len(args) > len(positional):
            raise TypeError(f"{type(self).__name__}.apply_gradients() takes {len(positional)} positional argument(s) "
                            f"after `grads_and_vars` ({', '.join(positional) or 'none'}). Received: {len(args)}")
        call = dict(zip(positional, args))
        for k, v in kwargs.items():
            if k == "*" or k not in names:
                taken = [n for n in names if n != "*"]
                raise TypeError(f"{type(self).__name__}.apply_gradients() got an unexpected keyword argument '{k}'. "
                                f"It takes: {taken}")
            if k in call:
                raise TypeError(f"{type(self).__name__}.apply_gradients() got multiple values for argument '{k}'")
            call[k] = v
        return call

    @_trace.opaque("optimizer")  # descend.function records the update as one node of its plan
    def apply_gradients(self, grads_and_vars, *args, **kwargs):
        """Apply ``(gradient, variable)`` pairs; returns ``iterations`` (a ``MultiOptimizer``: None).

        All or nothing: everything that can fail (validation, schedules, accumulation, clipping, the
        non-finite policy, constraints) is computed before the first write; on an error no variable, slot,
        accumulator or counter has changed. ``None`` gradients are skipped with a warning.

        Args:
            grads_and_vars: iterable of ``(gradient, Variable)``; a gradient is a Tensor, an array or an
                ``IndexedSlices``.
            *args, **kwargs: the class's ``call_arguments``: every optimizer takes ``weight`` (with
                ``gradient_accumulation_steps``, this micro-batch's weight, its example or token count: the
                applied gradient is ``sum(w_i g_i) / sum(w_i)``; default 1); TF 1's take ``global_step`` and
                ``name``, Hugging Face's ``AdamWeightDecay`` ``clip_norm`` and ``name``.
        """
        call = self.call_arguments_of(args, kwargs)
        pairs = grads_and_vars if type(grads_and_vars) in (list, tuple) else list(grads_and_vars)
        return self.bind(variables_of(pairs)).apply(pairs, **call)

    def apply(self, grads, trainable_variables=None):
        """Keras 3's ``apply(grads, trainable_variables)``: ``apply_gradients(zip(grads, trainable_variables))``.

        Without ``trainable_variables``, the variables this optimizer has already updated (or built), in the
        order it first saw them; the number of gradients must match either way.

        Example:
            >>> import descend as ds
            >>> w = ds.Variable([1.0, 2.0], name="w")
            >>> opt = ds.optimizers.SGD(0.5)
            >>> opt.apply([ds.constant([1.0, 1.0])], [w])
            >>> opt.apply([ds.constant([1.0, 1.0])])  # the variables it was built for
            >>> w.numpy()
            array([0., 1.], dtype=float32)
        """
        grads = list(grads)
        if trainable_variables is None:
            trainable_variables = self._variables_to_apply()
            if not trainable_variables:
                raise ValueError("apply: this optimizer has not been built; pass `trainable_variables` or call "
                                 "build(variables) first")
        else:
            trainable_variables = list(trainable_variables)
        if len(grads) != len(trainable_variables):
            raise ValueError(f"apply: `grads` and `trainable_variables` must have the same length. Received: "
                             f"{len(grads)} gradients and {len(trainable_variables)} variables")
        self.apply_gradients(zip(grads, trainable_variables))
