"""TF's ``test_util`` decorators and contexts, for descend, which executes eagerly and has no graphs, XLA or GPU.

* ``run_in_graph_and_eager_modes``: TF runs the test twice, building a graph and eagerly; descend has the eager
  half only, which the test runs (once). ``run_all_in_graph_and_eager_modes`` likewise for every test of a class.
* ``run_deprecated_v1``, ``run_v1_only``, ``deprecated_graph_mode_only``: TF runs the test in graph mode only
  (placeholders, sessions); descend has no graph mode, so the test skips, saying so.
* ``disable_xla``, ``run_v2_only``: nothing to change (descend has no XLA, and is TF 2's eager mode).
* ``force_cpu``, ``use_gpu``, ``device``: descend computes on the host, so these contexts change nothing.

Any other ``test_util`` name is a :class:`tfshim.Missing` placeholder.
"""

from __future__ import annotations

import contextlib
import unittest

from tfshim import Missing

_GRAPH_ONLY = ("TensorFlow runs this test in graph mode only (test_util.{}): descend executes eagerly and has no "
               "graphs, placeholders or sessions")


def _decorator(func, wrap):
    return wrap if func is None else wrap(func)


def run_in_graph_and_eager_modes(func=None, config=None, use_gpu=True, assert_no_eager_garbage=False):
    def wrap(f):
        if isinstance(f, type):
            raise ValueError("run_in_graph_and_eager_modes decorates test methods; use "
                             "run_all_in_graph_and_eager_modes for a class")
        return f
    return _decorator(func, wrap)


def run_all_in_graph_and_eager_modes(cls):
    return cls


def run_deprecated_v1(func=None):
    return _decorator(func, unittest.skip(_GRAPH_ONLY.format("run_deprecated_v1")))


def run_v1_only(reason, func=None):
    return _decorator(func, unittest.skip(_GRAPH_ONLY.format(f"run_v1_only: {reason}")))


def deprecated_graph_mode_only(func=None):
    return _decorator(func, unittest.skip(_GRAPH_ONLY.format("deprecated_graph_mode_only")))


def run_v2_only(func=None, reason=None):
    return _decorator(func, lambda f: f)


def disable_xla(description):
    return lambda f: f


def force_cpu():
    return contextlib.nullcontext()


def use_gpu():
    return contextlib.nullcontext()


def device(use_gpu):  # noqa: F811 - TF's name
    return contextlib.nullcontext()


def __getattr__(attr):
    if attr.startswith("__"):
        raise AttributeError(attr)
    return Missing(f"framework.test_util.{attr} (TensorFlow's tensorflow.python.framework.test_util.{attr})")
