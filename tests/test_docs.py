"""Documentation that runs: every docstring example in the package (doctest) and every ```python
block of the README and docs/ (each file's blocks run in order in one namespace, as a reader would;
``>>>`` blocks run as doctests; a block whose first line is a ``# fragment`` comment is a piece of
a larger program and is not run)."""

from __future__ import annotations

import doctest
import importlib
import pathlib
import pkgutil
import re

import matplotlib
import numpy as np
import pytest

import descend

matplotlib.use("Agg")

ROOT = pathlib.Path(__file__).resolve().parent.parent
# modules whose import has side effects a doctest run must not trigger
_SKIP = {"descend.__main__"}


def _modules_with_examples():
    """The package's modules whose source has a ``>>>`` line (read, not imported: collection stays cheap)."""
    names = []
    for info in pkgutil.walk_packages(descend.__path__, "descend."):
        if info.name in _SKIP:
            continue
        spec = info.module_finder.find_spec(info.name)
        origin = spec.origin if spec is not None else None
        if origin and origin.endswith(".py") and re.search(r"^\s*>>> ", pathlib.Path(origin).read_text(), re.M):
            names.append(info.name)
    if re.search(r"^\s*>>> ", pathlib.Path(descend.__file__).read_text(), re.M):
        names.insert(0, "descend")
    return names


_WITH_EXAMPLES = _modules_with_examples()


def test_doctest_modules_are_collected():
    """The modules with examples are found (a change to the search must not silently collect nothing)."""
    assert len(_WITH_EXAMPLES) >= 100, f"only {len(_WITH_EXAMPLES)} modules with docstring examples (140 when " \
                                       f"this was written): {_WITH_EXAMPLES}"
    assert {"descend", "descend.losses", "descend.layers.core"} <= set(_WITH_EXAMPLES)


@pytest.mark.parametrize("name", _WITH_EXAMPLES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):  # each example sees its module's globals, as doctest.testmod
        if test.filename and not test.filename.startswith(str(pathlib.Path(module.__file__).parent)):
            continue  # imported from elsewhere: tested where it is defined
        descend.clear_session()
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name} (see the output above)"
    # its source has a >>> line: at least one example must have run (not one in a comment or a string literal)
    assert result.attempted > 0, f"{name} has a '>>>' line but no docstring example doctest finds"


_DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@pytest.mark.parametrize("path", _DOCS, ids=[p.name for p in _DOCS])
def test_python_blocks_in_the_docs_run(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = _BLOCK.findall(path.read_text())
    # the docs assume the two imports every example starts with
    namespace: dict = {"__name__": f"doc_{path.stem}", "np": np, "ds": descend}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    for k, block in enumerate(blocks):
        where = f"{path.name}[block {k + 1}]"
        if block.lstrip().startswith("# fragment"):
            continue
        descend.clear_session()  # each block names its variables afresh, as it would in a new session
        if block.lstrip().startswith(">>>"):  # an interactive session: run it as a doctest
            runner.run(parser.get_doctest(block, namespace, where, str(path), 0), clear_globs=False)
            continue
        try:
            exec(compile(block, where, "exec"), namespace)
        except Exception as e:  # noqa: BLE001 -- report which block of which file
            pytest.fail(f"{path.name}, python block {k + 1} raised {type(e).__name__}: {e}")
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} example(s) in the interactive blocks of {path.name} failed"
