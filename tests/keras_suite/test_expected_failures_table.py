"""The table of expected failures, and conftest.py's use of it: an expected failure passes as xfail only when
it fails as its row says (the exception type and the message); any other failure, or a pass, fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import expected_failures as table

HERE = os.path.dirname(os.path.abspath(__file__))


def test_every_row_names_a_reason_a_builtin_exception_and_a_pattern():
    import builtins
    import re

    assert table.EXPECTED
    for key, (code, exc, pattern) in table.EXPECTED.items():
        assert code in table.REASONS, key
        # a tuple of two: a test whose body imports TensorFlow or ml_dtypes fails on that import where they are absent
        types = exc if isinstance(exc, tuple) else (exc,)
        assert len(types) in (1, 2) and (len(types) == 1 or ModuleNotFoundError in types), key
        for t in types:
            assert getattr(builtins, t.__name__, None) is t and t not in (Exception, BaseException), key
        re.compile(pattern)
        assert pattern or exc is TypeError, f"{key}: no message to match; only a bare TypeError may have none"
    assert set(table.REASONS) == {code for code, _, _ in table.EXPECTED.values()}, "a reason no row uses"


def test_a_failure_other_than_the_recorded_one_fails(tmp_path):
    suite = tmp_path / "keras_suite"
    suite.mkdir()
    shutil.copy(os.path.join(HERE, "conftest.py"), suite / "conftest.py")
    (suite / "expected_failures.py").write_text(textwrap.dedent('''
        REASONS = {"missing": "a feature descend lacks"}
        PENDING = frozenset()
        class UnexpectedFailure(Exception):
            pass
        EXPECTED = {
            "x_test.py::T::test_as_recorded": ("missing", ValueError, "descend has no X"),
            "x_test.py::T::test_other_type": ("missing", ValueError, "descend has no X"),
            "x_test.py::T::test_other_message": ("missing", ValueError, "descend has no X"),
            "x_test.py::T::test_passes": ("missing", ValueError, "descend has no X"),
        }
    '''))
    (suite / "x_test.py").write_text(textwrap.dedent('''
        import unittest
        class T(unittest.TestCase):
            def test_as_recorded(self):
                raise ValueError("descend has no X (keras.X)")
            def test_other_type(self):
                raise TypeError("descend has no X")
            def test_other_message(self):
                raise ValueError("shapes (2, 3) and (4,) are incompatible")
            def test_passes(self):
                pass
            def test_not_in_the_table(self):
                pass
    '''))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfx", str(suite)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    out = proc.stdout
    assert "3 failed, 1 passed, 1 xfailed" in out, out[-3000:]
    assert "XFAIL keras_suite/x_test.py::T::test_as_recorded" in out, out[-3000:]
    for name in ("test_other_type", "test_other_message", "test_passes"):
        assert f"FAILED keras_suite/x_test.py::T::{name}" in out, out[-3000:]
    assert "UnexpectedFailure: expected to fail [missing] with ValueError matching 'descend has no X'; raised " \
           "ValueError: shapes (2, 3)" in out, out[-3000:]
