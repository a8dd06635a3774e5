"""Keras 3's top-level classes and the initializers' other names (issue 37), and ``keras.InputSpec`` checked on
every call of a layer that declares one."""

from __future__ import annotations

import pytest

import descend as ds


def test_top_level_names_are_descend_classes():
    k = ds.keras
    assert k.Layer is ds.layers.Layer and k.Loss is ds.losses.Loss and k.Metric is ds.metrics.Metric
    assert k.Optimizer is ds.optimizers.Optimizer and k.Initializer is ds.initializers.Initializer
    assert k.Regularizer is ds.regularizers.Regularizer and k.FloatDTypePolicy is k.DTypePolicy


@pytest.mark.parametrize("alias,cls", [("glorot_uniform", "GlorotUniform"), ("zeros", "Zeros"),
                                       ("orthogonal", "Orthogonal"), ("OrthogonalInitializer", "Orthogonal"),
                                       ("IdentityInitializer", "Identity"), ("variance_scaling", "VarianceScaling")])
def test_initializer_aliases_are_the_classes(alias, cls):
    assert getattr(ds.keras.initializers, alias) is getattr(ds.initializers, cls)


class _Pairs(ds.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.input_spec = ds.keras.InputSpec(ndim=2, axes={-1: 2})

    def call(self, x):
        return x * 2.0


def test_a_layers_input_spec_is_checked_on_each_call():
    layer = _Pairs(name="pairs")
    assert layer(ds.ones((3, 2))).shape == (3, 2)
    with pytest.raises(ValueError, match="Input 0 of layer 'pairs' is incompatible with the layer: expected axis -1 "
                                         r"of input shape to have value 2, but received input with shape \(3, 5\)"):
        layer(ds.ones((3, 5)))
    with pytest.raises(ValueError, match="expected ndim=2, found ndim=3"):
        layer(ds.ones((3, 5, 2)))


def test_input_spec_bounds_and_counts():
    spec = ds.keras.InputSpec(min_ndim=3)
    from descend.layers.input_spec import assert_input_compatibility

    with pytest.raises(ValueError, match="expected min_ndim=3, found ndim=2"):
        assert_input_compatibility(spec, ds.ones((2, 2)), "x")
    with pytest.raises(ValueError, match="expects 2 input"):
        assert_input_compatibility([spec, spec], [ds.ones((2, 2, 2))], "x")
    with pytest.raises(ValueError, match="greater than the maximum allowed value: 1"):
        ds.keras.InputSpec(ndim=2, axes={2: 3})
