"""Checkpoints keyed by object structure: save from model A, restore into model B of the same
architecture (same process after unrelated models, unbuilt, or a fresh process) and train on:
bit for bit the run that was never interrupted. Over every layer type and a custom layer."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import descend as ds
import descend.train as train
from descend.persistence.checkpoint import trackable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class Scale(ds.layers.Layer):
    """A custom layer: one weight from add_weight, one Variable attribute, a sublayer in a list."""

    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.blocks = [ds.layers.Dense(units, kernel_initializer=ds.initializers.GlorotUniform(seed=11))]

    def build(self, input_shape):
        self.gain = self.add_weight(shape=(self.units,), initializer="ones", name="gain")
        self.offset = ds.Variable(np.full(self.units, 0.1, np.float32), name="offset")

    def call(self, x):
        return self.blocks[0](x) * self.gain + self.offset

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def image_model():
    init = ds.initializers.GlorotUniform
    return ds.Sequential([
        ds.layers.Conv2D(4, 3, padding="same", kernel_initializer=init(seed=1)),
        ds.layers.BatchNormalization(),
        ds.layers.Activation("relu"),
        ds.layers.MaxPooling2D(2),
        ds.layers.Flatten(),
        ds.layers.Dropout(0.3, seed=5),
        ds.layers.Dense(8, kernel_initializer=init(seed=2)),
        ds.layers.LayerNormalization(),
        Scale(3),
        ds.layers.Dense(3, kernel_initializer=init(seed=3)),
    ])


def embedding_model():
    return ds.Sequential([ds.layers.Embedding(20, 4, embeddings_initializer=ds.initializers.RandomNormal(seed=4)),
                          ds.layers.Flatten(), ds.layers.Dense(3, kernel_initializer=ds.initializers.GlorotUniform(7))])


def batches(kind, start, steps):
    for step in range(start, start + steps):
        rng = np.random.default_rng(500 + step)
        if kind == "image":
            x = rng.standard_normal((6, 6, 6, 2)).astype(np.float32)
        else:
            x = rng.integers(0, 20, size=(6, 5)).astype(np.int32)
        yield x, rng.integers(0, 3, size=6).astype(np.int32)


LOSS = ds.losses.SparseCategoricalCrossentropy(from_logits=True)


def train_steps(model, opt, kind, start, steps):
    for x, y in batches(kind, start, steps):
        with ds.GradientTape() as tape:
            loss = LOSS(y, model(x, training=True))
        variables = model.trainable_weights
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))


def make(kind, opt_name="adam"):
    model = image_model() if kind == "image" else embedding_model()
    opts = {"adam": lambda: ds.optimizers.Adam(0.01), "lamb_accum": lambda: ds.optimizers.Lamb(
        0.01, gradient_accumulation_steps=3), "rmsprop": lambda: ds.optimizers.RMSprop(0.01, momentum=0.9)}
    return model, opts[opt_name]()


def state(model, opt, ckpt_roots=None) -> dict:
    """Everything, keyed by path: weights, Dropout generators, optimizer state (by path)."""
    graph = trackable.walk({"model": model, "optimizer": opt})
    out = {}
    for leaf in graph.leaves:
        for k, v in leaf.state().items():
            out[leaf.full(k)] = np.asarray(v) if isinstance(v, np.ndarray) else json.dumps(v, sort_keys=True)
    return out


def assert_same(a: dict, b: dict):
    assert sorted(a) == sorted(b)
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k
        else:
            assert a[k] == b[k], k


def unrelated_models():
    """Variables and layers created first shift every automatic name."""
    for _ in range(3):
        m = ds.Sequential([ds.layers.Dense(2), ds.layers.Dense(1)])
        m(np.ones((1, 4), np.float32))
    ds.Variable(1.0, name="adam")
    return m


@pytest.mark.parametrize("kind,opt_name", [("image", "adam"), ("embedding", "rmsprop"), ("image", "lamb_accum")])
@pytest.mark.parametrize("build_first", [True, False])
def test_restore_into_a_second_model_in_the_same_process(tmp_path, kind, opt_name, build_first):
    a, opt_a = make(kind, opt_name)
    train_steps(a, opt_a, kind, 0, 4)  # with accumulation 3: mid-cycle
    path = train.Checkpoint(model=a, optimizer=opt_a).write(tmp_path / "ckpt")
    train_steps(a, opt_a, kind, 4, 5)

    unrelated_models()
    b, opt_b = make(kind, opt_name)
    if build_first:
        b(next(batches(kind, 0, 1))[0])
    ckpt = train.Checkpoint(model=b, optimizer=opt_b)
    report = ckpt.restore(path)
    assert report.complete and bool(report.deferred) == (not build_first)
    train_steps(b, opt_b, kind, 4, 5)
    assert b.weights[0].scoped_name != a.weights[0].scoped_name  # other names, same paths
    ckpt.assert_consumed()
    assert_same(state(a, opt_a), state(b, opt_b))


_FRESH = r"""
import sys, numpy as np
sys.path[:0] = [{root!r}, {here!r}]
import descend as ds, descend.train as train
import test_checkpoint_structure as t
t.unrelated_models()
b, opt = t.make({kind!r}, {opt!r})
ckpt = train.Checkpoint(model=b, optimizer=opt)
report = ckpt.restore({path!r})
assert report.complete, report
t.train_steps(b, opt, {kind!r}, 4, 5)
ckpt.assert_consumed()
train.Checkpoint(model=b, optimizer=opt).write({out!r})
"""


@pytest.mark.parametrize("kind,opt_name", [("image", "adam"), ("embedding", "lamb_accum")])
def test_restore_in_a_fresh_process_after_unrelated_models(tmp_path, kind, opt_name):
    a, opt_a = make(kind, opt_name)
    train_steps(a, opt_a, kind, 0, 4)
    path = train.Checkpoint(model=a, optimizer=opt_a).write(tmp_path / "ckpt")
    train_steps(a, opt_a, kind, 4, 5)
    out = str(tmp_path / "after")
    script = _FRESH.format(root=ROOT, here=HERE, kind=kind, opt=opt_name, path=path, out=out)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    ref = train.load_checkpoint(train.Checkpoint(model=a, optimizer=opt_a).write(tmp_path / "ref"))
    got = train.load_checkpoint(out)
    assert ref.keys() == got.keys()
    for k in ref.keys():  # (the object graph holds each variable's name too: metadata, compared below)
        if k != "_CHECKPOINTABLE_OBJECT_GRAPH":
            assert np.array_equal(ref.get_tensor(k), got.get_tensor(k)), k
    def unnamed(objects):  # an optimizer's name is metadata, as variable names are (auto-named: adam, adam_1...)
        return {k: {**v, "config": {c: x for c, x in v.get("config", {}).items() if c != "name"}}
                if isinstance(v, dict) and v.get("kind") == "optimizer" else v for k, v in objects.items()}
    assert unnamed(ref.manifest["objects"]) == unnamed(got.manifest["objects"])  # Dropout generators, optimizer config
    assert ref.variable_names() != got.variable_names()  # the fresh process named everything differently


def test_names_are_metadata_and_mismatches_list_paths(tmp_path):
    a, opt = make("image")
    train_steps(a, opt, "image", 0, 1)
    path = train.Checkpoint(model=a, optimizer=opt).write(tmp_path / "ckpt")
    reader = train.load_checkpoint(path)
    names = reader.variable_names()
    assert names["model/layers/0/kernel"] == a.layers[0].kernel.scoped_name
    assert "model/layers/8/blocks/0/kernel" in names and "model/layers/8/offset" in names
    assert np.array_equal(reader.get_tensor("optimizer/_variables/2/.ATTRIBUTES/VARIABLE_VALUE"),  # Adam's first m
                          opt.get_slot(a.trainable_weights[0], "m").numpy())
    assert reader.json_state("model/layers/5")["rng"]["bit_generator"] == "PCG64"  # Dropout's generator
    other = ds.Sequential([ds.layers.Dense(3), ds.layers.Dense(3)])
    other(np.ones((1, 2), np.float32))
    with pytest.raises(train.CheckpointMismatchError) as info:
        train.Checkpoint(model=other).restore(path, strict=True)
    err = info.value
    assert "model/layers/1/kernel" in err.missing or any("model/layers/1" in m for m in err.mismatched)
    assert "model/layers/9/kernel" in err.unexpected and "optimizer (object)" in err.unexpected


def test_saved_before_creation_is_kept_in_the_next_save(tmp_path):
    """Values restored into a model not built yet are part of every save until they are used."""
    a, _ = make("embedding")
    a(next(batches("embedding", 0, 1))[0])
    first = train.Checkpoint(model=a).write(tmp_path / "one")
    b, _ = make("embedding")
    ckpt = train.Checkpoint(model=b)
    ckpt.restore(first)
    second = ckpt.write(tmp_path / "two")  # b is still not built
    r1, r2 = train.load_checkpoint(first), train.load_checkpoint(second)
    assert r1.keys() == r2.keys()  # each waiting value under the key it was restored from
    assert all(np.array_equal(r1.get_tensor(k), r2.get_tensor(k)) for k in r1.keys()
               if k != "_CHECKPOINTABLE_OBJECT_GRAPH")  # (the graph is of the objects at each write)
