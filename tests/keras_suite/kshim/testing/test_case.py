"""Keras' ``testing.TestCase`` over descend.

The assertion helpers are Keras' (``assertAllClose`` with atol = rtol = 1e-6...). ``run_layer_test`` makes the
checks Keras' makes, in descend's terms:

1. with data: build the layer by calling it, count its weights;
2. serialization: ``get_config`` -> ``from_config`` gives the same config and the same attributes (and, where
   descend has ``keras.saving.serialize_keras_object``, the same through it);
3. ``supports_masking``;
4. ``build(input_shape)``: the layer is built, with the expected numbers of trainable and non-trainable weights
   (and seed generators: descend layers have none);
5. a symbolic call on KerasTensors of the input shape: output shapes and dtypes, the mask shape;
6. layers that must be built after instantiation are, and a subclass that overrides ``build`` is not;
7. an eager call: output shapes, dtypes and values, the number of losses;
8. one training step: the layer inside a Model, ``compile(optimizer="sgd", loss=<sum of the outputs>)``,
   ``fit`` on one batch;
9. mixed precision: under ``"mixed_float16"`` the eager outputs have the dtypes of a symbolic call on inputs of
   the compute dtype, and every float weight is float32.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import unittest
from pathlib import Path

import numpy as np

import descend as ds
from descend.framework import nest
from descend.layers.keras_tensor import KerasTensor

from .. import parameterized

SEED_GENERATORS_NONE = 0


def _to_numpy(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "numpy") and not isinstance(x, KerasTensor):
        return np.asarray(x.numpy())
    return np.array(x)


class TestCase(parameterized.TestCase):
    maxDiff = None

    def setUp(self):
        ds.clear_session()

    def get_temp_dir(self):
        temp_dir = tempfile.mkdtemp()
        self.addCleanup(lambda: shutil.rmtree(temp_dir, ignore_errors=True))
        return temp_dir

    def convert_to_numpy(self, x):
        return _to_numpy(x)

    def assertAllClose(self, actual, desired, atol=1e-6, rtol=1e-6, tpu_atol=None, tpu_rtol=None, msg=None):
        np.testing.assert_allclose(_to_numpy(actual), _to_numpy(desired), atol=atol, rtol=rtol, err_msg=msg or "")

    def assertNotAllClose(self, x1, x2, atol=1e-6, rtol=1e-6, msg=None):
        try:
            self.assertAllClose(x1, x2, atol=atol, rtol=rtol)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. \n{msg or ''}.\nValues: {x1}")

    def assertAlmostEqual(self, actual, desired, decimal=3, tpu_decimal=None, msg=None):
        np.testing.assert_almost_equal(_to_numpy(actual), _to_numpy(desired), decimal=decimal, err_msg=msg or "")

    def assertAllEqual(self, actual, desired, msg=None):
        np.testing.assert_array_equal(_to_numpy(actual), _to_numpy(desired), err_msg=msg or "")

    def assertLen(self, iterable, expected_len, msg=None):
        self.assertEqual(len(iterable), expected_len, msg=msg)

    def assertSparse(self, x, sparse=True):
        self.assertFalse(sparse, "descend has no sparse tensors")

    def assertRagged(self, x, ragged=True):
        self.assertFalse(ragged, "descend has no ragged tensors")

    def assertDType(self, x, dtype, msg=None):
        std = ds.keras.backend.standardize_dtype
        x_dtype = std(x.dtype) if hasattr(x, "dtype") else std(type(x))
        self.assertEqual(x_dtype, std(dtype), msg=msg or f"The dtype of x does not match the expected one. "
                                                          f"Received: x.dtype={x_dtype} and dtype={dtype}")

    def assertFileExists(self, path):
        if not Path(path).is_file():
            raise AssertionError(f"File {path} does not exist")

    # -------------------------------------------------------------------------------------------- serialization
    def run_class_serialization_test(self, instance, custom_objects=None):
        cls = instance.__class__
        config = instance.get_config()
        config_json = to_json_with_tuples(config)
        ref_dir = dir(instance)[:]
        revived = cls.from_config(config)
        self.assertEqual(config_json, to_json_with_tuples(revived.get_config()))
        self.assertEqual(set(ref_dir), set(dir(revived)))
        saving = getattr(ds.keras, "saving", None)
        if saving is not None and hasattr(saving, "serialize_keras_object"):
            serialized = saving.serialize_keras_object(instance)
            scope = saving.custom_object_scope(custom_objects) if custom_objects else _nullcontext()
            with scope:
                revived = saving.deserialize_keras_object(from_json_with_tuples(to_json_with_tuples(serialized)))
            self.assertEqual(config_json, to_json_with_tuples(revived.get_config()))
            new_dir = [d for d in dir(revived) if d != "__annotations__"]
            self.assertEqual({d for d in ref_dir if d != "__annotations__"}, set(new_dir))
        return revived

    # -------------------------------------------------------------------------------------------- layers
    def run_layer_test(self, layer_cls, init_kwargs, input_shape=None, input_dtype=None, input_sparse=False,
                       input_ragged=False, input_data=None, call_kwargs=None, expected_output_shape=None,
                       expected_output_dtype=None, expected_output_sparse=False, expected_output_ragged=False,
                       expected_output=None, expected_num_trainable_weights=None,
                       expected_num_non_trainable_weights=None, expected_num_non_trainable_variables=None,
                       expected_num_seed_generators=None, expected_num_losses=None, supports_masking=None,
                       expected_mask_shape=None, custom_objects=None, run_training_check=True,
                       run_mixed_precision_check=True, assert_built_after_instantiation=False, tpu_atol=None,
                       tpu_rtol=None):
        if input_shape is not None and input_data is not None:
            raise ValueError("input_shape and input_data cannot be passed at the same time.")
        if expected_output_shape is not None and expected_output is not None:
            raise ValueError("expected_output_shape and expected_output cannot be passed at the same time.")
        if expected_output is not None and input_data is None:
            raise ValueError("In order to use expected_output, input_data must be provided.")
        if expected_mask_shape is not None and supports_masking is not True:
            raise ValueError("In order to use expected_mask_shape, supports_masking must be True.")
        if input_sparse or expected_output_sparse:
            self.fail("descend has no sparse tensors")
        if input_ragged or expected_output_ragged:
            self.fail("descend has no ragged tensors")
        init_kwargs = init_kwargs or {}
        call_kwargs = call_kwargs or {}
        if input_shape is not None and input_dtype is None:
            input_dtype = map_shape_dtype_structure(lambda s, d: "float32", input_shape,
                                                    _same_structure(input_shape, "float32"))

        def call(layer, inputs):
            if isinstance(inputs, dict):
                return layer(**inputs, **call_kwargs)
            return layer(inputs, **call_kwargs)

        # 1. the numbers of weights, from a layer built by a call
        if input_data is not None or input_shape is not None:
            if input_data is None:
                input_data = create_eager_tensors(input_shape, input_dtype)
            layer = layer_cls(**init_kwargs)
            call(layer, input_data)
            if expected_num_trainable_weights is None:
                expected_num_trainable_weights = len(layer.trainable_weights)
            if expected_num_non_trainable_weights is None:
                expected_num_non_trainable_weights = len(layer.non_trainable_weights)
            if expected_num_non_trainable_variables is None:
                expected_num_non_trainable_variables = len(layer.non_trainable_variables)
            if expected_num_seed_generators is None:
                expected_num_seed_generators = SEED_GENERATORS_NONE

        # 2. serialization, 3. masking
        layer = layer_cls(**init_kwargs)
        self.run_class_serialization_test(layer, custom_objects)
        if supports_masking is not None:
            self.assertEqual(layer.supports_masking, supports_masking, msg="Unexpected supports_masking value")

        def run_build_asserts(layer):
            self.assertTrue(layer.built)
            if expected_num_trainable_weights is not None:
                self.assertLen(layer.trainable_weights, expected_num_trainable_weights,
                               msg="Unexpected number of trainable_weights")
            if expected_num_non_trainable_weights is not None:
                self.assertLen(layer.non_trainable_weights, expected_num_non_trainable_weights,
                               msg="Unexpected number of non_trainable_weights")
            if expected_num_non_trainable_variables is not None:
                self.assertLen(layer.non_trainable_variables, expected_num_non_trainable_variables,
                               msg="Unexpected number of non_trainable_variables")
            if expected_num_seed_generators is not None:
                self.assertEqual(SEED_GENERATORS_NONE, expected_num_seed_generators,
                                 msg="Unexpected number of seed_generators (descend layers own no SeedGenerator)")

        def run_output_asserts(layer, output, eager=False):
            if expected_output_shape is not None:
                def verify_shape(expected_shape, x):
                    shape = tuple(x.shape)
                    return len(shape) == len(expected_shape) and all(
                        e is None or e == d for e, d in zip(expected_shape, shape))

                flat_out = nest.flatten(output)
                expected = ([expected_output_shape] if _is_shape(expected_output_shape)
                            else _flatten_shapes(expected_output_shape))
                self.assertTrue(len(expected) == len(flat_out) and all(map(verify_shape, expected, flat_out)),
                                msg=f"Expected output shapes {expected_output_shape} but received "
                                    f"{[tuple(x.shape) for x in flat_out]}")
            if expected_output_dtype is not None:
                std = ds.keras.backend.standardize_dtype
                flat_out = nest.flatten(output)
                expected = (nest.flatten(expected_output_dtype) if isinstance(expected_output_dtype, (list, tuple,
                                                                                                      dict))
                            else [expected_output_dtype] * len(flat_out))
                self.assertTrue(all(e == std(x.dtype) for e, x in zip(expected, flat_out)),
                                msg=f"Expected output dtypes {expected_output_dtype} but received "
                                    f"{[std(x.dtype) for x in flat_out]}")
            if eager:
                if expected_output is not None:
                    self.assertEqual(type(expected_output), type(output))
                    for ref_v, v in zip(nest.flatten(expected_output), nest.flatten(output)):
                        self.assertAllClose(ref_v, v, msg="Unexpected output value")
                if expected_num_losses is not None:
                    self.assertLen(layer.losses, expected_num_losses)

        # 4. build, 5. symbolic call, 6. built after instantiation
        keras_tensor_inputs = None
        if input_data is not None or input_shape is not None:
            build_shape = input_shape if input_shape is not None else nest.pack_like(
                input_data, [tuple(x.shape) for x in nest.flatten(input_data)]) if not isinstance(
                input_data, dict) else {f"{k}_shape": tuple(v.shape) for k, v in input_data.items()}
            layer = layer_cls(**init_kwargs)
            if isinstance(build_shape, dict):
                layer.build(**build_shape)
            else:
                layer.build(build_shape)
            run_build_asserts(layer)
            if input_shape is None:
                keras_tensor_inputs = _map_data(lambda x: ds.keras.Input(batch_shape=tuple(x.shape),
                                                                         dtype=x.dtype.name), input_data)
            else:
                keras_tensor_inputs = create_keras_tensors(input_shape, input_dtype)
            layer = layer_cls(**init_kwargs)
            keras_tensor_outputs = call(layer, keras_tensor_inputs)
            run_build_asserts(layer)
            run_output_asserts(layer, keras_tensor_outputs, eager=False)
            if expected_mask_shape is not None:
                output_mask = layer.compute_mask(keras_tensor_inputs)
                self.assertEqual(expected_mask_shape, tuple(output_mask.shape))
            if assert_built_after_instantiation:
                layer = layer_cls(**init_kwargs)
                self.assertTrue(layer.built, msg=f"{type(layer)} is stateless, so it should be built after "
                                                 "instantiation.")

                class ModifiedBuildLayer(layer_cls):
                    def build(self, *args, **kwargs):
                        pass

                layer = ModifiedBuildLayer(**init_kwargs)
                self.assertFalse(layer.built, msg=f"The `build` of {type(layer)} is overriden, so it should not be "
                                                  "built after instantiation.")

        # 7. eager call, 8. a training step, 9. mixed precision
        if input_data is not None or input_shape is not None:
            layer = layer_cls(**init_kwargs)
            output_data = call(layer, input_data)
            run_output_asserts(layer, output_data, eager=True)
            if run_training_check:
                _run_training_step(layer, input_data, output_data)
            if run_mixed_precision_check:
                layer = layer_cls(**{**init_kwargs, "dtype": "mixed_float16"})
                output_data = call(layer, input_data)
                spec_inputs = _map_data(
                    lambda k: ds.keras.Input(batch_shape=k.shape, dtype="float16" if k.dtype.is_floating
                                             else k.dtype.name), keras_tensor_inputs)
                spec = call(layer_cls(**{**init_kwargs, "dtype": "mixed_float16"}), spec_inputs)
                std = ds.keras.backend.standardize_dtype
                for tensor, s in zip(nest.flatten(output_data), nest.flatten(spec)):
                    self.assertEqual(std(tensor.dtype), std(s.dtype),
                                     f"expected output dtype {std(s.dtype)}, got {std(tensor.dtype)}")
                for weight in layer.weights:
                    dtype = std(weight.dtype)
                    if np.dtype(dtype).kind == "f":
                        self.assertEqual(dtype, "float32")


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _run_training_step(layer, input_data, output_data):
    class TestModel(ds.keras.Model):
        def __init__(self, layer):
            super().__init__()
            self.layer = layer

        def call(self, x, training=False):
            return self.layer(x, training=training)

    class TestLoss(ds.losses.Loss):
        def __call__(self, y_true, y_pred, sample_weight=None):
            return ds.keras.ops.sum(y_pred)

    model = TestModel(layer)
    model.compile(optimizer="sgd", loss=TestLoss())
    # Keras fits one step from a generator of (input_data, output_data); here the same single batch is given
    # as arrays (one step: the batch is the whole data)
    batch = int(nest.flatten(input_data)[0].shape[0])
    model.fit(input_data, output_data, batch_size=batch, epochs=1, shuffle=False, verbose=0)


def _same_structure(shape, value):
    if _is_shape(shape):
        return value
    if isinstance(shape, dict):
        return {k: _same_structure(v, value) for k, v in shape.items()}
    return type(shape)(_same_structure(s, value) for s in shape)


def _is_shape(x):
    return isinstance(x, (list, tuple)) and all(isinstance(e, (int, type(None))) for e in x)


def _flatten_shapes(structure):
    if _is_shape(structure):
        return [tuple(structure)]
    if isinstance(structure, dict):
        return [s for k in sorted(structure) for s in _flatten_shapes(structure[k])]
    return [s for item in structure for s in _flatten_shapes(item)]


def _map_data(fn, structure):
    if isinstance(structure, dict):
        return {k: _map_data(fn, v) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map_data(fn, v) for v in structure)
    return fn(structure)


def map_shape_dtype_structure(fn, shape, dtype):
    """Keras' helper: ``fn(shape, dtype)`` over matching structures of shapes and dtypes."""
    if _is_shape(shape):
        return fn(tuple(shape), dtype)
    if isinstance(shape, list):
        return [map_shape_dtype_structure(fn, s, d) for s, d in zip(shape, dtype)]
    if isinstance(shape, tuple):
        return tuple(map_shape_dtype_structure(fn, s, d) for s, d in zip(shape, dtype))
    if isinstance(shape, dict):
        return {k: map_shape_dtype_structure(fn, v, dtype[k]) for k, v in shape.items()}
    raise ValueError(f"Cannot map function to unknown objects {shape} and {dtype}")


def create_keras_tensors(input_shape, dtype):
    if isinstance(input_shape, dict):
        return {k.removesuffix("_shape"): ds.keras.Input(batch_shape=tuple(v), dtype=dtype[k])
                for k, v in input_shape.items()}
    return map_shape_dtype_structure(lambda s, d: ds.keras.Input(batch_shape=s, dtype=d), input_shape, dtype)


def create_eager_tensors(input_shape, dtype):
    """Keras' eager test inputs: uniform [0, 3) values cast to each dtype."""
    def create(shape, dt):
        return ds.keras.ops.cast(ds.keras.random.uniform(shape, dtype="float32") * 3, dt)

    if isinstance(input_shape, dict):
        return {k.removesuffix("_shape"): create(v, dtype[k]) for k, v in input_shape.items()}
    return map_shape_dtype_structure(create, input_shape, dtype)


def to_json_with_tuples(value):
    def encode(obj):
        if isinstance(obj, tuple):
            return {"__class__": "tuple", "__value__": [encode(e) for e in obj]}
        if isinstance(obj, list):
            return [encode(e) for e in obj]
        if isinstance(obj, dict):
            return {key: encode(v) for key, v in obj.items()}
        return obj

    return json.dumps(encode(value), sort_keys=True, indent=4, default=repr)


def from_json_with_tuples(value):
    def decode(obj):
        if isinstance(obj, dict) and "__class__" in obj and "__value__" in obj:
            return tuple(obj["__value__"])
        return obj

    return json.loads(value, object_hook=decode)


def uses_gpu():
    return False


def uses_tpu():
    return False


jax_uses_gpu = tensorflow_uses_gpu = torch_uses_gpu = uses_gpu
jax_uses_tpu = uses_tpu
del unittest
