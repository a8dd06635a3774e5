"""The package root shows the architecture: it holds the public namespaces as short facades, and the
implementations live in folders named for what they are (issue 36). A root module is a *facade* when it only
has a docstring, imports, ``__all__``, name aliases (``half = float16``) and at most a short module-level
``__getattr__``/``__dir__`` (a lazy import or a refusal naming what is left out); anything else makes it an
*implementation*. At most 12 implementation modules may stay at the root, none over 200 lines."""
from __future__ import annotations

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "descend"
MAX_IMPLEMENTATIONS = 12
MAX_LINES = 200
_MODULE_HOOKS = {"__getattr__", "__dir__"}  # PEP 562: a facade's lazy look-up or refusal
_HOOK_STATEMENTS = 6  # a hook longer than this is an implementation


def _is_alias_value(node) -> bool:
    """A name, a dotted name, a constant or a literal container of those (no call, no computation)."""
    if isinstance(node, (ast.Name, ast.Attribute, ast.Constant)):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_is_alias_value(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_alias_value(k) for k in node.keys) and all(map(_is_alias_value, node.values))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "SimpleNamespace"):
        return all(map(_is_alias_value, node.args)) and all(_is_alias_value(k.value) for k in node.keywords)
    return False


def _statements(body) -> int:
    return sum(1 + sum(_statements(getattr(s, f, [])) for f in ("body", "orelse", "finalbody", "handlers"))
               for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)))


def what_is_not_facade(source: str) -> list[str]:
    """The top-level statements that make a module more than a facade (empty: a facade)."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring or a bare string
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if all(isinstance(t, ast.Name) for t in targets) and node.value is not None \
                    and (_is_alias_value(node.value) or all(t.id == "__all__" for t in targets)):
                continue  # an alias, or the declaration of the public names (however it is spelled)
        if isinstance(node, ast.FunctionDef) and node.name in _MODULE_HOOKS \
                and _statements(node.body) <= _HOOK_STATEMENTS:
            continue
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            continue
        kind = type(node).__name__
        name = getattr(node, "name", None) or ast.unparse(node).splitlines()[0][:60]
        found.append(f"line {node.lineno}: {kind} {name}")
    return found


def _root_modules():
    return sorted(p for p in PACKAGE.glob("*.py"))


def _implementations():
    return {p.name: found for p in _root_modules() if (found := what_is_not_facade(p.read_text()))}


@pytest.mark.parametrize("source, facade", [
    ('"""Doc."""\nfrom .x import *  # noqa\nfrom .x import __all__\n', True),
    ("from .a import b as c\nhalf = c\n__all__ = ['c', 'half']\n__all__ += ['d']\n", True),
    ("def __getattr__(name):\n    from ._x import refuse\n    raise refuse('tf.x', name, __name__)\n", True),
    ("_NAMES = {'a': ('m', 'a')}\n_SUBMODULES = frozenset({'a', 'b'})\n", True),
    ("def f(x):\n    return x\n", False),
    ("class A:\n    pass\n", False),
    ("x = compute()\n", False),
    ("experimental = SimpleNamespace(TraceType=TraceType)\n__all__ = ['a', *_more]\n", True),
    ("for k in range(3):\n    pass\n", False),
    ("def __getattr__(name):\n" + "    x = 1\n" * 8 + "    return x\n", False),
])
def test_the_classifier(source, facade):
    """The classifier itself: facades pass, a def/class/loop/computed value does not."""
    assert (what_is_not_facade(source) == []) is facade


def test_at_most_twelve_implementation_modules_at_the_root():
    impl = _implementations()
    assert len(impl) <= MAX_IMPLEMENTATIONS, (
        f"{len(impl)} modules at descend/'s root are more than facades (at most {MAX_IMPLEMENTATIONS}); move "
        f"implementations into a folder named for what they are: " +
        "; ".join(f"{name} ({found[0]})" for name, found in sorted(impl.items())))


@pytest.mark.parametrize("path", _root_modules(), ids=lambda p: p.name)
def test_no_root_implementation_is_over_200_lines(path):
    found = what_is_not_facade(path.read_text())
    lines = len(path.read_text().splitlines())
    assert not found or lines <= MAX_LINES, (
        f"descend/{path.name} has {lines} lines (at most {MAX_LINES} for an implementation at the root) and is "
        f"more than a facade ({found[0]}, ...): move its implementation into a folder")


def test_docs_architecture_names_every_folder():
    """docs/architecture.md describes every folder of the package (a new folder gets its floor and its job there)."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    missing = [f for f in folders if f"`{f}/`" not in text]
    assert not missing, f"docs/architecture.md does not describe: {missing}"
