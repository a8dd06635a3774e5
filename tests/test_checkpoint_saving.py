"""Model persistence: save_weights/load_weights and save/load_model over every layer type and a
custom layer (registered, or passed in custom_objects), a loaded model with its optimizer
training on bit for bit, ModelCheckpoint, BackupAndRestore at ds.callbacks, compat.v1 Saver."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from test_checkpoint_structure import Scale, assert_same, batches, make, state, train_steps

import descend as ds
import descend.train as train


def _data(kind, n=24):
    xs, ys = zip(*batches(kind, 0, n // 6))
    return np.concatenate(xs), np.concatenate(ys)


@pytest.mark.parametrize("kind", ["image", "embedding"])
@pytest.mark.parametrize("build_first", [True, False])
def test_save_weights_load_weights_into_another_instance(tmp_path, kind, build_first):
    a, opt = make(kind)
    train_steps(a, opt, kind, 0, 3)
    a.save_weights(tmp_path / "w")
    b, _ = make(kind)
    x = next(batches(kind, 9, 1))[0]
    if build_first:
        b(x)
    report = b.load_weights(tmp_path / "w")
    assert report.complete
    np.testing.assert_array_equal(a.predict(x, verbose=0), b.predict(x, verbose=0))
    # Dropout's generator came along: the next training-mode call draws the same mask
    np.testing.assert_array_equal(a(x, training=True).numpy(), b(x, training=True).numpy())
    assert_same({k: v for k, v in state(a, opt).items() if k.startswith("model/")},
                {k: v for k, v in state(b, opt).items() if k.startswith("model/")})


def _compiled(kind, opt="adam", custom_loss=False):
    model, _ = make(kind)
    loss = ds.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(optimizer=ds.optimizers.get(opt) if isinstance(opt, str) else opt,
                  loss=loss, metrics=["accuracy"])
    return model


@pytest.mark.parametrize("kind,opt", [("image", "adam"), ("embedding", "rmsprop")])
def test_save_and_load_model_continues_training_bit_for_bit(tmp_path, kind, opt):
    x, y = _data(kind)
    a = _compiled(kind, opt)
    a.fit(x, y, batch_size=6, epochs=1, seed=3, verbose=0)
    a.save(tmp_path / "model")
    spec = json.loads((tmp_path / "model" / "model.json").read_text())
    assert spec["model"]["class_name"] == "Sequential" and spec["compile"]["optimizer"]["class_name"]
    b = ds.models.load_model(tmp_path / "model", custom_objects={"Scale": Scale})
    assert type(b.optimizer) is type(a.optimizer) and int(b.optimizer.iterations) == 4
    a.fit(x, y, batch_size=6, epochs=2, seed=4, verbose=0)
    b.fit(x, y, batch_size=6, epochs=2, seed=4, verbose=0)
    assert_same(state(a, a.optimizer), state(b, b.optimizer))
    np.testing.assert_array_equal(a.predict(x, verbose=0), b.predict(x, verbose=0))


def test_registered_custom_layer_loss_and_unknown_classes(tmp_path):
    @ds.saving.register_serializable(package="tests")
    class Doubler(ds.layers.Layer):
        def call(self, x):
            return x * 2.0

    @ds.saving.register_serializable(package="tests")
    def half_mse(y_true, y_pred):
        return ds.reduce_mean(ds.square(y_true - y_pred), axis=-1) * 0.5

    model = ds.Sequential([ds.layers.Dense(2, kernel_initializer=ds.initializers.GlorotUniform(1)), Doubler()])
    model.compile(optimizer="sgd", loss=half_mse)
    model.fit(np.ones((4, 3)), np.ones((4, 2)), epochs=1, verbose=0)
    model.save(tmp_path / "m")
    loaded = ds.models.load_model(tmp_path / "m")  # found by their registered names, no custom_objects
    assert type(loaded.layers[1]) is Doubler and loaded.loss.fn is half_mse
    np.testing.assert_array_equal(loaded.predict(np.ones((2, 3)), verbose=0), model.predict(np.ones((2, 3)),
                                                                                               verbose=0))
    with pytest.raises(train.CheckpointError, match="unknown model class 'Nope'"):
        spec = json.loads((tmp_path / "m" / "model.json").read_text())
        spec["model"]["class_name"] = spec["model"]["registered_name"] = "Nope"
        (tmp_path / "m" / "model.json").write_text(json.dumps(spec))
        ds.models.load_model(tmp_path / "m")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes").write_text("x")
    with pytest.raises(FileExistsError, match="not a saved descend model"):
        model.save(tmp_path / "mine")
    unnamed = ds.Sequential([ds.layers.Dense(1)])
    unnamed.compile(optimizer="sgd", loss=lambda a, b: ds.reduce_mean(a - b))
    with pytest.raises(ValueError, match="cannot be saved by name"):
        unnamed.save(tmp_path / "u")


def test_loaded_model_without_optimizer_and_weights_only(tmp_path):
    a = _compiled("image")
    x, y = _data("image")
    a.fit(x, y, batch_size=6, epochs=1, seed=1, verbose=0)
    a.save(tmp_path / "m", include_optimizer=False)
    b = ds.models.load_model(tmp_path / "m", custom_objects={"Scale": Scale})
    assert int(b.optimizer.iterations) == 0
    np.testing.assert_array_equal(a.predict(x, verbose=0), b.predict(x, verbose=0))


def test_model_checkpoint_best_only_weights_only_and_save_freq(tmp_path):
    x, y = _data("image")
    model = _compiled("image")
    best = ds.callbacks.ModelCheckpoint(str(tmp_path / "best"), monitor="loss", save_best_only=True,
                                        save_weights_only=True)
    every = ds.callbacks.ModelCheckpoint(str(tmp_path / "steps" / "b{epoch}-{batch}"), monitor="loss",
                                         save_freq=3)
    losses = []
    log = ds.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: losses.append(logs["loss"]))
    model.fit(x, y, batch_size=6, epochs=3, seed=2, verbose=0, callbacks=[best, every, log])
    assert best.best == min(losses)
    assert sorted(os.listdir(tmp_path / "steps")) == ["b1-2", "b2-1", "b3-0", "b3-3"]
    assert os.path.isfile(tmp_path / "steps" / "b3-3" / "model.json")  # whole models
    other, _ = make("image")
    assert other.load_weights(tmp_path / "best").complete
    with pytest.raises(ValueError, match="save_freq"):
        ds.callbacks.ModelCheckpoint("x", save_freq=0)
    assert ds.callbacks.BackupAndRestore is train.BackupAndRestore
    commit = best.restore_plan({"best": 0.5, "batches": 7})
    commit()
    assert best.state_dict() == {"best": 0.5, "batches": 7}
    with pytest.raises(ValueError, match="ModelCheckpoint"):
        best.restore_plan({"best": "low", "batches": -1})


def test_compat_v1_saver_round_trip_by_name(tmp_path):
    ds.clear_session()
    w = ds.Variable(np.arange(4, dtype=np.float32), name="layer/w")
    step = ds.Variable(np.int64(7), name="global_step", trainable=False)
    for i, var_list in enumerate(([w, step], None, {"weights": w, "step": step})):
        saver = ds.compat.v1.train.Saver(var_list)
        path = saver.save(None, str(tmp_path / f"m{i}" / "model.ckpt"), global_step=step)
        assert path.endswith("model.ckpt-7")
        keys = [k for k, _ in train.list_variables(path)]
        assert ("weights" in keys) if isinstance(var_list, dict) else ("layer/w" in keys and "global_step" in keys)
        w.assign(np.zeros(4, np.float32))
        saver.restore(None, path)
        np.testing.assert_array_equal(w.numpy(), np.arange(4))
    ds.clear_session()
    w2 = ds.Variable(np.zeros(3, np.float32), name="layer/w")  # a new program: same name, another shape
    with pytest.raises(train.CheckpointMismatchError, match=r"layer/w: expected shape \(3,\)"):
        ds.compat.v1.train.Saver([w2]).restore(None, str(tmp_path / "m0" / "model.ckpt-7"))
    with pytest.raises(train.CheckpointMismatchError, match="missing"):
        ds.compat.v1.train.Saver({"other": w2}).restore(None, path)
    assert np.all(w2.numpy() == 0)
