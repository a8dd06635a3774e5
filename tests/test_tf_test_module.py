"""tf.test (descend/test.py): TestCase's assertions, compute_gradient against TF's."""

from __future__ import annotations

import unittest

import numpy as np
import pytest

import descend as ds

FUNCTIONS = [
    (lambda m, x: x * x, [np.array([1.0, 3.0], np.float32)]),
    (lambda m, x, y: m.matmul(x, y), [np.arange(6, dtype=np.float64).reshape(2, 3) / 5,
                                      np.linspace(-1, 1, 6).reshape(3, 2)]),
    (lambda m, x: m.tanh(x) * 2.0, [np.array(0.3, np.float32)]),
    (lambda m, x: m.reduce_sum(m.exp(x), axis=0), [np.linspace(-1, 1, 6).reshape(3, 2).astype(np.float32)]),
]


@pytest.mark.parametrize("i", range(len(FUNCTIONS)))
def test_compute_gradient_equals_tensorflows(i):
    tf = pytest.importorskip("tensorflow")
    f, xs = FUNCTIONS[i]
    ours = ds.test.compute_gradient(lambda *a: f(ds, *a), [x.copy() for x in xs])
    theirs = tf.test.compute_gradient(lambda *a: f(tf, *a), [x.copy() for x in xs])
    for o, t, tol in zip(ours, theirs, (1e-5, 2e-3)):  # theoretical; numerical (float32 rounding / (2 delta))
        assert len(o) == len(t)
        for a, b in zip(o, t):
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_testcase_assertions_pass_and_fail_where_they_should():
    # defined here so that pytest does not collect it (a unittest.TestCase is collected whatever its name)
    class _Case(ds.test.TestCase):
        def test_passing(self):
            self.assertAllClose({"a": ds.constant([1.0, 2.0])}, {"a": np.array([1.0, 2.0 + 1e-7])})
            self.assertAllEqual(ds.constant([[1, 2]]), [[1, 2]])
            self.assertAllInRange(ds.constant([0.0, 1.0]), 0.0, 1.0)
            self.assertAllInSet(ds.constant([1, 2, 1]), {1, 2})
            self.assertAllGreater(ds.constant([1, 2]), 0)
            self.assertNotAllClose([1.0], [1.1])
            self.assertDTypeEqual(ds.constant([1.0]), "float32")
            self.assertShapeEqual(np.zeros((2, 3)), ds.zeros((2, 3)))
            with self.assertRaisesOpError("out of bounds|out of order"):
                ds.sparse.to_dense(ds.SparseTensor([[5, 0]], [1.0], [2, 2]))
            self.assertEqual(self.evaluate([ds.constant(2.0)])[0], 2.0)

        def test_failing_all_close(self):
            self.assertAllClose([1.0], [1.1])

        def test_failing_range(self):
            self.assertAllInRange([0.0, 2.0], 0.0, 1.0)

        def test_failing_op_error(self):
            with self.assertRaisesOpError("nothing"):
                ds.sparse.to_dense(ds.SparseTensor([[5, 0]], [1.0], [2, 2]))

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(_Case).run(result)
    assert result.testsRun == 4 and not result.errors
    assert sorted(t.id().rsplit(".", 1)[1] for t, _ in result.failures) == [
        "test_failing_all_close", "test_failing_op_error", "test_failing_range"]


def test_build_queries_describe_descend():
    assert ds.test.is_gpu_available() is False and ds.test.gpu_device_name() == ""
    assert not ds.test.is_built_with_cuda() and not ds.test.is_built_with_xla()
    with pytest.raises(ValueError, match="list or tuple"):
        ds.test.compute_gradient(lambda x: x, ds.constant(1.0))
