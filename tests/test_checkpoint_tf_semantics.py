"""TensorFlow's checkpoint semantics (issue 35): the wrong results first, then the load status, nesting,
aliases and deferred restores (cases ported from TensorFlow's checkpoint/checkpoint_test.py, rewritten)."""

import os

import numpy as np
import pytest

import descend as ds
from descend.nn import max_pool2d
from descend.train import Checkpoint


def _var(*values, name="v"):
    return ds.Variable(np.array(values, np.float32), name=name)


# ================================================================ wrong results (each failed on main)
def _attribute_set_after_construction(d):
    c = Checkpoint()
    c.v = _var(1.0, 2.0)
    path = c.save(os.path.join(d, "a"))
    w = _var(0.0, 0.0)
    Checkpoint(v=w).restore(path).assert_consumed()
    return w.numpy(), [1.0, 2.0]


def _restored_through_the_second_path(d):
    v = _var(3.0)
    path = Checkpoint(first=v, second=v).save(os.path.join(d, "two"))
    w = _var(0.0)
    Checkpoint(second=w).restore(path).assert_consumed()
    return w.numpy(), [3.0]


def _layer_reachable_by_two_paths(d):
    layer = ds.layers.Dense(2, kernel_initializer="ones")
    layer.build((None, 3))
    path = Checkpoint(model={"head": layer}, alias=layer).save(os.path.join(d, "layer"))
    other = ds.layers.Dense(2, kernel_initializer="zeros")
    other.build((None, 3))
    Checkpoint(alias=other).restore(path).assert_consumed()
    return other.kernel.numpy(), np.ones((3, 2))


def _deferred_restore_on_assignment(d):
    path = Checkpoint(v=_var(5.0, 6.0)).save(os.path.join(d, "deferred"))
    r = Checkpoint()
    status = r.restore(path)
    w = _var(0.0, 0.0)
    r.v = w  # restored now, as TensorFlow does
    status.assert_consumed()
    return w.numpy(), [5.0, 6.0]


def _deferred_restore_on_list_append(d):
    path = Checkpoint(l=[_var(7.0), _var(8.0)]).save(os.path.join(d, "list"))
    r = Checkpoint(l=[])
    status = r.restore(path)
    a, b = _var(0.0), _var(0.0)
    r.l.append(a)
    r.l.append(b)
    status.assert_consumed()
    return np.concatenate([a.numpy(), b.numpy()]), [7.0, 8.0]


def _max_pool_tied_gradient(d):
    x = ds.Variable(np.array([[1.0, 3.0, 3.0, 0.0],
                              [3.0, 2.0, 1.0, 3.0],
                              [0.0, 0.0, 4.0, 4.0],
                              [5.0, 5.0, 4.0, 4.0]]).reshape(1, 4, 4, 1))
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(max_pool2d(x, 2, 2) * ds.constant(np.array([1.0, 2.0, 3.0, 4.0]).reshape(1, 2, 2, 1)))
    # TF's MaxPoolGrad: the whole gradient of a window to its first maximum in row-major order
    expected = np.array([[0, 1, 2, 0], [0, 0, 0, 0], [0, 0, 4, 0], [3, 0, 0, 0]], np.float64)
    return tape.gradient(y, x).numpy()[0, :, :, 0], expected


WRONG_RESULTS = {
    "attribute_set_after_construction_is_saved": _attribute_set_after_construction,
    "variable_restored_through_its_second_path": _restored_through_the_second_path,
    "layer_restored_through_its_second_path": _layer_reachable_by_two_paths,
    "deferred_restore_on_assignment": _deferred_restore_on_assignment,
    "deferred_restore_on_list_append": _deferred_restore_on_list_append,
    "max_pool_tied_maxima_gradient_to_the_first": _max_pool_tied_gradient,
}


@pytest.mark.parametrize("name", sorted(WRONG_RESULTS))
def test_wrong_results(name, tmp_path):
    got, expected = WRONG_RESULTS[name](str(tmp_path))
    np.testing.assert_array_equal(got, np.asarray(expected, dtype=got.dtype))


@pytest.mark.parametrize("ksize,strides,padding", [(2, 2, "VALID"), (2, 1, "VALID"), (3, 2, "SAME"), ((2, 3), 1, "SAME")])
def test_max_pool_tied_gradient_against_tensorflow(ksize, strides, padding):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, size=(2, 5, 6, 2)).astype(np.float64)  # many ties
    up = rng.integers(1, 100, size=max_pool2d(x, ksize, strides, padding).shape).astype(np.float64)  # exact sums
    xv = ds.Variable(x)
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(max_pool2d(xv, ksize, strides, padding) * up)
    xt = tf.Variable(x)
    with tf.GradientTape() as ttape:
        yt = tf.reduce_sum(tf.nn.max_pool2d(xt, ksize, strides, padding) * up)
    np.testing.assert_array_equal(tape.gradient(y, xv).numpy(), ttape.gradient(yt, xt).numpy())


# ================================================================ the load status
def _saved(d, **roots):
    return Checkpoint(**roots).save(os.path.join(d, "s"))


def test_status_assertions_table(tmp_path):
    """Each row: restore or read into these roots, then which assertions pass (TF's load status; the
    expectations were checked against TensorFlow 2.21)."""
    d = str(tmp_path)
    path = _saved(d, a=_var(1.0), b=_var(2.0))
    rows = [
        # (method, roots, consumed, existing_matched, nontrivial)
        ("restore", dict(a=_var(0.0), b=_var(0.0)), True, True, True),
        ("restore", dict(a=_var(0.0)), False, True, True),  # b unused
        ("restore", dict(a=_var(0.0), c=_var(0.0)), False, False, True),  # c missing
        ("restore", dict(c=_var(0.0)), False, False, True),  # the save counter matched
        ("read", dict(c=_var(0.0)), False, False, False),  # nothing but the root matched
        ("read", dict(a=_var(0.0)), False, True, True),
    ]
    for method, roots, consumed, existing, nontrivial in rows:
        status = getattr(Checkpoint(**roots), method)(path)
        for ok, check in ((consumed, status.assert_consumed), (existing, status.assert_existing_objects_matched),
                          (nontrivial, status.assert_nontrivial_match)):
            if ok:
                check()
            else:
                with pytest.raises(AssertionError):
                    check()
                with pytest.raises(ds.train.CheckpointMismatchError):  # and descend's error with the lists
                    check()
        assert status.expect_partial() is status


def test_empty_containers_are_ignored(tmp_path):
    """Ported: TF's testEmptyContainersIgnored."""
    path = Checkpoint(a=[]).save(os.path.join(tmp_path, "ckpt"))
    root = Checkpoint(b=[])
    root.dep = []
    root.dep.append([])
    status = root.restore(path)
    status.assert_consumed().assert_existing_objects_matched().assert_nontrivial_match()


def test_late_dependency_is_restored_when_attached(tmp_path):
    """Ported: TF's testLateDependencyTracking and testDepAfterVar (a dependency made after restore())."""
    original = Checkpoint()
    original.dep = Checkpoint(var=_var(123.0))
    path = original.save(os.path.join(tmp_path, "ckpt"))
    for var_first in (False, True):
        load_into = Checkpoint()
        status = load_into.restore(path)
        status.assert_existing_objects_matched()
        with pytest.raises(AssertionError):
            status.assert_consumed()
        var = _var(0.0)
        if var_first:  # the dependency is complete when attached
            load_into.dep = Checkpoint(var=var)
        else:  # attached empty, its variable added to it afterwards
            load_into.dep = Checkpoint()
            load_into.dep.var = var
        status.assert_consumed()
        assert var.numpy()[0] == 123.0


def test_restore_on_assign_and_objects_combined(tmp_path):
    """Ported: TF's testRestoreOnAssign and testObjectsCombined."""
    first = Checkpoint()
    first.var1, first.var2 = _var(4.0), _var(8.0)
    path = first.save(os.path.join(tmp_path, "ckpt"))
    second = Checkpoint()
    second.var2 = _var(0.0)
    status = second.restore(path)
    assert second.var2.numpy()[0] == 8.0
    recreated = _var(-2.0)
    second.var1 = recreated
    assert recreated.numpy()[0] == 4.0
    status.assert_consumed()

    save_root = Checkpoint(dep_one=Checkpoint(var1=_var(32.0)), dep_two=Checkpoint(var2=_var(64.0)))
    path = save_root.save(os.path.join(tmp_path, "combined"))
    one = Checkpoint(var1=_var(0.0), var2=_var(0.0))
    load_root = Checkpoint(dep_one=one, dep_two=one)  # two saved objects into one
    load_root.restore(path).assert_consumed().assert_existing_objects_matched()
    assert one.var1.numpy()[0] == 32.0 and one.var2.numpy()[0] == 64.0


def test_dependency_loop(tmp_path):
    """Ported: TF's testDependencyLoop (checkpoints referring to each other)."""
    first, second = Checkpoint(), Checkpoint()
    first.second = second
    second.first = first
    first.v = ds.Variable([3.0, 1.0, 4.0])
    second.v = ds.Variable([1.0, 1.0, 2.0, 3.0])
    path = first.save(os.path.join(tmp_path, "ckpt"))
    first_load, second_load = Checkpoint(), Checkpoint()
    status = first_load.restore(path)
    first_load.second = second_load
    second_load.first = first_load
    with pytest.raises(AssertionError):
        status.assert_consumed()
    first_load.v = ds.Variable([0.0, 0.0, 0.0])
    second_load.v = ds.Variable([0.0, 0.0, 0.0, 0.0])
    status.assert_consumed()
    assert list(first_load.v.numpy()) == [3.0, 1.0, 4.0] and list(second_load.v.numpy()) == [1.0, 1.0, 2.0, 3.0]
    first_load.v.assign([2.0, 7.0, 1.0])
    second_load.v.assign([2.0, 7.0, 1.0, 8.0])
    first_load.restore(path).assert_consumed()  # the variables exist now: restored at once
    assert list(first_load.v.numpy()) == [3.0, 1.0, 4.0] and list(second_load.v.numpy()) == [1.0, 1.0, 2.0, 3.0]


def test_strict_mode_stays_available(tmp_path):
    path = _saved(str(tmp_path), a=_var(1.0), b=_var(2.0))
    a = _var(0.0)
    with pytest.raises(ds.train.CheckpointMismatchError, match="unexpected"):
        Checkpoint(a=a).restore(path, strict=True)
    assert a.numpy()[0] == 0.0  # nothing changed
    Checkpoint(a=a).restore(path)  # not strict: restores what matches
    assert a.numpy()[0] == 1.0


def test_a_refused_value_raises_by_default_and_changes_nothing(tmp_path):
    path = _saved(str(tmp_path), a=_var(1.0), b=_var(2.0))
    a, b = _var(0.0), _var(0.0, 0.0)
    with pytest.raises(ds.train.CheckpointMismatchError, match=r"b: expected shape \(2,\)"):
        Checkpoint(a=a, b=b).restore(path)
    assert a.numpy()[0] == 0.0


def test_pending_values_wait_for_objects_then_assert_consumed_passes(tmp_path):
    """Ported: TF's deferred restoration of an attribute assigned after restore()."""
    path = _saved(str(tmp_path), net=Checkpoint(bias=_var(4.0)), step=_var(9.0))
    root = Checkpoint()
    status = root.restore(path)
    with pytest.raises(AssertionError):
        status.assert_consumed()
    status.assert_existing_objects_matched()  # nothing exists yet: nothing unmatched
    root.net = Checkpoint()
    bias = _var(0.0)
    root.net.bias = bias  # a nested Checkpoint's attribute: the restore holding its value sees it
    step = _var(0.0)
    root.step = step
    assert bias.numpy()[0] == 4.0 and step.numpy()[0] == 9.0
    status.assert_consumed()


def test_a_mis_shaped_value_for_an_assigned_object_is_refused_and_not_assigned(tmp_path):
    path = _saved(str(tmp_path), v=_var(1.0, 2.0))
    root = Checkpoint()
    root.restore(path)
    with pytest.raises(ds.train.CheckpointMismatchError, match="shape"):
        root.v = _var(0.0)
    assert "v" not in root._trackable_children()


# ================================================================ nesting, aliases, attributes
VALUE = "/.ATTRIBUTES/VARIABLE_VALUE"


def _values(path) -> list[str]:
    """The objects whose variables the checkpoint holds, by TensorFlow's keys less ``/.ATTRIBUTES/VARIABLE_VALUE``
    (the object graph and the save counter left out)."""
    return sorted(k[:-len(VALUE)] for k, _ in ds.train.list_variables(path)
                  if k.endswith(VALUE) and k != "save_counter" + VALUE)


def test_nested_checkpoints_save_and_restore(tmp_path):
    v = _var(3.0)
    path = Checkpoint(net=Checkpoint(bias=v)).save(os.path.join(tmp_path, "n"))
    assert [k for k, _ in ds.train.list_variables(path)] == [  # TensorFlow's keys, in descend's format too
        "_CHECKPOINTABLE_OBJECT_GRAPH", "net/bias" + VALUE, "save_counter" + VALUE]
    w = _var(0.0)
    Checkpoint(net=Checkpoint(bias=w)).restore(path).assert_consumed()
    assert w.numpy()[0] == 3.0


def test_saved_once_restored_by_either_path(tmp_path):
    v = _var(3.0)
    path = Checkpoint(first=v, second=v).save(os.path.join(tmp_path, "two"))
    assert _values(path) == ["first"]  # one value
    a, b = _var(0.0), _var(0.0)
    Checkpoint(first=a, second=b).restore(path).assert_consumed()  # two objects now: both take it
    assert a.numpy()[0] == b.numpy()[0] == 3.0
    same = _var(0.0)
    Checkpoint(second=same, first=same).restore(path).assert_consumed()
    assert same.numpy()[0] == 3.0


def test_a_list_wrapper_wraps_the_list(tmp_path):
    items = [_var(1.0)]
    c = Checkpoint(l=items)
    c.l.append(_var(2.0))
    assert len(items) == 2 and c.l == items  # the same list, as TF's ListWrapper
    path = c.save(os.path.join(tmp_path, "l"))
    assert _values(path) == ["l/0", "l/1"]


def test_an_attribute_that_is_not_trackable_is_a_plain_attribute(tmp_path):
    """As TensorFlow: `ckpt.x = 5` is kept on the object and not saved; a trackable value set later is."""
    c = Checkpoint(v=_var(1.0))
    c.note = "text"
    assert c.note == "text"
    path = c.save(os.path.join(tmp_path, "a"))
    assert _values(path) == ["v"]
    c.note = _var(2.0)
    path = c.save(os.path.join(tmp_path, "b"))
    assert _values(path) == ["note", "v"]
    del c.note
    with pytest.raises(AttributeError):
        c.note  # noqa: B018 - deleted


# ================================================================ TensorFlow's files, both ways
def _keras_model(keras):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="l1", activation="relu"),
                              keras.layers.Dense(2, name="l2")])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    return model


def _data():
    rng = np.random.default_rng(1)
    return rng.normal(size=(16, 3)).astype(np.float32), rng.normal(size=(16, 2)).astype(np.float32)


def _slots(opt, variables, names):
    return [opt.get_slot(v, s).numpy() for s in names for v in variables]


def test_written_in_tensorflow_format_keys_and_values(tmp_path):
    v, bias = _var(1.0, 2.0, name="v"), _var(3.0, name="bias")
    root = Checkpoint(v=v, net=Checkpoint(bias=bias))
    path = root.save(os.path.join(tmp_path, "ckpt"), format="tensorflow")
    assert os.path.exists(path + ".index") and os.path.exists(path + ".data-00000-of-00001")
    assert ds.train.latest_checkpoint(str(tmp_path)) == path  # TF's `checkpoint` file names it
    keys = dict(ds.train.list_variables(path))
    assert keys == {"_CHECKPOINTABLE_OBJECT_GRAPH": (), "v/.ATTRIBUTES/VARIABLE_VALUE": (2,),
                    "net/bias/.ATTRIBUTES/VARIABLE_VALUE": (1,), "save_counter/.ATTRIBUTES/VARIABLE_VALUE": ()}
    w, b = _var(0.0, 0.0), _var(0.0)
    Checkpoint(v=w, net=Checkpoint(bias=b)).restore(path).assert_consumed()
    assert list(w.numpy()) == [1.0, 2.0] and b.numpy()[0] == 3.0
    with pytest.raises(ValueError, match="format must be"):
        root.save(os.path.join(tmp_path, "x"), format="tf2")
    with pytest.raises(ValueError, match=r"'rng' is a Generator.*TensorFlow checkpoint cannot hold"):
        Checkpoint(rng=np.random.default_rng(0)).write(os.path.join(tmp_path, "g"), format="tensorflow")


def test_tensorflow_reads_descends_file(tmp_path):
    tf = pytest.importorskip("tensorflow")
    v, bias = _var(1.0, 2.0, name="v"), _var(3.0, name="bias")
    path = Checkpoint(v=v, net=Checkpoint(bias=bias)).save(os.path.join(tmp_path, "ckpt"), format="tensorflow")
    assert {k: tuple(s) for k, s in tf.train.list_variables(str(tmp_path))} == dict(ds.train.list_variables(path))
    tv, tb = tf.Variable([0.0, 0.0]), tf.Variable([0.0])
    status = tf.train.Checkpoint(v=tv, net=tf.train.Checkpoint(bias=tb)).restore(tf.train.latest_checkpoint(tmp_path))
    status.assert_consumed()
    assert list(tv.numpy()) == [1.0, 2.0] and tb.numpy()[0] == 3.0


def test_round_trip_tensorflow_descend_tensorflow_model_and_optimizer(tmp_path):
    """TF writes a trained Keras model and its Adam; descend restores it bit for bit, trains on and writes
    TensorFlow's format; TF restores that bit for bit."""
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    x, y = _data()
    theirs = _keras_model(keras)
    theirs.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    tf_path = tf.train.Checkpoint(model=theirs, optimizer=theirs.optimizer).save(os.path.join(tmp_path, "tf", "ckpt"))

    ours = _keras_model(ds.keras)
    ours(x[:1])
    status = Checkpoint(model=ours, optimizer=ours.optimizer).restore(tf_path)
    status.assert_existing_objects_matched()
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_array_equal(a, b)  # bit for bit
    ours.fit(x[:8], y[:8], batch_size=8, epochs=1, verbose=0, shuffle=False)  # creates the slots: restored
    # compare the state restored, then stepped once, to TF stepped once from the same point
    theirs.fit(x[:8], y[:8], batch_size=8, epochs=1, verbose=0, shuffle=False)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)

    # descend -> TF, bit for bit
    ds_path = Checkpoint(model=ours, optimizer=ours.optimizer).save(os.path.join(tmp_path, "ds", "ckpt"),
                                                                    format="tensorflow")
    # the keys TensorFlow writes for the same objects (each value under its first path, breadth first)
    assert {k: tuple(s) for k, s in tf.train.list_variables(tf_path)} == dict(ds.train.list_variables(ds_path))
    again = _keras_model(keras)
    again.optimizer.build(again.trainable_variables)
    tf.train.Checkpoint(model=again, optimizer=again.optimizer).restore(ds_path).assert_consumed()
    for a, b in zip(again.get_weights(), ours.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert int(again.optimizer.iterations.numpy()) == int(ours.optimizer.iterations.numpy()) == 3
    variables = ours.trainable_weights
    np.testing.assert_array_equal(np.concatenate([m.numpy().ravel() for m in again.optimizer._momentums]),
                                  np.concatenate([a.ravel() for a in _slots(ours.optimizer, variables, ["m"])]))
    np.testing.assert_array_equal(np.concatenate([m.numpy().ravel() for m in again.optimizer._velocities]),
                                  np.concatenate([a.ravel() for a in _slots(ours.optimizer, variables, ["v"])]))

    # and TF's file read by descend is bit for bit TF's values
    back = _keras_model(ds.keras)
    back(x[:1])
    Checkpoint(model=back, optimizer=back.optimizer).restore(ds_path)
    for a, b in zip(back.get_weights(), ours.get_weights()):
        np.testing.assert_array_equal(a, b)


# ================================================================ issue 38, item 18
def test_init_from_checkpoint_scope_after_a_tf1_optimizer_made_its_slots(tmp_path):
    """TF 1's slots live under TF 1's names (`dense/kernel/Adam`, `_1`): a scope mapping takes them too."""
    from descend.persistence.formats import tf_bundle

    prefix = os.path.join(tmp_path, "model.ckpt")
    tf_bundle.write_bundle(prefix, {"dense/kernel": np.array([1.0, 2.0], np.float32),
                                    "dense/kernel/Adam": np.array([0.5, 0.5], np.float32),
                                    "dense/kernel/Adam_1": np.array([0.25, 0.25], np.float32)})
    ds.compat.v1.reset_default_graph()
    with ds.compat.v1.variable_scope("dense"):
        w = ds.compat.v1.get_variable("kernel", (2,))
    opt = ds.compat.v1.train.AdamOptimizer(0.1)
    opt.minimize(lambda: ds.reduce_sum(w * w))  # creates the slots m and v
    ds.compat.v1.train.init_from_checkpoint(prefix, {"dense/": "dense/"})
    assert list(w.numpy()) == [1.0, 2.0]
    assert list(opt.get_slot(w, "m").numpy()) == [0.5, 0.5] and list(opt.get_slot(w, "v").numpy()) == [0.25, 0.25]


@pytest.mark.parametrize("fmt", ["descend", "tensorflow"])
def test_load_checkpoint_of_a_folder_reads_its_newest(tmp_path, fmt):
    v = _var(1.0)
    root = Checkpoint(v=v)
    if fmt == "descend":
        manager = ds.train.CheckpointManager(root, str(tmp_path), max_to_keep=2)
        manager.save()
        v.assign([2.0])
        newest = manager.save()
    else:
        root.save(os.path.join(tmp_path, "ckpt"), format="tensorflow")
        v.assign([2.0])
        newest = root.save(os.path.join(tmp_path, "ckpt"), format="tensorflow")
    reader = ds.train.load_checkpoint(str(tmp_path))
    key = "v/.ATTRIBUTES/VARIABLE_VALUE"  # TensorFlow's key in either format
    assert reader.get_tensor(key)[0] == 2.0 and reader.path == newest
    assert key in dict(ds.train.list_variables(str(tmp_path)))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ds.train.CheckpointError, match="no checkpoint recorded"):
        ds.train.load_checkpoint(str(empty))


def _sequential_dense_adam(K):
    return K.Sequential([K.Input((3,)), K.layers.Dense(4, name="l1"), K.layers.Dense(2)]), K.optimizers.Adam(0.01)


def _functional_sgd_momentum(K):
    i = K.Input((3,))
    o = K.layers.Dense(2)(K.layers.Dense(4, name="l1", activation="tanh")(i))
    return K.Model(i, o), K.optimizers.SGD(0.1, momentum=0.9)


def _conv_batchnorm_rmsprop(K):
    model = K.Sequential([K.Input((3, 1, 1)), K.layers.Conv2D(2, (2, 1), name="c"), K.layers.BatchNormalization(),
                          K.layers.Flatten(), K.layers.Dense(2)])
    return model, K.optimizers.RMSprop(0.01, momentum=0.5, centered=True)


@pytest.mark.parametrize("make", [_sequential_dense_adam, _functional_sgd_momentum, _conv_batchnorm_rmsprop],
                         ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("roots", ["model", "model_and_optimizer"])
def test_tensorflow_restores_descends_model_bit_for_bit_with_tensorflows_keys(make, roots, tmp_path):
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    x, y = _data()
    x = x.reshape(-1, 3, 1, 1) if make is _conv_batchnorm_rmsprop else x
    ours, opt = make(ds.keras)
    ours.compile(optimizer=opt, loss="mse")
    ours.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    kwargs = dict(model=ours) if roots == "model" else dict(model=ours, optimizer=opt)
    path = Checkpoint(**kwargs).save(os.path.join(tmp_path, "ds", "ckpt"), format="tensorflow")

    theirs, topt = make(keras)
    theirs.compile(optimizer=topt, loss="mse")
    topt.build(theirs.trainable_variables)
    troots = dict(model=theirs) if roots == "model" else dict(model=theirs, optimizer=topt)
    tf.train.Checkpoint(**troots).restore(path).assert_consumed()
    for a, b in zip(theirs.get_weights(), ours.get_weights()):
        np.testing.assert_array_equal(a, b)
    # TensorFlow writes the same objects under the same keys, with the same values (slots included)
    tf_path = tf.train.Checkpoint(**troots).save(os.path.join(tmp_path, "tf", "ckpt"))
    keys = {k: tuple(s) for k, s in tf.train.list_variables(tf_path)}
    assert keys == dict(ds.train.list_variables(path))
    theirs_reader, ours_reader = tf.train.load_checkpoint(tf_path), ds.train.load_checkpoint(path)
    for k in keys:
        if k not in ("_CHECKPOINTABLE_OBJECT_GRAPH", "save_counter/.ATTRIBUTES/VARIABLE_VALUE"):
            np.testing.assert_array_equal(theirs_reader.get_tensor(k), ours_reader.get_tensor(k), err_msg=k)


def test_deferred_restore_on_assignment_from_tensorflows_file(tmp_path):
    """A TensorFlow checkpoint's values wait for objects attached after restore() too."""
    path = Checkpoint(v=_var(5.0), l=[_var(6.0)]).save(os.path.join(tmp_path, "ckpt"), format="tensorflow")
    r = Checkpoint()
    status = r.restore(path)
    with pytest.raises(AssertionError):
        status.assert_consumed()
    w, item = _var(0.0), _var(0.0)
    r.v = w
    r.l = []
    r.l.append(item)
    status.assert_consumed()
    assert w.numpy()[0] == 5.0 and item.numpy()[0] == 6.0
    with pytest.raises(ds.train.CheckpointMismatchError, match="unexpected"):
        Checkpoint().restore(path, strict=True)


def test_deep_copy_of_a_checkpoint(tmp_path):
    """Ported: TF's testDeepCopyCheckpoint and testAssertConsumedNoCheckpoint."""
    import copy

    v = _var(1.0)
    original = Checkpoint(v=v)
    copied = copy.deepcopy(original)
    copied.v.assign([2.0])
    assert v.numpy()[0] == 1.0
    path = copied.save(os.path.join(tmp_path, "ckpt"))
    status = original.restore(path)
    del original
    status.assert_consumed()
    assert v.numpy()[0] == 2.0


@pytest.mark.parametrize("aliases,problem", [
    ("not a dict", "must map paths to other paths"),
    ({"b": 3}, "must map paths to other paths"),
    ({"a": "a"}, "must map paths to other paths"),
    ({f"x{i}": "v" for i in range(300)}, "more paths than the objects"),  # 200 values, each given 300 paths
])
def test_hostile_aliases_are_refused_naming_the_field(tmp_path, aliases, problem):
    """A forger who recomputes the manifest's checksum: the aliases are checked and their cost bounded."""
    import json

    from descend.checkpoint import MANIFEST_FILE
    from descend.persistence.checkpoint import descend_format as fmt

    path = Checkpoint(v=[_var(float(i)) for i in range(200)]).save(os.path.join(tmp_path, "ckpt"))
    manifest_path = os.path.join(path, MANIFEST_FILE)
    manifest = json.load(open(manifest_path))
    manifest["aliases"] = aliases
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    manifest["manifest_sha256"] = fmt.sha256(fmt.canonical(body))
    os.chmod(manifest_path, 0o644)
    with open(manifest_path, "w") as f:
        f.write(json.dumps(manifest))
    targets = [_var(-1.0) for _ in range(200)]
    with pytest.raises(ds.train.CheckpointCorruptedError, match=problem):
        Checkpoint(v=targets).restore(path)
    assert all(t.numpy()[0] == -1.0 for t in targets)  # nothing restored


def test_max_pool_gradient_is_traced_by_a_function():
    """The tied-maxima gradient is recorded in a descend.function's plan (not an eager fallback) and equals
    the eager one."""
    import warnings

    from descend.compiler.function import FunctionEagerWarning
    from descend.compiler.plan import PlanCallbackWarning

    x = ds.constant(np.array([[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 1.0, 3.0]]).reshape(1, 2, 4, 1))

    def grad(x):
        with ds.GradientTape() as tape:
            tape.watch(x)
            y = ds.reduce_sum(max_pool2d(x, 2, 2))
        return tape.gradient(y, x)

    traced = ds.function(grad)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FunctionEagerWarning)
        warnings.simplefilter("error", PlanCallbackWarning)  # max pooling and its gradient have compiled forms
        got = traced(x)
        again = traced(x)  # the plan's buffers, run a second time
    np.testing.assert_array_equal(got.numpy(), grad(x).numpy())
    np.testing.assert_array_equal(again.numpy(), got.numpy())
    np.testing.assert_array_equal(got.numpy()[0, :, :, 0], [[0, 1, 1, 0], [0, 0, 0, 0]])


# ================================================================ tf.Module (the TF guide "Introduction to modules")
class _Flexible(ds.Module):
    """A module whose variables are made at its first call (the guide's FlexibleDenseModule)."""

    def __init__(self, out, name=None):
        super().__init__(name=name)
        self.out, self.is_built = out, False

    def __call__(self, x):
        if not self.is_built:
            self.w = ds.Variable(np.arange(x.shape[-1] * self.out, dtype=np.float32).reshape(-1, self.out) * 0.0,
                                 name="w")
            self.b = ds.Variable(np.zeros(self.out, np.float32), name="b")
            self.is_built = True
        return ds.matmul(x, self.w) + self.b


class _Two(ds.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1, self.dense_2 = _Flexible(3), _Flexible(2)

    def __call__(self, x):
        return self.dense_2(self.dense_1(x))


def _trained(model):
    model(ds.constant([[2.0, 2.0, 2.0]]))
    for i, v in enumerate(model.variables):
        v.assign(np.full(v.shape, i + 1.0, np.float32))
    return model


@pytest.mark.parametrize("fmt", ["descend", "tensorflow"])
def test_a_module_is_saved_by_its_attributes_and_restored_deferred(fmt, tmp_path):
    """A tf.Module is trackable (its attributes holding variables or modules, by name; flags are not saved), and
    the variables it makes after a restore (at its first call) take the restored values, as TF's."""
    source = _trained(_Two())
    expected = source(ds.constant([[2.0, 2.0, 2.0]])).numpy()
    path = os.path.join(tmp_path, "m")
    Checkpoint(model=source).write(path, format=fmt)
    names = [k for k, _ in ds.train.list_variables(path) if k.startswith("model/")]
    assert [k.split("/.ATTRIBUTES")[0] for k in names] == \
        ["model/dense_1/b", "model/dense_1/w", "model/dense_2/b", "model/dense_2/w"]
    fresh = _Two()
    status = Checkpoint(model=fresh).restore(path)
    np.testing.assert_array_equal(fresh(ds.constant([[2.0, 2.0, 2.0]])).numpy(), expected)
    status.assert_consumed()


def test_a_module_variable_of_another_shape_is_refused_and_not_assigned(tmp_path):
    path = os.path.join(tmp_path, "m")
    Checkpoint(model=_trained(_Two())).write(path)
    fresh = _Two()
    root = Checkpoint(model=fresh)
    root.restore(path)
    with pytest.raises(ds.train.CheckpointMismatchError, match="shape"):
        fresh.dense_1.w = ds.Variable(np.zeros((4, 3), np.float32))
    assert "w" not in vars(fresh.dense_1)


def test_tensorflow_restores_a_module_descend_wrote(tmp_path):
    tf = pytest.importorskip("tensorflow")
    source = _trained(_Two())
    path = Checkpoint(model=source).write(os.path.join(tmp_path, "m"), format="tensorflow")

    class Holder(tf.Module):
        def __init__(self):
            super().__init__()
            self.dense_1, self.dense_2 = tf.Module(), tf.Module()
            for m, shape in ((self.dense_1, (3, 3)), (self.dense_2, (3, 2))):
                m.w, m.b = tf.Variable(tf.zeros(shape)), tf.Variable(tf.zeros(shape[-1:]))

    held = Holder()
    tf.train.Checkpoint(model=held).read(path).assert_existing_objects_matched()
    np.testing.assert_array_equal(held.dense_2.w.numpy(), source.dense_2.w.numpy())


@pytest.mark.parametrize("fmt", ["descend", "tensorflow"])
def test_save_names_the_newest_checkpoint_in_its_folder_as_tf(tmp_path, fmt):
    """``tf.train.Checkpoint.save`` keeps the folder's ``checkpoint`` file: ``latest_checkpoint(folder)`` and
    ``list_variables(folder)`` find the newest save (the TF checkpoint guide reads them so)."""
    v = ds.Variable([1.0, 2.0])
    ckpt = ds.train.Checkpoint(v=v)
    assert ds.train.latest_checkpoint(str(tmp_path)) is None
    first = ckpt.save(str(tmp_path / "ckpt"), format=fmt)
    assert ds.train.latest_checkpoint(str(tmp_path)) == first
    v.assign([3.0, 4.0])
    second = ckpt.save(str(tmp_path / "ckpt"), format=fmt)
    assert second.endswith("ckpt-2") and ds.train.latest_checkpoint(str(tmp_path)) == second
    assert dict(ds.train.list_variables(str(tmp_path))) == dict(ds.train.list_variables(second))
    v.assign([0.0, 0.0])
    ds.train.Checkpoint(v=v).restore(ds.train.latest_checkpoint(str(tmp_path)))
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])


@pytest.mark.parametrize("named", ["plain_folder", "missing", "a_file", "symlink_to_folder"])
def test_a_checkpoint_file_naming_what_is_not_a_checkpoint_gives_no_latest(tmp_path, named):
    """The folder's ``checkpoint`` file is read from disk: a name in it counts only where a checkpoint is (TF's
    ``.index``, or a descend checkpoint folder with its manifest), else there is no latest checkpoint."""
    target = tmp_path / "ckpt-7"
    if named == "plain_folder":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
    elif named == "a_file":
        target.write_text("not a checkpoint")
    elif named == "symlink_to_folder":
        (tmp_path / "elsewhere").mkdir()
        target.symlink_to(tmp_path / "elsewhere")
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "ckpt-7"\nall_model_checkpoint_paths: "ckpt-7"\n')
    assert ds.train.latest_checkpoint(str(tmp_path)) is None
