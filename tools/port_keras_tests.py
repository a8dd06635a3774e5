"""Copy Keras 3's own test files for the losses, metrics, layers and random functions descend has into
tests/keras_suite/, with only their import lines rewritten to the shim (tests/keras_suite/kshim).

Usage: python tools/port_keras_tests.py /path/to/keras-checkout

The checkout must have the tag below; each file is read at that tag with ``git show``, so the copies are
Keras 3.15.1's exactly, line for line, except the imports:

* ``keras.src.<module>`` -> ``kshim.<module>`` (``import keras`` -> ``import kshim as keras``);
* ``absl.testing.parameterized`` -> ``kshim.parameterized`` (the same decorators, without absl);
* ``from absl import logging`` -> ``import logging``; ``from conftest import ...`` -> ``from kshim.testing import ...``;
* a module-level ``from tensorflow import data as tf_data`` / ``import tensorflow as tf`` -> ``kshim.tensorflow_data``'s
  (TensorFlow where installed, else a stand-in that raises, so the file collects without it);
* ``import jax.numpy as jnp``, ``import scipy.signal``... (at any indentation) -> ``kshim.references``' (the modules
  where installed, else stand-ins that skip the test that uses them).

Each copy starts with a comment naming its source. Keras is Apache-2.0 licensed (tests/keras_suite/LICENSE).

With ``--tf``, the same for TensorFlow's own tests of tf.math's special functions and tf.nn (TF_FILES below) into
tests/tf_suite/: ``python tools/port_keras_tests.py --tf /path/to/tensorflow-checkout`` reads each file at the
revision listed with it and rewrites only its imports (_TF_RULES): ``tensorflow.python.<module>`` -> ``tfshim.<module>``
(tests/tf_suite/tfshim), a TF test base module (``tensorflow.python.kernel_tests...``) -> its copy beside the file,
absl's ``parameterized`` -> ``tfshim.parameterized``, and the optional ``opt_einsum``/``six`` -> ``tfshim.optional``'s.
TensorFlow is Apache-2.0 licensed; each copy keeps TF's license header.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

TAG = "v3.15.1"
FILES = [
    "keras/src/losses/loss_test.py",
    "keras/src/losses/losses_test.py",
    "keras/src/metrics/accuracy_metrics_test.py",
    "keras/src/metrics/confusion_metrics_test.py",
    "keras/src/metrics/hinge_metrics_test.py",
    "keras/src/metrics/metric_test.py",
    "keras/src/metrics/probabilistic_metrics_test.py",
    "keras/src/metrics/reduction_metrics_test.py",
    "keras/src/metrics/regression_metrics_test.py",
    "keras/src/layers/activations/activation_test.py",
    "keras/src/layers/attention/multi_head_attention_test.py",
    "keras/src/layers/convolutional/conv_test.py",
    "keras/src/layers/core/dense_test.py",
    "keras/src/layers/core/embedding_test.py",
    "keras/src/layers/core/input_layer_test.py",
    "keras/src/layers/core/lambda_layer_test.py",
    "keras/src/layers/core/masking_test.py",
    "keras/src/layers/merging/merging_test.py",
    "keras/src/layers/normalization/batch_normalization_test.py",
    "keras/src/layers/normalization/layer_normalization_test.py",
    "keras/src/layers/pooling/average_pooling_test.py",
    "keras/src/layers/pooling/global_average_pooling_test.py",
    "keras/src/layers/pooling/global_max_pooling_test.py",
    "keras/src/layers/pooling/max_pooling_test.py",
    "keras/src/layers/regularization/dropout_test.py",
    "keras/src/layers/reshaping/flatten_test.py",
    "keras/src/layers/reshaping/permute_test.py",
    "keras/src/layers/reshaping/repeat_vector_test.py",
    "keras/src/layers/reshaping/reshape_test.py",
    "keras/src/layers/rnn/bidirectional_test.py",
    "keras/src/layers/rnn/gru_test.py",
    "keras/src/layers/rnn/lstm_test.py",
    "keras/src/layers/rnn/rnn_test.py",
    "keras/src/layers/rnn/simple_rnn_test.py",
    "keras/src/layers/rnn/time_distributed_test.py",
    "keras/src/random/random_test.py",
    "keras/src/random/seed_generator_test.py",
    "keras/src/layers/rnn/conv_lstm1d_test.py",
    "keras/src/layers/rnn/conv_lstm2d_test.py",
    "keras/src/layers/rnn/conv_lstm3d_test.py",
    "keras/src/layers/rnn/stacked_rnn_cells_test.py",
    "keras/src/layers/core/wrapper_test.py",
    "keras/src/layers/core/reversible_embedding_test.py",
    "keras/src/layers/normalization/spectral_normalization_test.py",
    "keras/src/layers/attention/grouped_query_attention_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/solarization_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/equalization_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_posterization_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_sharpness_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/mix_up_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/cut_mix_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_hue_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_saturation_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_color_degeneration_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_shear_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_erasing_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_gaussian_blur_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_perspective_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_color_jitter_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/rand_augment_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/aug_mix_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/random_elastic_transform_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/max_num_bounding_box_test.py",
    "keras/src/layers/preprocessing/image_preprocessing/clahe_test.py",
    "keras/src/layers/preprocessing/mel_spectrogram_test.py",
    "keras/src/layers/convolutional/conv_transpose_test.py",
    "keras/src/ops/linalg_test.py",
    "keras/src/ops/math_test.py",
    "keras/src/layers/convolutional/depthwise_conv_test.py",  # (its NumPy reference, which nn_test imports)
    "keras/src/ops/nn_test.py",
    "keras/src/ops/core_test.py",
    "keras/src/ops/image_test.py",
    "keras/src/ops/numpy_test.py",
]

_RULES = [
    (re.compile(r"^(\s*)from absl\.testing import parameterized\b"), r"\1from kshim import parameterized"),
    (re.compile(r"^(\s*)from absl import logging\b"), r"\1import logging"),
    (re.compile(r"^(\s*)from conftest import "), r"\1from kshim.testing import "),
    (re.compile(r"^(\s*)import keras\s*$"), r"\1import kshim as keras"),
    (re.compile(r"^(\s*)from keras\.src import "), r"\1from kshim import "),
    (re.compile(r"^(\s*)from keras import "), r"\1from kshim import "),
    # TensorFlow imported at module level for a tf.data test: TF where installed, else a stand-in (kshim/tensorflow_data.py)
    (re.compile(r"^from tensorflow import data as tf_data\s*$"), r"from kshim.tensorflow_data import data as tf_data"),
    (re.compile(r"^import tensorflow as tf\s*$"), r"from kshim.tensorflow_data import tf"),
    # JAX, SciPy and PyTorch, which compute some tests' expected values: the modules where installed, else stand-ins that skip
    # the test on first use (kshim/references.py)
    (re.compile(r"^(\s*)import jax\.numpy as jnp\s*$"), r"\1from kshim.references import jnp"),
    (re.compile(r"^(\s*)import jax\.lax as lax\s*$"), r"\1from kshim.references import lax"),
    (re.compile(r"^(\s*)import jax\.scipy\.special as special\s*$"), r"\1from kshim.references import jax_scipy_special as special"),
    (re.compile(r"^(\s*)import jax\.nn as jnn\s*$"), r"\1from kshim.references import jnn"),
    (re.compile(r"^(\s*)import jax\s*$"), r"\1from kshim.references import jax"),
    (re.compile(r"^(\s*)import torch\s*$"), r"\1from kshim.references import torch"),
    (re.compile(r"^(\s*)import torch\.nn\.functional as tnn\s*$"), r"\1from kshim.references import tnn"),
    (re.compile(r"^(\s*)from scipy import special\s*$"), r"\1from kshim.references import scipy_special as special"),
    (re.compile(r"^(\s*)import scipy(\.\w+)?\s*$"), r"\1from kshim.references import scipy"),
    (re.compile(r"^(\s*)from keras\.src\.([\w.]+) import "), r"\1from kshim.\2 import "),
    (re.compile(r"^(\s*)import keras\.src\.([\w.]+) as "), r"\1import kshim.\2 as "),
]


#: (file, class) -> import rewrites for that class's lines only: numpy_test's NumpyDtypeTest compares each op's dtype
#: with JAX's, which kshim.references.jnp_dtypes finds by tracing instead of compiling a kernel per dtype pair
_CLASS_RULES = {
    ("keras/src/ops/numpy_test.py", "NumpyDtypeTest"): [
        (re.compile(r"^(\s*)from kshim\.references import jnp\s*$"), r"\1from kshim.references import jnp_dtypes as jnp"),
    ],
}


def rewrite(source: str, path: str) -> str:
    out = [f"# Keras {TAG[1:]}'s {path} (keras-team/keras, Apache-2.0), run on descend through tests/keras_suite/kshim.",
           "# Only the import lines differ from Keras' file: tools/port_keras_tests.py made this copy.",
           "# ruff: noqa"]
    cls = None
    for line in source.splitlines():
        top = re.match(r"class (\w+)|(def|async def) |\S", line)
        if top and not line.startswith((")", "]", "}", "#")):
            cls = top.group(1)
        for pattern, replacement in _RULES:
            new = pattern.sub(replacement, line)
            if new != line:
                line = new
                break
        for pattern, replacement in _CLASS_RULES.get((path, cls), ()):
            line = pattern.sub(replacement, line)
        out.append(line)
    text = "\n".join(out) + "\n"
    # (JAX, TensorFlow and PyTorch imports left inside a test are in the branches for those backends, which stay off)
    leftover = [ln for ln in text.splitlines()
                if re.search(r"^\s*(from|import) (keras|absl)\b|^(from|import) (jax|scipy|torch|tensorflow)\b", ln)]
    if leftover:
        raise SystemExit(f"{path}: imports left unrewritten: {leftover}")
    return text


#: TensorFlow's test files, each with the revision its copy was read at (v2.21.0: the files TF's wheel installs)
TF_FILES = [
    ("tensorflow/python/ops/special_math_ops_test.py", "00f0938ae85c7dd68b44b4d80a873f42b1dca16a"),
    ("tensorflow/python/kernel_tests/nn_ops/softmax_op_test.py", "0560bfc66c7a8a655253df4d2408ae4c9a15a3ff"),
    ("tensorflow/python/kernel_tests/nn_ops/xent_op_test.py", "2d3f527c2b726039f8974a03916cbcfa248cae22"),
    ("tensorflow/python/kernel_tests/nn_ops/xent_op_test_base.py", "v2.21.0"),
    ("tensorflow/python/kernel_tests/nn_ops/relu_op_test.py", "0304934138cbfabd338ec432a630a9c3c1191564"),
    ("tensorflow/python/kernel_tests/nn_ops/softplus_op_test.py", "08df8c40b4376ed012fa3ba03ff3e3068d8d2a94"),
    ("tensorflow/python/kernel_tests/nn_ops/softsign_op_test.py", "0304934138cbfabd338ec432a630a9c3c1191564"),
    ("tensorflow/python/kernel_tests/nn_ops/pool_test.py", "3a2c6ae8b910b9b325414c62dd6ea5a4604d3676"),
    ("tensorflow/python/kernel_tests/nn_ops/bias_op_test.py", "0304934138cbfabd338ec432a630a9c3c1191564"),
    ("tensorflow/python/kernel_tests/nn_ops/bias_op_base.py", "v2.21.0"),
    ("tensorflow/python/kernel_tests/math_ops/cwise_ops_unary_test.py", "0304934138cbfabd338ec432a630a9c3c1191564"),
    ("tensorflow/python/kernel_tests/math_ops/segment_reduction_ops_test.py", "02e4f9a29ddd1cf3c67b23c8889035c3218f988d"),
]

_TF_RULES = [
    (re.compile(r"^(\s*)from tensorflow\.python\.kernel_tests\.[\w.]+ import (\w+)(\s*#.*)?$"), r"\1import \2\3"),
    (re.compile(r"^(\s*)from tensorflow\.python\.([\w.]+) import "), r"\1from tfshim.\2 import "),
    (re.compile(r"^(\s*)import tensorflow\.python\.([\w.]+)"), r"\1import tfshim.\2"),
    (re.compile(r"^(\s*)from absl\.testing import parameterized\b"), r"\1from tfshim import parameterized"),
    (re.compile(r"^import (opt_einsum|six)\s*$"), r"from tfshim.optional import \1"),
]


def rewrite_tf(source: str, path: str, revision: str) -> str:
    """TensorFlow's ``source`` (``path`` at ``revision``) with its imports rewritten to tests/tf_suite/tfshim."""
    out = [f"# TensorFlow's {path} at {revision} (tensorflow/tensorflow, Apache-2.0), run on descend through "
           "tests/tf_suite/tfshim.",
           "# Only the import lines differ from TensorFlow's file: tools/port_keras_tests.py --tf made this copy.",
           "# ruff: noqa"]
    for line in source.splitlines():
        for pattern, replacement in _TF_RULES:
            new = pattern.sub(replacement, line)
            if new != line:
                line = new
                break
        out.append(line)
    text = "\n".join(out) + "\n"
    leftover = [ln for ln in text.splitlines() if re.search(r"^\s*(from|import) (tensorflow|absl|opt_einsum|six)\b", ln)]
    if leftover:
        raise SystemExit(f"{path}: imports left unrewritten: {leftover}")
    return text


def main_tf(checkout: str) -> None:
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "tf_suite")
    for path, revision in TF_FILES:
        source = subprocess.run(["git", "-C", checkout, "show", f"{revision}:{path}"], check=True, capture_output=True,
                                text=True).stdout
        with open(os.path.join(here, os.path.basename(path)), "w", encoding="utf-8") as f:
            f.write(rewrite_tf(source, path, revision))
    print(f"wrote {len(TF_FILES)} files to {os.path.normpath(here)}")


def main(checkout: str) -> None:
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "keras_suite")
    for path in FILES:
        source = subprocess.run(["git", "-C", checkout, "show", f"{TAG}:{path}"], check=True, capture_output=True,
                                text=True).stdout
        text = rewrite(source, path)  # (before opening the copy: a refusal leaves the old one)
        with open(os.path.join(here, os.path.basename(path)), "w", encoding="utf-8") as f:
            f.write(text)
    print(f"wrote {len(FILES)} files to {os.path.normpath(here)}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--tf":
        main_tf(sys.argv[2])
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        raise SystemExit(__doc__)
