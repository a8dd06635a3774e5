"""descend.persistence, checked from its source: its floors import down only (deferred imports inside
functions and package ``__init__`` edges counted), and every file descend writes whole goes through
descend.persistence.durable (no temporary file, ``os.replace`` or hand-made temporary name elsewhere)."""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "descend"
PERSISTENCE = "descend.persistence"

# the floors of descend.persistence, lowest first: a module imports modules of its own floor or below, and
# outside the package only what its floor names
FLOORS = {
    # the bytes of files: durable writes, bounded reads, the errors, TensorFlow's and Keras' byte formats, the
    # table of built-in objects -- nothing of descend above them
    0: {"durable", "bounded_read", "checkpoint_errors", "registry", "formats", "formats.wire", "formats.crc32c",
        "formats.sstable", "formats.tf_bundle", "formats.keras_h5", "formats.keras_zip",
        "checkpoint.descend_format", "formats.tf_example"},
    # configs <-> objects (Keras' format): the framework's Tensor and Variable besides floor 0
    1: {"object_config"},
    # checkpoints: object graphs of layers, optimizers and Variables
    2: {"checkpoint", "checkpoint.trackable", "checkpoint.optimizer_protocol", "checkpoint.checkpoint",
        "checkpoint.collective", "checkpoint.manager", "checkpoint.reader", "checkpoint.saver",
        "checkpoint.tf_checkpoint", "checkpoint.tf_names", "checkpoint.tf_writer", "checkpoint.keras_layout",
        "checkpoint.checkpoint_state"},
    # whole models and training: model configs, Keras files, descend's model folders, BackupAndRestore
    # and TF's formats of tensors (tf.io's records and parsing, summaries, WAV files), which read and make them
    3: {"model_config", "keras_files", "keras_hooks", "model_saving", "backup", "tf_io", "summary_events",
        "formats.wav"},
}
FLOOR_OF = {f"{PERSISTENCE}.{name}": floor for floor, names in FLOORS.items() for name in names}
FLOOR_OF[PERSISTENCE] = 0
# what each floor may import from descend outside the package (prefixes); floor 3 stands above the rest
OUTSIDE = {0: (), 1: ("descend.framework",), 2: ("descend.framework", "descend.layers", "descend.optimizers")}


def _modules() -> dict[str, pathlib.Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = path
    return mods


MODULES = _modules()


def _imports(name: str) -> set[str]:
    """The descend modules ``name`` imports, at module level or inside functions, with every package whose
    ``__init__`` such an import runs."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = ".".join(base[:len(base) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else node.module or ""
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module for a in node.names]
        for target in targets:
            parts = target.split(".")
            found |= {".".join(parts[:k]) for k in range(2, len(parts) + 1) if ".".join(parts[:k]) in MODULES}
    found.discard(name)
    return found


def test_every_persistence_module_has_a_floor():
    inside = {m for m in MODULES if m == PERSISTENCE or m.startswith(PERSISTENCE + ".")}
    assert inside - set(FLOOR_OF) == set(), "give each new module of descend.persistence a floor in FLOORS"
    assert set(FLOOR_OF) - inside == set(), "FLOORS names modules that do not exist"


@pytest.mark.parametrize("name", sorted(FLOOR_OF))
def test_persistence_imports_point_down_its_floors(name):
    floor = FLOOR_OF[name]
    wrong = []
    for target in sorted(_imports(name)):
        if target in FLOOR_OF:
            if FLOOR_OF[target] > floor:
                wrong.append(f"{target} (floor {FLOOR_OF[target]})")
        elif floor < 3 and not target.startswith(OUTSIDE[floor]):
            wrong.append(f"{target} (outside descend.persistence)")
    assert wrong == [], f"{name} (floor {floor}) imports upward: {wrong}"


@pytest.mark.parametrize("name", [m for m in sorted(FLOOR_OF) if MODULES[m].name == "__init__.py"])
def test_persistence_package_inits_import_nothing(name):
    """Importing a low module runs its packages' ``__init__``: they import nothing, so no floor climbs there."""
    assert _imports(name) == set()


def test_the_import_direction_check_sees_deferred_and_package_imports():
    """The check is not blind: a deferred import inside a function and the package ``__init__`` an import runs
    are both found (here in modules known to have them)."""
    assert "descend.persistence.checkpoint.manager" in _imports("descend.persistence.checkpoint.reader")  # deferred
    assert "descend.persistence.checkpoint" in _imports("descend.persistence.checkpoint.reader")  # the package
    assert "descend.persistence.formats" in _imports("descend.persistence.checkpoint.reader")


# ---------------------------------------------------------------------------------------------------------------
# every file written whole goes through durable
# ---------------------------------------------------------------------------------------------------------------
DURABLE = "descend/persistence/durable.py"
#: (file, what) left outside durable on purpose, each with why it is not a file write
ALLOWED = {
    ("descend/persistence/keras_files.py", "import tempfile"):
        "an anonymous spool (TemporaryFile) for a weights file inflated from an archive: never named, never kept; "
        "a temporary folder (TemporaryDirectory) the layers' save_assets fill and load_assets read, removed after",
    ("descend/persistence/checkpoint/descend_format.py", "os.rename"):
        "inside a checkpoint's durable write: adopts the ranks' finished shard folders into its temporary folder, "
        "and puts back a checkpoint a killed write left moved aside",
    ("descend/cli/rundir.py", "os.rename"): "moves a corrupted checkpoint folder aside (nothing is written)",
    ("descend/cli/rundir.py", "os.replace"): "keeps an unreadable index aside as checkpoint.json.corrupted",
}
_MOVES = {("os", "replace"), ("os", "rename"), ("shutil", "move"), ("shutil", "copyfile"), ("shutil", "copy"),
          ("tempfile", "mkstemp"), ("tempfile", "NamedTemporaryFile")}


def _bypasses(source: str) -> list[tuple[int, str]]:
    """Where ``source`` makes a temporary file or moves one into place without durable: a ``tempfile`` import,
    ``os.replace``/``os.rename``/``shutil.move``/copies, or a hand-made temporary name (a ``.tmp``/``.part``
    string that is not a docstring)."""
    tree = ast.parse(source)
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "tempfile" for a in node.names) or \
                isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tempfile":
            found.append((node.lineno, "import tempfile"))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (node.value.id, node.attr) in _MOVES:
            found.append((node.lineno, f"{node.value.id}.{node.attr}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings and \
                (".tmp" in node.value or node.value.endswith(".part")):
            found.append((node.lineno, "temporary name"))
    return found


def test_every_file_write_goes_through_durable():
    seen, wrong = set(), []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == DURABLE:
            continue
        for line, what in _bypasses(path.read_text()):
            if (rel, what) in ALLOWED:
                seen.add((rel, what))
            else:
                wrong.append(f"{rel}:{line}: {what}")
    assert wrong == [], "write through descend.persistence.durable (replacing, atomic_replace_file, temp_dir...)"
    assert seen == set(ALLOWED), f"allowed bypasses no longer in the code (remove them): {set(ALLOWED) - seen}"


@pytest.mark.parametrize("source, what", [
    ("import tempfile\n", "import tempfile"),
    ("from tempfile import mkstemp\n", "import tempfile"),
    ("import os\ndef f(a, b):\n    os.replace(a, b)\n", "os.replace"),
    ("def f(p):\n    return p + '.tmp'\n", "temporary name"),
    ("def f(p):\n    return p + '.part'\n", "temporary name"),
])
def test_the_durable_check_finds_each_bypass(source, what):
    assert [w for _, w in _bypasses(source)] == [what]


def test_the_durable_check_ignores_docstrings():
    assert _bypasses('"""Writes x.tmp then os.replace."""\ndef f():\n    """>>> import tempfile"""\n') == []


# ---------------------------------------------------------------------------------------------------------------
# the registry of built-in objects: filled by the modules that define them, loaded at a kind's first look-up
# ---------------------------------------------------------------------------------------------------------------
_REGISTRY_RUN = r'''
import json, sys
import descend
from descend.persistence import registry
out = {"sharded_before": "descend.distribute.sharded" in sys.modules}
table = registry.builtin_objects("layers")
out["layers"] = [table["ShardedEmbedding"].__module__, table["Sequential"].__module__, table["Dense"].__module__]
out["sharded_after"] = "descend.distribute.sharded" in sys.modules
calls = []
registry.register_builtins("random", lambda: calls.append(1) or {"Later": int})
out["provider_calls_before_look_up"] = len(calls)
out["random"] = sorted(registry.builtin_objects("random"))
registry.builtin_objects("random")
out["provider_calls_after_two_look_ups"] = len(calls)
for bad in (lambda: registry.register_builtins("nope", {}), lambda: registry.register_builtins("random", 3),
            lambda: registry.builtin_objects("nope")):
    try:
        bad()
    except (ValueError, TypeError) as e:
        out.setdefault("errors", []).append(f"{type(e).__name__}: {e}")
print(json.dumps(out))
'''


def test_the_registry_is_filled_by_the_defining_modules_at_a_kinds_first_look_up():
    import json
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _REGISTRY_RUN], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["sharded_before"] is False  # `import descend` loads its namespaces lazily...
    assert out["layers"] == ["descend.distribute.sharded", "descend.models.model", "descend.layers.core"]
    assert out["sharded_after"] is True  # ...and the first look-up of a kind loads the modules registering it
    assert out["provider_calls_before_look_up"] == 0
    assert out["random"] == ["Later", "SeedGenerator"]  # a later registration joins the kind
    assert out["provider_calls_after_two_look_ups"] == 1  # a provider is read once
    assert out["errors"] == [
        "ValueError: Unknown kind of object 'nope'; expected one of " + str(
            ("layers", "activations", "initializers", "regularizers", "constraints", "losses", "metrics",
             "optimizers", "dtype_policies", "random", "metric_functions")),
        "TypeError: register_builtins('random', ...) expects a dict or a function returning one. Received: int",
        "ValueError: Unknown kind of object 'nope'; expected one of " + str(
            ("layers", "activations", "initializers", "regularizers", "constraints", "losses", "metrics",
             "optimizers", "dtype_policies", "random", "metric_functions")),
    ]


def test_one_name_lookup_mechanism():
    """The second and third ways are gone: the old look-up modules, and the class tables initializers,
    regularizers and constraints kept beside the registry (their ``deserialize`` reads the registry)."""
    assert not (PACKAGE / "_lookup.py").exists() and not (PACKAGE / "_serialization.py").exists()
    for name in ("initializers", "regularizers", "constraints"):
        text = "".join(p.read_text() for p in (PACKAGE / name).rglob("*.py"))
        assert "_CLASSES" not in text and f'register_builtins("{name}"' in text, name
