"""TensorFlow's own tests of ``tf.function`` that concern users, ported with the import changed.

From ``tensorflow/python/eager/polymorphic_function/polymorphic_function_test.py`` and
``gradients_test.py`` (TF's names kept, snake-cased), and from the tf.function guide
(https://www.tensorflow.org/guide/function). ``docs/function.md`` lists the tests left out and why.
"""

from __future__ import annotations

import collections
import functools
import logging
import multiprocessing.pool
import sys
import weakref

import numpy as np
import pytest

import descend as ds

function = ds.function


def assert_all_equal(a, b):
    a = np.asarray(a.numpy() if hasattr(a, "numpy") else a)
    b = np.asarray(b.numpy() if hasattr(b, "numpy") else b)
    np.testing.assert_array_equal(a, b)


def assert_all_close(a, b):
    a = np.asarray(a.numpy() if hasattr(a, "numpy") else a)
    b = np.asarray(b.numpy() if hasattr(b, "numpy") else b)
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


# ============================================================== basics, nesting, outputs
def test_basic():
    matmul = function(ds.matmul)
    t = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    sq = matmul(t, t, transpose_a=True)
    sq2 = matmul(sq, t, transpose_a=True)
    assert_all_equal(sq.numpy().reshape(-1), [10, 14, 14, 20])
    assert_all_equal(sq2.numpy().reshape(-1), [52, 76, 74, 108])


def test_python_function_not_callable():
    with pytest.raises(TypeError, match="is not a callable object"):
        function(1)


def test_variable():
    v1 = ds.Variable(1.0)
    add = function(lambda x, v: x + v1 + v)
    v2 = ds.Variable(1.0)
    x = ds.constant(1.0)
    assert float(add(x, v2)) == 3.0


def test_variable_only():
    v = ds.Variable(1.0)
    add = function(lambda x: x.assign_add(1.0))
    r1 = add(v)
    assert float(r1) == 2.0
    c = ds.constant(1.0)
    with pytest.raises(AttributeError, match="no attribute"):
        add(c)


def test_variable_multi_function():
    @function
    def second(dup_var, dup_var_2, some_const):
        return dup_var + dup_var_2 + some_const

    @function
    def first(dup_var, some_const):
        return second(dup_var, dup_var, some_const)

    my_const = ds.constant(1)
    my_var = ds.Variable(2, dtype=ds.int32)
    assert second(my_var, my_var, my_const).numpy() == 5
    assert first(my_var, my_const).numpy() == 5


def test_reduce_tracing_with_nested_tf_function():
    v = ds.Variable([1.0, 2.0])

    @function(reduce_retracing=True)
    def inner_test_fn(x):
        x.assign_add([2.0, 2.0])
        return x

    @function(reduce_retracing=True)
    def test_fn(x):
        x.assign_add([1.0, 1.0])
        return inner_test_fn(x)

    with ds.GradientTape() as tape:
        y = test_fn(v)
    grad = tape.gradient(y, v)
    assert_all_equal(y, [4.0, 5.0])
    assert_all_equal(grad, [1.0, 1.0])

    with ds.GradientTape() as tape:
        y = test_fn(v)
    grad = tape.gradient(y, v)
    assert_all_equal(y, [7.0, 8.0])
    assert_all_equal(grad, [1.0, 1.0])


def test_captures_variables():
    a = ds.Variable(1.0, trainable=False)
    b = ds.Variable(1.0)
    cc = [None]

    @function
    def f():
        c = cc[0]
        if c is None:
            c = cc[0] = ds.Variable(1.0)
        return a + b + c + 1

    cf = f.get_concrete_function()
    c = cc[0]
    assert {v.ref() for v in cf.variables} == {v.ref() for v in (a, b, c)}
    assert {v.ref() for v in cf.trainable_variables} == {v.ref() for v in (b, c)}


def test_no_hash():
    @function()
    def f(_):
        return 1.0

    with pytest.raises(TypeError, match=r"Could not generate a generic TraceType"):
        f(set([]))


def test_basic_graph_mode():
    matmul = function(ds.matmul)

    @function
    def sq(a):
        return matmul(a, a)

    t = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    assert_all_equal(sq(t), ds.matmul(t, t).numpy())


def test_nested_inputs_graph_mode():
    matmul = function(ds.matmul)
    pair = collections.namedtuple("pair", ["a", "b"])

    @function
    def a_times_b(inputs):
        return matmul(inputs.a["a"], inputs.b["b"])

    t = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    assert_all_equal(a_times_b(pair({"a": t}, {"b": t})), ds.matmul(t, t).numpy())


def test_nested_outputs_graph_mode():
    matmul = function(ds.matmul)
    pair = collections.namedtuple("pair", ["a", "b"])

    @function()
    def pairs_mul(pair_a, pair_b):
        return pair(matmul(pair_a.a, pair_b.a), matmul(pair_a.b, pair_b.b))

    a = ds.constant([[1.0, 2.0], [1.0, 2.0]])
    b = ds.constant([[3.0, 4.0], [3.0, 4.0]])
    out = pairs_mul(pair(a, b), pair(b, a))
    assert isinstance(out, pair)
    assert_all_close(out.a, ds.matmul(a, b).numpy())
    assert_all_close(out.b, ds.matmul(b, a).numpy())


def test_basic_graph_function():
    matmul = function(ds.matmul)

    @function
    def sq(a):
        return matmul(a, a)

    t = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    sq_op = sq.get_concrete_function(t)
    assert sq_op.output_shapes == (2, 2)
    assert_all_equal(sq_op(t), ds.matmul(t, t).numpy())


def test_get_concrete_function_thread_safety():
    @function
    def sq():
        t = ds.constant([[1.0, 2.0], [3.0, 4.0]])
        return ds.matmul(t, t)

    concrete_functions = []

    def thread_func(_):
        concrete_functions.append(sq.get_concrete_function())

    pool = multiprocessing.pool.ThreadPool(16)
    pool.map(thread_func, list(range(100)))
    pool.close()
    assert len(set(map(id, concrete_functions))) == 1


def test_get_concrete_function_thread_safety_with_args():
    @function
    def add_100(*args):
        return ds.add_n(args)

    p = multiprocessing.pool.ThreadPool(2)
    args = (ds.constant(1.0),) * 100
    f1, f2 = p.map(add_100.get_concrete_function, [args] * 2)
    p.close()
    assert f1 is f2
    f1(*args)  # TF's flat signature: the traced Tensors, in order


def test_input_spec_graph_function():
    matmul = function(ds.matmul)

    @function
    def sq(a):
        return matmul(a, a)

    sq_op = sq.get_concrete_function(ds.TensorSpec((None, None), ds.float32))
    t1 = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    assert_all_equal(sq_op(t1), ds.matmul(t1, t1).numpy())
    t2 = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    assert_all_equal(sq_op(t2), ds.matmul(t2, t2).numpy())


def test_executing_stateless_defun_concurrently():
    @function
    def stateless(x):
        return ds.multiply(2.0, x)

    pool = multiprocessing.pool.ThreadPool()
    inputs = [ds.constant(1.0 * x) for x in range(100)]
    outputs = [float(out) for out in pool.map(stateless, inputs)]
    pool.close()
    assert outputs == [float(2.0 * x) for x in inputs]


def test_executing_many_stateless_defuns_concurrently():
    @function
    def stateless(x):
        del x
        return ds.multiply(2.0, 2.0)

    pool = multiprocessing.pool.ThreadPool()
    outputs = [float(out) for out in pool.map(stateless, [object() for _ in range(100)])]
    pool.close()
    assert outputs == [4.0] * 100


def test_executing_stateful_defun_concurrently():
    v = ds.Variable(1.0)

    @function
    def stateful(x):
        v.assign(x)

    pool = multiprocessing.pool.ThreadPool()
    pool.map(stateful, [ds.constant(0.0)] * 100)
    pool.close()
    assert float(v.read_value()) == 0.0


def test_executing_many_stateful_defuns_concurrently():
    v = ds.Variable(1.0)

    @function
    def stateful(x):
        del x
        return v.assign(0.0)

    pool = multiprocessing.pool.ThreadPool()
    pool.map(stateful, [object() for _ in range(100)])
    pool.close()
    assert float(v.read_value()) == 0.0


def test_nested_output_graph_function():
    matmul = function(ds.matmul)

    @function
    def sq(a):
        return (matmul(a, a), {"b": ds.constant(1.0)})

    t = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    sq_op = sq.get_concrete_function(t)
    assert sq_op.output_shapes == ((2, 2), {"b": ()})
    assert sq_op.output_dtypes == (ds.float32, {"b": ds.float32})
    (a, b) = sq_op(t)
    assert_all_equal(a, ds.matmul(t, t).numpy())
    assert b["b"].numpy() == 1.0


def test_zip_strict_builtin():
    @function
    def foo(x):
        return list(zip([x], [x], strict=True))

    assert foo(2)[0][0].numpy() == 2


def test_graph_function_none_output():
    @function
    def fn(unused_a, unused_b):
        return None

    x = ds.constant(1)
    fn_op = fn.get_concrete_function(x, x)
    assert fn_op.output_dtypes is None
    assert fn_op.output_shapes is None
    assert fn_op(x, x) is None


def test_defun_captured_int32():
    x = ds.constant(1, dtype=ds.int32)

    @function
    def add_int32s():
        return x + x

    assert int(add_int32s()) == 2


def test_defun_read_variable():
    v = ds.Variable(1.0)

    @function
    def f():
        return v.read_value()

    assert float(f()) == 1.0


def test_defun_assign_add_variable():
    v = ds.Variable(1.0)
    x = ds.constant(2.0)

    @function
    def test_assign_add():
        v.assign_add(x)
        return v.read_value()

    assert float(test_assign_add()) == 3.0


def test_callable_tensor_initialization_in_function():
    holder = {}

    @function
    def tensor_init():
        holder["v"] = ds.Variable(lambda: ds.constant(2.0))
        return holder["v"].read_value()

    assert float(tensor_init()) == 2.0


def test_get_concrete_function_creates_variables():
    v_holder = []

    @function
    def tensor_init():
        if not v_holder:
            v_holder.append(ds.Variable(5.0))
        return v_holder[0].read_value()

    concrete = tensor_init.get_concrete_function()
    assert float(concrete()) == 5.0
    assert float(tensor_init()) == 5.0


def test_shape_inference_for_more_specific_input():
    def f(a):
        return ds.reshape(a, [-1, 3])

    compiled = function(f, input_signature=[ds.TensorSpec(None, ds.float32)])

    @function
    def use_f():
        inputs = ds.zeros([10, 10, 3])
        assert tuple(f(inputs).shape) == tuple(compiled(inputs).shape)

    use_f()


def test_dict():
    @function
    def f(x):
        return {"name": x + 1}

    assert float(f(ds.constant(1.0))["name"]) == 2.0


def test_weakref_inputs_rejected():
    @function
    def f(x):
        return x

    class Dummy:
        pass

    o = Dummy()
    with pytest.raises(TypeError, match="weakref"):
        f(weakref.ref(o))


def test_tensor_conversion_with_defun():
    @function
    def f(x):
        return ds.add(x, ds.constant(3))

    assert int(f(ds.constant(2))) == 5


def test_tensor_conversion_call():
    @function
    def f(x):
        return ds.add(x, ds.constant(3))

    @function
    def g(x):
        return f(f(x))

    assert int(g(ds.constant(2))) == 8


def test_call_shape():
    @function
    def f(x):
        return x + 1

    @function
    def g(x):
        x = f(x)
        assert tuple(x.shape) == ()
        return None

    g(ds.constant(1.0))


def test_nested_defun_with_no_output_and_taped_input():
    three = ds.Variable(3.0, name="v")

    @function
    def f(x):
        ds.add(x, three)

    @function
    def g(x):
        y = ds.add(x, three)
        f(y)

    g(three)


def test_gather_resource_with_defun():
    v = ds.Variable([0.0, 1.0, 2.0])

    def sum_gather():
        return ds.reduce_sum(ds.gather(v, [1, 2]))

    defined = function(sum_gather)
    assert float(sum_gather()) == float(defined())


def test_return_indexed_slices_with_defun():
    input_ct = ds.IndexedSlices(ds.constant([1, 2]), ds.constant([0, 1]), (2,))

    @function
    def f():
        return input_ct

    output_ct = f()
    assert isinstance(output_ct, ds.IndexedSlices)
    assert_all_equal(output_ct.values, input_ct.values)
    assert_all_equal(output_ct.indices, input_ct.indices)


def test_indexed_slices_as_argument():
    input_ct = ds.IndexedSlices(ds.constant([1, 2]), ds.constant([0, 1]), (2,))

    @function
    def f(x):
        return x

    output_ct = f(input_ct)
    assert isinstance(output_ct, ds.IndexedSlices)
    assert_all_equal(output_ct.values, [1, 2])
    assert_all_equal(output_ct.indices, [0, 1])
    # another call with other values takes the same trace, and gives its own values
    out2 = f(ds.IndexedSlices(ds.constant([5, 6]), ds.constant([1, 0]), (2,)))
    assert_all_equal(out2.values, [5, 6])
    assert f.experimental_get_tracing_count() == 1


def test_none_output():
    @function
    def my_function(_):
        return None

    assert my_function(1) is None


def test_variable_capture_in_nested_functions():
    v = ds.Variable(1, dtype=ds.int32)

    @function
    def inner_read():
        return v.read_value()

    @function
    def outer():
        return inner_read()

    assert int(outer()) == 1


def test_return_captured_eager_tensor():
    t = ds.constant(1)

    @function
    def read():
        return t

    assert int(read()) == 1


def test_sequence_inputs():
    clip_by_global_norm = function(ds.clip_by_global_norm)
    t_list = [ds.constant(1.0), ds.constant(2.0)]
    clipped_list, global_norm = clip_by_global_norm(t_list, ds.constant(0.2))
    for t in clipped_list:
        assert isinstance(t, ds.Tensor)
    assert isinstance(global_norm, ds.Tensor)


def test_nested_sequence_inputs():
    def my_op(inputs):
        a, b, c = inputs
        e, f = b
        g, h = e
        return [a + a, [tuple([f + f, g + g]), h + h], c + c], a + f + g + h + c

    my_eager_op = function(my_op)
    ret = my_eager_op([ds.constant(1), [(ds.constant(2), ds.constant(3)), ds.constant(4)], ds.constant(5)])
    assert len(ret) == 2
    assert_all_equal(ret[0][0], 2)
    assert_all_equal(ret[0][1][0][0], 8)
    assert_all_equal(ret[0][1][0][1], 4)
    assert isinstance(ret[0][1][0], tuple)
    assert_all_equal(ret[0][1][1], 6)
    assert_all_equal(ret[0][2], 10)
    assert_all_equal(ret[1], 15)


def test_variable_names_respect_name_scopes_with_defun():
    @function
    def create_variable():
        with ds.name_scope("foo"):
            v = ds.Variable(0.0, name="bar")
        assert v.name == "foo/bar:0"
        holder.append(v)

    holder = []
    create_variable()


@pytest.mark.parametrize("reduce_retracing", [True, False])
def test_variables_are_tracked(reduce_retracing):
    v = ds.Variable(1.0)

    def foo(x):
        return v * x

    defined = function(foo, reduce_retracing=reduce_retracing)
    x = ds.constant([1.0])
    assert_all_equal(defined(x), [1.0])
    v.assign(2.0)
    x = ds.constant([1.0, 2.0])
    assert_all_equal(defined(x), [2.0, 4.0])


# ============================================================== input signatures
def test_input_signature_must_be_sequence_of_tensor_specs():
    def foo(a, b):
        del a
        del b

    signature = [(2, 3), ds.TensorSpec([2, 3], ds.float32)]
    with pytest.raises(TypeError, match="input_signature.*nested sequence"):
        function(foo, input_signature=signature)


def test_inputs_incompatible_with_signature_raises_error():
    def foo(a):
        return a

    signature = [ds.TensorSpec(shape=(2,), dtype=ds.float32)]
    defined = function(foo, input_signature=signature)
    defined(ds.ones([2]))
    with pytest.raises(TypeError, match=r"Can not cast .*dtype=int32.* to .*dtype=float32.*"):
        defined(ds.ones([3], dtype=ds.int32))
    with pytest.raises(TypeError, match="Can not cast.*"):
        defined(ds.ones([3]))
    with pytest.raises(TypeError, match="Can not cast.*"):
        defined(ds.ones([2, 1]))
    with pytest.raises(TypeError, match="too many positional arguments"):
        defined(ds.ones([2]), ds.ones([2]))
    with pytest.raises(TypeError, match="missing a required argument"):
        defined()
    with pytest.raises(TypeError, match=r"Can not cast .*shape=\(3,\).* to .*shape=\(2,\).*"):
        defined.get_concrete_function(ds.TensorSpec(shape=(3,), dtype=ds.float32))


def test_mismatched_concrete_signature_raises_error():
    @function
    def run_test():
        @function
        def f(x):
            return x

        with pytest.raises(TypeError, match="Binding inputs to function failed .*"):
            f.get_concrete_function(1)(ds.constant(1))
        f.get_concrete_function(ds.constant(1))(1)
        with pytest.raises(TypeError, match="Binding inputs to function failed .*"):
            f.get_concrete_function(1)(2)

    run_test()


def test_input_signature_conversion_with_default_arg():
    def foo(a, training=True):
        if training:
            return a
        else:
            return -1.0 * a

    signature = [ds.TensorSpec([], ds.float32), ds.TensorSpec([], ds.bool_)]
    defined = function(foo, input_signature=signature)
    a = ds.constant(1.0)
    assert_all_equal(a.numpy(), defined(a))
    assert_all_equal(a.numpy(), defined(a, training=True))
    assert_all_equal(-a.numpy(), defined(a, training=False))


def test_nested_input_signature_structure_errors():
    # TF 2.21 (checked): a list where the signature has a tuple, and other dict keys, are TypeErrors
    @function(input_signature=[(ds.TensorSpec([2]), {"a": ds.TensorSpec([])})])
    def h(p):
        return p[0] + p[1]["a"]

    assert_all_equal(h((ds.ones(2), {"a": ds.constant(1.0)})), [2.0, 2.0])
    with pytest.raises(TypeError, match="to tuple type"):
        h([ds.ones(2), {"a": ds.constant(1.0)}])
    with pytest.raises(TypeError, match="different keys"):
        h((ds.ones(2), {"b": ds.constant(1.0)}))


def test_empty_input_signatures():
    class Foo:
        @function(input_signature=[])
        def bar_none(self):
            return 1

        @function(input_signature=[])
        def bar_one(self, x=0):
            return x

        @function(input_signature=[])
        def bar_two(self, x=0, y=1):
            return x + y

    foo = Foo()
    assert foo.bar_none.input_signature == ()
    assert foo.bar_one.input_signature == ()
    assert foo.bar_two.input_signature == ()


def test_unspecified_default_argument():
    wrapped = function(lambda x, y=2: x + y, input_signature=[ds.TensorSpec((), ds.int32)])
    assert wrapped(ds.constant(1)).numpy() == 3


def test_concrete_function_from_signature():
    @function(input_signature=[ds.TensorSpec(None, ds.float32)])
    def compute(x):
        return 2.0 * x

    concrete = compute.get_concrete_function()
    assert_all_close(1.0, concrete(ds.constant(0.5)))
    concrete = compute.get_concrete_function(ds.TensorSpec(None, ds.float32))
    assert_all_close(4.0, concrete(ds.constant(2.0)))


@pytest.mark.parametrize("kind", ["function", "lambda"])
def test_input_signature_missing_tensor_specs(kind):
    tf_func_dec = function(input_signature=(ds.TensorSpec([], ds.int32),))
    error_message = "input_signature missing type constraint"
    if kind == "function":
        def f1(arg1, arg2, arg3):
            pass

        def f2(arg1, arg2, arg3, **kwargs):
            pass

        def f3(arg1, arg2, arg3, arg4=4, **kwargs):
            pass

        def f4(arg1, arg2, arg3, *args):
            pass

        def f5(arg1, arg2, arg3, *args, **kwargs):
            pass

        def f6(arg1, arg4=4, **kwargs):
            return arg1 + arg4
        bad = [f1, f2, f3, f4, f5]
    else:
        bad = [lambda ar1, arg2, arg3: None, lambda arg1, arg2, arg3, **kwargs: None,
               lambda arg1, arg2, arg3, arg4=4, **kwargs: None, lambda arg1, arg2, arg3, *args: None,
               lambda arg1, arg2, arg3, *args, **kwargs: None]
        f6 = lambda arg1, arg4=4, **kwargs: arg1 + arg4  # noqa: E731
    for f in bad:
        with pytest.raises(TypeError, match=error_message):
            tf_func_dec(f)(1, 2, 3)
    assert tf_func_dec(f6)(1).numpy() == 5


def test_input_signature_missing_tensor_specs_method():
    class MyModule:
        def f1(self, arg1, arg2, arg3):
            pass

        def f6(self, arg1, arg4=4, **kwargs):
            return arg1 + arg4

    m = MyModule()
    tf_func_dec = function(input_signature=(ds.TensorSpec([], ds.int32),))
    with pytest.raises(TypeError, match="input_signature missing type constraint"):
        tf_func_dec(m.f1)(1, 2, 3)
    assert tf_func_dec(m.f6)(1).numpy() == 5


@pytest.mark.parametrize("func_type", ["method", "function", "lambda_function"])
def test_input_signature_partial_func_missing_tensor_specs(func_type):
    if func_type == "method":
        class MyModule:
            def f(self, arg1, arg2, arg3, arg4=4):
                return arg1 + arg2 + arg3 + arg4
        f = MyModule().f
    elif func_type == "function":
        def f(arg1, arg2, arg3, arg4=4):
            return arg1 + arg2 + arg3 + arg4
    else:
        f = lambda arg1, arg2, arg3, arg4=4: arg1 + arg2 + arg3 + arg4  # noqa: E731

    error_message = "input_signature missing type constraint"
    tf_func_dec = function(input_signature=(ds.TensorSpec([], ds.int32),))
    with pytest.raises(TypeError, match=error_message):
        tf_func_dec(functools.partial(f, 1))(2, 3)
    with pytest.raises(TypeError, match=error_message):
        tf_func_dec(functools.partial(f, arg4=5))(1, 2, 3)
    with pytest.raises(TypeError, match=error_message):
        tf_func_dec(functools.partial(f, 1, arg4=5))(2, 3)
    assert_all_equal(tf_func_dec(functools.partial(f, 1, 2, arg4=5))(3), 11)


def test_tensor_shape_casted_to_specific():
    @function(input_signature=[ds.TensorSpec([1])])
    def specific(x):
        assert tuple(x.shape) == (1,)
        return x

    @function(input_signature=[ds.TensorSpec(None)])
    def general(x):
        return specific(x)

    assert general(ds.constant([1.0])).numpy() == 1.0


# ============================================================== methods
def test_defuning_instance_method():
    integer = ds.constant(2, ds.int64)

    class Foo:
        def one(self, tensor):
            return tensor

        @function
        def two(self, tensor, other=integer):
            return self.one(tensor), other

    foo = Foo()
    t = ds.constant(1.0)
    one, two = foo.two(t)
    assert one.numpy() == 1.0
    assert two.numpy() == 2


def test_defuning_instance_method_with_default_argument():
    integer = ds.constant(2, ds.int64)

    class Foo:
        @function
        def func(self, other=integer):
            return other

    foo = Foo()
    assert foo.func().numpy() == int(integer)


def test_method():
    class MyModel:
        def __init__(self):
            self.var = None

        @function
        def apply(self, x):
            if self.var is None:
                self.var = ds.Variable(2.0)
            return self.var * x

    m0 = MyModel()
    assert_all_equal(m0.apply(3.0), 6.0)
    m0.var.assign(3.0)
    assert_all_equal(m0.apply(3.0), 9.0)
    m1 = MyModel()
    assert_all_equal(m1.apply(3.0), 6.0)


def _dummy_decorator(method):
    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        return method(*args, **kwargs)
    return wrapper


def test_with_extra_wrapper():
    class Foo:
        def __init__(self):
            self.var = None

        @function
        @_dummy_decorator
        def add(self, x, y, z=1):
            if self.var is None:
                return x + y + z

    foo = Foo()
    assert foo.add(2, 3).numpy() == 6


@pytest.mark.parametrize("decorators", [(function, _dummy_decorator), (_dummy_decorator, function),
                                        (function, function)])
def test_with_extra_wrapper_redundant_args(decorators):
    decorator1, decorator2 = decorators

    class Foo:
        def __init__(self):
            self.var = None

        @decorator1
        @decorator2
        def add1(self, x, y):
            if self.var is None:
                return x + y

    foo = Foo()
    with pytest.raises(TypeError, match="multiple values for argument"):
        foo.add1(2, x=3)


def test_with_extra_wrapper_missing_args():
    class Foo:
        def __init__(self):
            self.var = None

        @function
        @_dummy_decorator
        def add1(self, x, y):
            if self.var is None:
                return x + y

        @function
        @function
        def add3(self, x, y):
            if self.var is None:
                return x + y

    foo = Foo()
    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        foo.add1(2)
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        foo.add1(y=2)
    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        foo.add3(2)
    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        foo.add3(y=2)


def test_missing_args_tf_functioned_method():
    class A:
        def func(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

        @function
        def decorated_method(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

    a_instance = A()
    tf_method_pos = function(a_instance.func)
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_method_pos(position_arg2="foo")
    tf_func_decorated_method = function(a_instance.decorated_method)
    tf_func_decorated_method(position_arg1="foo", position_arg2="bar")
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_decorated_method(position_arg2="bar")


def test_missing_args_tf_functioned_object():
    class A:
        def __call__(self, position_arg1, position_arg2):
            return position_arg1, position_arg2

    tf_func_obj = function(A())
    tf_func_obj(position_arg1=1, position_arg2=2)
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_obj(position_arg2="bar")


def test_missing_args_tf_functioned_functions():
    def func_pos(position_arg1, position_arg2):
        return position_arg1, position_arg2

    def func_with_default(position_arg, named_arg=None):
        return position_arg, named_arg

    def func_pos_3args(position_arg1, position_arg2, position_arg3):
        return position_arg1, position_arg2, position_arg3

    with pytest.raises(TypeError, match="missing a required argument"):
        function(func_pos)(position_arg2="foo")
    tf_func_with_default = function(func_with_default)
    tf_func_with_default(position_arg="bar")
    with pytest.raises(TypeError, match="missing a required argument"):
        tf_func_with_default(named_arg="foo")
    with pytest.raises(TypeError, match="missing a required argument"):
        function(func_pos_3args)(position_arg2="foo")


# ============================================================== side effects and variables
def test_python_call_with_side_effects():
    state = []

    @function
    def side_effecting_function():
        state.append(0)

    side_effecting_function()
    assert state == [0]
    side_effecting_function()  # the graph runs; the append does not
    assert state == [0]
    side_effecting_function.python_function()
    assert state == [0, 0]


def test_function_with_nested_function_call_and_side_effects():
    v1 = ds.Variable(1.0)
    v2 = ds.Variable(1.0)

    @function
    def add_one(a):
        a.assign_add(1.0)

    @function
    def side_effecting_function(a, b):
        add_one(a)
        add_one(b)
        return a + b

    assert side_effecting_function(v1, v2).numpy() == 4.0


@pytest.mark.parametrize("reduce_retracing", [True, False])
def test_variable_retracing_on_dtype_changes(reduce_retracing):
    @function(reduce_retracing=reduce_retracing)
    def defined(a, b):
        return a + b

    x1 = ds.Variable(0.0)
    x2 = ds.Variable(0.0)
    defined(x1, x2)
    assert len(defined._list_all_concrete_functions()) == 1
    y1 = ds.Variable(0)
    y2 = ds.Variable(1)
    defined(y1, y2)
    assert len(defined._list_all_concrete_functions()) == 2


def test_variable_retracing_dtype_shape():
    @function
    def defined(a, b):
        return a + b

    defined(ds.Variable(0.0), ds.Variable(0.0))
    assert len(defined._list_all_concrete_functions()) == 1
    defined(ds.Variable([0.0, 1.0]), ds.Variable([0.0, 1.0]))
    assert len(defined._list_all_concrete_functions()) == 2
    defined(ds.Variable([[0.0, 1.0]]), ds.Variable([[0.0, 1.0]]))
    assert len(defined._list_all_concrete_functions()) == 3


def test_function_modifies_input_list():
    def get_list():
        return [ds.constant(0.0), ds.constant(1.0)]

    expected_msg = ".*() should not modify"
    bodies = [lambda l: l.append(ds.constant(0.0)), lambda l: l.extend([ds.constant(0.0)]),
              lambda l: l.insert(0, ds.constant(0.0)), lambda l: l.pop(), lambda l: l.reverse(),
              lambda l: l.remove(l[0]), lambda l: l.clear()]
    for body in bodies:
        def modify(l):
            body(l)
        with pytest.raises(ValueError, match=expected_msg):
            function(modify)(get_list())

    def kwdappend(**kwargs):
        kwargs["l"].append(ds.constant(0.0))
    with pytest.raises(ValueError, match=expected_msg):
        function(kwdappend)(l=get_list())


def test_function_modifies_input_dict():
    def get_dict():
        return {"t1": ds.constant(0.0), "t2": ds.constant(1.0)}

    for body in [lambda m: m.clear(), lambda m: m.pop("t1"), lambda m: m.popitem(),
                 lambda m: m.update({"t1": ds.constant(3.0)}), lambda m: m.setdefault("t3", ds.constant(3.0))]:
        def modify(m):
            body(m)
        with pytest.raises(ValueError, match=".* should not modify"):
            function(modify)(get_dict())


def test_function_modifies_input_nest():
    @function
    def modify(n):
        n[0]["t1"].append(ds.constant(1.0))

    with pytest.raises(ValueError, match="modify.* should not modify"):
        modify([{"t1": [ds.constant(0.0), ds.constant(1.0)]}, ds.constant(2.0)])

    @function
    def modify_same_flat(n):
        n[0].append(n[1].pop(0))

    with pytest.raises(ValueError, match="modify_same_flat.* should not modify"):
        modify_same_flat([[ds.constant(0.0)], [ds.constant(1.0), ds.constant(2.0)]])


def test_read_in_func_write_outside():
    for _ in range(30):
        v = ds.Variable(1.0)

        @function
        def add_one():
            return v + 1.0  # noqa: B023

        @function
        def get_v_plus_one():
            v_plus_one = add_one()
            v.assign_add(2.0)  # noqa: B023
            return v_plus_one

        assert_all_equal(get_v_plus_one(), 2.0)


def test_no_variables():
    @function
    def fn(x):
        return 2 * x

    assert_all_equal(fn(ds.constant(4.0)), 8.0)


def test_fail_if_variables_are_created_more_than_once():
    @function
    def fn(x):
        return ds.Variable(1.0) + x

    with pytest.raises(ValueError):
        fn(1.0)


def test_range():
    @function
    def f(unused_x):
        return 1.0

    assert_all_equal(f(range(5)), 1.0)


def test_correct_variable_creation():
    state = []

    @function
    def fn(x):
        if not state:
            state.append(ds.Variable(2.0))
        return state[0] * x

    assert_all_equal(fn(ds.constant(1.0)), 2.0)
    assert_all_equal(fn(ds.constant(3.0)), 6.0)


def test_function_initializer():
    state = []

    @function
    def fn(x):
        if not state:
            state.append(ds.Variable(lambda: 2.0))
        return state[0] * x

    assert_all_equal(fn(ds.constant(1.0)), 2.0)


def test_function_multiple_variable_initializer():
    state = []

    @function
    def fn(x):
        if not state:
            state.append(ds.Variable(lambda: 2.0))
            state.append(ds.Variable(lambda: 5.0))
        return state[0] * x, state[1] * x

    assert_all_equal(fn(ds.constant(1.0)), [2.0, 5.0])


def test_variable_initializer_not_constant():
    state = []

    @function
    def fn(x):
        if not state:
            state.append(ds.Variable(2.0 * x))
        return state[0] * x

    assert_all_equal(fn(ds.constant(1.0)), 2.0)
    assert_all_equal(fn(ds.constant(3.0)), 6.0)


def test_variable_naming():
    class HasVars:
        def __init__(self):
            self.x = None
            self.y = None
            self.z = None

        @function
        def make_x(self):
            if self.x is None:
                self.x = ds.Variable(1.0, name="v")

        def make_y(self):
            if self.y is None:
                self.y = ds.Variable(1.0, name="v")

        def make_z(self):
            if self.z is None:
                with ds.name_scope("z_scope"):
                    self.z = ds.Variable(1.0, name="z")

    root = HasVars()
    root.make_x()
    root.make_y()
    root.make_z()
    assert root.x.name == "v:0"
    assert root.z.name == "z_scope/z:0"


def test_same_variable_twice():
    v = ds.Variable(1.0)

    @function
    def add(a, b):
        return a + b

    assert_all_equal(add(v, v), 2.0)


def test_same_variable_twice_with_reduced_retracing():
    v = ds.Variable(2.0)

    @function(reduce_retracing=True)
    def add(a, b):
        return a + b

    assert_all_equal(add(v, v), 4.0)


def test_variable_update():
    v1 = ds.Variable(1.0)
    v2 = ds.Variable(2.0)
    v3 = ds.Variable(4, dtype=ds.int32)
    trace_count = [0]

    @function
    def double_variable(x):
        trace_count[0] += 1
        x.assign_add(x.read_value())

    assert trace_count[0] == 0
    double_variable(v1)
    assert trace_count[0] == 1
    assert v1.numpy() == 2.0
    double_variable(v2)
    assert trace_count[0] == 1  # v2 has v1's dtype and shape: no retrace
    assert v2.numpy() == 4.0
    double_variable(v3)
    assert trace_count[0] == 2  # another dtype
    assert v3.numpy() == 8


def test_shape_cache():
    @function
    def func(x):
        return 2 * x

    func_a = func.get_concrete_function(ds.TensorSpec([None], ds.int32))
    func_b = func.get_concrete_function(ds.TensorSpec([None], ds.int32))
    assert func_a is func_b


def test_cache_within_save_context():
    @function
    def func(x):
        return 2 * x

    assert func.get_concrete_function(ds.constant(2.0)) is func.get_concrete_function(ds.constant(2.0))


# ============================================================== concrete functions
def test_concrete_function_with_nested_tensor_inputs():
    @function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a, b, c = ds.constant(1000), ds.constant(200), ds.constant(30)
    d = {"a": a, "b": b}
    e = (c, 4)
    for cf in [f.get_concrete_function(d, e), f.get_concrete_function(d, y=e), f.get_concrete_function(y=e, x=d)]:
        for output in [cf(d, e), cf(d, y=e), cf(y=e, x=d)]:
            assert isinstance(output, tuple)
            assert len(output) == 2
            assert_all_equal(output[0], 1200)
            assert_all_equal(output[1], 34)


def test_concrete_function_with_nested_non_tensor_inputs():
    @function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = {"a": ds.constant(1000), "b": ds.constant(200)}
    b = (50, 3)
    for cf in [f.get_concrete_function(a, b), f.get_concrete_function(a, y=b), f.get_concrete_function(x=a, y=b)]:
        for output in [cf(a, b), cf(x=a, y=b)]:
            assert_all_equal(output[0] + output[1], 1253)


def test_concrete_function_with_bound_nested_non_tensor_inputs():
    @function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = {"a": 3000, "b": 200, "c": 9000}
    b = (ds.constant(30), 4)
    for cf in [f.get_concrete_function(a, b), f.get_concrete_function(a, y=b), f.get_concrete_function(x=a, y=b)]:
        for output in [cf(a, b), cf(a, y=b), cf(x=a, y=b)]:
            assert_all_equal(output[0] + output[1], 3234)


def test_concrete_function_with_all_bound_nested_non_tensor_inputs():
    @function
    def f(x, y):
        return (x["a"] + x["b"], y[0] + y[1])

    a = {"a": 5000, "b": 500}
    b = (50, 5)
    cf = f.get_concrete_function(a, b)
    for output in [cf(), cf(a, b), cf(x=a, y=b)]:
        assert_all_equal(output[0] + output[1], 5555)


def test_concrete_function_method_with_varargs():
    float32_scalar = ds.TensorSpec(shape=(), dtype=ds.float32)

    class MyModel:
        @function(input_signature=[float32_scalar, float32_scalar])
        def add(self, *arg):
            return ds.add(*arg)

    m = MyModel()
    cf = m.add.get_concrete_function()
    assert float(cf(-12.0, 3.0)) == -9.0


def test_same_concrete_function_different_kwarg_order():
    @function
    def foo(**kwargs):
        return kwargs["a"] + ds.cast(kwargs["b"], ds.float32)

    foo(a=ds.constant(1.0), b=ds.constant(1))
    foo(b=ds.constant(1), a=ds.constant(1.0))
    assert len(foo._list_all_concrete_functions()) == 1


@pytest.mark.parametrize("conc_args,call_args,call_kwargs,error", [
    (lambda: (1, ds.constant(2)), lambda: (1,), {}, r"missing a required argument: 'y'"),
    (lambda: (1, 2), lambda: (1, 2, 3), {}, r"too many positional arguments"),
    (lambda: (1, 2), lambda: (1, 2), {"c": 1.0}, r"got an unexpected keyword argument"),
    (lambda: (5,), lambda: (8, 5), {}, r"Binding inputs .* failed"),
    (lambda: (5,), lambda: (ds.constant(6), 5), {}, r"Binding inputs .* failed"),
    (lambda: (1, 2), lambda: (1, 2), {"x": 3}, r"multiple values for argument 'x'"),
])
def test_concrete_function_structured_signature_error(conc_args, call_args, call_kwargs, error):
    @function
    def func(x, y=5, *varargs, **kwargs):  # noqa: B006
        del y, varargs, kwargs
        return x

    conc = func.get_concrete_function(*conc_args())
    with pytest.raises(TypeError, match=error):
        conc(*call_args(), **call_kwargs)


def test_concrete_function_shape_mismatch():
    @function
    def f(argument_name):
        return argument_name + 1.0

    f_concrete = f.get_concrete_function(ds.constant([1.0]))
    # called from eager code, another shape runs (TF: kernels check nothing more there)
    assert_all_equal([2.0, 3.0], f_concrete(ds.constant([1.0, 2.0])).numpy())

    @function
    def g():
        f_concrete(ds.constant([1.0, 2.0]))

    with pytest.raises(TypeError, match=r"Can not cast"):
        g()


def test_indexed_slices_as_gradients_for_concrete_functions():
    @function
    def summing_rnn(inputs):
        return ds.reduce_sum(inputs, axis=1)

    @function
    def gradients(inputs):
        with ds.GradientTape() as tape:
            tape.watch(inputs)
            hidden = summing_rnn(inputs)
            hidden = ds.gather(hidden, ds.constant([0]))
            loss = ds.reduce_mean(hidden)
        return tape.gradient(loss, inputs)

    gradients(ds.constant([[[1.0], [2.0]]]))


def test_underscore_name():
    @function
    def f(_):
        return _ + _

    assert_all_equal(2.0, f(ds.constant(1.0)))


def test_function_reference_cycles():
    fn = function(lambda x: 2.0 * x)
    fn(ds.constant(4.0))
    weak_fn = weakref.ref(fn)
    del fn
    assert weak_fn() is None


class _HasDecoratedMethod:
    @function
    def f(self, x):
        return x * 3.0


def test_method_reference_cycles():
    has_decorated_method = _HasDecoratedMethod()
    has_decorated_method.f(ds.constant(5.0))
    weak_fn = weakref.ref(has_decorated_method.f)
    del has_decorated_method
    assert weak_fn() is None


def test_symbolic_tensor_illegal_capture_call_time_error():
    x = None

    @function
    def f1(a):
        nonlocal x
        x = a
        return a

    @function
    def f2(b):
        return b + x

    f1(ds.constant(1))
    with pytest.raises(TypeError, match="out of scope"):
        f2(ds.constant(2))


# ============================================================== tracing counts and retracing warnings
def test_experimental_get_tracing_count_function():
    @function
    def double(a):
        return a + a

    double(ds.constant(1))
    double(ds.constant(2))
    assert double.experimental_get_tracing_count() == 1
    double(ds.constant(1.5))  # TF uses a string Tensor: any other dtype retraces
    assert double.experimental_get_tracing_count() == 2


def test_experimental_get_tracing_count_method():
    class TestClass:
        @function
        def testDouble(self, a):  # noqa: N802
            return a + a

    obj1 = TestClass()
    obj1.testDouble(ds.constant(1))
    obj1.testDouble(ds.constant(2))
    obj1.testDouble(ds.constant(1.1))
    assert obj1.testDouble.experimental_get_tracing_count() == 2
    obj2 = TestClass()
    obj2.testDouble(ds.constant(1))
    obj2.testDouble(ds.constant(1.1))
    obj2.testDouble(ds.constant(1.0, dtype=ds.float64))
    assert obj2.testDouble.experimental_get_tracing_count() == 3
    assert obj1.testDouble.experimental_get_tracing_count() == 2


def test_clear_cache():
    @function
    def double(a):
        return a + a

    assert_all_equal(double(ds.constant(1)), 2)
    assert_all_equal(double(ds.constant(1.5)), 3.0)
    assert double.experimental_get_tracing_count() == 2
    double.clear_cache()
    assert double.experimental_get_tracing_count() == 0
    assert_all_equal(double(ds.constant(1)), 2)
    assert double.experimental_get_tracing_count() == 1


def test_clear_cache_method_descriptor():
    class Model:
        @function
        def call(self, x):
            return x + 1

    m1 = Model()
    assert_all_equal(m1.call(ds.constant(1)), 2)
    assert m1.call.experimental_get_tracing_count() == 1
    Model.call.clear_cache()
    assert m1.call.experimental_get_tracing_count() == 0
    assert_all_equal(m1.call(ds.constant(1)), 2)
    assert m1.call.experimental_get_tracing_count() == 1


def _warnings(caplog):
    return [r for r in caplog.records if r.levelno >= logging.WARNING and "Tracing is expensive" in r.getMessage()]


def test_frequent_retracing_warning(caplog):
    @function
    def f(x):
        return x

    with caplog.at_level(logging.WARNING, logger="descend"):
        for i in range(1, 5):
            f(i)
        assert not _warnings(caplog)
        f(5)
    assert len(_warnings(caplog)) == 1


def test_frequent_retracing_warning_on_reinstantiation(caplog):
    with caplog.at_level(logging.WARNING, logger="descend"):
        for i in range(5):
            @function
            def f(x):
                return x

            f(i)
            if i < 4:
                assert not _warnings(caplog)
    assert len(_warnings(caplog)) == 1


def test_retracing_warning_limits(caplog):
    @function
    def my_func(x):
        return x

    with caplog.at_level(logging.WARNING, logger="descend"):
        for i in range(10):
            my_func(i)
    assert len(_warnings(caplog)) == 2


# ============================================================== recursion and partials
def test_recursive_tf_function():
    @function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        return 1

    assert recursive_fn(5).numpy() == 1


def test_recursive_tf_function_with_gradients():
    @function
    def recursive_fn(n, x):
        if n > 0:
            return n * recursive_fn(n - 1, x)
        else:
            return x

    x = ds.Variable(1.0)
    with ds.GradientTape() as tape:
        g = recursive_fn(5, x)
    assert tape.gradient(g, x).numpy() == 120


def test_recursive_python_function():
    def recursive_py_fn(n):
        if n > 0:
            return recursive_py_fn(n - 1)
        return 1

    @function
    def recursive_fn(n):
        return recursive_py_fn(n)

    assert recursive_fn(5).numpy() == 1


def test_recursive_python_function_with_gradients():
    def recursive_py_fn(n, x):
        if n > 0:
            return n * recursive_py_fn(n - 1, x)
        return x

    @function
    def recursive_fn(n, x):
        return recursive_py_fn(n, x)

    x = ds.Variable(1.0)
    with ds.GradientTape() as tape:
        g = recursive_fn(5, x)
    assert tape.gradient(g, x).numpy() == 120


def test_recursive_tf_function_call_each_other():
    @function
    def recursive_fn1(n):
        if n <= 1:
            return 1
        return recursive_fn2(n - 1)

    @function
    def recursive_fn2(n):
        if n <= 1:
            return 2
        return recursive_fn1(n - 1)

    assert recursive_fn1(5).numpy() == 1
    assert recursive_fn1(6).numpy() == 2
    assert recursive_fn2(5).numpy() == 2
    assert recursive_fn2(6).numpy() == 1


def test_recursive_tf_function_call_each_other_with_gradients():
    @function
    def recursive_fn1(n, x):
        if n <= 1:
            return x
        return n * recursive_fn2(n - 1, x)

    @function
    def recursive_fn2(n, x):
        if n <= 1:
            return 2 * x
        return n * recursive_fn1(n - 1, x)

    x = ds.Variable(1.0)
    with ds.GradientTape() as tape:
        g1 = recursive_fn1(5, x)
    assert tape.gradient(g1, x).numpy() == 120
    with ds.GradientTape() as tape:
        g2 = recursive_fn2(5, x)
    assert tape.gradient(g2, x).numpy() == 240


def test_recursive_tf_function_with_cond():
    @function(autograph=False)
    def recursive_fn(n):
        return ds.cond(n > 0, recursive_fn(n - 1), 1)

    with pytest.raises(RecursionError):
        recursive_fn(ds.constant(5))


def test_functools_partial():
    assert_all_close(3.0, function(functools.partial(lambda x, y: x + y, 1.0))(ds.constant(2.0)))


def test_functools_partial_new_default():
    def f(x=3, y=7):
        return x + y

    func = function(functools.partial(f, y=6))
    assert func().numpy() == 9
    assert func(y=8).numpy() == 11


def test_functools_partial_keywords():
    def f(x, y):
        return x + y

    func = function(functools.partial(f, x=ds.zeros([1]), y=ds.zeros([1])))
    assert_all_equal(func(), [0.0])


def test_functools_partial_single_positional():
    def f(x, y):
        return x + y

    func = function(functools.partial(f, ds.constant(1)))
    assert_all_equal(func(5), 6)


def test_complicated_partial_with_defaults():
    def identity(*args):
        return args

    def dynamic_unroll(core_fn, input_sequence, initial_state, sequence_length=None, parallel_iterations=1,
                       swap_memory=False):
        del core_fn
        assert sequence_length is None
        assert parallel_iterations == 1
        assert swap_memory
        return input_sequence, initial_state

    input_sequence = ds.random.uniform([1, 1, 1])
    initial_state = ds.random.uniform([1, 1])
    func = function(functools.partial(dynamic_unroll, identity, swap_memory=True))
    func(input_sequence, initial_state)


# ============================================================== gradients (gradients_test.py)
_COS_DERIVATIVES = [ds.cos, lambda x: -ds.sin(x), lambda x: -ds.cos(x), ds.sin, ds.cos]


def test_iterated_gradients_nested():
    def _grad(f):
        def _grad_function(primal):
            with ds.GradientTape() as tape:
                tape.watch(primal)
                primal_out = f(primal)
            return tape.gradient(primal_out, primal)
        return _grad_function

    @function
    def _forward(x):
        return ds.cos(x)

    f = _forward
    traced_f = function(f)
    one = ds.constant(1.0)
    for expected in _COS_DERIVATIVES:
        assert_all_close(expected(one), f(one))
        assert_all_close(expected(one), traced_f(one))
        assert_all_close(expected(one), function(f)(one))
        f = _grad(f)
        traced_f = function(_grad(traced_f))


def test_iterated_gradients_nested_with_variable():
    def _grad(f):
        def _grad_function():
            with ds.GradientTape() as tape:
                primal_out = f()
            (g,) = tape.gradient(primal_out, tape.watched_variables())
            return g
        return _grad_function

    v = ds.Variable(2.0)

    @function
    def _forward():
        return ds.cos(v)

    f = _forward
    two = ds.constant(2.0)
    for expected in _COS_DERIVATIVES:
        assert_all_close(expected(two), f())
        assert_all_close(expected(two), function(f)())
        f = _grad(f)


def test_iterated_gradients_persistent():
    @function
    def _forward(z):
        return ds.cos(z)

    f = _forward
    with ds.GradientTape(persistent=True) as tape:
        start = ds.constant(1.0)
        tape.watch(start)
        x = f(start)
        for expected in _COS_DERIVATIVES:
            assert_all_close(expected(start), x)
            x = tape.gradient(x, start)


def test_higher_order_with_variable():
    v = ds.Variable(1.0)

    @function
    def _forward():
        return ds.cos(v)

    f = _forward
    with ds.GradientTape(persistent=True) as tape:
        x = f()
        for expected in _COS_DERIVATIVES:
            assert_all_close(expected(ds.constant(1.0)), x)
            (x,) = tape.gradient(x, tape.watched_variables())


def test_gradients_chained():
    @function
    def _forward(z):
        return ds.cos(z)

    f = _forward
    x = ds.constant(1.0)
    with ds.GradientTape() as t:
        t.watch(x)
        y = f(x)
    with ds.GradientTape() as tt:
        doutputs = ds.constant(2.0)
        tt.watch(doutputs)
        g = t.gradient(y, x, doutputs)
    assert_all_close(-2.0 * ds.sin(x), g)
    gg = tt.gradient(g, doutputs)
    assert_all_close(-ds.sin(x), gg)


def test_defun_cond_gradient():
    @function
    def f(x):
        return ds.cond(x > 0.5, lambda: 2 * x, lambda: 3 * x)

    with ds.GradientTape() as t:
        x = ds.constant(1.0)
        t.watch(x)
        y = f(x)
    assert t.gradient(y, x).numpy() == 2.0


def test_graph_loop_gradient():
    @function
    def f(x):
        return ds.while_loop(lambda _, i: i < 2, lambda x, i: (2 * x, i + 1), [x, 0])[0]

    with ds.GradientTape() as t:
        x = ds.constant(1.0)
        t.watch(x)
        y = f(x)
    assert t.gradient(y, x).numpy() == 4.0


def test_defun_differentiable():
    v = ds.Variable(1.0)

    @function
    def f():
        return v * v

    for _ in range(2):  # testDefunCanBeDifferentiatedTwice too: v is watched again
        with ds.GradientTape() as tape:
            y = f()
        assert tape.gradient(y, v).numpy() == 2.0


def test_defun_call_backprop():
    @function
    def f(x):
        return ds.add(x, x)

    @function
    def g(x):
        with ds.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x)

    assert_all_equal(2, g(ds.constant(2.0)))


def test_gradient_tensor_conversion_with_defun():
    three = ds.Variable(3.0, name="v")

    @function
    def f(x):
        return ds.add(x, three)

    x = ds.constant(1.0)
    with ds.GradientTape() as tape:
        y = f(x)
    assert tape.gradient(y, three).numpy() == 1.0


def test_gradient():
    matmul = function(ds.matmul)
    t = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    with ds.GradientTape() as tape:
        tape.watch(t)
        y = matmul(t, t, transpose_a=True)
    assert_all_equal(tape.gradient(y, t), [[6, 6], [14, 14]])


def test_gradient_in_function():
    @function
    def f(x):
        with ds.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x)

    assert_all_equal(f(ds.constant(1.0)), 2.0)
    assert_all_equal(f(x=ds.constant(1.0)), 2.0)  # testGradientInFunctionWithKeywordArguments


def test_gradient_of_gather_with_defun():
    v = ds.Variable([0.0, 1.0, 2.0])

    def sum_gather():
        return ds.reduce_sum(ds.gather(v, [1, 2]))

    with ds.GradientTape() as tape:
        y = sum_gather()
    gradient = tape.gradient(y, v)
    defun = function(sum_gather)
    for _ in range(2):  # the trace, then the recorded graph op by op
        with ds.GradientTape() as tape:
            y = defun()
        defun_gradient = tape.gradient(y, v)
        assert_all_equal(gradient.values, defun_gradient.values)
        assert_all_equal(gradient.indices, defun_gradient.indices)
        assert gradient.dense_shape == defun_gradient.dense_shape


def test_differentiable_function_none_outputs():
    @function
    def my_function(x):
        return x, None

    x0 = ds.constant(0.0)
    with ds.GradientTape() as tape:
        tape.watch(x0)
        y = my_function(x0)[0]
    assert_all_equal(tape.gradient(y, x0), 1.0)

    @function
    def foo(a):
        return None, a * a

    x = ds.constant(5.0)
    with ds.GradientTape() as tp:
        tp.watch(x)
        none, r = foo(x)
    g = tp.gradient(r, x)
    assert none is None
    assert_all_equal(r, 25.0)
    assert_all_equal(g, 2 * 5.0)


def test_nested_differentiable_function():
    @function
    def inner_fn(a, b):
        return a * ds.add(a, b)

    @function
    def outer_fn(x):
        return inner_fn(x, 1.0)

    x = ds.constant(5.0)
    with ds.GradientTape() as tp:
        tp.watch(x)
        result = outer_fn(x)
    assert_all_equal(tp.gradient(result, x), 2 * 5.0 + 1.0)


def test_deeply_nested_differentiable_function_with_multiple_grad_calls():
    @function
    def inner_fn(a, b):
        return ds.add(a, b)

    @function
    def middle_fn(a, b):
        return ds.multiply(a, inner_fn(a, b))

    @function
    def outer_fn(x):
        return middle_fn(x, 3.0)

    x = ds.constant(5.0)
    assert_all_equal(outer_fn(x), 5.0 * (5.0 + 3.0))
    with ds.GradientTape() as tp:
        tp.watch(x)
        result = outer_fn(x)
    assert_all_equal(tp.gradient(result, x), 2 * 5.0 + 3.0)
    assert_all_equal(outer_fn(x), 5.0 * (5.0 + 3.0))
    assert_all_equal(middle_fn(3.0, x), 3.0 * (3.0 + 5.0))
    with ds.GradientTape() as tp:
        tp.watch(x)
        result = outer_fn(x)
    assert_all_equal(tp.gradient(result, x), 2 * 5.0 + 3.0)
    y = ds.constant(4.0)
    with ds.GradientTape() as tp:
        tp.watch(y)
        result = outer_fn(y)
    assert_all_equal(tp.gradient(result, y), 2 * 4.0 + 3.0)
    with ds.GradientTape() as tp:
        tp.watch(y)
        result = inner_fn(y, y)
    assert_all_equal(tp.gradient(result, y), 2.0)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_deeply_nested_differentiable_function_gradient_tape_in_defun(depth):
    @function
    def inner_inner_fn(a, b):
        return ds.add(a, b)

    @function
    def inner_fn(a, b):
        return inner_inner_fn(a, b)

    @function
    def middle_fn(a, b):
        return a * inner_fn(a, b)

    @function
    def almost_outer_fn(x):
        with ds.GradientTape() as tp:
            tp.watch(x)
            result = middle_fn(x, 1.0)
        return tp.gradient(result, x)

    fn = almost_outer_fn
    for _ in range(depth - 1):  # ...InNestedDefun, ...InMultNestedDefun
        fn = function(lambda x, f=fn: f(x))
    assert_all_equal(fn(ds.constant(5.0)), 2 * 5.0 + 1.0)


def test_deeply_nested_differentiable_function_with_variable_multiple_grad_calls():
    v = ds.Variable(ds.constant(3.0))

    @function
    def inner_fn(a, b):
        return ds.add(a, b)

    @function
    def middle_fn(a, b):
        return ds.multiply(a, inner_fn(a, b))

    @function
    def outer_fn(x):
        return middle_fn(x, v)

    x = ds.constant(5.0)
    assert_all_equal(outer_fn(x), 5.0 * (5.0 + 3.0))
    with ds.GradientTape() as tp:
        tp.watch(x)
        result = outer_fn(x)
    assert_all_equal(tp.gradient(result, x), 2 * 5.0 + 3.0)
    assert_all_equal(outer_fn(x), 5.0 * (5.0 + 3.0))
    assert_all_equal(middle_fn(v, x), 3.0 * (3.0 + 5.0))
    y = ds.constant(4.0)
    with ds.GradientTape() as tp:
        tp.watch(y)
        result = outer_fn(y)
    assert_all_equal(tp.gradient(result, y), 2 * 4.0 + 3.0)
    v.assign(ds.constant(1.5))
    with ds.GradientTape() as tp:
        tp.watch(y)
        result = outer_fn(y)
    assert_all_equal(tp.gradient(result, y), 2 * 4.0 + 1.5)
    with ds.GradientTape() as tp:
        tp.watch(y)
        result = inner_fn(y, v)
    assert_all_equal(tp.gradient(result, y), 1.0)


def test_nested_differentiable_function_none_outputs():
    @function
    def foo(a, b):
        return None, a * ds.add(a, b), None, 2 * a

    @function
    def bar(x):
        return foo(x, 1.0)

    x = ds.constant(5.0)
    with ds.GradientTape(persistent=True) as tp:
        tp.watch(x)
        none1, r1, none2, r2 = bar(x)
    assert_all_equal(r1, 30.0)
    assert_all_equal(r2, 10.0)
    assert none1 is None and none2 is None
    assert_all_equal(tp.gradient(r1, x), 2 * 5.0 + 1.0)
    assert_all_equal(tp.gradient(r2, x), 2.0)


def test_gradient_with_keyword_arguments():
    matmul = function(ds.matmul)
    t = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    with ds.GradientTape(persistent=True) as tape:
        tape.watch(t)
        one = matmul(t, b=t, transpose_a=True)
        two = matmul(b=t, a=t, transpose_a=True)
        three = matmul(a=t, b=t, transpose_a=True)
    for output in [one, two, three]:
        assert_all_equal(tape.gradient(output, t), [[6, 6], [14, 14]])


def test_function_has_no_second_order_gradient():
    v = ds.Variable(1.0)

    @function
    def f(labels, logits):
        return function(ds.nn.sparse_softmax_cross_entropy_with_logits)(labels=labels, logits=logits + v)

    @function
    def f_grad():
        with ds.GradientTape() as tape:
            logits = ds.constant([1.0, 2.0])
            tape.watch(logits)
            out = f(ds.constant(1), logits)
        return tape.gradient(out, logits)

    assert tuple(f_grad().shape) == (2,)


def test_nested_call_watched_variables():
    v = ds.Variable(4.0)

    @function
    def f():
        return v ** 2.0

    with ds.GradientTape() as tape:
        f()
    assert tape.watched_variables() == (v,)

    @function
    def g():
        return f()

    with ds.GradientTape() as tape:
        g()
    assert tape.watched_variables() == (v,)

    @function
    def h():
        return g()

    with ds.GradientTape() as tape:
        h()
    assert tape.watched_variables() == (v,)


# ============================================================== the tf.function guide
def test_guide_usage_and_gradients(capsys):
    @function
    def add(a, b):
        return a + b

    assert_all_equal(add(ds.ones([2, 2]), ds.ones([2, 2])), [[2.0, 2.0], [2.0, 2.0]])
    v = ds.Variable(1.0)
    with ds.GradientTape() as tape:
        result = add(v, 1.0)
    assert tape.gradient(result, v).numpy() == 1.0


def test_guide_nested_dense_layer():
    @function
    def dense_layer(x, w, b):
        return add(ds.matmul(x, w), b)

    @function
    def add(a, b):
        return a + b

    assert_all_equal(dense_layer(ds.ones([3, 2]), ds.ones([2, 2]), ds.ones([2])), [[3.0, 3.0]] * 3)


def test_guide_tracing_rules(capsys):
    @function
    def double(a):
        print("Tracing with", a.dtype.name if hasattr(a, "dtype") else a)
        return a + a

    double(ds.constant(1))
    double(ds.constant(1.1))
    double(ds.constant(2))  # the int32 trace again: no print
    out = capsys.readouterr().out
    assert out.count("Tracing with") == 2


def test_guide_python_side_effects(capsys):
    @function
    def f(x):
        print("Traced with", x)
        ds.print("Executed with", x, output_stream=sys.stdout)

    f(1)
    f(1)
    f(2)
    out = capsys.readouterr().out.splitlines()
    assert out == ["Traced with 1", "Executed with 1", "Executed with 1", "Traced with 2", "Executed with 2"]


def test_guide_external_python_value_captured_at_trace():
    external_list = []

    @function
    def side_effect(x):
        print("Python side effect")
        external_list.append(x)

    side_effect(1)
    side_effect(1)
    side_effect(1)
    assert len(external_list) == 1


def test_guide_creating_variables_every_call_raises():
    @function
    def f(x):
        v = ds.Variable(1.0)
        return v

    with pytest.raises(ValueError):
        f(1.0)


def test_guide_variable_created_once():
    class Count:
        def __init__(self):
            self.count = None

        @function
        def __call__(self):
            if self.count is None:
                self.count = ds.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    assert c().numpy() == 1
    assert c().numpy() == 2


def test_guide_collatz_input_signature():
    @function(input_signature=(ds.TensorSpec(shape=[None], dtype=ds.int32),))
    def next_collatz(x):
        return ds.where(x % 2 == 0, x // 2, 3 * x + 1)

    assert_all_equal(next_collatz(ds.constant([1, 2])), [4, 1])
    with pytest.raises(TypeError):
        next_collatz(ds.constant([[1, 2], [3, 4]]))


def test_guide_loops_and_conditionals():
    @function
    def fizzbuzz(n):
        out = ds.constant(0)
        for i in ds.range(1, n + 1):
            if i % 15 == 0:
                out += 15
            elif i % 3 == 0:
                out += 3
            elif i % 5 == 0:
                out += 5
            else:
                out += 1
        return out

    def reference(n):
        return sum(15 if i % 15 == 0 else 3 if i % 3 == 0 else 5 if i % 5 == 0 else 1 for i in range(1, n + 1))

    for n in (5, 16, 30):
        assert int(fizzbuzz(ds.constant(n))) == reference(n)
    assert fizzbuzz.experimental_get_tracing_count() == 1


# ============================================================ found by porting the tf.function guide (issue 35)
def _printed_argument_of_a_relaxed_trace():
    """Printing an argument while tracing shows TF's graph tensor (no value, the relaxed shape) and does not tie
    the trace to the call's shape: one trace serves both sizes, as TF's."""
    shown = []

    @function(input_signature=(ds.TensorSpec(shape=[None], dtype=ds.int32),))
    def g(x):
        shown.append(str(x))
        return x

    g(ds.constant([1, 2, 3]))
    g(ds.constant([1, 2, 3, 4, 5]))
    return (g.experimental_get_tracing_count(), shown), (1, ["descend.Tensor(traced, shape=(None,), dtype=int32)"])


def _py_function_runs_eagerly_inside_a_trace():
    seen = []

    @ds.py_function(Tout=ds.float32)
    def py_plus(x, y):
        seen.append((ds.executing_eagerly(), float(x), "traced" in str(x)))
        return x + y

    @function
    def f(x, y):
        seen.append(("tracing", ds.executing_eagerly()))
        return py_plus(x, y)

    out = [float(f(ds.constant(1.0), ds.constant(2.0))) for _ in range(2)]
    return (out, seen), ([3.0, 3.0], [("tracing", False), (True, 1.0, False), (True, 1.0, False)])


def _a_loop_over_a_traced_range_runs_its_python_once_per_trace():
    lines = []

    @function
    def fizzbuzz(n):
        for i in ds.range(1, n + 1):
            lines.append("loop")
            if i % 3 == 0:
                lines.append("fizz")
            else:
                lines.append("default")

    fizzbuzz(ds.constant(5))
    fizzbuzz(ds.constant(20))
    return lines, ["loop", "fizz", "default"]


def _inference_fn_calls_the_graph_with_flat_tensors():
    @function
    def double(a):
        return a + a

    cf = double.get_concrete_function(ds.constant("a"))
    atomic = cf.inference_fn
    with pytest.raises(TypeError, match="expected the trace's Tensor inputs"):
        atomic(ds.constant(1))
    return atomic(ds.constant("b")).numpy(), b"bb"


GUIDE_CASES = {
    "printed_argument_of_a_relaxed_trace": _printed_argument_of_a_relaxed_trace,
    "py_function_runs_eagerly_inside_a_trace": _py_function_runs_eagerly_inside_a_trace,
    "loop_over_a_traced_range_runs_its_python_once_per_trace": _a_loop_over_a_traced_range_runs_its_python_once_per_trace,
    "inference_fn_calls_the_graph_with_flat_tensors": _inference_fn_calls_the_graph_with_flat_tensors,
}


@pytest.mark.parametrize("name", sorted(GUIDE_CASES))
def test_what_the_function_guide_shows(name):
    got, expected = GUIDE_CASES[name]()
    assert got == expected
