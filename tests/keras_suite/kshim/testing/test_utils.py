"""Keras' ``testing.test_utils.named_product``: the named cartesian product of test parameters."""

from __future__ import annotations

import itertools


def named_product(*args, **kwargs):
    """A list of dicts with ``testcase_name``, one per combination of ``args`` (lists of named dicts) and
    ``kwargs`` (name -> values), as Keras'."""
    def name_of(value):
        if isinstance(value, type):
            return value.__name__
        if callable(value) and hasattr(value, "__name__"):
            return value.__name__
        return str(value)

    tests = [{}]
    for group in args:
        tests = [{**t, **g, "testcase_name": "_".join(filter(None, [t.get("testcase_name", ""),
                                                                    g.get("testcase_name", "")]))}
                 for t, g in itertools.product(tests, group)]
    for key, values in kwargs.items():
        tests = [{**t, key: v, "testcase_name": "_".join(filter(None, [t.get("testcase_name", ""), name_of(v)]))}
                 for t, v in itertools.product(tests, values)]
    return tests
