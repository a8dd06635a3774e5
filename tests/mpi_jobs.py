"""Running a test file's scenarios on N MPI ranks: the launch from pytest, and the rank side.

A test file names its scenarios (``{name: fn(ds, outdir)}``), ends with
``if __name__ == "__main__": rank_main(SCENARIOS, sys.argv)``, and launches
itself with :func:`launch` or :func:`run`; each rank writes its results to
``outdir/rank<r>.json``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _mpiexec():
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if found is None:
        return None
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return None
    return found


MPIEXEC = _mpiexec()
needs_mpi = pytest.mark.skipif(MPIEXEC is None, reason="mpiexec/mpi4py not installed (pip install 'descend[mpi]', "
                                                       "which the test extra includes)")


def rank_main(scenarios: dict, argv) -> None:
    """The rank side: run the scenarios named in ``argv[1]`` (comma-separated), write ``argv[2]/rank<r>.json``."""
    sys.path.insert(0, HERE)
    import descend as ds

    names, outdir = argv[1].split(","), argv[2]
    results = {name: scenarios[name](ds, outdir) for name in names}
    with open(os.path.join(outdir, f"rank{ds.distribute.rank()}.json"), "w") as f:
        json.dump(results, f)


def launch(script, n, scenarios, outdir, timeout=300, mpiexec_for_one=True, **extra_env):
    """Run ``script``'s scenarios on ``n`` ranks (one process without mpiexec when ``n == 1`` and not
    ``mpiexec_for_one``). Returns the finished process and its wall time."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + HERE + os.pathsep + os.environ.get("PYTHONPATH", ""),
               **extra_env)
    prefix = [MPIEXEC, "-n", str(n)] if n > 1 or mpiexec_for_one else []
    cmd = prefix + [sys.executable, os.path.abspath(script), ",".join(scenarios), str(outdir)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    return proc, time.monotonic() - t0


def results(outdir, n) -> list:
    """Every rank's results, in rank order."""
    return [json.load(open(os.path.join(outdir, f"rank{r}.json"))) for r in range(n)]


def run(script, n, scenarios, outdir, timeout=300, mpiexec_for_one=True, **extra_env) -> list:
    """:func:`launch`, which must succeed, then :func:`results`."""
    proc, _ = launch(script, n, scenarios, outdir, timeout, mpiexec_for_one, **extra_env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    return results(outdir, n)
