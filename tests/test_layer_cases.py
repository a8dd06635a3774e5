"""The layer-case table (``tests/layer_cases.py``): for every layer added for issue 17, the forward
against an independent NumPy reference, float64 gradients (inputs and weights) against central
differences, a config round trip and a checkpoint save/restore; plus a cross-check against Keras
itself when TensorFlow is installed."""

from __future__ import annotations

import numpy as np
import pytest
from layer_cases import CASES

import descend as ds
from descend.framework import nest

IDS = [c.name for c in CASES]


def _tensors(structure):
    if isinstance(structure, list):
        return [_tensors(v) for v in structure]
    return ds.constant(structure)


def _leaves(structure):
    return nest.flatten(structure)


def _randomize(layer, seed=3):
    rng = np.random.default_rng(seed)
    for v in layer.weights:
        v.assign((rng.standard_normal(v.shape) * 0.5).astype(v.dtype.dtype))


def _run(layer, inputs, kwargs):
    out = layer(*_tensors(inputs), **kwargs)
    return [o.numpy() for o in out] if isinstance(out, (list, tuple)) else out.numpy()


def _built(case):
    layer = case.make()
    _run(layer, case.inputs, case.kwargs)
    _randomize(layer)
    return layer


def test_every_new_layer_class_has_a_case():
    covered = {type(c.make()).__name__ for c in CASES}
    new = {"Conv1D", "MaxPooling1D", "AveragePooling1D", "AveragePooling2D", "GlobalAveragePooling1D",
           "GlobalMaxPooling1D", "GlobalAveragePooling2D", "GlobalMaxPooling2D", "Lambda", "Reshape", "Permute",
           "RepeatVector", "Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum",
           "Activation", "SimpleRNN", "LSTM", "GRU", "Bidirectional", "TimeDistributed", "MultiHeadAttention", "Masking"}
    assert new <= covered, sorted(new - covered)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_matches_the_numpy_reference(case):
    layer = _built(case)
    got = _run(layer, case.inputs, case.kwargs)
    want = case.ref([w.numpy() for w in layer.weights], *case.inputs)
    got, want = (got, want) if isinstance(want, list) else ([got], [want])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == np.float64 and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_float64_gradients_match_central_differences(case):
    layer = _built(case)
    inputs = case.inputs
    sample = _run(layer, inputs, case.kwargs)
    outs = sample if isinstance(sample, list) else [sample]
    proj_rng = np.random.default_rng(0)
    projs = [proj_rng.uniform(0.5, 1.5, o.shape) for o in outs]

    def objective_from(out):
        flat = out if isinstance(out, (list, tuple)) else [out]
        return ds.add_n([ds.reduce_sum(o * ds.constant(p)) for o, p in zip(flat, projs)])

    def value(structure):
        return float(objective_from(layer(*_tensors(structure), **case.kwargs)))

    leaves = _leaves(inputs) if case.wrt_input else []
    tensors = _tensors(inputs)
    flat_tensors = _leaves(tensors) if case.wrt_input else []
    variables = layer.trainable_weights
    with ds.GradientTape() as tape:
        for t in flat_tensors:
            tape.watch(t)
        y = objective_from(layer(*tensors, **case.kwargs))
    grads = tape.gradient(y, flat_tensors + variables, unconnected_gradients="zero")
    analytic = [ds.convert_to_tensor(g).numpy() for g in grads]
    delta = 1e-6
    numeric = []
    for k, leaf in enumerate(leaves):
        g = np.zeros_like(leaf)
        for j in range(leaf.size):
            shifted = [a.copy() for a in leaves]
            shifted[k].reshape(-1)[j] += delta
            plus = value(nest.pack_like(inputs, shifted))
            shifted[k].reshape(-1)[j] -= 2 * delta
            minus = value(nest.pack_like(inputs, shifted))
            g.reshape(-1)[j] = (plus - minus) / (2 * delta)
        numeric.append(g)
    for v in variables:
        base = v.numpy()
        g = np.zeros_like(base)
        for j in range(base.size):
            s = base.copy()
            s.reshape(-1)[j] += delta
            v.assign(s)
            plus = value(inputs)
            s.reshape(-1)[j] -= 2 * delta
            v.assign(s)
            minus = value(inputs)
            g.reshape(-1)[j] = (plus - minus) / (2 * delta)
        v.assign(base)
        numeric.append(g)
    assert len(analytic) == len(numeric)
    for a, n in zip(analytic, numeric):
        assert a.shape == n.shape
        err = float(np.max(np.abs(a - n) / np.maximum(np.abs(n), 1e-3))) if a.size else 0.0
        assert err < 1e-5, err


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_config_round_trip_and_checkpoint_restore(case, tmp_path):
    layer = _built(case)
    config = layer.get_config()
    expected = _run(layer, case.inputs, case.kwargs)
    path = ds.train.Checkpoint(layer=layer).save(str(tmp_path / "ckpt"))
    ds.clear_session()  # as a new program: the rebuilt layer takes the same names
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    _run(clone, case.inputs, case.kwargs)  # build
    assert [(w.name, tuple(w.shape)) for w in clone.weights] == [(w.name, tuple(w.shape)) for w in layer.weights]
    ds.train.Checkpoint(layer=clone).restore(path)
    for a, b in zip(_leaves(expected), _leaves(_run(clone, case.inputs, case.kwargs))):
        np.testing.assert_array_equal(a, b)


# ================================================================ against Keras itself
def _keras():
    try:
        import os

        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import keras as k
    except Exception:  # noqa: BLE001 - any import failure means no cross-check
        pytest.skip("Keras (tensorflow) is not installed")
    return k


@pytest.mark.parametrize("name,build,call_kwargs", [
    ("LSTM", lambda L: L.LSTM(3, return_sequences=True, return_state=True, go_backwards=True), {}),
    ("GRU", lambda L: L.GRU(3, return_sequences=True), {}),
    ("GRU_v1", lambda L: L.GRU(3, reset_after=False), {}),
    ("SimpleRNN", lambda L: L.SimpleRNN(3, return_sequences=True), {}),
    ("Bidirectional", lambda L: L.Bidirectional(L.LSTM(2, return_sequences=True), merge_mode="ave"), {}),
    ("MultiHeadAttention", lambda L: L.MultiHeadAttention(2, 3, value_dim=2), {"causal": True}),
    ("Conv1D", lambda L: L.Conv1D(3, 3, padding="causal", dilation_rate=2), {}),
    ("AveragePooling1D", lambda L: L.AveragePooling1D(3, 2, padding="same"), {}),
])
def test_float32_forward_matches_keras(name, build, call_kwargs):
    k = _keras()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 6, 4)).astype(np.float32)
    kl, dl = build(k.layers), build(ds.layers)
    extra = {}
    if name == "MultiHeadAttention":
        kl(x, x, use_causal_mask=True)
        dl(x, x, use_causal_mask=True)
        extra = {"use_causal_mask": True}
    else:
        kl(x)
        dl(x)
    weights = [rng.standard_normal(w.shape).astype(np.float32) * 0.5 for w in kl.get_weights()]
    kl.set_weights(weights)
    dl.set_weights(weights)
    args = (x, x) if name == "MultiHeadAttention" else (x,)
    want, got = kl(*args, **extra), dl(*args, **extra)
    for a, b in zip(_leaves(want if isinstance(want, list) else [want]), _leaves(got if isinstance(got, list) else [got])):
        np.testing.assert_allclose(b.numpy(), np.asarray(a), rtol=2e-5, atol=2e-6)


def test_masks_from_embedding_match_keras():
    k = _keras()
    ids = np.array([[3, 1, 4, 0, 0], [2, 7, 1, 8, 2], [5, 0, 0, 0, 0]])
    rng = np.random.default_rng(2)
    for layer in ("LSTM", "GRU", "SimpleRNN"):
        km = k.Sequential([k.layers.Embedding(10, 4, mask_zero=True), getattr(k.layers, layer)(3, return_sequences=True),
                           k.layers.GlobalAveragePooling1D()])
        dm = ds.Sequential([ds.layers.Embedding(10, 4, mask_zero=True),
                            getattr(ds.layers, layer)(3, return_sequences=True), ds.layers.GlobalAveragePooling1D()])
        km(ids)
        dm(ds.constant(ids))
        weights = [rng.standard_normal(w.shape).astype(np.float32) * 0.5 for w in km.get_weights()]
        km.set_weights(weights)
        dm.set_weights(weights)
        np.testing.assert_allclose(dm(ds.constant(ids)).numpy(), np.asarray(km(ids)), rtol=2e-5, atol=2e-6)
