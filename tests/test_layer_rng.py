"""The drawing layers share one seed check and one generator state (layers/_seeded.py)."""

import importlib

import numpy as np
import pytest

import descend as ds
from descend.layers import _seeded

L = ds.keras.layers

# (layer factory taking seed, owner named in the seed error, the module that starts its generator)
SEEDED = [
    (lambda seed: L.Dropout(0.5, seed=seed), "Dropout", "core"),
    (lambda seed: L.GaussianNoise(0.1, seed=seed), "GaussianNoise", "regularization_layers"),
    (lambda seed: L.LSTM(2, seed=seed), "LSTMCell", "rnn"),
    (lambda seed: L.ConvLSTM2D(2, 3, seed=seed), "ConvLSTM", "conv_lstm"),
    (lambda seed: L.MultiHeadAttention(2, 2, seed=seed), "MultiHeadAttention", "attention"),
    (lambda seed: L.GroupQueryAttention(2, 2, 1, seed=seed), "GroupQueryAttention", "grouped_query_attention"),
    (lambda seed: L.RandomFlip(seed=seed), "RandomFlip", "preprocessing"),
]


@pytest.mark.parametrize("make, owner, module", SEEDED)
def test_seed_is_checked_once_and_names_the_layer(make, owner, module, monkeypatch):
    with pytest.raises(ValueError, match=rf"{owner}\w*: seed must be None or a non-negative int. Received: seed=-1"):
        make(-1)
    calls = []
    real = _seeded.check_seed

    def counted(seed, who):
        calls.append(seed)
        return real(seed, who)
    # layer_rng checks through _seeded.check_seed; a layer that makes its generator at its first draw (so that
    # building it leaves NumPy's global generator alone) imports check_seed itself
    monkeypatch.setattr(_seeded, "check_seed", counted)
    mod = importlib.import_module(f"descend.layers.{module}")
    if hasattr(mod, "check_seed"):
        monkeypatch.setattr(mod, "check_seed", counted)
    make(7)
    assert calls == [7], f"layers/{module}.py does not check its seed through layers/_seeded.check_seed"


def test_same_seed_same_generator():
    a, b = _seeded.layer_rng(5, "x")[1], _seeded.layer_rng(5, "x")[1]
    assert a.random() == b.random()


@pytest.mark.parametrize("make", [lambda: L.Dropout(0.5, seed=1), lambda: L.GaussianNoise(0.5, seed=1),
                                  lambda: L.GaussianDropout(0.5, seed=1), lambda: L.SpatialDropout1D(0.5, seed=1)])
def test_state_round_trip_and_bad_state_changes_nothing(make):
    layer = make()
    saved = layer.state_dict()
    first = layer._rng.random()
    for bad in ({}, {"rng": 3}, {"rng": {"bit_generator": "MT19937"}}, {"rng": {"bit_generator": "PCG64"}}, 5):
        before = layer._rng.bit_generator.state
        with pytest.raises(ValueError, match=type(layer).__name__):
            layer.restore_plan(bad)
        assert layer._rng.bit_generator.state == before
    layer.restore_plan(saved)()
    assert layer._rng.random() == first
    assert np.isfinite(first)
    assert type(layer).state_dict is _seeded.GeneratorState.state_dict
    assert type(layer).restore_plan is _seeded.GeneratorState.restore_plan
