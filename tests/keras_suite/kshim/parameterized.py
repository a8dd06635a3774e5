"""absl's ``parameterized`` decorators, enough for Keras' test files, without absl.

``@parameters(*cases)``, ``@named_parameters(*cases)`` and ``@product(**values)`` mark a test method; the class
(a :class:`TestCase`) replaces it by one method per case: ``test_x_0``, ``test_x_1``... for ``parameters`` and
``product``, ``test_x_<name>`` for ``named_parameters``. A case is a dict (keyword arguments), a tuple or list
(positional arguments; for ``named_parameters`` the first item is the name) or a single value.
"""

from __future__ import annotations

import functools
import itertools
import unittest

_CASES = "_kshim_parameterized_cases"


def _mark(cases, named):
    def decorate(fn):
        if isinstance(fn, type):  # a class decorator: every test method of the class gets the cases
            for name, value in list(vars(fn).items()):
                if name.startswith("test") and callable(value):
                    setattr(fn, name, decorate(value))
            return fn
        setattr(fn, _CASES, (list(cases), named))
        return fn
    return decorate


def _cases(cases):
    # absl's rule: one argument that is neither a tuple nor a dict is the iterable of the cases
    if len(cases) == 1 and not isinstance(cases[0], (tuple, dict)):
        return tuple(cases[0])
    return cases


def parameters(*cases):
    return _mark(_cases(cases), named=False)


def named_parameters(*cases):
    return _mark(_cases(cases), named=True)


def product(*kwargs_seqs, **testgrid):
    """absl's product: each positional argument is a sequence of dicts (merged), each keyword a sequence of values
    for that argument; one case per combination of them all."""
    axes = [list(seq) for seq in kwargs_seqs] + [[{k: v} for v in values] for k, values in testgrid.items()]
    combos = []
    for parts in itertools.product(*axes):
        merged = {}
        for p in parts:
            merged.update(p)
        combos.append(merged)
    return _mark(combos, named=False)


def _call_with(fn, case):
    @functools.wraps(fn)
    def test(self):
        if isinstance(case, dict):
            return fn(self, **case)
        if isinstance(case, (tuple, list)):
            return fn(self, *case)
        return fn(self, case)
    return test


def _expand(namespace: dict) -> dict:
    out = {}
    for name, value in namespace.items():
        marked = getattr(value, _CASES, None)
        if marked is None:
            out[name] = value
            continue
        cases, named = marked
        for i, case in enumerate(cases):
            if named:
                if isinstance(case, dict):
                    case = dict(case)
                    suffix = case.pop("testcase_name")
                else:
                    suffix, case = case[0], tuple(case[1:])
                test_name = f"{name}_{suffix}"
            else:
                test_name = f"{name}_{i}"
            method = _call_with(value, case)
            method.__name__ = test_name
            out[test_name] = method
    return out


class _Meta(type):
    def __new__(mcs, name, bases, namespace):
        return super().__new__(mcs, name, bases, _expand(namespace))


class TestCase(unittest.TestCase, metaclass=_Meta):
    """unittest's TestCase whose parameterized methods expand into one test per case."""
