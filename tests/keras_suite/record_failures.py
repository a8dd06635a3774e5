"""Rewrite ``EXPECTED`` in expected_failures.py from a run: each failing test with the exception it raises now.

Usage (from the repository root; the reasons of tests already in the table are kept, a new failure gets the
reason ``'TODO'``, which conftest.py refuses until a reason of REASONS replaces it by hand)::

    python tests/keras_suite/record_failures.py [test files of tests/keras_suite ...]

With no file, every file here runs. Tests of files not run keep their rows. Each row is
``key: (reason, exception type, message pattern)``: the pattern is the escaped start of the exception's first
non-empty line (up to 80 characters, cut before an address such as ``0x7f..``), which the failure must match
(``re.search``) besides being of that type, so a test that fails in another way than the recorded one fails.
"""

from __future__ import annotations

import builtins
import os
import pprint
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "expected_failures.py")


def pattern(message: str) -> str:
    """The escaped start of ``message``'s first non-empty line (nothing variable in it)."""
    line = next((ln.strip() for ln in message.splitlines() if ln.strip()), "")
    line = re.split(r" at 0x[0-9a-f]+|0x[0-9a-f]{6,}", line)[0][:80]
    return re.sub(r"([.^$*+?{}\[\]\\|()])", r"\\\1", line)  # escaped, but readable: spaces stay spaces


class Recorder:
    def __init__(self):
        self.failed: dict = {}   # key -> (exception type, message pattern)
        self.seen: set = set()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        key = f"{item.path.name}::{'::'.join(item.nodeid.split('::')[1:])}"
        if call.when == "call":
            self.seen.add(key)
        if call.excinfo is None or report.skipped and not hasattr(report, "wasxfail"):
            return
        e = call.excinfo.value
        # the table names builtin exceptions only: descend's own (InvalidArgumentError is a ValueError) by the
        # nearest builtin class they derive from, which conftest's ``raises=`` accepts as well
        exc = next(c for c in type(e).__mro__ if getattr(builtins, c.__name__, None) is c)
        self.failed[key] = (exc, pattern(str(e)))


def main(argv: list[str]) -> int:
    sys.path.insert(0, HERE)
    import expected_failures as table

    files = argv or sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith("_test.py"))
    rec = Recorder()
    code = pytest.main(["-q", "-p", "no:cacheprovider", *files], plugins=[rec])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or not rec.seen:
        # (a usage error, an interrupted or an empty run says nothing about the tests: the table stays as it is)
        print(f"record_failures: pytest exited with {code!r} after {len(rec.seen)} tests; the table is unchanged",
              file=sys.stderr)
        return 1
    run = {os.path.basename(f) for f in files}
    rows = {k: v for k, v in table.EXPECTED.items() if k.split("::")[0] not in run}
    for key, (exc, pat) in rec.failed.items():
        old = table.EXPECTED.get(key)
        if old and isinstance(old[1], tuple) and exc in old[1]:
            rows[key] = old  # a row for several environments (another exception where TF is absent): kept whole
            continue
        rows[key] = (old[0] if old else "TODO", exc, pat)
    text = open(TABLE).read()
    head = text[:text.index("EXPECTED = {")]
    def name(e):  # an exception type, or a tuple of them (a test whose exception differs across environments)
        return f"({', '.join(x.__name__ for x in e)})" if isinstance(e, tuple) else e.__name__

    body = ",\n".join(f"    {k!r}: ({c!r}, {name(e)}, {p!r})" for k, (c, e, p) in sorted(rows.items()))
    open(TABLE, "w").write(head + "EXPECTED = {\n" + body + ",\n}\n")
    gone = sorted(k for k in table.EXPECTED if k.split("::")[0] in run and k not in rec.failed)
    print(f"{len(rows)} expected failures; {len(gone)} left the table (they pass now):")
    pprint.pprint(gone)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
