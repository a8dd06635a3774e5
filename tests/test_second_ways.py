"""Issue 36's second ways, gone: the built-in losses and metrics share one config-from-arguments class, and a
strategy's replica sums metric states in one place (for results and for checkpoints alike)."""
from __future__ import annotations

import inspect
import types

import numpy as np
import pytest

import descend as ds
from descend.distribute.strategy_replica import StrategyReplica
from descend.losses import keras_losses
from descend.metrics import keras_metrics


@pytest.mark.parametrize("method", ["__init__", "get_config", "from_config", "__repr__"])
def test_builtin_losses_and_metrics_share_one_class(method):
    one = inspect.getattr_static(keras_losses.ConfigFromArguments, method)
    assert inspect.getattr_static(keras_losses._BuiltinLoss, method) is one
    assert inspect.getattr_static(keras_metrics._BuiltinWrapper, method) is one


@pytest.mark.parametrize("obj, config, shown", [
    (ds.losses.Huber(delta=2.0, name="h"), {"name": "h", "reduction": "sum_over_batch_size", "delta": 2.0},
     "<Huber name='h' reduction='sum_over_batch_size'>"),
    (ds.losses.BinaryCrossentropy(from_logits=True), {"from_logits": True, "label_smoothing": 0.0, "axis": -1},
     "<BinaryCrossentropy name='binary_crossentropy' reduction='sum_over_batch_size'>"),
    (ds.metrics.TopKCategoricalAccuracy(k=3, name="top3"), {"name": "top3", "k": 3}, "<TopKCategoricalAccuracy name=top3>"),
    (ds.metrics.BinaryAccuracy(threshold=0.7), {"threshold": 0.7}, "<BinaryAccuracy name=binary_accuracy>"),
])
def test_builtin_config_is_the_arguments_and_the_repr_the_bases(obj, config, shown):
    got = obj.get_config()
    assert "fn" not in got
    assert {k: got[k] for k in config} == config
    assert repr(obj) == shown
    again = type(obj).from_config(got)
    assert again.get_config() == got


class _Exchange:
    """Two replicas: the other one holds the same values, so every sum is twice this one's."""

    def __init__(self):
        self.calls = []

    def exchange(self, arrays, names):
        self.calls.append(list(names))
        return [np.asarray(a) * 2 for a in arrays]


def _replica():
    strategy = types.SimpleNamespace(exchange=_Exchange(), num_replicas_in_sync=2, group=types.SimpleNamespace(rank=0))
    return StrategyReplica(strategy), strategy.exchange


def _metric():
    m = ds.metrics.Mean(name="m")
    m.update_state([1.0, 3.0])  # total 4, count 2
    return m


def test_results_sum_the_states_and_the_loss_in_one_exchange_and_restore_them():
    replica, exchange = _replica()
    m = _metric()
    logs, loss = replica.results([m], batch_loss=(0.5, 4))
    assert logs == {"m": 2.0}  # (2 * 4) / (2 * 2): sums, not a mean of means
    assert loss == 0.5
    assert exchange.calls == [["metric/m/total", "metric/m/count", "extra"]]
    assert [float(v.numpy()) for v in m.variables] == [4.0, 2.0]  # this replica's own states again


def test_summed_metrics_holds_the_sums_while_open_and_restores_after_an_error():
    replica, exchange = _replica()
    m = _metric()
    with pytest.raises(RuntimeError, match="write failed"):
        with replica.summed_metrics([m]):
            assert [float(v.numpy()) for v in m.variables] == [8.0, 4.0]
            raise RuntimeError("write failed")
    assert [float(v.numpy()) for v in m.variables] == [4.0, 2.0]
    assert exchange.calls == [["metric/m/total", "metric/m/count"]]
    with replica.summed_metrics([]):  # no state: no exchange
        pass
    assert len(exchange.calls) == 1


# ------------------------------------------------------------------------------ one convolution base class
from descend.layers import _conv_common  # noqa: E402
from descend.layers import conv as _conv_module  # noqa: E402

#: every convolution layer -> (arguments, input): all on the one base class, one argument check, one bias step
CONV_LAYERS = {
    ds.layers.Conv1D: ((2, 3), (1, 6, 2)),
    ds.layers.Conv2D: ((2, 3), (1, 5, 5, 2)),
    ds.layers.Conv3D: ((2, 3), (1, 4, 4, 4, 2)),
    ds.layers.Conv1DTranspose: ((2, 3), (1, 4, 2)),
    ds.layers.Conv2DTranspose: ((2, 3), (1, 4, 4, 2)),
    ds.layers.Conv3DTranspose: ((2, 3), (1, 3, 3, 3, 2)),
    ds.layers.DepthwiseConv1D: ((3,), (1, 6, 2)),
    ds.layers.DepthwiseConv2D: ((3,), (1, 5, 5, 2)),
    ds.layers.SeparableConv1D: ((2, 3), (1, 6, 2)),
    ds.layers.SeparableConv2D: ((2, 3), (1, 5, 5, 2)),
}


def test_every_convolution_layer_is_in_the_table():
    convs = {c for c in (getattr(ds.layers, n) for n in ds.layers.__all__) if isinstance(c, type) and issubclass(c, ds.layers.Layer)
             and "Conv" in c.__name__ and "LSTM" not in c.__name__ and not c.__name__.startswith("_")}
    assert convs == set(CONV_LAYERS)


@pytest.mark.parametrize("cls", list(CONV_LAYERS), ids=lambda c: c.__name__)
def test_convolution_layers_share_one_base_class(cls):
    args, shape = CONV_LAYERS[cls]
    assert issubclass(cls, _conv_common.ConvLayer)
    for method in ("check_input", "finish", "add_weight_of"):  # none writes its own
        assert inspect.getattr_static(cls, method) is vars(_conv_common.ConvLayer)[method]
    assert all(base is _conv_common.ConvLayer or not ({"check_input", "finish", "weight_args", "add_bias"}
                                                       & set(vars(base)))
               for base in cls.__mro__ if base.__module__.startswith("descend.layers"))
    layer = cls(*args, bias_initializer="ones")
    y = layer(np.zeros(shape, np.float32))
    assert np.all(np.asarray(y) == 1.0)  # the bias comes through the base's finish
    assert layer.bias_initializer is not None and cls.from_config(layer.get_config()).get_config() == layer.get_config()
    with pytest.raises(ValueError, match="The `strides` argument must be a tuple of"):
        cls(*args, strides=0)


def test_one_convolution_base_module():
    # the second base class and its own argument checks are gone from conv.py
    classes = [c for c in vars(_conv_module).values() if isinstance(c, type) and c.__module__ == _conv_module.__name__]
    assert all(issubclass(c, _conv_common.ConvLayer) for c in classes)
    assert not {"_sizes", "_incompatible", "WeightSpec"} & (set(vars(_conv_module)) | set(vars(_conv_common)))


# ------------------------------------------------------------------------------ registries filled by their modules
def test_the_default_kernel_backend_is_the_one_its_module_registers():
    import json
    import subprocess
    import sys

    code = ("import json\nfrom descend._native import backend\ntry:\n    backend.default()\n    before = None\n"
            "except RuntimeError as e:\n    before = str(e)\nfrom descend._native import cpu\n"
            "print(json.dumps([before, type(backend.default()).__name__]))")
    root = str(__import__("pathlib").Path(ds.__file__).parents[1])
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": root, "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr[-2000:]
    before, after = json.loads(run.stdout.strip().splitlines()[-1])
    assert "No kernel backend is registered" in before and after == "NumbaCPU"


@pytest.mark.parametrize("inner", [ds.optimizers.ScheduleFreeAdamW(0.01), ds.optimizers.Adam(0.02)],
                         ids=lambda o: type(o).__name__)
def test_loss_scale_config_names_its_inner_optimizer_through_the_registry(inner):
    opt = ds.optimizers.LossScaleOptimizer(inner)
    again = ds.optimizers.LossScaleOptimizer.from_config(opt.get_config())
    assert type(again.inner_optimizer) is type(inner) and again.get_config() == opt.get_config()
    with pytest.raises(ValueError, match="Unknown optimizer 'Nope'"):
        ds.optimizers.LossScaleOptimizer.from_config({**opt.get_config(), "inner_optimizer": {"class_name": "Nope"}})


def test_metric_functions_are_registered_and_a_wrapper_config_names_them():
    from descend.persistence.registry import builtin_objects

    fns = builtin_objects("metric_functions")
    assert fns["accuracy"] is ds.metrics.accuracy and fns["binary_accuracy"] is ds.metrics.binary_accuracy
    for fn in (ds.metrics.binary_accuracy, ds.losses.mean_squared_error):
        m = ds.metrics.MeanMetricWrapper(fn, name="w")
        assert ds.metrics.MeanMetricWrapper.from_config(m.get_config())._fn is fn


# ------------------------------------------------------------------------------ duplicated blocks, written once
from descend.initializers import keras_initializers as _inits  # noqa: E402
from descend.layers import preprocessing as _prep  # noqa: E402
from descend.ops import conv_more_ops as _conv_more  # noqa: E402
from descend.ops import elementwise_ops as _elementwise  # noqa: E402
from descend.ops import nn_extra_ops as _nn_extra  # noqa: E402

#: class -> the methods its base writes once for it (none of them its own)
SHARED_METHODS = {
    **{getattr(_inits, name): ("__init__", "get_config", "__call__") for name in _inits._PRESETS},
    _inits.RandomNormal: ("__init__", "get_config", "__call__"),
    _inits.TruncatedNormal: ("__init__", "get_config", "__call__"),
    ds.layers.RandomZoom: ("get_config", "call"),
    ds.layers.RandomTranslation: ("get_config", "call"),
    ds.layers.RandomRotation: ("call",),
    ds.layers.RandomContrast: ("__init__", "get_config", "call"),
    ds.layers.RandomBrightness: ("__init__", "get_config", "call"),
}


@pytest.mark.parametrize("cls", list(SHARED_METHODS), ids=lambda c: c.__name__)
def test_repeated_blocks_live_in_one_base(cls):
    assert not set(SHARED_METHODS[cls]) & set(vars(cls)), cls


def test_variance_scaling_presets_are_one_table():
    for name, (scale, mode, distribution, _) in _inits._PRESETS.items():
        init = getattr(ds.initializers, name)(seed=3)
        assert (init.scale, init.mode, init.distribution) == (scale, mode, distribution)
        assert init.get_config() == {"seed": 3} and type(init).__module__ == _inits.__name__
        same = ds.initializers.VarianceScaling(scale, mode, distribution, seed=3)((4, 5)).numpy()
        assert np.array_equal(init((4, 5)).numpy(), same)


def _defined_functions(module) -> set:
    import ast

    return {n.name for n in ast.walk(ast.parse(inspect.getsource(module))) if isinstance(n, ast.FunctionDef)}


def test_unary_elementwise_ops_are_table_rows():
    unary = ("tan", "acos", "asin", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erfc", "cbrt")
    assert not set(unary) & _defined_functions(_elementwise)  # no op written out as its own def
    for name in unary:
        op = getattr(_elementwise, name)
        assert op.__name__ == name and op.__doc__
        with pytest.raises(TypeError, match=f"{name}: `x` must be a floating tensor"):
            op(np.array([1, 2]))


def test_convolution_argument_checks_are_written_once():
    checks = "and filters must have rank"  # a convolution's input and filters, checked in _channels_last only
    assert inspect.getsource(_nn_extra).count(checks) == 0 and inspect.getsource(_conv_more).count(checks) == 0
    assert inspect.getsource(_conv_more).count("and {filters_name} must have rank") == 1
    for fn, args in ((ds.nn.conv3d, (np.zeros((1, 2, 2, 2, 1)), np.zeros((1, 1, 1, 1, 1)), 1, "SAME")),
                     (ds.nn.conv3d_transpose, (np.zeros((1, 2, 2, 2, 1)), np.zeros((1, 1, 1, 1, 1)), (1, 2, 2, 2, 1),
                                               1)),
                     (ds.nn.conv2d_transpose, (np.zeros((1, 2, 2, 1)), np.zeros((1, 1, 1, 1)), (1, 2, 2, 1))),
                     (ds.nn.depthwise_conv2d, (np.zeros((1, 2, 2, 1)), np.zeros((1, 1, 1, 1)), 1, "SAME"))):
        with pytest.raises(ValueError, match="data_format must be"):
            fn(*args, data_format="NWC")
        with pytest.raises(ValueError, match="must have rank"):
            fn(np.zeros((1, 2)), *args[1:])
