"""Cold start: numba loading in the background (descend._native.set_background_loading, which
``descend train`` turns on). Until the loader is done, the kernels whose NumPy path gives the same
bits take that path; the others wait; either way the numbers are those of a process that loaded
numba first. Each case runs in a fresh process (numba is loaded once per process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from descend import _native
from descend.cli import main

pytest.importorskip("numba")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _python(code: str, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "DESCEND_DISABLE_FUSED"}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                         env={**env, "PYTHONPATH": ROOT, "MPLBACKEND": "Agg"}, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


# a loader held until the script lets it go: what the first updates do before numba is there
_HELD = """
    import json, sys, threading
    import numpy as np
    import descend as ds
    from descend import _native
    from descend.optimizers import fused

    background = sys.argv[1] == "background"
    gate = threading.Event()
    _load = _native._load
    def held():
        gate.wait()
        _load()
    _native._load = held
    _native.set_background_loading(background)
    if not background:
        gate.set()
"""

_STEPS = _HELD + """
    rng = np.random.default_rng(0)
    var = ds.Variable(rng.standard_normal(5000).astype(np.float32), name="w")
    opt = {"adamw": lambda: ds.optimizers.AdamW(0.01, weight_decay=0.004),
           "adagrad": lambda: ds.optimizers.Adagrad(0.1),
           "ftrl": lambda: ds.optimizers.Ftrl(0.1, l1_regularization_strength=0.01)}[sys.argv[2]]()
    grads = [rng.standard_normal(5000).astype(np.float32) for _ in range(4)]
    if sys.argv[2] == "ftrl":  # a rule with np.power: it must wait for the loader; let it go a little later
        threading.Timer(0.2, gate.set).start()
    opt.apply_gradients([(ds.constant(grads[0]), var)])
    first = {"numba": "numba" in sys.modules, "fused": fused.stats["dense"], "loaded": _native._loaded}
    gate.set()
    _native.wait_loaded()
    for g in grads[1:]:
        opt.apply_gradients([(ds.constant(g), var)])
    print(json.dumps({**first, "fused_after": fused.stats["dense"], "w": var.numpy().tobytes().hex(),
                      "slots": [opt.get_slot(var, n).numpy().tobytes().hex() for n in opt.get_slot_names()]}))
"""


@pytest.mark.parametrize("name", ["adamw", "adagrad"])
def test_first_update_takes_the_numpy_path_while_numba_loads_with_the_same_bits(name):
    loading = _python(_STEPS, "background", name)
    reference = _python(_STEPS, "first", name)  # numba loaded in the caller's thread: kernels from step 1
    # the first update neither imported numba nor waited for it (the loader was held) ...
    assert loading["numba"] is False and loading["fused"] == 0 and loading["loaded"] is False
    assert reference["fused"] == 1
    # ... and once loaded the kernels ran the other three: every bit as in the reference process
    assert loading["fused_after"] == 3 and reference["fused_after"] == 4
    assert loading["w"] == reference["w"] and loading["slots"] == reference["slots"]


def test_a_rule_the_numpy_path_would_change_waits_for_the_loader():
    # FTRL's np.power is an ulp apart between NumPy's SIMD and numba's libm: its first update waits
    loading = _python(_STEPS, "background", "ftrl")
    reference = _python(_STEPS, "first", "ftrl")
    assert loading["loaded"] is True and loading["fused"] == 1 and loading["fused_after"] == 4
    assert loading["w"] == reference["w"] and loading["slots"] == reference["slots"]


def test_the_nonfinite_check_still_stops_a_nan_gradient_while_numba_loads():
    result = _python(textwrap.dedent(_HELD) + textwrap.dedent("""
        var = ds.Variable(np.ones(8, np.float32), name="w")
        grad = np.ones(8, np.float32)
        grad[5] = np.nan
        try:
            ds.optimizers.Adam(0.1).apply_gradients([(ds.constant(grad), var)])
            raised = None
        except Exception as e:
            raised = type(e).__name__
        loaded = _native._loaded
        gate.set()
        print(json.dumps({"raised": raised, "loaded": loaded, "w": var.numpy().tolist()}))
    """), "background")
    assert result["raised"] is not None and result["loaded"] is False
    assert result["w"] == [1.0] * 8  # nothing written


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_fork_waits_for_the_loader():
    # a child forked in the middle of numba's import would inherit import locks no thread releases
    result = _python(textwrap.dedent(_HELD) + textwrap.dedent("""
        import os
        var = ds.Variable(np.ones(8, np.float32), name="w")
        ds.optimizers.Adam(0.1).apply_gradients([(ds.constant(np.ones(8, np.float32)), var)])  # starts it
        threading.Timer(0.2, gate.set).start()
        pid = os.fork()
        if pid == 0:
            os._exit(0 if _native._loaded else 3)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"loaded_in_parent": _native._loaded, "child": os.waitstatus_to_exitcode(status)}))
    """), "background")
    assert result == {"loaded_in_parent": True, "child": 0}


# descend train: its first update runs before numba is there, and the run's numbers do not change
_TRAIN = """
    import json, sys, threading
    from descend import _native
    from descend.cli import main, training
    from descend.optimizers import fused

    if sys.argv[1] == "first":  # numba in the caller's thread, as a library user gets it
        _native.set_background_loading = lambda flag: False
    at_first = {}
    process_seconds = training.process_seconds
    def first_update():
        at_first.update(fused=fused.stats["dense"], loaded=_native._loaded)
        return process_seconds()
    training.process_seconds = first_update
    gate = threading.Event()
    _load = _native._load
    def held():  # the loader waits until the first update is over
        while not at_first:
            gate.wait(0.01)
        _load()
    _native._load = held
    code = main(["train", "--epochs", "1", "--max-steps", "6", "--out", sys.argv[2], *sys.argv[3:]])
    print(json.dumps({"code": code, **at_first, "fused": fused.stats["dense"], "rows": fused.stats["rows"],
                      "loaded": at_first["loaded"]}))
"""


@pytest.mark.parametrize("example", ["digits", "clicks"])
def test_descend_train_first_update_before_numba_same_run(tmp_path, example):
    a, b = tmp_path / "background", tmp_path / "first"
    loading = _python(_TRAIN, "background", str(a), "--example", example)
    reference = _python(_TRAIN, "first", str(b), "--example", example)
    assert loading["code"] == reference["code"] == 0
    assert loading["loaded"] is False  # the first update did not wait for numba
    # the first update took the NumPy path (the kernels take over once numba is loaded: see above)
    if example == "digits":
        assert reference["fused"] == 6 and loading["fused"] < 6
    else:  # the embedding tables' lazy row updates
        assert reference["rows"] > loading["rows"]
    for name in ("final/tensors.safetensors", "metrics.csv", "epochs.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_main_leaves_the_loading_setting_as_it_found_it():
    before = _native.set_background_loading(False)
    try:
        assert main(["train", "--epochs", "0"]) == 2
        assert _native.set_background_loading(False) is False
    finally:
        _native.set_background_loading(before)


def test_the_progress_bar_imports_tqdm_after_the_first_step():
    result = _python("""
        import io, json, sys
        import numpy as np
        import descend as ds
        from descend.callbacks import Callback, ProgbarLogger

        seen = []
        class Probe(Callback):
            def on_train_batch_end(self, batch, logs=None):
                seen.append("tqdm" in sys.modules)

        model = ds.Sequential([ds.layers.Dense(3)])
        model.compile(optimizer="sgd", loss="mse")
        out = io.StringIO()
        x, y = np.ones((8, 4), np.float32), np.zeros((8, 3), np.float32)
        model.fit(x, y, batch_size=4, epochs=2, verbose=0, callbacks=[Probe(), ProgbarLogger(file=out)])
        print(json.dumps({"seen": seen, "out": out.getvalue()}))
    """)
    assert result["seen"] == [False, True, True, True]  # the first step ran before tqdm was imported
    lines = result["out"].replace("\r", "\n")
    assert "epoch 1/2" in lines and "epoch 2/2" in lines and "2/2 [" in lines


def test_a_numba_that_cannot_load_in_the_background_leaves_the_numpy_paths():
    # numba found on the path but failing to import (built for another NumPy, say): the loader finds
    # out, and every caller, waiting or not, takes its NumPy path without an error
    result = _python("""
        import json, sys
        sys.modules["numba"] = None  # import numba fails
        import numpy as np
        import descend as ds
        from descend import _native
        from descend.optimizers import fused
        _native._installed = True  # ... though it looked installed
        _native.set_background_loading(True)
        w = ds.Variable(np.ones(3, np.float32), name="w")
        v = ds.Variable(np.ones(3, np.float32), name="v")
        adam, ftrl = ds.optimizers.Adam(0.1), ds.optimizers.Ftrl(0.1)
        adam.apply_gradients([(ds.constant(np.ones(3, np.float32)), w)])  # does not wait
        ftrl.apply_gradients([(ds.constant(np.ones(3, np.float32)), v)])  # waits: the loader fails
        adam.apply_gradients([(ds.constant(np.ones(3, np.float32)), w)])
        print(json.dumps({"stats": dict(fused.stats), "enabled": fused.enabled(), "loaded": _native._loaded,
                          "w": w.numpy().tolist()}))
    """)
    assert result["stats"] == {} and result["enabled"] is False and result["loaded"] is True
    assert result["w"] == pytest.approx([0.8, 0.8, 0.8], abs=1e-5)


def _cube_rule(param, grad, m, *, lr):
    m = m * 0.9 + grad ** 3  # numba's pow against NumPy's power
    return param - lr * m, m


def _remainder_rule(param, grad, *, lr):
    return (param - lr * (grad % 2.0),)


def test_only_rules_whose_numpy_path_gives_the_same_bits_take_it_while_numba_loads():
    import descend as ds
    from descend.optimizers import fused

    if not fused.enabled():
        pytest.skip("compiled kernels are off")
    exact = {name: fused.kernel_for(getattr(ds.optimizers, name)(0.1).rule.fn).exact
             for name in ("SGD", "Adam", "AdamW", "Adagrad", "AdagradDecay", "RMSprop", "Adadelta", "Adamax",
                          "Nadam", "Lion", "Ftrl")}
    assert exact == {**{name: True for name in exact}, "Ftrl": False}  # FTRL: np.power
    assert fused.kernel_for(_cube_rule).exact is False  # ** (pow)
    assert fused.kernel_for(_remainder_rule).exact is False  # % (kept out, to be safe)
