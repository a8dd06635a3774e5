"""TensorFlow's ``tf.function`` and ``GradientTape`` rules where descend used to differ (issues 34, 35, 38).

Each expectation was read off TensorFlow 2.21 running the same program (the tf.function guide's
examples and ``polymorphic_function_test.py``'s cases, ported with the import changed and written
anew here); the wrong result (``next`` of a Dataset iterator inside a function) comes first.
"""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest

import descend as ds
from descend.errors import InvalidArgumentError, OutOfRangeError

function = ds.function


# ============================================================== Dataset iterators and loops (issue 35)
def test_next_of_a_dataset_iterator_takes_the_next_element_on_every_call():
    @function
    def good_consume_next(iterator):
        return next(iterator)

    iterator = iter(ds.data.Dataset.from_tensor_slices([1, 2, 3]))
    assert [int(good_consume_next(iterator)) for _ in range(3)] == [1, 2, 3]  # TF: 1, 2, 3 (not 1, 1, 1)
    with pytest.raises(OutOfRangeError, match="End of sequence"):
        good_consume_next(iterator)


def test_several_next_calls_in_one_function_and_a_dry_trace_that_takes_nothing():
    @function
    def pair(iterator):
        a = next(iterator)
        b = next(iterator)
        return a * 10 + b

    iterator = iter(ds.data.Dataset.range(6))
    concrete = pair.get_concrete_function(iterator)  # traces without taking an element
    assert [int(concrete(iterator)) for _ in range(2)] == [1, 23]
    assert int(pair(iterator)) == 45
    assert concrete.plan() is not None  # the calls ran the compiled plan, whose node takes the elements


def test_a_loop_over_an_iterator_the_function_received():
    @function
    def consume(iterator):
        s = ds.constant(0, ds.int64)
        for x in iterator:  # AutoGraph: a loop in the plan over what is left of the iterator
            s += x
        return s

    data = ds.data.Dataset.range(5)
    assert int(consume(iter(data))) == 10
    partly = iter(data)
    next(partly), next(partly)
    assert int(consume(partly)) == 2 + 3 + 4


def _total_of(iterator):
    s = ds.constant(0, ds.int64)
    for x in iterator:  # not converted (a helper): Python's loop while tracing
        s += x
    return s


def test_a_python_loop_to_the_end_of_a_received_iterator_runs_eagerly_with_the_right_numbers():
    f = function(lambda iterator: _total_of(iterator))
    data = ds.data.Dataset.range(5)
    with pytest.warns(ds.compiler.FunctionEagerWarning, match="reaches the end of a Dataset iterator"):
        assert int(f(iter(data))) == 10
    iterator = iter(data)
    next(iterator)
    with pytest.warns(ds.compiler.FunctionEagerWarning):
        assert int(f(iterator)) == 1 + 2 + 3 + 4


def test_a_python_iterator_is_read_once_as_tf_reads_it():
    @function
    def buggy_consume_next(iterator):
        return next(iterator)

    iterator = iter([1, 2, 3])
    assert [int(buggy_consume_next(iterator)) for _ in range(3)] == [1, 1, 1]  # TF's guide: the same value


def _graph_size(f, *args) -> int:
    return len(f.get_concrete_function(*args).graph.as_graph_def().node)


def test_for_over_a_dataset_is_one_loop_in_the_plan_and_a_python_list_is_unrolled():
    @function
    def train(dataset):
        loss = ds.constant(0)
        for x, y in dataset:
            loss += ds.abs(y - x)
        return loss

    small, big = [(1, 1)] * 3, [(1, 1)] * 10
    assert _graph_size(train, big) > _graph_size(train, small)  # TF: 11 and 32 nodes
    small_ds = ds.data.Dataset.from_generator(lambda: [(1, 3)] * 3, (ds.int32, ds.int32))
    big_ds = ds.data.Dataset.from_generator(lambda: [(1, 3)] * 10, (ds.int32, ds.int32))
    assert _graph_size(train, small_ds) == _graph_size(train, big_ds)  # TF: 6 and 6
    ops = [n.op for n in train.get_concrete_function(big_ds).graph.as_graph_def().node]
    assert ops.count("While") == 1
    assert int(train(small_ds)) == 6 and int(train(big_ds)) == 20


def test_for_over_a_dataset_opens_a_new_epoch_on_every_call():
    epochs = []

    def gen():
        epochs.append(len(epochs))
        yield from ([float(len(epochs))] * 2)

    data = ds.data.Dataset.from_generator(gen, ds.float32)

    @function
    def total(dataset):
        s = ds.constant(0.0)
        for x in dataset:
            s += x
        return s

    assert [float(total(data)) for _ in range(3)] == [2.0, 4.0, 6.0]  # unrolled constants would give 2, 2, 2
    cf = total.get_concrete_function(data)
    assert cf.eager is None and cf.plan() is not None


def test_a_loop_over_batches_of_different_shapes_runs_eagerly_with_the_right_numbers():
    @function
    def total(dataset):
        s = ds.constant(0.0)
        for x in dataset:
            s += ds.reduce_sum(x)
        return s

    ragged = ds.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0, 4.0, 5.0]).batch(2)  # a last batch of 1
    with pytest.warns(ds.compiler.FunctionEagerWarning, match="change shape"):
        assert float(total(ragged)) == 15.0
    assert [float(total(ragged)) for _ in range(2)] == [15.0, 15.0]
    alike = ds.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0, 4.0, 5.0]).batch(2, drop_remainder=True)
    assert [float(total(alike)) for _ in range(2)] == [10.0, 10.0]
    assert total.get_concrete_function(alike).eager is None


@pytest.mark.parametrize("make,expected", [
    (lambda: ds.data.Dataset.from_generator(lambda: [(1, 2.5)], (ds.int32, ds.float32)),
     [(1, "int32"), (2.5, "float32")]),
    (lambda: ds.data.Dataset.from_generator(lambda: [[1, 2]], ds.int64, (2,)), [([1, 2], "int64")]),
    (lambda: ds.data.Dataset.from_generator(lambda: [{"a": 1}], {"a": ds.float64}), [(1.0, "float64")]),
    (lambda: ds.data.Dataset.from_generator(
        lambda: [(1, [1.0, 2.0])], output_signature=(ds.TensorSpec((), ds.int32), ds.TensorSpec((None,), ds.float32))),
     [(1, "int32"), ([1.0, 2.0], "float32")]),
])
def test_from_generator_takes_output_types_as_its_second_argument(make, expected):
    element = next(iter(make()))
    leaves = list(element.values()) if isinstance(element, dict) else list(element) if isinstance(element, tuple) \
        else [element]
    assert [(t.numpy().tolist(), t.dtype.name) for t in leaves] == expected


@pytest.mark.parametrize("make,error,match", [
    (lambda: ds.data.Dataset.from_generator(lambda: [[1, 2, 3]], ds.int32, (2,)), InvalidArgumentError,
     r"shape \(3,\) where an element of shape \(2,\)"),
    (lambda: ds.data.Dataset.from_generator(lambda: [(1, 2, 3)], (ds.int32, ds.int32)), TypeError,
     "did not match the expected structure"),
    (lambda: ds.data.Dataset.from_generator(lambda: ["x"], ds.int32), TypeError,
     "could not be converted to the expected type"),
])
def test_from_generator_checks_what_the_generator_yields(make, error, match):
    with pytest.raises(error, match=match):
        next(iter(make()))


def test_from_generator_still_takes_args_by_keyword():
    d = ds.data.Dataset.from_generator(lambda n: range(n), args=(3,))
    assert [int(x) for x in d] == [0, 1, 2]


# ============================================================== AutoGraph (issue 34 item 3)
def test_an_if_elif_chain_is_traced_in_source_order():
    order = []

    @function
    def f(x):
        if x > 0:
            order.append("a")
            y = x
        elif x < -1:
            order.append("b")
            y = -x
        else:
            order.append("c")
            y = x * 0
        return y

    assert [int(f(ds.constant(v))) for v in (1, -5, -1)] == [1, 5, 0]
    assert order == ["a", "b", "c"]  # TF traces every branch, in the order they are written


def test_a_while_with_no_loop_variables():
    v = ds.Variable(0)

    @function
    def count_up():
        while v < 3:
            v.assign_add(1)

    count_up()
    assert int(v.numpy()) == 3
    v.assign(-2)
    count_up()  # the loop is in the plan: it runs again on the new value
    assert int(v.numpy()) == 3


def test_a_variable_defined_in_one_branch_only():
    @function
    def f(x):
        if x > 0:
            z = x
        return z  # noqa: F821

    with pytest.raises(ValueError, match="'z' must also be initialized in the else branch"):
        f(ds.constant(1))


def _only_in_else(x):
    if x > 0:
        pass
    else:
        z = x
    return z  # noqa: F821


def _clashing_dtypes(x):
    if x > 0:
        z = 1.0
    else:
        z = x
    return z


@pytest.mark.parametrize("fn,error,match", [
    (_only_in_else, ValueError, "'z' must also be initialized in the main branch"),
    (_clashing_dtypes, TypeError, "'z' has dtype float32 in the main branch, but dtype int32 in the else branch"),
])
def test_what_the_branches_of_an_if_must_agree_on(fn, error, match):
    with pytest.raises(error, match=match):
        function(fn)(ds.constant(1))


def test_a_variable_first_assigned_in_a_traced_loop():
    @function
    def last_positive(x):
        while x > 0:
            z = x
            x = x - 1
        return z  # noqa: F821

    assert int(last_positive(ds.constant(3))) == 1  # TF: 1 (z enters the loop as zeros of its type)
    assert int(last_positive(ds.constant(5))) == 1


def test_a_loop_variable_passed_through_as_another_in_the_compiled_loop():
    @function
    def last_positive(x):
        z = ds.constant(0)
        while x > 0:
            z = x  # z takes x's value before x changes (the plan must not read x's new buffer)
            x = x - 1
        return z

    assert [int(last_positive(ds.constant(n))) for n in (3, 3, 4)] == [1, 1, 1]


def test_a_recursive_function_on_a_tensor_raises_as_tf_does():
    @function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        else:
            return 1

    with pytest.raises(Exception):  # noqa: B017 - TF's guide asserts just this (TF: StagingError)
        recursive_fn(ds.constant(5))


# ============================================================== Variables created after the first call
def test_creating_variables_on_a_later_trace_raises_tf_value_error():
    state = []

    @function
    def fn(x):
        state.append(ds.Variable(1.0))
        return state[-1] + x

    with pytest.raises(ValueError, match="only supports singleton Variables created on the first call"):
        for i in range(3):
            fn(i)
    assert len(state) == 1  # (the second Variable raised as it was made)


def test_a_second_optimizer_in_one_function_raises_tf_value_error_before_it_updates():
    opt1 = ds.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = ds.keras.optimizers.Adam(learning_rate=1e-3)

    @function
    def train_step(w, x, y, optimizer):
        with ds.GradientTape() as tape:
            loss = ds.reduce_sum(ds.square(w * x - y))
        gradients = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip(gradients, [w]))

    w = ds.Variable(2.0)
    x, y = ds.constant([-1.0]), ds.constant([2.0])
    train_step(w, x, y, opt1)
    after_first = w.numpy().copy()
    with pytest.raises(ValueError, match="only supports singleton Variables created on the first call"):
        train_step(w, x, y, opt2)
    np.testing.assert_array_equal(w.numpy(), after_first)


# ============================================================== binding inputs
@pytest.mark.parametrize("call", [
    lambda f: f(ds.constant(1.0)),
    lambda f: f([1.0]),
    lambda f: f((ds.constant(1.0), ds.constant(2.0))),
    lambda f: f([ds.constant(1.0), ds.constant(2.0), ds.constant(3.0)]),
    lambda f: f({"a": ds.constant(1.0)}),
])
@pytest.mark.parametrize("how", ["input_signature", "concrete"])
def test_a_wrong_input_structure_is_a_type_error(call, how):
    def first(a):
        return a[0]

    if how == "input_signature":
        f = function(first, input_signature=[[ds.TensorSpec([], ds.float32), ds.TensorSpec([], ds.float32)]])
    else:
        traced = function(first)
        f = traced.get_concrete_function([ds.constant(1.0), ds.constant(2.0)])
    with pytest.raises(TypeError, match="Binding inputs to function failed"):
        call(f)


def test_a_concrete_function_takes_its_tensors_flat_and_refuses_a_list_for_a_tensor():
    @function
    def first(a, b):
        return a + b[0]

    cf = first.get_concrete_function(ds.constant(1.0), [ds.constant(2.0)])
    assert float(cf(ds.constant(1.0), [ds.constant(5.0)])) == 6.0
    assert float(cf(ds.constant(1.0), ds.constant(5.0))) == 6.0  # TF's flat signature: the Tensors in order
    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(1,\).* to TensorSpec\(shape=\(\)"):
        cf([ds.constant(1.0)], [ds.constant(5.0)])  # TF: a list where the trace had a Tensor
    with pytest.raises(TypeError, match="Binding inputs to function failed"):
        cf(ds.constant(1.0), [ds.constant(5.0), ds.constant(6.0)])


def test_a_concrete_function_traced_with_a_python_value_refuses_another():
    @function
    def pow_(a, b):
        return a ** b

    square = pow_.get_concrete_function(a=ds.TensorSpec(None, ds.float32), b=2)
    assert float(square(ds.constant(10.0))) == 100.0
    assert float(square(ds.constant(10.0), b=2)) == 100.0
    with pytest.raises(TypeError, match=r"Can not cast 3 to Literal\[2\]"):
        square(ds.constant(10.0), b=3)
    with pytest.raises(InvalidArgumentError, match="expected to be a float32 tensor but is a int32 tensor"):
        square(ds.constant(10))
    assert square(ds.constant([[3.0]])).numpy().tolist() == [[9.0]]
    assert pow_(ds.constant([4.0, 5.0]), 2).numpy().tolist() == [16.0, 25.0]
    assert pow_.experimental_get_tracing_count() == 1  # TF: the TensorSpec(None) trace serves every shape


def test_a_concrete_function_refuses_another_dtype_as_tf_kernels_do():
    @function
    def double(a):
        return a + a

    double_floats = double.get_concrete_function(ds.constant(1.0))
    assert double_floats(ds.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]  # another shape runs (TF too)
    with pytest.raises(InvalidArgumentError, match=r"input #0\(zero-based\) was expected to be a float32 tensor"):
        double_floats(ds.constant(1))


def test_a_concrete_function_keeps_working_after_its_function_is_gone():
    def make():
        return function(lambda x: x * 2.0).get_concrete_function(ds.constant(1.0))

    concrete = make()
    gc.collect()
    assert float(concrete(ds.constant(3.0))) == 6.0
    assert concrete(ds.constant([3.0, 4.0])).numpy().tolist() == [6.0, 8.0]  # another shape traces again
    assert concrete.function is concrete.function


def test_the_function_is_still_freed_without_its_concrete_functions():
    import weakref

    fn = function(lambda x: 2.0 * x)
    fn(ds.constant(4.0))
    weak = weakref.ref(fn)
    del fn
    assert weak() is None  # no reference cycle through the ConcreteFunctions it holds


# ============================================================== introspection (issue 35)
def test_tensor_specs_take_their_parameter_names():
    @function(input_signature=[ds.TensorSpec([None], ds.float32)])
    def h(xx):
        return xx

    assert h.get_concrete_function().structured_input_signature == (
        (ds.TensorSpec((None,), ds.float32, name="xx"),), {})

    @function
    def nest(d, lst):
        return d["p"] * 2.0, lst[0]

    cf = nest.get_concrete_function({"p": ds.constant([1.0])}, [ds.constant(2)])
    assert cf.structured_input_signature == (
        ({"p": ds.TensorSpec((1,), ds.float32, name="d_p")}, [ds.TensorSpec((), ds.int32, name="lst_0")]), {})
    assert [n.name for n in cf.graph.as_graph_def().node if n.op == "Placeholder"] == ["d_p", "lst_0"]


def test_pretty_printed_concrete_signatures_and_function_type():
    @function
    def double(a):
        return a + a

    double(ds.constant(1))
    double(ds.constant(1.5))
    assert double.pretty_printed_concrete_signatures() == (
        "Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=int32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=int32, name=None)\n"
        "Captures:\n"
        "  None\n"
        "\n"
        "Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=float32, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=float32, name=None)\n"
        "Captures:\n"
        "  None")

    @function
    def pow_(a, b=2, *, c=3):
        return a ** b * c

    cf = pow_.get_concrete_function(ds.constant([1.0]), 2, c=4)
    assert str(cf.function_type) == ("(a: TensorSpec(shape=(1,), dtype=float32, name=None), b: Literal[2], *, "
                                     "c: Literal[4]) -> TensorSpec(shape=(1,), dtype=float32, name=None)")
    assert list(cf.function_type.parameters) == ["a", "b", "c"]
    assert str(cf).startswith("ConcreteFunction Input Parameters:\n  a (POSITIONAL_OR_KEYWORD)")


def test_captured_variables_are_listed():
    v = ds.Variable(1.0, name="counter")

    @function
    def bump(x):
        v.assign_add(x)
        return v * 2.0

    text = bump.get_concrete_function(ds.constant(1.0)).pretty_printed_signature()
    assert text.endswith("Captures:\n  counter: VariableSpec(shape=(), dtype=float32)")


def test_as_graph_def_lists_what_the_trace_runs():
    @function
    def double(a):
        return a + a

    graph = double.get_concrete_function(ds.constant(1.0)).graph
    assert [(n.input, n.name, n.op) for n in graph.as_graph_def().node] == [
        ([], "a", "Placeholder"), (["a", "a"], "add", "add"), (["add"], "Identity", "Identity")]

    @function
    def loop(n):
        i = ds.constant(0)
        while i < n:
            i += 1
        return i

    graph_def = loop.get_concrete_function(ds.constant(3)).graph.as_graph_def()
    assert [n.op for n in graph_def.node].count("While") == 1
    body = [name for name in graph_def.library if name.endswith("_body")]
    assert len(body) == 1 and "add" in [n.op for n in graph_def.library[body[0]].node]


# ============================================================== GradientTape (issues 35 and 38)
def test_a_second_gradient_on_a_non_persistent_tape_says_what_tf_says():
    x = ds.constant(1.0)
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="GradientTape.gradient can only be called once on non-persistent tapes"):
        tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used to compute one set"):
        tape.gradient(y, x)


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_a_watched_integer_tensor_has_no_gradient_with_tf_warning(dtype):
    x = ds.constant(10, dtype=dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ds.GradientTape() as g:
            g.watch(x)
            y = x * x
        assert g.gradient(y, x) is None
    messages = [str(w.message) for w in caught]
    assert any(f"The dtype of the watched tensor must be floating (e.g. float32), got {dtype}" in m for m in messages)
    assert any("The dtype of the source tensor must be floating" in m for m in messages)


def test_an_integer_source_next_to_a_float_one():
    a, b = ds.constant(2.0), ds.constant(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ds.GradientTape() as g:
            g.watch([a, b])
            y = a * a * ds.cast(b, ds.float32)
        ga, gb = g.gradient(y, [a, b])
    assert float(ga) == 12.0 and gb is None


# ============================================================== the tracing protocol (issue 35)
class _FruitTraceType(ds.types.experimental.TraceType):
    def __init__(self, fruit):
        self.fruit_type = type(fruit)
        self.fruit_value = fruit

    def is_subtype_of(self, other):
        return type(other) is _FruitTraceType and self.fruit_type is other.fruit_type

    def most_specific_common_supertype(self, others):
        return self if all(self == other for other in others) else None

    def placeholder_value(self, placeholder_context=None):
        return self.fruit_value

    def __eq__(self, other):
        return type(other) is _FruitTraceType and self.fruit_type == other.fruit_type

    def __hash__(self):
        return hash(self.fruit_type)


class _FruitWithTraceType:
    def __tf_tracing_type__(self, context):
        return _FruitTraceType(self)


class _Apple(_FruitWithTraceType):
    flavor = ds.constant([1, 2])


class _Mango(_FruitWithTraceType):
    flavor = ds.constant([3, 4])


class _PlainApple:
    flavor = ds.constant([1, 2])


def test_the_tracing_protocol_decides_which_calls_share_a_trace():
    @function
    def get_mixed_flavor(fruit_a, fruit_b):
        return fruit_a.flavor + fruit_b.flavor

    get_mixed_flavor(_PlainApple(), _PlainApple())
    get_mixed_flavor(_PlainApple(), _PlainApple())
    assert get_mixed_flavor.experimental_get_tracing_count() == 2  # new objects, new traces (TF's guide)
    assert get_mixed_flavor(_Apple(), _Mango()).numpy().tolist() == [4, 6]
    assert get_mixed_flavor(_Apple(), _Mango()).numpy().tolist() == [4, 6]
    assert get_mixed_flavor.experimental_get_tracing_count() == 3  # equal trace types: one trace
    assert get_mixed_flavor(_Mango(), _Mango()).numpy().tolist() == [6, 8]
    assert get_mixed_flavor.experimental_get_tracing_count() == 4


def test_a_tracing_type_must_be_a_hashable_trace_type():
    class Bad:
        def __tf_tracing_type__(self, context):
            return 3

    @function
    def f(x):
        return ds.constant(1.0)

    with pytest.raises(TypeError, match="must return a types.experimental.TraceType"):
        f(Bad())


# ============================================================== traces that serve several shapes (issue 34 item 3)
def test_reduce_retracing_relaxes_the_second_trace_and_reuses_it():
    traced = []

    @function(reduce_retracing=True)
    def g(x):
        traced.append(x.dtype.name)
        return x * 2

    counts = []
    for v in ([1, 2], [1, 2, 3], [1, 2, 3, 4], [5]):
        assert g(ds.constant(v)).numpy().tolist() == [2 * a for a in v]
        counts.append(g.experimental_get_tracing_count())
    assert counts == [1, 2, 2, 2]  # TF 2.21: (2,), then (None,), which serves (4,) and (1,)
    assert traced == ["int32", "int32"]  # the Python ran twice


def test_a_relaxed_trace_writes_and_prints_on_every_call(capfd):
    v = ds.Variable(0.0)

    @function(reduce_retracing=True)
    def acc(x):
        v.assign_add(ds.reduce_sum(x))
        ds.print("total", v)
        return v + 0.0

    got = [float(acc(ds.constant(a))) for a in ([1.0], [1.0, 2.0], [1.0, 2.0, 3.0], [4.0, 4.0, 4.0, 4.0])]
    assert got == [1.0, 4.0, 10.0, 26.0]
    assert acc.experimental_get_tracing_count() == 2
    out = capfd.readouterr()
    assert (out.out + out.err).count("total") == 4


def test_none_dimensions_of_an_input_signature_take_one_trace():
    traced = []

    @function(input_signature=(ds.TensorSpec(shape=[None], dtype=ds.int32),))
    def next_collatz(x):
        traced.append(1)
        return ds.where(x % 2 == 0, x // 2, 3 * x + 1)

    assert next_collatz(ds.constant([1, 2])).numpy().tolist() == [4, 1]
    assert next_collatz(ds.constant([3, 4, 5])).numpy().tolist() == [10, 2, 16]
    assert next_collatz(ds.constant([7])).numpy().tolist() == [22]
    assert next_collatz.experimental_get_tracing_count() == 1 and len(traced) == 1
    with pytest.raises(TypeError):
        next_collatz(ds.constant([[1, 2], [3, 4]]))  # a 1-D signature (TF's guide)


def test_the_relaxed_trace_sees_none_dimensions_as_tf_shows_them():
    seen = []

    @function(reduce_retracing=True)
    def g(x):
        seen.append((x.shape, x.get_shape(), x.ndim))
        return x

    for v in ([1, 2, 3], list(range(9)), list(range(10))):
        g(ds.constant(v))
    assert seen == [((3,), (3,), 1), ((None,), (None,), 1)]  # TF's guide: "(3,)" then "(None,)"
    assert g.experimental_get_tracing_count() == 2


def test_a_none_dimension_used_as_a_size_is_tf_type_error():
    @function(reduce_retracing=True)
    def column(x):
        return ds.reshape(x, (x.shape[0], 1))

    assert column(ds.constant([1, 2])).numpy().tolist() == [[1], [2]]
    with pytest.raises(TypeError):  # TF: "Failed to convert elements of (None, 1) to Tensor"
        column(ds.constant([1, 2, 3]))


def test_a_trace_whose_numbers_depend_on_a_shape_serves_only_its_own_shape():
    @function(reduce_retracing=True)
    def column(x):
        n = int(ds.size(x))  # descend computes the size from this call's values ...
        return ds.reshape(x, (n, 1))

    for n in (2, 3, 4):
        assert column(ds.range(n)).numpy().tolist() == [[k] for k in range(n)]
    assert column.experimental_get_tracing_count() == 3  # ... so each shape gets its own trace, never a wrong one


def test_a_rank_change_relaxes_to_an_unknown_shape():
    @function(reduce_retracing=True)
    def total(x):
        return ds.reduce_sum(x)

    for v in ([1.0], [[1.0, 2.0]], [[[1.0, 2.0, 3.0]]], [1.0, 2.0]):
        assert float(total(ds.constant(v))) == float(np.sum(v))
    assert total.experimental_get_tracing_count() == 2
