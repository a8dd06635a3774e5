"""benchmarks/bench_dense.py's ``--avx2``: the code an AVX2-only CPU runs, on a CPU that has AVX-512."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks")


@pytest.fixture
def bench_dense(monkeypatch):
    monkeypatch.syspath_prepend(BENCH)
    import bench_dense

    return bench_dense


def test_the_avx2_environment_turns_every_avx512_feature_off(bench_dense):
    pytest.importorskip("llvmlite")
    env = bench_dense.avx2_environment()
    assert env["ATEN_CPU_CAPABILITY"] == "avx2" and env["NUMBA_CPU_NAME"] == "haswell"
    features = dict((f[1:], f[0]) for f in env["NUMBA_CPU_FEATURES"].split(","))
    past = [name for name in features if name.startswith(("avx512", "avx10", "amx", "evex512"))]
    assert all(features[name] == "-" for name in past)
    import llvmlite.binding as ll

    host = ll.get_host_cpu_features()
    for name in ("avx", "avx2", "fma", "sse4.2"):  # the rest as the CPU has it
        if name in host:
            assert features[name] == ("+" if host[name] else "-"), name


_PROBE = """
import numpy as np, numba
@numba.njit
def axpy(p, g, a):
    for i in range(p.size):
        p[i] = p[i] - a * g[i]
p = np.ones(1 << 12, np.float32)
axpy(p, p.copy(), np.float32(0.5))
asm = "".join(axpy.inspect_asm().values())
print(asm.count("zmm"), asm.count("ymm"))
"""


@pytest.mark.parametrize("avx2", [False, True])
def test_numba_compiles_avx2_code_only_under_the_whole_environment(bench_dense, avx2):
    # numba takes the CPU's features whatever NUMBA_CPU_NAME says: the name alone still gives AVX-512 code
    pytest.importorskip("numba")
    import llvmlite.binding as ll

    if not ll.get_host_cpu_features().get("avx512f"):
        pytest.skip("no AVX-512 here: every compile is AVX2 code or less")
    env = dict(os.environ, NUMBA_CPU_NAME="haswell", NUMBA_CACHE_DIR=os.devnull)
    env.pop("NUMBA_CPU_FEATURES", None)
    if avx2:
        env.update(bench_dense.avx2_environment())
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=300)
    zmm, ymm = map(int, out.stdout.split())
    assert (zmm == 0 and ymm > 0) if avx2 else zmm > 0
