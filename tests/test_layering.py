"""The architecture, checked: no module rebinds another module's names at import, imports point down the
layers (no circle, not even a lazy look-up in a registry), and an update follows a short path."""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "descend"

# a fresh interpreter imports every descend module; around each module's execution, every descend module
# already loaded is snapshotted, and any name bound anew (or rebound) in another module is reported --
# except the attribute a package gets for its own submodule, which the import system sets
_REBINDS = r'''
import importlib, importlib.abc, importlib.util, json, pkgutil, sys

seen = []
executing = []

def snapshot():
    return {name: {k: id(v) for k, v in vars(m).items()} for name, m in list(sys.modules.items())
            if name == "descend" or name.startswith("descend.")}

class Loader(importlib.abc.Loader):
    def __init__(self, inner):
        self.inner = inner
    def create_module(self, spec):
        return self.inner.create_module(spec)
    def exec_module(self, module):
        before = snapshot()
        executing.append(module.__name__)
        try:
            self.inner.exec_module(module)
        finally:
            executing.pop()
        after = snapshot()
        for name, names in before.items():
            if name == module.__name__ or name in executing or name not in after:
                continue
            for k, ident in after[name].items():
                value = getattr(sys.modules[name], k, None)
                own = sys.modules[name].__name__  # (descend.keras.layers is descend.layers under another name)
                if names.get(k) != ident and not (getattr(value, "__name__", None) == f"{own}.{k}"
                                                    and type(value).__name__ == "module"):
                    seen.append(f"importing {module.__name__} rebinds {name}.{k}")

class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if not (fullname == "descend" or fullname.startswith("descend.")):
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            spec = finder.find_spec(fullname, path, target) if hasattr(finder, "find_spec") else None
            if spec is not None:
                spec.loader = Loader(spec.loader)
                return spec
        return None

sys.meta_path.insert(0, Finder())
import descend
names = ["descend"] + [m.name for m in pkgutil.walk_packages(descend.__path__, "descend.")]
for name in names:
    if name != "descend.__main__":
        importlib.import_module(name)
print(json.dumps({"modules": len(names), "rebinds": seen}))
'''


def test_importing_every_module_rebinds_no_name_of_another_module():
    out = subprocess.run([sys.executable, "-c", _REBINDS], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["modules"] > 100  # every module was imported
    assert result["rebinds"] == []


def _import_graph():
    """module -> the descend modules it imports, at module level or inside functions (a registry is filled by
    the modules that register into it, so no look-up needs to import upwards)."""
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = path
    graph = {}
    for name, path in mods.items():
        text = path.read_text()
        tree = ast.parse(text)
        is_pkg = path.name == "__init__.py"
        deps = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                deps |= {a.name for a in node.names if a.name.startswith("descend")}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if not target.startswith("descend"):
                    continue
                if target == "descend" and [a.name for a in node.names] == ["__version__"]:
                    continue  # the root's version string, a literal the root binds before it imports anything
                for a in node.names:
                    deps.add(f"{target}.{a.name}" if f"{target}.{a.name}" in mods else target)
            elif isinstance(node, ast.Assign) and node in tree.body \
                    and [getattr(t, "id", None) for t in node.targets] in (["_LAZY"], ["_SUBMODULES"]):
                # a lazy facade's table (descend.api.lazy): module -> the names it loads on first use ("core": a
                # submodule; "..x.y": relative to the facade's package, a module's folder), or the root's
                # submodules that load on first use
                value = node.value.args[0] if isinstance(node.value, ast.Call) else node.value  # frozenset({...})
                folder = name.split(".") if is_pkg else name.split(".")[:-1]
                for sub in ast.literal_eval(value):
                    level = len(sub) - len(sub.lstrip("."))
                    base = folder[:len(folder) - max(level - 1, 0)]
                    deps.add(".".join(base + [sub.lstrip(".")]))
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module" and node.args \
                    and isinstance(node.args[0], ast.Constant) and str(node.args[0].value).startswith("descend"):
                deps.add(node.args[0].value)
        graph[name] = {d for d in deps if d in mods and d != name}
    return graph


def _cycles(graph):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_a_lazy_facades_table_counts_as_its_imports():
    graph = _import_graph()  # (descend.api.lazy: the names load on first use, the edges are the same)
    assert {"descend.layers.core", "descend.layers.conv3d", "descend.layers.base"} <= graph["descend.layers"]
    assert {"descend.distribute.sharded", "descend.distribute.zero", "descend.distribute.comm"} <= graph[
        "descend.distribute"]
    assert {"descend.persistence.checkpoint.checkpoint", "descend.persistence.checkpoint_errors"} <= graph[
        "descend.checkpoint"]
    assert {"descend.models", "descend.composites.higher_order", "descend.initializers", "descend.keras",
            "descend.version"} <= graph["descend"]  # the root's names and submodules
    assert "descend.layers.rnn_cell_wrappers" in graph["descend.nn"]  # a module facade: relative to its folder
    assert {"descend.persistence.checkpoint.saver", "descend.persistence.checkpoint.tf_names"} <= graph[
        "descend.compat.v1.train"]


def test_imports_point_down_the_layers():
    """No import circle, at module level or inside functions: the registries (the built-in objects, the default
    kernel backend) are filled by the modules that register, never by a look-up importing them."""
    assert _cycles(_import_graph()) == []
