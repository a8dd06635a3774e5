"""The table of TF's tests that fail on descend: every row names a reason of REASONS, an exception type (builtin or
descend.errors') and a message pattern, and every reason is used."""

from __future__ import annotations

import builtins
import re

import tf_expected_failures as table

from descend import errors


def test_every_row_names_a_reason_an_exception_and_a_pattern():
    assert table.EXPECTED
    for key, (code, exc, pattern) in table.EXPECTED.items():
        assert code in table.REASONS, key
        assert getattr(builtins, exc.__name__, None) is exc or getattr(errors, exc.__name__, None) is exc, key
        assert exc not in (Exception, BaseException), key
        assert pattern, key
        re.compile(pattern)
    assert set(table.REASONS) == {code for code, _, _ in table.EXPECTED.values()}, "a reason no row uses"


def test_every_row_names_a_test_file_here():
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    for key in table.EXPECTED:
        assert os.path.exists(os.path.join(here, key.split("::")[0])), key
