"""The optional packages TF's test files import at module level (``opt_einsum``, ``six``): each is the package where
it is installed, else a stand-in whose first use skips the test that uses it (they are not descend's test
dependencies), so that the file still collects and its other tests run."""

from __future__ import annotations

import importlib

import pytest


class _Absent:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        if attr.startswith("__") or attr in ("pytestmark",):
            raise AttributeError(attr)
        pytest.skip(f"could not import {self._name!r}: the test uses {self._name}.{attr}")


def _optional(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return _Absent(name)


opt_einsum = _optional("opt_einsum")
six = _optional("six")
