# TensorFlow's tensorflow/python/kernel_tests/nn_ops/bias_op_test.py at 0304934138cbfabd338ec432a630a9c3c1191564 (tensorflow/tensorflow, Apache-2.0), run on descend through tests/tf_suite/tfshim.
# Only the import lines differ from TensorFlow's file: tools/port_keras_tests.py --tf made this copy.
# ruff: noqa
# Copyright 2019 The TensorFlow Authors. All Rights Reserved.
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
"""Functional tests for BiasAdd."""

import bias_op_base
from tfshim.platform import test

BiasAddTest = bias_op_base.BiasAddTestBase

if __name__ == "__main__":
    test.main()
