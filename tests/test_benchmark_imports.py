"""The benchmarks import descend's names inside their workers (a process per group, MPI ranks), where a
renamed or moved name only shows when that benchmark runs: every ``from descend... import name`` in
``benchmarks/`` must resolve."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")


def _imports():
    for name in sorted(os.listdir(BENCH)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(BENCH, name)) as f:
            tree = ast.parse(f.read(), name)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "descend":
                for alias in node.names:
                    yield name, node.lineno, node.module, alias.name
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "descend":
                        yield name, node.lineno, alias.name, None


CASES = list(_imports())


def test_the_benchmarks_import_descend():
    assert len(CASES) >= 3  # (the walk finds the imports it is meant to check)


@pytest.mark.parametrize("where,line,module,name", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_every_descend_import_of_the_benchmarks_resolves(where, line, module, name):
    mod = importlib.import_module(module)
    if name is not None:
        assert hasattr(mod, name) or importlib.util.find_spec(f"{module}.{name}") is not None, (
            f"{where}:{line}: from {module} import {name}: {module} has no {name}")
