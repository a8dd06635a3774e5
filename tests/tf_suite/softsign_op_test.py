# TensorFlow's tensorflow/python/kernel_tests/nn_ops/softsign_op_test.py at 0304934138cbfabd338ec432a630a9c3c1191564 (tensorflow/tensorflow, Apache-2.0), run on descend through tests/tf_suite/tfshim.
# Only the import lines differ from TensorFlow's file: tools/port_keras_tests.py --tf made this copy.
# ruff: noqa
# Copyright 2015 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
"""Tests for Softsign and SoftsignGrad."""

import numpy as np

from tfshim.framework import constant_op
from tfshim.framework import dtypes
from tfshim.framework import test_util
from tfshim.ops import gradient_checker
from tfshim.ops import nn_ops
import tfshim.ops.nn_grad  # pylint: disable=unused-import
from tfshim.platform import test


class SoftsignTest(test.TestCase):
    def _npSoftsign(self, np_features):
        return np_features / (1 + np.abs(np_features))

    def _testSoftsign(self, np_features, atol, rtol, use_gpu=False):
        np_softsign = self._npSoftsign(np_features)
        with self.cached_session(use_gpu=use_gpu):
            softsign = nn_ops.softsign(np_features)
            tf_softsign = self.evaluate(softsign)

        self.assertAllClose(np_softsign, tf_softsign, rtol=rtol, atol=atol)
        self.assertShapeEqual(np_softsign, softsign)

    def testNumbers(self):
        for t, atol, rtol in [
            (np.float16, 1e-6, 1e-6),
            (np.float32, 1e-6, 1e-6),
            (np.float64, 1e-6, 1e-6),
            (dtypes.bfloat16.as_numpy_dtype, 1e-2, 1e-2),
        ]:
            self._testSoftsign(
                np.array([[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]]).astype(t),
                atol,
                rtol,
                use_gpu=False,
            )
            self._testSoftsign(
                np.array([[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]]).astype(t),
                atol,
                rtol,
                use_gpu=True,
            )

    @test_util.run_deprecated_v1
    def testGradient(self):
        with self.cached_session():
            x = constant_op.constant(
                [-0.9, -0.7, -0.5, -0.3, -0.1, 0.1, 0.3, 0.5, 0.7, 0.9],
                shape=[2, 5],
                name="x",
            )
            y = nn_ops.softsign(x, name="softsign")
            x_init = np.asarray(
                [[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.9]],
                dtype=np.float32,
                order="F",
            )
            err = gradient_checker.compute_gradient_error(
                x, [2, 5], y, [2, 5], x_init_value=x_init
            )
        print("softsign (float) gradient err = ", err)
        self.assertLess(err, 1e-4)

    @test_util.run_deprecated_v1
    def testNoInts(self):
        with self.cached_session():
            with self.assertRaisesRegex(
                TypeError, "'features' has DataType int32 not in list of allowed values"
            ):
                nn_ops.softsign(constant_op.constant(7)).eval()


if __name__ == "__main__":
    test.main()
