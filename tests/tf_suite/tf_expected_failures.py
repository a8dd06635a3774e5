"""The tests of TensorFlow's own files (tests/tf_suite) that fail on descend, each with the reason.

Each row is ``key: (reason, exception type, message pattern)``, as tests/keras_suite/expected_failures.py's: the
exception the test raises on descend today and the start of its message (``re.search``). conftest.py here marks each
one xfail (strict: a test that starts to pass must leave this table) and fails it if it fails in another way.
Regenerate the rows with ``python tests/tf_suite/record_failures.py [files]`` after changing descend: every failure
must be fixed or have a reason here.
"""

from descend import errors  # noqa: F401  (the rows name descend's exceptions as errors.<Name>)

REASONS = {
    'bfloat16': "NumPy has no bfloat16 dtype, so descend has none (the test reaches TF's dtypes.bfloat16 after its other dtypes)",
    'placeholder': "tf.compat.v1.placeholder_with_default (a graph placeholder; eagerly TF returns its input) is not in descend",
    'variables_initializer': "tf.compat.v1.global_variables_initializer (a no-op in TF 2's eager mode) is not in descend",
    'opt_einsum_cache': "the test mocks TF's private special_math_ops._get_opt_einsum_contract_path (its cache of opt_einsum's contraction orders); descend's einsum is NumPy's",
    'newer_tf': "the copy (TF's main branch, newer than 2.21) checks what TF changed after 2.21: float64 gradients of softmax and of the cross-entropy kernel that keep the tail probabilities, and zero classes refused; TF 2.21, which descend follows, fails these tests the same way (checked by running TF's file on TF 2.21)",
    'compat_v1_nn': "the test calls TF's internal nn_ops.softmax_cross_entropy_with_logits or nn_ops.pool, which are tf.compat.v1.nn's (their dim= and dilation_rate= arguments); descend has tf.nn's (axis=, dilations=) and no tf.compat.v1.nn (and tf.nn.pool's dilated windows are not in descend)",
    'complex': "descend's tensors are real: it has no complex64 or complex128 (TF's dtypes.complex64/complex128, tf.complex; the segment tests reach them after their real dtypes)",
    'sparse_unary': "TF's zero-preserving unary ops (abs, negative, square, sign...) take a SparseTensor and return one with its values mapped; descend's take dense tensors only",
    'xent_label_sum': "descend's cross-entropy gradient for the logits is softmax * sum(labels) - labels, the true one (docs/semantics.md, Known deviations); TF's is softmax - labels, right only where each label row sums to 1",
}

EXPECTED = {
    'bias_op_test.py::BiasAddTest::test4DFloatTypes': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'bias_op_test.py::BiasAddTest::test5DFloatTypes': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'bias_op_test.py::BiasAddTest::testFloatTypes': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'bias_op_test.py::BiasAddTest::testGradientTensor2D': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'bias_op_test.py::BiasAddTest::testGradientTensor3D': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'bias_op_test.py::BiasAddTest::testGradientTensor4D': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'bias_op_test.py::BiasAddTest::testGradientTensor5D': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'cwise_ops_unary_test.py::UnaryOpTest::testComplexAbsGradGrad': ('complex', NotImplementedError, "descend has no ops\\.math_ops\\.complex \\(TensorFlow's tensorflow\\.python\\.ops\\.math_ops"),
    'cwise_ops_unary_test.py::UnaryOpTest::testInt32Basic': ('sparse_unary', TypeError, 'abs: input 0: Cannot convert SparseTensor\\(indices=<descend\\.Tensor: shape=\\(2, 3\\),'),
    'cwise_ops_unary_test.py::UnaryOpTest::testInt64Basic': ('sparse_unary', TypeError, 'abs: input 0: Cannot convert SparseTensor\\(indices=<descend\\.Tensor: shape=\\(2, 3\\),'),
    'cwise_ops_unary_test.py::UnaryOpTest::testInt64Square': ('sparse_unary', TypeError, 'square: input 0: Cannot convert SparseTensor\\(indices=<descend\\.Tensor: shape=\\(2, '),
    'pool_test.py::PoolingTest::testPool1D': ('compat_v1_nn', TypeError, "pool\\(\\) got an unexpected keyword argument 'dilation_rate'"),
    'pool_test.py::PoolingTest::testPool2D': ('compat_v1_nn', TypeError, "pool\\(\\) got an unexpected keyword argument 'dilation_rate'"),
    'pool_test.py::PoolingTest::testPool3D': ('compat_v1_nn', TypeError, "pool\\(\\) got an unexpected keyword argument 'dilation_rate'"),
    'pool_test.py::PoolingTest::testPoolSimple': ('compat_v1_nn', TypeError, "pool\\(\\) got an unexpected keyword argument 'dilation_rate'"),
    'relu_op_test.py::CreluTest::testNumbersCPU': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'relu_op_test.py::EluTest::testNumbersCPU': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'relu_op_test.py::LeakyReluTest::testGradientScalar': ('variables_initializer', NotImplementedError, "descend has no ops\\.variables\\.global_variables_initializer \\(TensorFlow's tensorfl"),
    'relu_op_test.py::LeakyReluTest::testNumbersCPU': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'relu_op_test.py::Relu6Test::testNumbersCPU': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'relu_op_test.py::ReluTest::testGradientScalar': ('variables_initializer', NotImplementedError, "descend has no ops\\.variables\\.global_variables_initializer \\(TensorFlow's tensorfl"),
    'relu_op_test.py::ReluTest::testNumbersCPU': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'relu_op_test.py::SeluTest::testNumbers': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'segment_reduction_ops_test.py::SegmentReductionOpTest::testNaNPropagation': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'segment_reduction_ops_test.py::SegmentReductionOpTest::testValues_4': ('complex', ValueError, "Could not convert <missing framework\\.dtypes\\.complex64 \\(TensorFlow's tensorflow\\.p"),
    'segment_reduction_ops_test.py::SegmentReductionOpTest::testValues_5': ('complex', ValueError, "Could not convert <missing framework\\.dtypes\\.complex128 \\(TensorFlow's tensorflow\\."),
    'segment_reduction_ops_test.py::SegmentReductionOpTest::testValues_6': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'segment_reduction_ops_test.py::SparseSegmentReductionOpTest::testValues': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'segment_reduction_ops_test.py::UnsortedSegmentTest::testDropNegatives': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'segment_reduction_ops_test.py::UnsortedSegmentTest::testGradientsGradientTape_3': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'segment_reduction_ops_test.py::UnsortedSegmentTest::testNaNPropagation': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'segment_reduction_ops_test.py::UnsortedSegmentTest::testValues_3': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'segment_reduction_ops_test.py::UnsortedSegmentTest::testValues_6': ('complex', ValueError, "Could not convert <missing framework\\.dtypes\\.complex64 \\(TensorFlow's tensorflow\\.p"),
    'segment_reduction_ops_test.py::UnsortedSegmentTest::testValues_7': ('complex', ValueError, "Could not convert <missing framework\\.dtypes\\.complex128 \\(TensorFlow's tensorflow\\."),
    'softmax_op_test.py::SoftmaxTest::testBfloat16': ('bfloat16', errors.InvalidArgumentError, "cast: Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorf"),
    'softmax_op_test.py::SoftmaxTest::testDimTooLarge': ('placeholder', NotImplementedError, "descend has no ops\\.array_ops\\.placeholder_with_default \\(TensorFlow's tensorflow\\.p"),
    'softmax_op_test.py::SoftmaxTest::testSoftmaxDoubleGradientPreservesSmallComponent': ('newer_tf', AssertionError, 'Not equal to tolerance rtol=1e-14, atol=0'),
    'softplus_op_test.py::SoftplusTest::testNumbers': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'softsign_op_test.py::SoftsignTest::testNumbers': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'special_math_ops_test.py::EinsumTest::test_invalid_equation': ('placeholder', NotImplementedError, "descend has no ops\\.array_ops\\.placeholder_with_default \\(TensorFlow's tensorflow\\.p"),
    'special_math_ops_test.py::EinsumTest::test_invalid_keyword_arguments': ('placeholder', NotImplementedError, "descend has no ops\\.array_ops\\.placeholder_with_default \\(TensorFlow's tensorflow\\.p"),
    'special_math_ops_test.py::EinsumTest::test_opt_einsum_cached': ('opt_einsum_cache', NotImplementedError, "descend has no ops\\.special_math_ops\\._get_opt_einsum_contract_path \\(TensorFlow's "),
    'special_math_ops_test.py::EinsumTest::test_placeholder': ('placeholder', NotImplementedError, "descend has no ops\\.array_ops\\.placeholder_with_default \\(TensorFlow's tensorflow\\.p"),
    'xent_op_test.py::XentOpTest::test3D': ('compat_v1_nn', TypeError, "softmax_cross_entropy_with_logits\\(\\) got an unexpected keyword argument 'dim'"),
    'xent_op_test.py::XentOpTest::testBfloat16': ('bfloat16', ValueError, "Could not convert <missing framework\\.dtypes\\.bfloat16 \\(TensorFlow's tensorflow\\.py"),
    'xent_op_test.py::XentOpTest::testDouble': ('compat_v1_nn', TypeError, "softmax_cross_entropy_with_logits\\(\\) got an unexpected keyword argument 'dim'"),
    'xent_op_test.py::XentOpTest::testDoublePreservesGeneralLabelGradients': ('xent_label_sum', AssertionError, 'Not equal to tolerance rtol=1e-06, atol=1e-06'),
    'xent_op_test.py::XentOpTest::testDoublePreservesMultiClassTailGradient': ('newer_tf', AssertionError, 'np\\.float64\\(0\\.0\\) not less than 0\\.0'),
    'xent_op_test.py::XentOpTest::testDoublePreservesSoftLabelsAndPositiveZero': ('newer_tf', AssertionError, 'np\\.float64\\(0\\.5\\) not less than 0\\.5'),
    'xent_op_test.py::XentOpTest::testFloat': ('compat_v1_nn', TypeError, "softmax_cross_entropy_with_logits\\(\\) got an unexpected keyword argument 'dim'"),
    'xent_op_test.py::XentOpTest::testHalf': ('compat_v1_nn', TypeError, "softmax_cross_entropy_with_logits\\(\\) got an unexpected keyword argument 'dim'"),
    'xent_op_test.py::XentOpTest::testRejectsZeroClasses': ('newer_tf', AssertionError, "\\(<class 'ValueError'>, <class 'descend\\.errors\\.InvalidArgumentError'>\\) not raised"),
    'xent_op_test.py::XentOpTest::testSingleClass': ('compat_v1_nn', TypeError, "softmax_cross_entropy_with_logits\\(\\) got an unexpected keyword argument 'dim'"),
    'xent_op_test.py::XentOpTest::testSmallGradientAcrossDtypes': ('newer_tf', AssertionError, 'Not equal to tolerance rtol=1e-14, atol=0'),
}
