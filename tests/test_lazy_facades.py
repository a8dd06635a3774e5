"""The package facades that load their names on first use (descend.api.lazy, PEP 562): every public name still
resolves, `descend train` reaches its first update without the modules it does not need, and what a module
registers when it is imported is there when it is asked for (a config naming a lazily loaded layer, the
operators of a symbolic Input)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
import types

import pytest

from descend.api.lazy import lazy_facade

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAZY_FACADES = ["descend.layers", "descend.distribute", "descend.optimizers", "descend.checkpoint"]


def _python(code: str, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DESCEND_DISABLE_FUSED")}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                         env={**env, "PYTHONPATH": ROOT, "MPLBACKEND": "Agg"}, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------------------------------------- every name
@pytest.mark.parametrize("facade", LAZY_FACADES)
def test_every_name_of_a_lazy_facade_resolves_by_attribute_by_import_and_in_dir(facade):
    module = importlib.import_module(facade)
    assert module.__all__ and len(set(module.__all__)) == len(module.__all__)
    listed = set(dir(module))
    for name in module.__all__:
        obj = getattr(module, name)
        assert getattr(module, name) is obj, name  # looked up each time, the same object
        if isinstance(obj, types.ModuleType):  # a submodule the facade exports
            assert obj.__name__ == f"{facade}.{name}", name
        ns = {}
        exec(f"from {facade} import {name}", ns)  # noqa: S102 - the statement a user writes
        assert ns[name] is obj, name
        assert name in listed, name


@pytest.mark.parametrize("facade", LAZY_FACADES)
def test_a_missing_name_of_a_lazy_facade_is_an_attribute_error(facade):
    module = importlib.import_module(facade)
    with pytest.raises(AttributeError, match="no_such_name"):
        module.no_such_name  # noqa: B018
    assert not hasattr(module, "no_such_name")
    with pytest.raises(ImportError):
        exec(f"from {facade} import no_such_name", {})  # noqa: S102


def test_a_name_keras_has_and_descend_leaves_out_still_says_why():
    import descend.layers as layers
    from descend.api.exclusions import EXCLUDED

    name = next(iter(EXCLUDED["keras.layers"]))
    with pytest.raises(AttributeError, match="is not part of descend"):
        getattr(layers, name)


def test_star_import_of_a_lazy_facade_gives_every_name():
    for facade in LAZY_FACADES:
        ns = {}
        exec(f"from {facade} import *", ns)  # noqa: S102
        assert set(importlib.import_module(facade).__all__) <= set(ns), facade


# ------------------------------------------------------------------------------------------------- the helper
def test_the_helper_refuses_a_table_that_exports_one_name_twice_or_aliases_nothing():
    with pytest.raises(ValueError, match="'Dense' is exported from both .a and .b"):
        lazy_facade("descend.layers", {"a": ("Dense",), "b": ("Dense",)})
    with pytest.raises(ValueError, match="alias 'X' must name an exported name"):
        lazy_facade("descend.layers", {"core": ("Dense",)}, aliases={"X": "Nope"})


def test_the_helper_loads_a_name_from_its_module_and_lists_names_and_aliases_in_order():
    getattr_, dir_, names = lazy_facade("descend.layers", {"core": ("Dense", "Flatten"), "pooling": ("MaxPooling2D",)},
                                        aliases={"MaxPool2D": "MaxPooling2D"})
    from descend.layers.core import Dense
    from descend.layers.pooling import MaxPooling2D

    assert names == ["Dense", "Flatten", "MaxPooling2D", "MaxPool2D"]
    assert getattr_("Dense") is Dense and getattr_("MaxPool2D") is MaxPooling2D
    assert getattr_("core") is sys.modules["descend.layers.core"]  # a submodule, as if imported
    assert {"Dense", "MaxPool2D"} <= set(dir_())


# ------------------------------------------------------------------------------------------- first update
# descend train in a fresh process: at its first update (the recorder's clock), which modules are loaded
_FIRST_UPDATE = """
    import json, sys
    from descend.cli import main, training

    seen = {}
    process_seconds = training.process_seconds
    def first_update():
        seen.setdefault("modules", sorted(sys.modules))
        return process_seconds()
    training.process_seconds = first_update
    code = main(["train", "--epochs", "1", "--max-steps", "1", "--out", sys.argv[1], *sys.argv[2:]])
    print(json.dumps({"code": code, "modules": seen["modules"]}))
"""

# what descend train on one process does not need before its first update (each was imported before it once)
NOT_BEFORE_FIRST_UPDATE = [
    "descend.distribute.sharded", "descend.distribute.horovod", "descend.distribute.zero",
    "descend.distribute.strategy",
    "descend.layers.conv", "descend.layers.rnn", "descend.layers.attention", "descend.layers.preprocessing",
    "descend.layers.text", "descend.image", "descend.strings",
    "descend.persistence.model_saving", "descend.persistence.keras_files", "descend.persistence.model_config",
    "descend.persistence.checkpoint.reader", "descend.optimizers.adafactor", "descend.optimizers.create",
]


@pytest.mark.parametrize("example", ["digits", "clicks"])
def test_descend_train_reaches_its_first_update_without_the_modules_it_does_not_need(tmp_path, example):
    result = _python(_FIRST_UPDATE, str(tmp_path / "run"), "--example", example)
    assert result["code"] == 0
    loaded = set(result["modules"])
    assert "descend.distribute.comm" in loaded and "descend.layers.core" in loaded  # what it does use
    assert sorted(loaded & set(NOT_BEFORE_FIRST_UPDATE)) == []


# ------------------------------------------------------------------------------------ registries and hooks
def test_a_config_naming_lazily_loaded_layers_and_optimizers_loads_in_a_fresh_process():
    result = _python("""
        import json
        import descend as ds
        from descend.persistence.object_config import deserialize_keras_object
        config = {"class_name": "Sequential", "config": {"name": "s", "layers": [
            {"class_name": "InputLayer", "config": {"batch_shape": [None, 4], "name": "x"}},
            {"class_name": "ShardedEmbedding", "config": {"input_dim": 10, "output_dim": 3, "name": "e"}},
            {"class_name": "Conv1D", "config": {"filters": 2, "kernel_size": 1, "name": "c"}}]}}
        model = deserialize_keras_object(config)
        optimizers = [ds.optimizers.get("adafactor"), ds.optimizers.deserialize({"class_name": "ScheduleFreeAdamW",
                                                                                 "config": {}})]
        print(json.dumps({"layers": [type(layer).__module__ for layer in model.layers],
                          "optimizers": [type(o).__module__ for o in optimizers]}))
    """)
    assert result == {"layers": ["descend.distribute.sharded", "descend.layers.conv"],
                      "optimizers": ["descend.optimizers.adafactor", "descend.optimizers.schedule_free_adamw"]}


def test_the_operators_of_a_symbolic_input_work_in_a_fresh_process():
    # OpLambda registers itself as the layer an operator on a KerasTensor records, when its module is imported
    result = _python("""
        import json
        import descend as ds
        x = ds.layers.Input((3,))
        model = ds.Model(x, x * 2 + 1)
        print(json.dumps(model(ds.ones((1, 3))).numpy().tolist()))
    """)
    assert result == [[3.0, 3.0, 3.0]]
