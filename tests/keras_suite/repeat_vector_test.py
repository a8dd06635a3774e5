# Keras 3.15.1's keras/src/layers/reshaping/repeat_vector_test.py (keras-team/keras, Apache-2.0), run on descend through tests/keras_suite/kshim.
# Only the import lines differ from Keras' file: tools/port_keras_tests.py made this copy.
# ruff: noqa
import numpy as np

from kshim import layers
from kshim import ops
from kshim import testing


class FlattenTest(testing.TestCase):
    def test_repeat_vector(self):
        inputs = np.random.random((2, 5)).astype("float32")
        expected_output = ops.convert_to_tensor(
            np.repeat(np.reshape(inputs, (2, 1, 5)), 3, axis=1)
        )
        self.run_layer_test(
            layers.RepeatVector,
            init_kwargs={"n": 3},
            input_data=inputs,
            expected_output=expected_output,
        )

    def test_repeat_vector_with_dynamic_batch_size(self):
        input_layer = layers.Input(batch_shape=(None, 5))
        repeated = layers.RepeatVector(n=3)(input_layer)
        self.assertEqual(repeated.shape, (None, 3, 5))

    def test_repeat_vector_with_dynamic_dimension(self):
        input_layer = layers.Input(batch_shape=(2, None))
        repeated = layers.RepeatVector(n=3)(input_layer)
        self.assertEqual(repeated.shape, (2, 3, None))

    def test_repeat_vector_with_invalid_n(self):
        with self.assertRaisesRegex(
            TypeError, "Expected an integer value for `n`"
        ):
            layers.RepeatVector(n="3")

        with self.assertRaisesRegex(
            TypeError, "Expected an integer value for `n`"
        ):
            layers.RepeatVector(n=3.5)

        with self.assertRaisesRegex(
            TypeError, "Expected an integer value for `n`"
        ):
            layers.RepeatVector(n=[3])

    def test_repeat_vector_with_non_positive_n(self):
        for n in (0, -3):
            with self.assertRaisesRegex(
                ValueError, "should be a positive integer"
            ):
                layers.RepeatVector(n=n)
