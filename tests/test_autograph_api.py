"""``descend.autograph.to_code`` and ``descend.autograph.experimental.do_not_convert``."""

import ast

import numpy as np
import pytest

import descend as ds
from descend.compiler import autograph as helpers


def clip(x):
    if ds.reduce_sum(x) > 1.0:
        x = x / ds.reduce_sum(x)
    else:
        x = x * 2.0
    return x


def count_down(n):
    total = ds.constant(0)
    while n > 0:
        total = total + n
        n = n - 1
    return total


def plain(x):
    return x * 3.0


def _run_code(code, name, *args):
    """Run the source ``to_code`` gave, with ``ag__`` bound to descend's helpers, inside a descend.function."""
    space = {"ds": ds, "ag__": helpers}
    exec(compile(code, "<to_code>", "exec"), space)  # the test's own string, produced by to_code
    return ds.function(space[name], autograph=False)(*args)


@pytest.mark.parametrize("fn,marker", [(clip, "ag__.if_stmt"), (count_down, "ag__.while_stmt")])
def test_to_code_is_the_converted_source(fn, marker):
    code = ds.autograph.to_code(fn)
    assert marker in code and "ag__.Undefined" not in code.split("\n")[0]
    tree = ast.parse(code)
    assert isinstance(tree.body[0], ast.FunctionDef) and tree.body[0].name == fn.__name__
    # the code runs as the function runs under descend.function (autograph off: the code is converted already)
    for args in ([ds.constant([3.0, 1.0])], [ds.constant([0.25, 0.5])]) if fn is clip else ([ds.constant(4)],):
        np.testing.assert_array_equal(_run_code(code, fn.__name__, *args).numpy(), ds.function(fn)(*args).numpy())


def test_to_code_of_a_function_with_nothing_to_convert_is_its_source():
    assert ds.autograph.to_code(plain) == "def plain(x):\n    return x * 3.0\n"


def test_to_code_takes_a_descend_function_and_a_method():
    f = ds.function(clip)
    assert ds.autograph.to_code(f) == ds.autograph.to_code(clip)

    class M(ds.Module):
        @ds.function
        def __call__(self, x):
            if x > 0:
                x = -x
            return x

    assert "ag__.if_stmt" in ds.autograph.to_code(M().__call__)


def test_to_code_matches_tf_in_kind():
    tf = pytest.importorskip("tensorflow")

    def tf_clip(x):
        if tf.reduce_sum(x) > 1.0:
            x = x / tf.reduce_sum(x)
        return x

    theirs, ours = tf.autograph.to_code(tf_clip), ds.autograph.to_code(clip)
    assert "if_stmt" in theirs and "if_stmt" in ours
    assert ast.parse(theirs).body[0].name == "tf__tf_clip" and ast.parse(ours).body[0].name == "clip"


BAD = [
    ("int", lambda: ds.autograph.to_code(3), TypeError, "Python function"),
    ("builtin", lambda: ds.autograph.to_code(len), TypeError, "Python function"),
    ("no_source", lambda: ds.autograph.to_code(_made_at_run_time()), ValueError, "source"),
    ("not_callable", lambda: ds.autograph.experimental.do_not_convert(3), TypeError, "function"),
]


def _made_at_run_time():
    space = {}
    exec("def g(x):\n    return x\n", space)
    return space["g"]


@pytest.mark.parametrize("label,call,error,match", BAD, ids=[b[0] for b in BAD])
def test_bad_inputs(label, call, error, match):
    with pytest.raises(error, match=match):
        call()


def _branchy(m):
    def f(x):
        if m.reduce_sum(x) > 0:
            return x
        return -x
    return f


@pytest.mark.parametrize("with_parens", [False, True])
def test_do_not_convert_keeps_python_control_flow(with_parens):
    raw = _branchy(ds)
    deco = ds.autograph.experimental.do_not_convert() if with_parens else ds.autograph.experimental.do_not_convert
    kept = ds.function(deco(raw))
    np.testing.assert_array_equal(ds.function(raw)(ds.constant([-1.0])).numpy(), [1.0])  # converted: works
    with pytest.raises(ds.errors.OperatorNotAllowedInGraphError):
        kept(ds.constant([-1.0]))
    assert deco(raw).__wrapped__ is raw
    assert ds.autograph.to_code(deco(raw)).startswith("def f(x):\n    if m.reduce_sum(x) > 0:")  # as it runs


def test_do_not_convert_as_tf():
    tf = pytest.importorskip("tensorflow")
    kept = tf.function(tf.autograph.experimental.do_not_convert(_branchy(tf)))
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        kept(tf.constant([-1.0]))
