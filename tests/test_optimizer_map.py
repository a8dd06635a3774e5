"""``OptimizerMap``: Keras' lookup (exact key, then one whole-match pattern, then the default; two matching
patterns an error), mapping behaviour, configs, refusals, and a ``MultiOptimizer`` routed by it; the lookups are
checked against Keras' own OptimizerMap where Keras is installed."""

import numpy as np
import pytest

import descend as ds

O = ds.optimizers


def _map():
    sgd, adam, rms = O.SGD(0.1), O.Adam(0.1), O.RMSprop(0.1)
    m = O.OptimizerMap(default_optimizer=rms)
    m["encoder/layer_0/dense"] = adam
    m["encoder/.*"] = sgd
    m["decoder"] = adam
    return m, sgd, adam, rms


def test_lookup_rule():
    m, sgd, adam, rms = _map()
    assert m["encoder/layer_0/dense"] is adam  # the exact key first
    assert m["encoder/layer_0/attention/query"] is sgd  # then a whole match
    assert m["decoder/layer_0/dense"] is rms and m["decoder"] is adam  # "decoder" matches only itself
    assert m["xencoder/a"] is rms  # fullmatch, not search
    m["encoder/layer_1/.*"] = adam
    with pytest.raises(ValueError, match="Multiple optimizers"):
        m["encoder/layer_1/dense"]
    assert len(m) == 4 and list(m)[0] == "encoder/layer_0/dense"
    del m["encoder/layer_1/.*"]
    assert m["encoder/layer_1/dense"] is sgd and m.optimizers == [adam, sgd, rms]


def test_same_lookups_as_keras():
    keras = pytest.importorskip("keras")
    theirs = keras.optimizers.OptimizerMap(default_optimizer=keras.optimizers.RMSprop())
    theirs["encoder/layer_0/dense"] = keras.optimizers.Adam()
    theirs["encoder/.*"] = keras.optimizers.SGD()
    ours, *_ = _map()
    for key in ("encoder/layer_0/dense", "encoder/layer_0/attention/query", "decoder/x", "xencoder/a", "encoder/"):
        assert type(ours[key]).__name__ == type(theirs[key]).__name__, key


@pytest.mark.parametrize("bad", [
    lambda: O.OptimizerMap("sgd"), lambda: O.OptimizerMap(O.SGD(), optimizer_map=[("a", O.SGD())]),
    lambda: O.OptimizerMap(O.SGD(), {"a": "adam"}), lambda: O.OptimizerMap(O.SGD(), {3: O.SGD()}),
    lambda: O.OptimizerMap(O.SGD(), {"(": O.SGD()}),
    lambda: O.OptimizerMap(O.SGD(), {"a": O.LossScaleOptimizer(O.SGD())}),
])
def test_refusals(bad):
    with pytest.raises((TypeError, ValueError)):
        bad()
    m = O.OptimizerMap(O.SGD(), {"a": O.SGD()})
    with pytest.raises(ValueError, match="already exists"):
        m["a"] = O.Adam()


def test_config_round_trip():
    m = O.OptimizerMap(O.SGD(0.5), {"enc/.*": O.Adam(0.25)})
    again = O.OptimizerMap.from_config(m.get_config())
    assert type(again.default_optimizer) is O.SGD and again.default_optimizer.learning_rate == 0.5
    assert type(again["enc/x"]) is O.Adam and again["enc/x"].learning_rate == 0.25


def test_multi_optimizer_routes_by_the_map():
    sgd, adam = O.SGD(0.5), O.Adam(0.1)
    multi = O.MultiOptimizer(O.OptimizerMap(sgd, {"enc/.*": adam}))
    a, b = ds.Variable([1.0], name="enc/w"), ds.Variable([1.0], name="dec/w")
    multi.apply_gradients([(ds.constant([1.0]), a), (ds.constant([1.0]), b)])
    np.testing.assert_allclose(a.numpy(), [0.9], rtol=1e-5)  # Adam's first step: about lr * sign
    np.testing.assert_allclose(b.numpy(), [0.5])
    assert multi.route(a) is adam and multi.route(b) is sgd and set(map(id, multi.optimizers)) == {id(sgd), id(adam)}
