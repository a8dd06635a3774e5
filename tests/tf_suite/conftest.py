"""TensorFlow's own tests of tf.math's special functions and tf.nn, run on descend through ``tfshim`` (README.md
here). The expected failures work as tests/keras_suite's: each test of ``tf_expected_failures.EXPECTED`` is marked
xfail with ``raises=`` its exception (strict), and fails if it raises another exception or another message."""

import contextlib
import inspect
import os
import re
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# the shim mirrors TF's module paths, and tfshim/framework/test_util.py is no test file
collect_ignore = ["tfshim"]

_EXPECTED = pytest.StashKey()


def _key(item) -> str:
    return f"{item.path.name}::{'::'.join(item.nodeid.split('::')[1:])}"


def _scipy_missing() -> bool:
    try:
        import scipy.special  # noqa: F401
    except ImportError:
        return True
    return False


def _uses_scipy(item) -> bool:
    """TF's test imports SciPy in its body (a reference for the special functions); without SciPy TF's test logs a
    warning and passes having checked nothing, which here is a skip instead (SciPy is no test dependency)."""
    fn = getattr(item, "obj", None)
    try:
        return "from scipy import" in inspect.getsource(inspect.unwrap(fn))
    except (TypeError, OSError):
        return False


def pytest_collection_modifyitems(config, items):
    from tf_expected_failures import EXPECTED, REASONS

    no_scipy = _scipy_missing()
    for item in items:
        if os.path.dirname(str(item.path)) != _HERE:
            continue
        if no_scipy and _uses_scipy(item):
            item.add_marker(pytest.mark.skip(reason="could not import 'scipy': TF's test compares with SciPy's "
                                                    "functions (SciPy is no test dependency of descend)"))
            continue
        row = EXPECTED.get(_key(item))
        if row is None:
            continue
        code, exc, match = row
        if code not in REASONS:
            raise pytest.UsageError(f"tf_expected_failures.py: {_key(item)} has reason {code!r}, which is not in REASONS")
        item.add_marker(pytest.mark.xfail(reason=f"[{code}] {REASONS[code]}", strict=True, raises=exc))
        item.stash[_EXPECTED] = row


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item):
    """An expected failure's ``subTest`` blocks run as plain blocks: its first failing case fails the test, as its
    row records (pytest would report each case apart, and the test itself as passed)."""
    case = getattr(item, "_testcase", None)
    if case is not None and item.stash.get(_EXPECTED, None) is not None:
        case.subTest = lambda msg=None, **params: contextlib.nullcontext()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """An expected failure must fail as its row says (its exception type and a message its pattern matches);
    otherwise the test fails."""
    report = yield
    row = item.stash.get(_EXPECTED, None)
    if row is None or call.when != "call" or not hasattr(report, "wasxfail") or call.excinfo is None:
        return report
    code, exc, match = row
    e = call.excinfo.value
    if isinstance(e, exc) and re.search(match, str(e)):
        return report
    del report.wasxfail
    report.outcome = "failed"
    report.longrepr = (f"{call.excinfo.getrepr(style='short')}\n\nUnexpectedFailure: expected to fail [{code}] with "
                       f"{exc.__name__} matching {match!r}; raised {type(e).__name__}: {str(e)[:1000]}")
    return report
