"""The facades that load their names on first use (descend.api.lazy, PEP 562: the root, the packages layers,
distribute, optimizers and checkpoint, the modules nn and compat.v1.train): every public name still resolves, to
the object its defining module holds, `import descend` loads none of them, `descend train` reaches its first update without the modules it does not need, and what a module
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
LAZY_FACADES = ["descend", "descend.layers", "descend.distribute", "descend.optimizers", "descend.checkpoint",
                "descend.nn", "descend.compat.v1.train"]


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
        if isinstance(obj, types.ModuleType) and hasattr(module, "__path__"):  # a submodule the facade exports
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


# facade, name -> the module that defines it and its name there (written out here, not read from the tables)
DEFINED_IN = [
    ("descend", "Model", "descend.models", "Model"),
    ("descend", "function", "descend.compiler", "function"),
    ("descend", "constant_initializer", "descend.initializers", "Constant"),  # another name in its module
    ("descend", "random_uniform_initializer", "descend.initializers", "RandomUniform"),
    ("descend", "matrix_square_root", "descend.linalg", "sqrtm"),
    ("descend", "tuple", "descend.composites.higher_order", "tuple"),  # loaded, though not in __all__
    ("descend", "print", "descend.printing", "print"),
    ("descend", "TensorArray", "descend.ops.tensor_array", "TensorArray"),
    ("descend", "AggregationMethod", "descend.compat.v1.optimizer", "AggregationMethod"),
    ("descend", "keras", "descend", "keras"),  # a submodule
    ("descend", "compiler", "descend", "compiler"),  # a submodule, though not in __all__
    ("descend.nn", "RNNCellDropoutWrapper", "descend.layers.rnn_cell_wrappers", "RNNCellDropoutWrapper"),
    ("descend.nn", "RNNCellResidualWrapper", "descend.layers.rnn_cell_wrappers", "RNNCellResidualWrapper"),
    ("descend.compat.v1.train", "Saver", "descend.persistence.checkpoint.saver", "Saver"),
    ("descend.compat.v1.train", "init_from_checkpoint", "descend.persistence.checkpoint.tf_names",
     "init_from_checkpoint"),
    ("descend.layers", "MaxPool2D", "descend.layers.pooling", "MaxPooling2D"),
    ("descend.checkpoint", "Saver", "descend.persistence.checkpoint.saver", "Saver"),
]


@pytest.mark.parametrize("facade, name, module, attribute", DEFINED_IN)
def test_a_lazily_loaded_name_is_the_object_of_its_defining_module(facade, name, module, attribute):
    assert getattr(importlib.import_module(facade), name) is getattr(importlib.import_module(module), attribute)


def test_every_name_of_the_root_table_is_the_object_of_its_defining_module():
    import descend as ds

    assert len(ds._LAZY_NAMES) > 70
    for source, names in ds._LAZY.items():
        for entry in names:
            name, attribute = (entry, entry) if isinstance(entry, str) else entry
            assert getattr(ds, name) is getattr(importlib.import_module(f"descend.{source}"), attribute), name
            assert name in vars(ds), name  # the root binds what it loaded: the next look-up is a plain read


# facade -> the namespace of descend.api.exclusions whose names it refuses with the reason
REFUSING = [("descend", "tf"), ("descend.nn", "tf.nn"), ("descend.layers", "keras.layers")]


@pytest.mark.parametrize("facade, namespace", REFUSING)
def test_a_name_tf_or_keras_has_and_descend_leaves_out_still_says_why(facade, namespace):
    from descend.api.exclusions import EXCLUDED, refuse

    module = importlib.import_module(facade)
    for name in list(EXCLUDED[namespace])[:5]:
        expected = refuse(namespace, name, facade)
        with pytest.raises(type(expected)) as raised:
            getattr(module, name)
        assert str(raised.value) == str(expected) and "is not part of descend" in str(expected), name
        assert name not in dir(module), name


_FRESH = """
    import json, sys
    import descend as ds
    imported = set(sys.modules)
    listed = dir(ds)
    dir_imports = sorted(set(sys.modules) - imported)
    before = [name in vars(ds) for name in ("Model", "tuple")]
    ds.Model, ds.tuple
    after = [name in vars(ds) for name in ("Model", "tuple")]
    try:
        refused = str(ds.cli)  # descend.cli exists, but is not one of the root's submodules (until imported)
    except AttributeError as error:
        refused = str(error)
    import descend.nn, descend.compat.v1.train, descend.layers
    modules = set(sys.modules)
    descend.layers.Dense
    print(json.dumps({
        "loaded": sorted(set(sys.argv[1:]) & imported), "dir_imports": dir_imports,
        "missing_in_dir": sorted(set(ds.__all__) - set(listed)), "tuple_listed": "tuple" in listed,
        "before": before, "after": after, "refused": refused, "layers_bound": "Dense" in vars(descend.layers),
        "nn_train_loaded": sorted({"descend.layers.rnn_cell_wrappers", "descend.persistence.checkpoint.saver"}
                                  & modules)}))
"""

# modules a program that only does `import descend` (or imports descend.nn) never needs
LAZY_MODULES = ["descend.models", "descend.layers", "descend.layers.core", "descend.optimizers",
                "descend.optimizers.adam", "descend.compiler", "descend.composites.higher_order",
                "descend.initializers", "descend.layers.rnn_cell_wrappers", "descend.persistence.checkpoint.saver",
                "descend.keras", "descend.checkpoint", "descend.distribute"]


def test_import_descend_loads_no_lazy_module_and_the_root_binds_what_it_loads():
    result = _python(_FRESH, *LAZY_MODULES)
    assert result["loaded"] == [] and result["dir_imports"] == []  # import descend, dir(): the core alone
    assert result["missing_in_dir"] == [] and result["tuple_listed"]
    assert result["before"] == [False, False] and result["after"] == [True, True]  # the root caches (cache=True)
    assert result["refused"] == "module 'descend' has no attribute 'cli'"  # (submodules=: the root's own)
    assert result["layers_bound"] is False  # a package facade looks a name up each time
    assert result["nn_train_loaded"] == []  # descend.nn, descend.compat.v1.train: their lazy names not loaded yet


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


def test_the_helper_loads_a_renamed_attribute_caches_on_request_and_limits_the_submodules():
    import descend.layers  # noqa: F401 - the facade must be imported (its module calls lazy_facade)
    from descend.layers.core import Dense
    from descend.layers.pooling import MaxPooling2D

    module = types.ModuleType("descend._lazy_probe")  # a module facade: its names are relative to its folder
    sys.modules[module.__name__] = module
    try:
        getattr_, _, names = lazy_facade(module.__name__, {"layers.core": (("Fully", "Dense"), "Flatten")},
                                         cache=True)
        assert names == ["Fully", "Flatten"]
        assert getattr_("Fully") is Dense and module.Fully is Dense  # cache=True: bound in the facade
        with pytest.raises(AttributeError, match="module 'descend._lazy_probe' has no attribute 'core'"):
            getattr_("core")  # a module has no submodules
    finally:
        del sys.modules[module.__name__]
    getattr_, _, _ = lazy_facade("descend.layers", {"pooling": ("MaxPooling2D",)}, submodules=frozenset({"core"}))
    assert getattr_("MaxPooling2D") is MaxPooling2D and "MaxPooling2D" not in vars(sys.modules["descend.layers"])
    assert getattr_("core") is sys.modules["descend.layers.core"]
    with pytest.raises(AttributeError, match="has no attribute 'pooling'"):
        getattr_("pooling")  # a submodule the facade does not name


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


# ------------------------------------------------------------------------------------------------- one way
def test_no_module_loads_names_on_first_use_by_a_hand_written_getattr():
    """A module-level ``__getattr__`` is lazy_facade's, or a refusal that imports only descend.api.exclusions'
    ``refuse`` (issue 36: one way to load a name on first use)."""
    import ast
    import pathlib

    found = []
    for path in sorted(pathlib.Path(ROOT, "descend").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
                imports = [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
                if any(not (isinstance(n, ast.ImportFrom) and n.module in ("_api_exclusions", "api.exclusions"))
                       for n in imports) or "import_module" in ast.unparse(node):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == [], f"a hand-written lazy __getattr__ (use descend.api.lazy.lazy_facade): {found}"
