"""Exact resume: fit interrupted at step k and restarted from its backup ends bit-for-bit where an
uninterrupted run ends: variables, slots, iterations and metrics, for every optimizer in the table."""

from __future__ import annotations

import random

import numpy as np
import pytest
from optimizer_cases import CASES

import descend as ds
from descend.persistence.checkpoint import trackable


class Killed(Exception):
    pass


class KillAt(ds.callbacks.Callback):
    def __init__(self, step):
        super().__init__()
        self.step, self.seen = step, 0

    def on_train_batch_end(self, batch, logs=None):
        self.seen += 1
        if self.seen == self.step:
            raise Killed


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 5))
    y = rng.integers(0, 3, size=40).astype(np.int32)
    return x, y


def _fit(case, backup_dir, callbacks=(), accumulate=None):
    ds.clear_session()  # a new process: same names, fresh objects
    init = ds.initializers.GlorotUniform
    model = ds.Sequential([ds.layers.Dense(6, activation="tanh", kernel_initializer=init(seed=1), dtype="float64"),
                           ds.layers.Dense(3, kernel_initializer=init(seed=2), dtype="float64")])
    extra = {} if accumulate is None else {"gradient_accumulation_steps": accumulate}
    model.compile(optimizer=case.make(**extra), loss=ds.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    x, y = _data()
    backup = ds.train.BackupAndRestore(backup_dir, save_freq=1)
    model.fit(x, y, batch_size=16, epochs=2, seed=7, verbose=0, callbacks=[backup, *callbacks])
    return model


def _state(model):
    out = {w.scoped_name: w.numpy() for w in model.weights}
    out.update({f"opt:{k}": v for k, v in model.optimizer.state_dict().items()})
    for m in model.metrics:  # (Keras 3: the loss tracker, then compile_metrics, whose result is a dict)
        r = m.result()
        out.update({f"metric:{k}": float(v) for k, v in r.items()} if isinstance(r, dict) else {f"metric:{m.name}": float(r)})
    return out


_REFERENCES: dict = {}  # (case, accumulate) -> the uninterrupted run's state: one run serves every kill point


def _reference(case, tmp_path, accumulate):
    key = (case.id, accumulate)
    if key not in _REFERENCES:
        _REFERENCES[key] = _state(_fit(case, tmp_path / "ref", accumulate=accumulate))
    return _REFERENCES[key]


def _check_resume(case, tmp_path, kill_at, accumulate=None):
    reference = _reference(case, tmp_path, accumulate)
    with pytest.raises(Killed):
        _fit(case, tmp_path / "run", callbacks=[KillAt(kill_at)], accumulate=accumulate)
    resumed = _state(_fit(case, tmp_path / "run", accumulate=accumulate))
    assert sorted(resumed) == sorted(reference)
    for k in reference:
        np.testing.assert_array_equal(resumed[k], reference[k], err_msg=k)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
@pytest.mark.parametrize("kill_at", [2, 4])  # 3 steps per epoch: 2 is mid-epoch 1, 4 mid-epoch 2
def test_resume_is_bit_exact(case, tmp_path, kill_at):
    _check_resume(case, tmp_path, kill_at)


@pytest.mark.parametrize("kill_at", [1, 3, 5])
def test_resume_in_the_middle_of_an_accumulation_cycle(tmp_path, kill_at):
    adam = next(c for c in CASES if c.id == "adam")
    _check_resume(adam, tmp_path, kill_at, accumulate=2)


def test_restart_after_an_epoch_end_backup(tmp_path):
    adam = next(c for c in CASES if c.id == "adamw")
    reference = _state(_fit(adam, tmp_path / "ref"))
    with pytest.raises(Killed):
        _fit(adam, tmp_path / "run", callbacks=[KillAt(3)])  # killed right after epoch 1's last step
    np.testing.assert_array_equal(_state(_fit(adam, tmp_path / "run"))["sequential/dense/kernel"],
                                  reference["sequential/dense/kernel"])


# --- exact resume everywhere: epoch backups with shuffling, Dropout, kills right after a restore ---------------
def _fit2(backup_dir, callbacks=(), save_freq=1, accumulate=None, dropout=True, epochs=3, opt="lamb"):
    ds.clear_session()
    np.random.seed(0)
    random.seed(0)  # the same script: an unseeded Dropout draws its seed from Python's random, as Keras
    init = ds.initializers.GlorotUniform
    layers = [ds.layers.Dense(8, activation="tanh", kernel_initializer=init(seed=1))]
    if dropout:
        layers.append(ds.layers.Dropout(0.3))  # unseeded: its generator is state, saved with the model
    layers.append(ds.layers.Dense(3, kernel_initializer=init(seed=2)))
    model = ds.Sequential(layers)
    extra = {} if accumulate is None else {"gradient_accumulation_steps": accumulate}
    optimizer = ds.optimizers.Lamb(0.01, **extra) if opt == "lamb" else ds.optimizers.Adam(0.01, **extra)
    model.compile(optimizer=optimizer, loss=ds.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    x, y = _data()
    backup = ds.callbacks.BackupAndRestore(backup_dir, save_freq=save_freq)
    model.fit(x, y, batch_size=8, epochs=epochs, seed=7, verbose=0, callbacks=[backup, *callbacks])
    return model


def _state2(model):
    graph = trackable.walk({"model": model, "optimizer": model.optimizer,
                                          "metrics": list(model.metrics)})
    out = {}
    for leaf in graph.leaves:
        for k, v in leaf.state().items():
            out[leaf.full(k)] = v if isinstance(v, np.ndarray) else str(v)
    return out


def _same(a, b):
    assert sorted(a) == sorted(b)
    for k in a:
        if isinstance(a[k], np.ndarray):
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        else:
            assert a[k] == b[k], k


class KillBefore(ds.callbacks.Callback):
    """Raise at the start of the n-th batch of this run (after a restore, before its first update)."""

    def __init__(self, n):
        super().__init__()
        self.n, self.seen = n, 0

    def on_train_batch_begin(self, batch, logs=None):
        self.seen += 1
        if self.seen == self.n:
            raise Killed


@pytest.mark.parametrize("kill_at", [5, 10, 11])  # 5 steps per epoch: 5 and 10 end an epoch
def test_epoch_backups_with_shuffling_and_dropout_resume_exactly(tmp_path, kill_at):
    reference = _state2(_fit2(tmp_path / "ref", save_freq="epoch"))
    with pytest.raises(Killed):
        _fit2(tmp_path / "run", callbacks=[KillAt(kill_at)], save_freq="epoch")
    _same(_state2(_fit2(tmp_path / "run", save_freq="epoch")), reference)


@pytest.mark.parametrize("kill_at", [3, 7])
def test_dropout_generator_resumes_mid_epoch(tmp_path, kill_at):
    reference = _state2(_fit2(tmp_path / "ref"))
    with pytest.raises(Killed):
        _fit2(tmp_path / "run", callbacks=[KillAt(kill_at)])
    _same(_state2(_fit2(tmp_path / "run")), reference)


@pytest.mark.parametrize("first_kill", [2, 4])
def test_killed_again_between_a_restore_and_the_first_update(tmp_path, first_kill):
    """Accumulation over 3 micro-steps: after a restore, the checkpoints written before the next real
    update must still hold the restored moments (they are pending, not created, until then)."""
    reference = _state2(_fit2(tmp_path / "ref", accumulate=3))
    with pytest.raises(Killed):
        _fit2(tmp_path / "run", callbacks=[KillAt(first_kill)], accumulate=3)
    with pytest.raises(Killed):  # resumed, one micro-step saved, killed before the cycle's update
        _fit2(tmp_path / "run", callbacks=[KillAt(1)], accumulate=3)
    with pytest.raises(Killed):  # and killed during the resume itself, before any step
        _fit2(tmp_path / "run", callbacks=[KillBefore(1)], accumulate=3)
    _same(_state2(_fit2(tmp_path / "run", accumulate=3)), reference)


def test_rerunning_a_finished_fit_keeps_the_final_weights(tmp_path):
    first = _fit2(tmp_path / "run", dropout=False, opt="adam")
    x, y = _data()
    want = first.evaluate(x, y, verbose=0)
    again = _fit2(tmp_path / "run", dropout=False, opt="adam")  # the backup has no step left
    assert again.built and again.weights
    _same({k: v for k, v in _state2(again).items() if not k.startswith("metrics")},
          {k: v for k, v in _state2(first).items() if not k.startswith("metrics")})
    assert again.evaluate(x, y, verbose=0) == want
    path = train_write = ds.train.Checkpoint(model=again).write(tmp_path / "final")
    # the first kernel, by TensorFlow's key: the compiled model's optimizer reaches it first, breadth first
    assert "model/optimizer/_trainable_variables/0/.ATTRIBUTES/VARIABLE_VALUE" in ds.train.load_checkpoint(path).keys()
    del train_write
