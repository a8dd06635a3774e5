"""``Pipeline``: order, ``training`` (default True, as Keras), masks carried through, weights, config, and
the refusal. Forward and gradients against Keras: the ``Pipeline`` row of tests/differential_cases.py."""

import numpy as np
import pytest

import descend as ds

L = ds.layers


def test_layers_run_in_order():
    p = L.Pipeline([L.Rescaling(2.0), L.Rescaling(1.0, offset=-1.0)])
    np.testing.assert_array_equal(p(ds.constant([1.0, 3.0])).numpy(), [1.0, 5.0])  # (x*2)-1, not (x-1)*2


def test_training_defaults_to_true_as_keras():
    p = L.Pipeline([L.Dropout(0.5, seed=3)])
    x = ds.ones((4, 50))
    assert (p(x).numpy() == 0).any()
    np.testing.assert_array_equal(p(x, training=False).numpy(), x.numpy())


def test_masks_are_carried_between_layers():
    p = L.Pipeline([L.Embedding(5, 2, mask_zero=True), L.GlobalAveragePooling1D()])
    got = p(ds.constant([[1, 0, 0]])).numpy()
    np.testing.assert_allclose(got[0], p.layers[0].embeddings.numpy()[1])  # the padded steps are left out


def test_weights_and_config_round_trip():
    p = L.Pipeline([L.Dense(3), L.Dense(2)], name="prep")
    p(ds.ones((2, 4)))
    assert len(p.trainable_weights) == 4
    q = L.Pipeline.from_config(p.get_config())
    assert q.name == "prep" and [x.units for x in q.layers] == [3, 2]
    assert q.compute_output_shape((None, 4)) == (None, 2)


@pytest.mark.parametrize("layers", [L.Dense(2), [L.Dense(2), "relu"]])
def test_bad_layers_are_refused(layers):
    with pytest.raises(ValueError, match="list of Layers"):
        L.Pipeline(layers)
