"""Keras 3.15.1's own test files, run on descend through the ``kshim`` module paths (see README.md here)."""

import os
import re
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


def pytest_configure(config):
    for marker in ("requires_trainable_backend: Keras' marker for tests that train",
                   "skip_if_backend: Keras' marker"):
        config.addinivalue_line("markers", marker)


_EXPECTED = pytest.StashKey()


def pytest_collection_modifyitems(config, items):
    from expected_failures import EXPECTED, PENDING, REASONS

    for item in items:
        path = str(item.path)
        if "keras_suite" not in path:
            continue
        key = f"{item.path.name}::{'::'.join(item.nodeid.split('::')[1:])}"
        row = EXPECTED.get(key)
        if row is None:
            continue
        code, exc, match = row
        if code not in REASONS:
            raise pytest.UsageError(f"expected_failures.py: {key} has reason {code!r}, which is not in REASONS")
        item.add_marker(pytest.mark.xfail(reason=f"[{code}] {REASONS[code]}", strict=code not in PENDING,
                                          raises=exc))
        item.stash[_EXPECTED] = row
        # pytest formats the traceback of every failure, expected ones too, before it marks them xfailed: a full
        # traceback of Keras' deep test code costs more than the test (numpy_test's thousands of rows); an expected
        # failure's report is its exception's line (one that fails otherwise gets its traceback in the hook below)
        item.repr_failure = _brief_failure


def _brief_failure(excinfo):
    return f"{excinfo.typename}: {str(excinfo.value)[:1000]}"


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """An expected failure must fail as its row says: its exception type (the marker's ``raises=``), and a message
    its pattern matches; otherwise the test fails. (Keras' tests are unittest cases, whose exceptions reach pytest
    through the report rather than through the call, so this checks the report.)"""
    report = yield
    row = item.stash.get(_EXPECTED, None)
    if row is None or call.when != "call" or not hasattr(report, "wasxfail") or call.excinfo is None:
        return report
    code, exc, match = row
    e = call.excinfo.value
    if isinstance(e, exc) and re.search(match, str(e)):
        return report
    from expected_failures import UnexpectedFailure

    del report.wasxfail
    report.outcome = "failed"
    failure = UnexpectedFailure(f"expected to fail [{code}] with {exc.__name__} matching {match!r}; raised "
                                f"{type(e).__name__}: {str(e)[:1000]}")
    report.longrepr = f"{call.excinfo.getrepr(style='short')}\n\n{type(failure).__name__}: {failure}"
    report.unexpected = (type(e), str(e))  # for record_failures.py
    return report
