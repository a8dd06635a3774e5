"""GradientTape behaviour: sparse gradients, persistence, nesting, structure, custom gradients.

Expected values are derived by hand or with NumPy, never with descend.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import descend as ds


def _dense(g):
    """NumPy value of a gradient, densifying an IndexedSlices with NumPy (not descend)."""
    if isinstance(g, ds.IndexedSlices):
        out = np.zeros(g.dense_shape, g.values.dtype)
        np.add.at(out, g.indices.numpy(), g.values.numpy())
        return out
    return g.numpy()


def _ids(objs):
    """Identities (Variables compare elementwise, so == on tuples of them is unreliable)."""
    return [id(o) for o in objs]


_TABLE = np.arange(15, dtype=np.float64).reshape(5, 3) / 10.0
_W = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])


# ---------------------------------------------------------------- sparse gradients
def test_gather_gives_indexed_slices():
    v = ds.Variable(_TABLE, name="table")
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(ds.gather(v, [3, 1, 3]) * ds.constant(_W))
    g = tape.gradient(y, v)
    assert isinstance(g, ds.IndexedSlices)
    assert g.dense_shape == (5, 3)
    assert g.values.dtype == np.float64
    np.testing.assert_array_equal(g.indices.numpy(), [3, 1, 3])
    np.testing.assert_array_equal(g.values.numpy(), _W)
    expected = np.zeros((5, 3))
    expected[3] = _W[0] + _W[2]
    expected[1] = _W[1]
    np.testing.assert_array_equal(_dense(g), expected)


def test_gather_with_2d_indices_gives_flat_indexed_slices():
    v = ds.Variable(_TABLE, name="table")
    w = np.arange(12, dtype=np.float64).reshape(2, 2, 3)
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(ds.gather(v, [[0, 4], [4, 2]]) * ds.constant(w))
    g = tape.gradient(y, v)
    assert isinstance(g, ds.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), [0, 4, 4, 2])
    np.testing.assert_array_equal(g.values.numpy(), w.reshape(4, 3))


def test_two_gathers_of_one_variable_stay_sparse():
    v = ds.Variable(_TABLE, name="table")
    w2 = np.array([[0.5, 0.5, 0.5], [-1.0, 2.0, -3.0]])
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(ds.gather(v, [3, 1, 3]) * ds.constant(_W)) + ds.reduce_sum(
            ds.gather(v, [1, 0]) * ds.constant(w2))
    g = tape.gradient(y, v)
    assert isinstance(g, ds.IndexedSlices)
    assert sorted(g.indices.numpy().tolist()) == [0, 1, 1, 3, 3]
    expected = np.zeros((5, 3))
    np.add.at(expected, [3, 1, 3], _W)
    np.add.at(expected, [1, 0], w2)
    np.testing.assert_array_equal(_dense(g), expected)
    d = ds.deduplicate(g)
    np.testing.assert_array_equal(d.indices.numpy(), [0, 1, 3])
    np.testing.assert_allclose(d.values.numpy(), expected[[0, 1, 3]], rtol=1e-15)


def test_gather_and_embedding_lookup_of_one_variable_stay_sparse():
    v = ds.Variable(_TABLE, name="table")
    w2 = np.array([[[0.5, 0.5, 0.5]], [[-1.0, 2.0, -3.0]]])  # ids of shape (2, 1)
    with ds.GradientTape() as tape:
        a = ds.reduce_sum(ds.gather(v, [4, 2, 4]) * ds.constant(_W))
        b = ds.reduce_sum(ds.nn.embedding_lookup(v, [[2], [0]]) * ds.constant(w2))
        y = a + b
    g = tape.gradient(y, v)
    assert isinstance(g, ds.IndexedSlices), f"expected a sparse gradient, got {type(g).__name__}"
    expected = np.zeros((5, 3))
    np.add.at(expected, [4, 2, 4], _W)
    np.add.at(expected, [2, 0], w2.reshape(2, 3))
    d = ds.deduplicate(g)
    np.testing.assert_array_equal(d.indices.numpy(), [0, 2, 4])
    np.testing.assert_allclose(d.values.numpy(), expected[[0, 2, 4]], rtol=1e-15)
    np.testing.assert_allclose(ds.convert_to_tensor(g).numpy(), expected, rtol=1e-15)


def test_sparse_meets_dense_is_densified():
    v = ds.Variable(_TABLE, name="table")
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(ds.gather(v, [3, 1, 3]) * ds.constant(_W)) + ds.reduce_sum(v * v)
    g = tape.gradient(y, v)
    assert isinstance(g, ds.Tensor)
    expected = 2 * _TABLE
    np.add.at(expected, [3, 1, 3], _W)
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-15)


def test_dense_then_sparse_order_does_not_matter():
    v = ds.Variable(_TABLE, name="table")
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(v * 3.0) + ds.reduce_sum(ds.gather(v, [0, 0]))
    g = tape.gradient(y, v)
    expected = np.full((5, 3), 3.0)
    expected[0] += 2.0
    np.testing.assert_allclose(_dense(g), expected, rtol=1e-15)


def test_sparse_gradient_through_a_dense_op_is_densified():
    x = ds.constant(_TABLE)
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.reduce_sum(ds.gather(ds.square(x), [2, 2, 0]))
    g = tape.gradient(y, x)
    assert isinstance(g, ds.Tensor)
    expected = np.zeros((5, 3))
    expected[2] = 2 * 2 * _TABLE[2]
    expected[0] = 2 * _TABLE[0]
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-15)


def test_gather_of_read_value_and_identity_stays_sparse():
    v = ds.Variable(_TABLE, name="table")
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(ds.gather(ds.identity(v), [1]))
    g = tape.gradient(y, v)
    assert isinstance(g, ds.IndexedSlices)
    np.testing.assert_array_equal(_dense(g), np.eye(5)[1][:, None] * np.ones((1, 3)))


# ---------------------------------------------------------------- persistence
def test_persistent_tape_allows_several_calls():
    x = ds.constant(np.array([1.0, 2.0]))
    with ds.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = ds.sin(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), np.cos([1.0, 2.0]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), np.diag([2.0, 4.0]))


def test_non_persistent_second_gradient_raises():
    x = ds.constant(3.0)
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0
    with pytest.raises(RuntimeError, match="persistent"):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="persistent"):
        tape.jacobian(y, x)


def test_non_persistent_jacobian_then_gradient_raises():
    x = ds.constant(np.array([1.0, 2.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.jacobian(y, x)
    with pytest.raises(RuntimeError):
        tape.gradient(y, x)


def test_reset_forgets_the_recording():
    x = ds.constant(np.array([1.0, 2.0]))
    with ds.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        z = x * 3.0
    assert tape.gradient(y, x) is None
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), [3.0, 3.0])


# ---------------------------------------------------------------- higher order
def test_nested_tapes_derivatives_of_x_cubed_by_multiplication():
    x = ds.constant(np.float64(2.0))
    with ds.GradientTape() as t3:
        t3.watch(x)
        with ds.GradientTape() as t2:
            t2.watch(x)
            with ds.GradientTape() as t1:
                t1.watch(x)
                y = x * x * x
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert (float(d1), float(d2), float(d3)) == (12.0, 12.0, 6.0)  # 3x^2, 6x, 6


def test_nested_tapes_derivatives_of_x_pow_3():
    x = ds.constant(np.float64(2.0))
    with ds.GradientTape() as t3:
        t3.watch(x)
        with ds.GradientTape() as t2:
            t2.watch(x)
            with ds.GradientTape() as t1:
                t1.watch(x)
                y = x ** 3
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    np.testing.assert_allclose([float(d1), float(d2), float(d3)], [12.0, 12.0, 6.0], rtol=1e-14)


def test_nested_tapes_derivatives_of_tanh():
    x0 = np.array([-0.7, 0.2, 1.3])
    x = ds.constant(x0)
    with ds.GradientTape() as t3:
        t3.watch(x)
        with ds.GradientTape() as t2:
            t2.watch(x)
            with ds.GradientTape() as t1:
                t1.watch(x)
                y = ds.tanh(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    t = np.tanh(x0)
    s = 1 - t * t
    np.testing.assert_allclose(d1.numpy(), s, rtol=1e-13)
    np.testing.assert_allclose(d2.numpy(), -2 * t * s, rtol=1e-13)
    np.testing.assert_allclose(d3.numpy(), -2 * s * (1 - 3 * t * t), rtol=1e-12)


def test_persistent_outer_tape_hessian_of_a_quadratic_form():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x = ds.constant(np.array([0.5, -1.0]))
    with ds.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with ds.GradientTape() as inner:
            inner.watch(x)
            y = ds.reduce_sum(x * ds.reshape(ds.matmul(ds.constant(a), ds.reshape(x, shape=(2, 1))), shape=(2,)))
        g = inner.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), 2 * a @ np.array([0.5, -1.0]), rtol=1e-14)
    np.testing.assert_allclose(outer.jacobian(g, x).numpy(), 2 * a, rtol=1e-14)


def test_second_derivative_through_a_sparse_gradient():
    v = ds.Variable(np.array([1.0, 2.0, 3.0]), name="v")
    w = np.array([1.0, 10.0, 100.0])
    with ds.GradientTape() as outer:
        with ds.GradientTape() as inner:
            loss = ds.reduce_sum(ds.square(ds.gather(v, [2, 0, 2])))
        g = inner.gradient(loss, v)
        assert isinstance(g, ds.IndexedSlices)
        np.testing.assert_array_equal(g.values.numpy(), [6.0, 2.0, 6.0])  # 2 v[idx]
        s = ds.reduce_sum(g.values * ds.constant(w))
    h = outer.gradient(s, v)
    np.testing.assert_array_equal(_dense(h), [2.0 * 10.0, 0.0, 2.0 * (1.0 + 100.0)])


def test_hessian_vector_product_of_a_variable():
    v = ds.Variable(np.array([1.0, 2.0, 3.0]), name="v")
    with ds.GradientTape() as outer:
        with ds.GradientTape() as inner:
            loss = ds.reduce_sum(v * v * v)
        g = inner.gradient(loss, v)  # 3 v^2
        s = ds.reduce_sum(g * ds.constant(np.array([1.0, -1.0, 0.5])))
    np.testing.assert_array_equal(outer.gradient(s, v).numpy(), [6.0, -12.0, 9.0])  # 6 v * u


# ---------------------------------------------------------------- jacobian
def test_jacobian_of_a_matrix_vector_product():
    a = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]])
    x = ds.constant(np.array([0.1, 0.2, 0.3]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.reshape(ds.matmul(ds.constant(a), ds.reshape(x, shape=(3, 1))), shape=(2,))
    j = tape.jacobian(y, x)
    assert j.shape == (2, 3)
    np.testing.assert_allclose(j.numpy(), a, rtol=1e-15)


def test_jacobian_shape_is_target_shape_plus_source_shape():
    x0 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    x = ds.constant(x0)
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.reduce_sum(x * x, axis=0)  # shape (2,)
    j = tape.jacobian(y, x)
    assert j.shape == (2, 3, 2)
    expected = np.zeros((2, 3, 2))
    for k in range(2):
        expected[k, :, k] = 2 * x0[:, k]
    np.testing.assert_allclose(j.numpy(), expected, rtol=1e-15)


def test_jacobian_of_a_variable_through_a_gather():
    v = ds.Variable(np.array([1.0, 2.0, 3.0]), name="v")
    with ds.GradientTape() as tape:
        y = ds.gather(v, [2, 0]) * 2.0
    np.testing.assert_array_equal(tape.jacobian(y, v).numpy(), [[0.0, 0.0, 2.0], [2.0, 0.0, 0.0]])


def test_jacobian_unconnected():
    x = ds.constant(np.array([1.0, 2.0]))
    z = ds.constant(np.array([1.0, 2.0, 3.0]))
    with ds.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert tape.jacobian(y, z) is None
    j = tape.jacobian(y, z, unconnected_gradients="zero")
    assert j.shape == (2, 3)
    np.testing.assert_array_equal(j.numpy(), np.zeros((2, 3)))


# ---------------------------------------------------------------- structure of sources and targets
def _three_sources():
    a = ds.constant(np.array([1.0, 2.0]))
    b = ds.constant(np.array(3.0))
    c = ds.Variable(np.array([[0.5, -0.5]]), name="c")
    return a, b, c


def _loss(a, b, c):
    # d/da = b, d/db = sum(a) , d/dc = 2c
    return ds.reduce_sum(a * b) + ds.reduce_sum(c * c)


def test_dict_sources_keep_keys():
    a, b, c = _three_sources()
    with ds.GradientTape() as tape:
        tape.watch([a, b])
        y = _loss(a, b, c)
    g = tape.gradient(y, {"z": a, "a": b, "m": c})
    assert type(g) is dict and list(g) == ["z", "a", "m"]
    np.testing.assert_array_equal(g["z"].numpy(), [3.0, 3.0])
    assert float(g["a"]) == 3.0
    np.testing.assert_array_equal(g["m"].numpy(), [[1.0, -1.0]])


def test_list_tuple_and_nested_sources_keep_structure():
    a, b, c = _three_sources()
    with ds.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = _loss(a, b, c)
    gl = tape.gradient(y, [a, b, c])
    assert type(gl) is list and len(gl) == 3
    gt = tape.gradient(y, (c, a))
    assert type(gt) is tuple and len(gt) == 2
    np.testing.assert_array_equal(gt[0].numpy(), [[1.0, -1.0]])
    np.testing.assert_array_equal(gt[1].numpy(), [3.0, 3.0])
    gn = tape.gradient(y, {"layer": [a, (b,)], "other": {"c": c}})
    assert set(gn) == {"layer", "other"}
    assert type(gn["layer"]) is list and type(gn["layer"][1]) is tuple and type(gn["other"]) is dict
    np.testing.assert_array_equal(gn["layer"][0].numpy(), [3.0, 3.0])
    assert float(gn["layer"][1][0]) == 3.0
    np.testing.assert_array_equal(gn["other"]["c"].numpy(), [[1.0, -1.0]])
    single = tape.gradient(y, b)
    assert isinstance(single, ds.Tensor) and float(single) == 3.0


def test_same_source_twice_gets_the_gradient_twice():
    x = ds.constant(np.array([1.0, 2.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, [x, x])
    np.testing.assert_array_equal(g[0].numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(g[1].numpy(), [2.0, 4.0])


def test_structured_targets_are_summed():
    x = ds.constant(np.array([1.0, 2.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y1 = x * x
        y2 = x * 3.0
    g = tape.gradient({"p": y1, "q": [y2]}, x)
    np.testing.assert_array_equal(g.numpy(), [5.0, 7.0])


def test_non_scalar_target_is_summed():
    x = ds.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
    w = np.array([[0.5, -1.0], [2.0, 3.0]])
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * ds.constant(w)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), w)


def test_gradient_of_a_source_with_respect_to_itself_is_ones():
    x = ds.constant(np.array([1.0, 2.0, 3.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
    np.testing.assert_array_equal(tape.gradient(x, x).numpy(), np.ones(3))


def test_gradient_with_respect_to_an_intermediate():
    x = ds.constant(np.array([1.0, 2.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = ds.reduce_sum(y * 3.0 + x)
    gy, gx = tape.gradient(z, [y, x])
    np.testing.assert_array_equal(gy.numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(gx.numpy(), [7.0, 13.0])  # 6x + 1


# ---------------------------------------------------------------- unconnected and output gradients
def test_unconnected_gradients_none_and_zero():
    x = ds.constant(np.array([1.0, 2.0]))
    z = ds.constant(np.array([[1.0, 2.0, 3.0]]))
    v = ds.Variable(np.array([5.0]), name="unused")
    with ds.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert tape.gradient(y, [x, z, v])[1:] == [None, None]
    gx, gz, gv = tape.gradient(y, [x, z, v], unconnected_gradients="zero")
    np.testing.assert_array_equal(gx.numpy(), [2.0, 2.0])
    assert gz.shape == (1, 3) and gz.dtype == np.float64
    np.testing.assert_array_equal(gz.numpy(), np.zeros((1, 3)))
    np.testing.assert_array_equal(gv.numpy(), [0.0])
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="sometimes")


def test_gradient_of_a_target_not_recorded_is_none():
    x = ds.constant(np.array([1.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
    assert tape.gradient(ds.constant(np.array([2.0])), x) is None


def test_output_gradients_weight_the_target():
    x = ds.constant(np.array([1.0, 2.0, 3.0]))
    with ds.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    og = np.array([1.0, -2.0, 0.5])
    np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=ds.constant(og)).numpy(),
                                  2 * np.array([1.0, 2.0, 3.0]) * og)
    np.testing.assert_array_equal(tape.gradient(y, x, output_gradients=og).numpy(),
                                  2 * np.array([1.0, 2.0, 3.0]) * og)
    with pytest.raises(ValueError, match=r"\(3,\)"):
        tape.gradient(y, x, output_gradients=ds.constant(np.ones(2)))


def test_output_gradients_for_several_targets():
    x = ds.constant(np.array([1.0, 2.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y1 = x * x
        y2 = x * 3.0
    g = tape.gradient([y1, y2], x, output_gradients=[np.array([1.0, 0.0]), np.array([0.0, 2.0])])
    np.testing.assert_array_equal(g.numpy(), [2.0, 6.0])


# ---------------------------------------------------------------- what is (not) recorded
def test_stop_gradient_blocks_the_gradient():
    x = ds.constant(np.array([1.5, -2.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * ds.stop_gradient(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [1.5, -2.0])  # not 2x


def test_stop_gradient_alone_gives_none():
    x = ds.constant(np.array([1.5]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.stop_gradient(x * 2.0)
    assert tape.gradient(y, x) is None


def test_stop_recording():
    x = ds.constant(np.array([1.5, -2.0]))
    with ds.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = x * x
            w = y * 3.0
        u = y * 2.0
    assert tape.gradient(z, x) is None
    assert tape.gradient(w, x) is None
    np.testing.assert_array_equal(tape.gradient(u, x).numpy(), [6.0, -8.0])


def test_stop_recording_outside_the_with_block_raises():
    tape = ds.GradientTape()
    with pytest.raises(RuntimeError, match="recording"), tape.stop_recording():
        pass


def test_stop_recording_of_the_inner_tape_keeps_the_outer_one():
    x = ds.constant(np.array([2.0]))
    with ds.GradientTape() as outer:
        outer.watch(x)
        with ds.GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                y = x * x
        assert inner.gradient(y, x) is None
    np.testing.assert_array_equal(outer.gradient(y, x).numpy(), [4.0])


def test_unwatched_constants_have_no_gradient():
    x = ds.constant(np.array([1.0]))
    with ds.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_trainable_variables_are_watched_automatically():
    v = ds.Variable(np.array([1.0, -3.0]), name="v")
    u = ds.Variable(np.array([2.0]), name="unused")
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(v * v)
    assert _ids(tape.watched_variables()) == [id(v)]
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [2.0, -6.0])
    assert not any(x is u for x in tape.watched_variables())


def test_watch_accessed_variables_false_watches_only_what_is_asked():
    v = ds.Variable(np.array([1.0, -3.0]), name="v")
    w = ds.Variable(np.array([2.0, 2.0]), name="w")
    with ds.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = ds.reduce_sum(v * w)
    assert _ids(tape.watched_variables()) == [id(w)]
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [1.0, -3.0])


def test_watch_accessed_variables_false_and_no_watch_gives_none():
    v = ds.Variable(np.array([1.0, -3.0]), name="v")
    with ds.GradientTape(watch_accessed_variables=False) as tape:
        y = ds.reduce_sum(v * v)
    assert _ids(tape.watched_variables()) == []
    assert tape.gradient(y, v) is None


def test_unwatched_variable_next_to_a_watched_one_gets_no_gradient():
    v = ds.Variable(np.array([1.0, -3.0]), name="v")
    w = ds.Variable(np.array([2.0, 2.0]), name="w")
    with ds.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = ds.reduce_sum(v * w)
    assert tape.gradient(y, v) is None  # as TF: v was never watched


def test_unwatched_constant_next_to_a_watched_one_gets_no_gradient():
    x = ds.constant(np.array([1.0, 2.0]))
    c = ds.constant(np.array([3.0, 4.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * c
    gx, gc = tape.gradient(y, [x, c])
    np.testing.assert_array_equal(gx.numpy(), [3.0, 4.0])
    assert gc is None  # as TF: c was never watched


def test_non_trainable_variables_are_not_watched_automatically():
    v = ds.Variable(np.array([1.0, -3.0]), name="frozen", trainable=False)
    with ds.GradientTape(persistent=True) as tape:
        y = ds.reduce_sum(v * v)
    assert _ids(tape.watched_variables()) == []
    assert tape.gradient(y, v) is None
    with ds.GradientTape() as tape2:
        tape2.watch(v)
        y = ds.reduce_sum(v * v)
    np.testing.assert_array_equal(tape2.gradient(y, v).numpy(), [2.0, -6.0])


def test_variable_read_value_is_differentiable():
    v = ds.Variable(np.array([1.0, -3.0]), name="v")
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(v.read_value() * 4.0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [4.0, 4.0])


def test_watching_a_non_float_tensor_warns_and_gives_no_gradient_source():
    x = ds.constant([1, 2])
    with ds.GradientTape() as tape, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tape.watch(x)
    assert any("int32" in str(w.message) for w in caught)


def test_watch_rejects_non_tensors():
    with ds.GradientTape() as tape, pytest.raises(ValueError, match="of type 'float', not a Tensor or Variable"):
        tape.watch([1.0])


def test_gradient_called_inside_the_with_block():
    x = ds.constant(np.array([3.0]))
    with ds.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        g = tape.gradient(y, x)
        z = y * 2.0  # still recording after the gradient call
    np.testing.assert_array_equal(g.numpy(), [6.0])
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), [12.0])


# ---------------------------------------------------------------- custom_gradient
def test_custom_gradient_replaces_the_gradient():
    @ds.custom_gradient
    def clip_gradient(x):
        def grad(upstream):
            return ds.clip_by_value(upstream, -1.0, 1.0)
        return ds.identity(x), grad

    x = ds.constant(np.array([1.0, 2.0, 3.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = clip_gradient(x) * ds.constant(np.array([0.5, -4.0, 3.0]))
    np.testing.assert_array_equal(y.numpy(), [0.5, -8.0, 9.0])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.5, -1.0, 1.0])


def test_custom_gradient_with_two_inputs():
    @ds.custom_gradient
    def scaled_product(x, y):
        def grad(upstream):
            return upstream * y * 10.0, upstream * x * 100.0
        return x * y, grad

    x = ds.constant(np.array([1.0, 2.0]))
    y = ds.constant(np.array([3.0, -1.0]))
    with ds.GradientTape() as tape:
        tape.watch([x, y])
        z = scaled_product(x, y)
    gx, gy = tape.gradient(z, [x, y])
    np.testing.assert_array_equal(gx.numpy(), [30.0, -10.0])
    np.testing.assert_array_equal(gy.numpy(), [100.0, 200.0])


def test_custom_gradient_reading_a_variable():
    v = ds.Variable(np.array([2.0, -1.0]), name="scale")

    @ds.custom_gradient
    def scaled(x):
        out = x * v

        def grad(upstream, variables=None):
            assert variables is not None and len(variables) == 1 and variables[0] is v
            # the true gradients doubled, to prove these are the ones used
            return upstream * v * 2.0, [upstream * x * 2.0]
        return out, grad

    x = ds.constant(np.array([3.0, 4.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.reduce_sum(scaled(x))
    gx, gv = tape.gradient(y, [x, v])
    np.testing.assert_array_equal(gx.numpy(), [4.0, -2.0])
    np.testing.assert_array_equal(gv.numpy(), [6.0, 8.0])


def test_custom_gradient_reading_a_variable_needs_the_variables_keyword():
    v = ds.Variable(np.array([2.0]), name="scale")

    @ds.custom_gradient
    def scaled(x):
        return x * v, lambda upstream: upstream * v

    x = ds.constant(np.array([3.0]))
    with ds.GradientTape() as tape, pytest.raises(TypeError, match="variables"):
        tape.watch(x)
        scaled(x)


def _second_derivative(f, x0):
    x = ds.constant(x0)
    with ds.GradientTape() as outer:
        outer.watch(x)
        with ds.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        d1 = inner.gradient(y, x)
    return y, d1, outer.gradient(d1, x)


_X0 = np.array([-1.0, 0.0, 2.0])
_SIG = 1.0 / (1.0 + np.exp(-_X0))


def test_higher_order_through_a_custom_gradient():
    @ds.custom_gradient
    def log1pexp(x):
        def grad(upstream):
            return upstream / (1.0 + ds.exp(-x))  # sigmoid(x), built from ops on the input
        return ds.log(1.0 + ds.exp(x)), grad

    y, d1, d2 = _second_derivative(log1pexp, _X0)
    np.testing.assert_allclose(y.numpy(), np.log1p(np.exp(_X0)), rtol=1e-14)
    np.testing.assert_allclose(d1.numpy(), _SIG, rtol=1e-14)
    assert d2 is not None, "second derivative through custom_gradient is None"
    np.testing.assert_allclose(d2.numpy(), _SIG * (1 - _SIG), rtol=1e-12)


def test_higher_order_through_a_custom_gradient_that_reuses_forward_tensors():
    @ds.custom_gradient
    def log1pexp(x):
        e = ds.exp(x)

        def grad(upstream):
            return upstream * (1.0 - 1.0 / (1.0 + e))  # the example in tf.custom_gradient's docs
        return ds.log(1.0 + e), grad

    _y, d1, d2 = _second_derivative(log1pexp, _X0)
    np.testing.assert_allclose(d1.numpy(), _SIG, rtol=1e-14)
    assert d2 is not None, "second derivative through custom_gradient is None"
    np.testing.assert_allclose(d2.numpy(), _SIG * (1 - _SIG), rtol=1e-12)


def test_custom_gradient_is_numerically_stable_where_autodiff_is_not():
    @ds.custom_gradient
    def log1pexp(x):
        e = ds.exp(x)
        return ds.log(1.0 + e), lambda upstream: upstream * (1.0 - 1.0 / (1.0 + e))

    x = ds.constant(np.array([100.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [1.0])


# ---------------------------------------------------------------- in-place modification
@pytest.mark.parametrize("mutate", [
    lambda v: v.assign(np.array([0.0, 0.0])),
    lambda v: v.assign_add(np.array([1.0, 1.0])),
    lambda v: v.assign_sub(np.array([1.0, 1.0])),
    lambda v: v.scatter_update(ds.IndexedSlices(ds.constant(np.array([5.0])), ds.constant([0]), (2,))),
], ids=["assign", "assign_add", "assign_sub", "scatter_update"])
def test_modifying_a_variable_between_forward_and_gradient_raises(mutate):
    v = ds.Variable(np.array([1.0, 2.0]), name="weights")
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(v * v)
    mutate(v)
    with pytest.raises(RuntimeError) as info:
        tape.gradient(y, v)
    msg = str(info.value)
    assert "weights" in msg and "modified" in msg


def test_modifying_a_variable_before_recording_is_fine():
    v = ds.Variable(np.array([1.0, 2.0]), name="weights")
    v.assign(np.array([3.0, 4.0]))
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(v * v)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [6.0, 8.0])


def test_a_tape_does_not_record_ops_run_by_another_thread():
    import threading

    w = ds.Variable(np.array([2.0]), name="w_thread")
    done = []

    def worker():
        done.append(w * 3.0)  # reads a trainable variable while the main thread's tape records

    with ds.GradientTape() as tape:
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        y = w * w
    assert len(tape._entries) == 1  # only the main thread's multiply
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [4.0])


# ---------------------------------------------------------------- TF behaviours (issue 17 part 5)
def test_gradient_inside_a_persistent_tapes_block_is_recorded_for_a_second_derivative():
    # TF records gradient() calls made inside a persistent tape's block on that tape: y = x^3 at x = 3
    x = ds.constant(3.0)
    with ds.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        dy_dx = tape.gradient(y, x)
    d2y_dx2 = tape.gradient(dy_dx, x)
    assert float(dy_dx) == 27.0
    assert d2y_dx2 is not None and float(d2y_dx2) == 18.0


def test_gradient_inside_a_non_persistent_tapes_block_stops_its_recording():
    x = ds.constant(3.0)
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        assert float(tape.gradient(y, x)) == 6.0
        z = x * 5.0  # not recorded: the tape is spent (as TF, which pops it)
    assert len(tape._entries) == 0
    assert float(z) == 15.0


def test_custom_gradient_python_float_output_is_float32():
    @ds.custom_gradient
    def half_count(x):
        return float(x.numpy().size) / 2.0, lambda g: g * ds.ones_like(x)

    x = ds.constant([1.0, 2.0, 3.0, 4.0])
    with ds.GradientTape() as tape:
        tape.watch(x)
        out = half_count(x)
        y = out * x  # was: "multiply: expected inputs of one dtype" (float64 * float32)
    assert out.dtype == np.float32 and float(out) == 2.0
    # dy/dx = out + (upstream of out = sum(x) = 10) * grad_fn's ones = 2 + 10
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [12.0, 12.0, 12.0, 12.0])


@pytest.mark.parametrize("how", ["read", "unread", "non_trainable", "no_auto_watch", "constant"])
def test_gradient_of_a_value_with_respect_to_itself_is_ones(how):
    # TF returns the upstream gradient (ones) when the source is the target, watched or not
    if how == "constant":
        v = ds.constant([2.0, 5.0])
    else:
        v = ds.Variable([2.0, 5.0], trainable=how != "non_trainable")
    with ds.GradientTape(watch_accessed_variables=how != "no_auto_watch") as tape:
        if how == "read":
            _ = v * 3.0
    g = tape.gradient(v, v)
    assert g is not None
    np.testing.assert_array_equal(g.numpy(), [1.0, 1.0])
    assert g.dtype == np.float32


def test_gradient_of_a_list_holding_the_source_twice_adds_the_seeds():
    v = ds.Variable(2.0)
    with ds.GradientTape() as tape:
        y = v * v
    assert float(tape.gradient([y, v], v)) == 5.0  # 2v + 1


def test_watched_variables_survive_a_non_persistent_gradient_call():
    a = ds.Variable(1.0, name="a")
    b = ds.Variable(2.0, name="b")
    with ds.GradientTape() as tape:
        y = a * b
    before = tape.watched_variables()
    tape.gradient(y, [a, b])
    after = tape.watched_variables()
    assert _ids(before) == _ids(after) == _ids([a, b])


def test_entering_a_tapes_block_inside_itself_raises_value_error():
    x = ds.constant(2.0)
    tape = ds.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        with pytest.raises(ValueError, match="already recording"):
            with tape:
                pass
        y = x * x  # the tape still records once, normally
    assert float(tape.gradient(y, x)) == 4.0
    with tape:  # entering again after the block closed is allowed (a persistent tape)
        z = x * 3.0
    assert float(tape.gradient(z, x)) == 3.0


def _numerical_jacobian(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of a NumPy function: shape f(x).shape + x.shape (float64)."""
    y0 = f(x)
    jac = np.zeros(y0.shape + x.shape)
    for j in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[j] += eps
        xm[j] -= eps
        jac[(Ellipsis,) + j] = (f(xp) - f(xm)) / (2 * eps)
    return jac


def test_jacobian_matches_central_differences_in_float64():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(3, 4))
    x0 = rng.normal(size=(4, 2))

    def f_np(x):
        return np.tanh(a @ x) * np.sin(x).sum()

    x = ds.Variable(x0, name="x")
    with ds.GradientTape() as tape:
        y = ds.tanh(ds.matmul(ds.constant(a), x)) * ds.reduce_sum(ds.sin(x))
    j = tape.jacobian(y, x)
    assert j.shape == (3, 2, 4, 2) and j.dtype == np.float64
    np.testing.assert_allclose(j.numpy(), _numerical_jacobian(f_np, x0), rtol=1e-7, atol=1e-9)


def test_jacobian_with_a_structure_of_sources():
    x = ds.constant(np.array([1.0, 2.0]))
    w = ds.Variable(np.array([[1.0, -1.0], [0.5, 3.0]]), name="w")
    z = ds.constant(np.array([7.0]))
    with ds.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = ds.matmul(w, ds.reshape(x * x, (2, 1)))[:, 0]
    out = tape.jacobian(y, {"x": x, "w": w, "z": z})
    np.testing.assert_allclose(out["x"].numpy(), w.numpy() * (2 * x.numpy())[None, :], rtol=1e-15)
    expected_w = np.zeros((2, 2, 2))
    for i in range(2):
        expected_w[i, i, :] = x.numpy() ** 2
    np.testing.assert_allclose(out["w"].numpy(), expected_w, rtol=1e-15)
    assert out["z"] is None
    zero = tape.jacobian(y, [z], unconnected_gradients="zero")
    np.testing.assert_array_equal(zero[0].numpy(), np.zeros((2, 1)))


def test_batch_jacobian_matches_central_differences_in_float64():
    rng = np.random.default_rng(5)
    w0 = rng.normal(size=(3, 2))
    x0 = rng.normal(size=(4, 3))

    def row_f(xb):  # one example: (3,) -> (2,)
        return np.tanh(xb @ w0) * xb[0]

    x = ds.constant(x0)
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.tanh(ds.matmul(x, ds.constant(w0))) * x[:, :1]
    j = tape.batch_jacobian(y, x)
    assert j.shape == (4, 2, 3) and j.dtype == np.float64
    for b in range(4):
        np.testing.assert_allclose(j.numpy()[b], _numerical_jacobian(row_f, x0[b]), rtol=1e-7, atol=1e-9)


def test_batch_jacobian_needs_one_batch_size():
    x = ds.constant(np.ones((3, 2)))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.reduce_sum(x, axis=0)  # shape (2,): not a batch of 3
    with pytest.raises(ValueError, match="batch size"):
        tape.batch_jacobian(y, x)


def test_batch_jacobian_unconnected():
    x = ds.constant(np.ones((2, 2)))
    z = ds.constant(np.ones((2, 3)))
    with ds.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * 2.0
    # TF 2.21's batch_jacobian gives zeros, never None, for an unconnected source (checked against it in
    # tests/test_unconnected_gradients.py)
    np.testing.assert_array_equal(tape.batch_jacobian(y, z).numpy(), np.zeros((2, 2, 3)))
    np.testing.assert_array_equal(tape.batch_jacobian(y, z, unconnected_gradients="zero").numpy(),
                                  np.zeros((2, 2, 3)))
