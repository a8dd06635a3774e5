"""The framework and ops layers import downwards only: no cycles, no op called by name.

The import graph is read from the source with ``ast`` (imports inside
functions count: a deferred import is a cycle postponed), and each module is
also imported first in a fresh interpreter, where a cycle would fail.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("descend.framework", "descend.ops")
# what each layer may import from descend, besides itself
ALLOWED_BELOW = {
    # (the registry of built-in objects imports nothing of descend: a Variable's initializer name is looked up there)
    "descend.framework": {"descend.backend", "descend.errors", "descend.persistence.registry"},
    "descend.ops": {"descend.backend", "descend.errors", "descend._native", "descend.framework"},
}


def _modules():
    out = {}
    for pkg in PACKAGES:
        folder = os.path.join(ROOT, *pkg.split("."))
        for fn in sorted(os.listdir(folder)):
            if fn.endswith(".py"):
                name = pkg if fn == "__init__.py" else f"{pkg}.{fn[:-3]}"
                out[name] = os.path.join(folder, fn)
    return out


MODULES = _modules()


def _is_module(name: str) -> bool:
    path = os.path.join(ROOT, *name.split("."))
    return os.path.isfile(path + ".py") or os.path.isfile(os.path.join(path, "__init__.py"))


def _imports(name: str, path: str) -> set[str]:
    """Every descend module ``name`` imports, at module level or inside functions."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    package = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("descend"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("descend"):
                continue
            for a in node.names:
                sub = f"{mod}.{a.name}"
                found.add(sub if _is_module(sub) else mod)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(mod: str) -> str | None:
    return next((p for p in PACKAGES if mod == p or mod.startswith(p + ".")), None)


def test_the_graph_was_read():
    # the checks below mean something only if the reader sees the imports we know of
    assert "descend.framework.tape" in GRAPH["descend.framework.op"]
    assert "descend.framework.ops_bridge" in GRAPH["descend.ops"]
    assert "descend.ops.core_ops" in GRAPH["descend.ops.array_ops"]


def test_each_layer_imports_only_itself_and_what_is_below():
    for mod, deps in GRAPH.items():
        layer = _layer(mod)
        for d in deps:
            if _layer(d) == layer:
                continue
            assert any(d == a or d.startswith(a + ".") for a in ALLOWED_BELOW[layer]), f"{mod} imports {d}"


def test_no_import_cycle_among_the_framework_and_ops_modules():
    # package __init__ files import their submodules; a submodule's import of its own package is not
    # an edge back (Python has already started the package)
    edges = {m: {d for d in deps if d in GRAPH and not (m.startswith(d + "."))} for m, deps in GRAPH.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in sorted(edges[m]):
            if state.get(d) == 1:
                cycle = stack[stack.index(d):] + [d]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)


def test_math_ops_and_array_ops_do_not_import_each_other_both_ways():
    assert "descend.ops.array_ops" in GRAPH["descend.ops.math_ops"]
    assert "descend.ops.math_ops" not in GRAPH["descend.ops.array_ops"]


def test_the_framework_calls_no_op_by_name():
    # OPS["..."] lookups were how the framework reached into the ops layer; they are gone
    for mod, path in MODULES.items():
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "OPS":
                is_store = isinstance(node.ctx, ast.Store)
                assert is_store and mod == "descend.framework.op", f"{mod}:{node.lineno} looks an op up by name"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_each_module_imports_first_in_a_fresh_interpreter(module):
    # importing a module before anything else exposes a cycle that a friendlier order would hide
    code = f"import {module}; import descend; descend.constant(1.0) * 2.0"
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
