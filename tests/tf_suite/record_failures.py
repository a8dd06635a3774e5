"""Rewrite ``EXPECTED`` in tf_expected_failures.py from a run: each failing test with the exception it raises now.

Usage (from the repository root)::

    python tests/tf_suite/record_failures.py [test files of tests/tf_suite ...]

As tests/keras_suite/record_failures.py (whose message ``pattern`` this loads from its file): a row keeps its reason,
a new failure gets ``'TODO'`` (which conftest.py refuses until a reason of REASONS replaces it by hand), tests of
files not run keep their rows. An exception is recorded by its builtin name, or as ``errors.<Name>`` for descend's
(``descend.errors``, which the table imports): TF's tests expect TF's error classes, which descend's mirror.
"""

from __future__ import annotations

import importlib.util
import os
import pprint
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "tf_expected_failures.py")
_spec = importlib.util.spec_from_file_location(
    "keras_record_failures", os.path.join(HERE, "..", "keras_suite", "record_failures.py"))
_keras = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_keras)


class Recorder:
    def __init__(self):
        self.failed: dict = {}  # key -> (exception type, message pattern)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if call.excinfo is None or report.skipped and not hasattr(report, "wasxfail"):
            return
        key = f"{item.path.name}::{'::'.join(item.nodeid.split('::')[1:])}"
        e = call.excinfo.value
        self.failed[key] = (type(e), _keras.pattern(str(e)))


def _name(exc) -> str:
    import builtins

    from descend import errors

    if getattr(builtins, exc.__name__, None) is exc:
        return exc.__name__
    if getattr(errors, exc.__name__, None) is exc:
        return f"errors.{exc.__name__}"
    raise SystemExit(f"{exc.__module__}.{exc.__qualname__}: only builtin and descend.errors exceptions are recorded")


def main(argv: list[str]) -> int:
    sys.path.insert(0, HERE)
    import tf_expected_failures as table

    files = argv or sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith("_test.py"))
    rec = Recorder()
    code = pytest.main(["-q", "-p", "no:cacheprovider", *files], plugins=[rec])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        raise SystemExit(f"pytest stopped ({code!r}; a 'TODO' reason left in the table?): the table is unchanged")
    run = {os.path.basename(f) for f in files}
    rows = {k: v for k, v in table.EXPECTED.items() if k.split("::")[0] not in run}
    for key, (exc, pat) in rec.failed.items():
        old = table.EXPECTED.get(key)
        rows[key] = (old[0] if old else "TODO", exc, pat)
    text = open(TABLE).read()
    head = text[:text.index("EXPECTED = {")]
    body = ",\n".join(f"    {k!r}: ({c!r}, {_name(e)}, {p!r})" for k, (c, e, p) in sorted(rows.items()))
    open(TABLE, "w").write(head + "EXPECTED = {\n" + (body + ",\n" if body else "") + "}\n")
    gone = sorted(k for k in table.EXPECTED if k.split("::")[0] in run and k not in rec.failed)
    print(f"{len(rows)} expected failures; {len(gone)} left the table (they pass now):")
    pprint.pprint(gone)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
