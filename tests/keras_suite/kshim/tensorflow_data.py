"""TensorFlow for the Keras test files that import it at module level (``from tensorflow import data as tf_data``,
``import tensorflow as tf``) to run a layer inside a ``tf.data`` pipeline: TensorFlow itself where it is installed,
else a stand-in whose first use skips the test with the reason pytest's ``importorskip`` gives ("could not import
'tensorflow'"), so the files still collect, their other tests run, and CI's pass with TensorFlow runs these."""

from __future__ import annotations

import pytest

try:
    import tensorflow as tf
except ImportError:  # (the first CI pass has no TensorFlow)
    class _Missing:
        def __init__(self, name):
            self._name = name

        def __getattr__(self, attr):
            if attr.startswith("__") or attr in ("pytestmark",):  # (pytest's collection looks these up)
                raise AttributeError(attr)
            pytest.skip(f"could not import 'tensorflow': {self._name}.{attr} runs a layer inside a tf.data pipeline")

    tf = _Missing("tensorflow")
    data = _Missing("tf.data")
else:
    data = tf.data

__all__ = ["data", "tf"]
