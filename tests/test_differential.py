"""The differential harness (issue 37): every op of descend's ``keras.ops``, ``tf.math``, ``tf.nn`` and
``tf.linalg`` namespaces, and every layer, run on the same generated inputs through descend and through
TensorFlow/Keras; forward values and gradients compared (float32 to TF's own test tolerance, float64
tighter). The table is ``tests/differential_cases.py``; a name descend adds to one of those namespaces
fails ``test_every_name_is_in_the_table`` until it has a case (or a reason in ``NOT_COMPARED``).

Deliberate differences are listed in ``DOCUMENTED`` with the section of docs/semantics.md that explains
them; they run as strict xfails, so a difference that goes away must be removed from the list.
"""

from __future__ import annotations

import importlib
import zlib

import numpy as np
import pytest
from differential_cases import CASES, EDGE_VALUES, FLOAT32_ONLY, GENERATORS, NOT_COMPARED, PLAIN_UNARY

import descend as ds

NAMESPACES = {
    "keras.ops": ("keras.ops", "descend.keras.ops"),
    "tf.math": ("tensorflow.math", "descend.math"),
    "tf.nn": ("tensorflow.nn", "descend.nn"),
    "tf.linalg": ("tensorflow.linalg", "descend.linalg"),
    "tf.image": ("tensorflow.image", "descend.image"),
    "keras.ops.image": ("keras.ops.image", "descend.keras.ops.image"),
}
#: (namespace, name, dtype or None for both) -> the docs/semantics.md section that explains the difference
DOCUMENTED = {
    ("keras.ops", "sparsemax", None): "docs/semantics.md, 'sparsemax': the projection onto the simplex (Keras' "
                                      "backends sum the wrong prefix)",
    ("keras.ops", "logaddexp2", "float64"): "docs/semantics.md, 'Constants in float64': Keras rounds log(2) to "
                                            "float32",
    ("keras.ops", "leaky_relu", "float64"): "docs/semantics.md, 'Constants in float64': TF keeps the slope in "
                                            "float32",
    ("tf.nn", "leaky_relu", "float64"): "docs/semantics.md, 'Constants in float64': TF keeps the slope in float32",
    ("keras.ops", "gelu", "float64"): "docs/semantics.md, 'Constants in float64': TF's tanh-approximation "
                                      "constants are float32",
    ("keras.ops", "percentile", "float64"): "docs/semantics.md, 'Constants in float64': Keras casts q to "
                                            "float32 before dividing it by 100",
    ("tf.nn", "gelu", "float64"): "docs/semantics.md, 'Constants in float64': TF's tanh-approximation constants "
                                  "are float32",
}
_IMAGE_F32 = "docs/semantics.md, 'tf.image in float64': TF converts a float64 image to float32 and back"
DOCUMENTED.update({("tf.image", n, "float64"): _IMAGE_F32 for n in (
    "rgb_to_grayscale", "per_image_standardization", "adjust_brightness", "adjust_contrast", "adjust_gamma",
    "psnr")})
DOCUMENTED[("tf.image", "resize", "float64", "pixels")] = _IMAGE_F32  # bilinear; nearest is exact
#: (namespace, name) -> why the edge values (inf, NaN, huge) differ
EDGE_DOCUMENTED = {
    ("keras.ops", "erf"): "docs/semantics.md, 'Edge values': TF's float64 erf(+-inf) is NaN; descend's is +-1",
    ("tf.math", "erf"): "docs/semantics.md, 'Edge values': TF's float64 erf(+-inf) is NaN; descend's is +-1",
    ("keras.ops", "softmax"): "docs/semantics.md, 'Edge values': a NaN in a softmax row makes the row NaN",
    ("tf.math", "softmax"): "docs/semantics.md, 'Edge values': a NaN in a softmax row makes the row NaN",
    ("tf.nn", "softmax"): "docs/semantics.md, 'Edge values': a NaN in a softmax row makes the row NaN",
    ("keras.ops", "leaky_relu"): "docs/semantics.md, 'Constants in float64': TF keeps the slope in float32",
    ("tf.nn", "leaky_relu"): "docs/semantics.md, 'Constants in float64': TF keeps the slope in float32",
    ("keras.ops", "gelu"): "docs/semantics.md, 'Constants in float64': TF's constants are float32",
}


def _documented(namespace, name, dtype, inputs=None):
    return (DOCUMENTED.get((namespace, name, dtype, inputs)) or DOCUMENTED.get((namespace, name, dtype))
            or DOCUMENTED.get((namespace, name, None)))
TOLERANCE = {  # (rtol, atol): forward, gradient
    "float32": ((1e-5, 1e-6), (1e-4, 1e-5)),
    "float64": ((1e-10, 1e-12), (1e-8, 1e-10)),
}


def _descend_names(namespace: str) -> set:
    module = importlib.import_module(NAMESPACES[namespace][1])
    return set(getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]))


def test_every_name_is_in_the_table():
    for namespace in NAMESPACES:
        names = _descend_names(namespace)
        covered = {c.name for c in CASES if c.namespace == namespace} | set(NOT_COMPARED[namespace])
        missing = sorted(names - covered)
        assert not missing, f"{namespace}: names without a differential case or a reason: {missing}"
        stale = sorted(covered - names)
        assert not stale, f"{namespace}: cases or reasons for names descend does not have: {stale}"


class _Reference:
    """TF's namespace, falling back to ``tf``'s top level for the names descend also offers there
    (``descend.math.matmul`` is ``tf.matmul``)."""

    def __init__(self, module, top):
        self._module, self._top = module, top

    def __getattr__(self, name):
        value = getattr(self._module, name, None)
        return value if value is not None else getattr(self._top, name)


def _modules(namespace):
    pytest.importorskip("tensorflow")
    pytest.importorskip("keras")
    reference, ours = NAMESPACES[namespace]
    return (_Reference(importlib.import_module(reference), importlib.import_module("tensorflow")),
            importlib.import_module(ours))


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _close(got, want, dtype, tol, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != TF's {want.shape}"
    if want.dtype.kind in "biu" or got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    rtol, atol = tol
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=what)


def _run(case, dtype):
    tf = pytest.importorskip("tensorflow")
    ref_module, our_module = _modules(case.namespace)
    if getattr(ref_module, case.name, None) is None:
        pytest.fail(f"TensorFlow's {case.namespace} has no {case.name}: name a reference for it")
    rng = np.random.default_rng(zlib.crc32(f"{case.namespace}:{case.name}".encode()))  # the same inputs every run
    arrays = [a.astype(dtype) for a in GENERATORS[case.inputs](rng)]
    theirs = [tf.constant(a) for a in arrays]
    ours = [ds.constant(a) for a in arrays]
    (fwd_tol, grad_tol) = TOLERANCE[dtype]
    if not case.grad:
        want, got = case.call(ref_module, *theirs), case.call(our_module, *ours)
        _close(_np(got), _np(want), dtype, fwd_tol, f"{case.namespace}.{case.name} ({dtype}) forward")
        return
    with tf.GradientTape() as tape:
        for t in theirs:
            tape.watch(t)
        want = case.call(ref_module, *theirs)
        weights = np.random.default_rng(7).uniform(0.5, 1.5, np.shape(want)).astype(dtype)
        loss = tf.reduce_sum(tf.cast(want, dtype) * weights)
    want_grads = tape.gradient(loss, theirs)
    with ds.GradientTape() as dtape:
        dtape.watch(ours)
        got = case.call(our_module, *ours)
        dloss = ds.reduce_sum(ds.multiply(ds.cast(got, dtype), ds.constant(weights)))
    got_grads = dtape.gradient(dloss, ours)
    _close(_np(got), _np(want), dtype, fwd_tol, f"{case.namespace}.{case.name} ({dtype}) forward")
    for i, (g, w) in enumerate(zip(got_grads, want_grads)):
        g = np.zeros_like(arrays[i]) if g is None else _np(ds.convert_to_tensor(g))
        w = np.zeros_like(arrays[i]) if w is None else _np(tf.convert_to_tensor(w))
        _close(g, w, dtype, grad_tol, f"{case.namespace}.{case.name} ({dtype}) gradient of input {i}")


def _params():
    out = []
    for case in CASES:
        for dtype in ("float32",) if (case.namespace, case.name) in FLOAT32_ONLY else ("float32", "float64"):
            marks = []
            reason = _documented(case.namespace, case.name, dtype, case.inputs)
            if reason:
                marks = [pytest.mark.xfail(strict=True, reason=reason)]
            out.append(pytest.param(case, dtype, id=f"{case.namespace}.{case.name}-{dtype}", marks=marks))
    return out


@pytest.mark.parametrize("case,dtype", _params())
def test_forward_and_gradient_match_tensorflow(case, dtype):
    _run(case, dtype)


def _edge_params():
    out = []
    for namespace, name in sorted(n for n in PLAIN_UNARY if not _documented(*n, None)):
        reason = EDGE_DOCUMENTED.get((namespace, name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(namespace, name, id=f"{namespace}.{name}", marks=marks))
    return out


@pytest.mark.parametrize("namespace,name", _edge_params())
def test_edge_values_match_tensorflow(namespace, name):
    tf = pytest.importorskip("tensorflow")

    ref_module, our_module = _modules(namespace)
    for dtype in ("float32", "float64"):
        x = EDGE_VALUES.astype(dtype)
        with np.errstate(all="ignore"):
            want = _np(getattr(ref_module, name)(tf.constant(x)))
            got = _np(getattr(our_module, name)(ds.constant(x)))
        _close(got, want, dtype, TOLERANCE[dtype][0], f"{namespace}.{name} ({dtype}) at {x.tolist()}")


# ------------------------------------------------------------------------------------------------ layers
from differential_cases import LAYER_CASES, LAYERS_NOT_COMPARED  # noqa: E402


def test_every_layer_is_in_the_table():
    exported = {getattr(ds.layers, n) for n in ds.layers.__all__}
    classes = {c.__name__ for c in exported if isinstance(c, type) and issubclass(c, ds.layers.Layer)}
    covered = {c.name for c in LAYER_CASES} | set(LAYERS_NOT_COMPARED)
    assert not sorted(classes - covered), f"layers without a differential case or a reason: {sorted(classes - covered)}"
    assert not sorted(covered - classes), f"cases for layers descend does not export: {sorted(covered - classes)}"


def _layer_inputs(spec, rng):
    if isinstance(spec, list):
        return [_layer_inputs(s, rng) for s in spec]
    if spec and spec[0] == "ints":
        return rng.integers(0, spec[2], spec[1]).astype(np.int32)
    return rng.standard_normal(spec).astype(np.float32)


@pytest.mark.parametrize("case", LAYER_CASES, ids=[c.name for c in LAYER_CASES])
def test_layer_forward_and_gradients_match_keras(case):
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))  # the same inputs every run
    arrays = _layer_inputs(case.inputs, rng)
    listed = isinstance(arrays, list)
    theirs = [tf.constant(a) for a in arrays] if listed else tf.constant(arrays)
    ours = [ds.constant(a) for a in arrays] if listed else ds.constant(arrays)
    kl, dl = case.build(keras.layers), case.build(ds.layers)
    spread = case.name == "MultiHeadAttention"  # called as layer(query, value)

    def call(layer, x):
        return layer(*x, **case.kwargs) if spread else layer(x, **case.kwargs)

    call(kl, theirs)
    call(dl, ours)
    weights = [rng.standard_normal(w.shape).astype(np.float32) * 0.5 for w in kl.get_weights()]
    if case.name == "BatchNormalization":  # a positive moving variance
        weights[3] = np.abs(weights[3]) + 0.5
    kl.set_weights(weights)
    dl.set_weights(weights)
    watched = [t for t in (theirs if listed else [theirs]) if t.dtype.is_floating]
    with tf.GradientTape() as tape:
        tape.watch(watched)
        want = call(kl, theirs)
        out_weights = np.random.default_rng(5).uniform(0.5, 1.5, want.shape).astype(np.float32)
        loss = tf.reduce_sum(want * out_weights)
    want_grads = tape.gradient(loss, watched + list(kl.trainable_weights))
    ours_watched = [t for t in (ours if listed else [ours]) if t.dtype.kind == "f"]
    with ds.GradientTape() as dtape:
        dtape.watch(ours_watched)
        got = call(dl, ours)
        dloss = ds.reduce_sum(ds.multiply(got, ds.constant(out_weights)))
    got_grads = dtape.gradient(dloss, ours_watched + list(dl.trainable_weights))
    _close(got.numpy(), np.asarray(want), "float32", (2e-5, 2e-6), f"{case.name} forward")
    assert len(got_grads) == len(want_grads)
    for i, (g, w) in enumerate(zip(got_grads, want_grads)):
        g = None if g is None else _np(ds.convert_to_tensor(g))
        w = None if w is None else np.asarray(tf.convert_to_tensor(w))
        assert (g is None) == (w is None), f"{case.name}: gradient {i} is None on one side only"
        if g is not None:
            _close(g, w, "float32", (2e-4, 2e-5), f"{case.name} gradient {i}")
