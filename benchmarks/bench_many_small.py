"""(2) Many small tensors: one Adam step over 1,000 tensors of 10,000 float32 parameters.

descend's ``apply_gradients`` against PyTorch's ``Adam(fused=True)`` (the
goal: at least 2x faster). For context: the memory-traffic floor of the same
10M parameters as one flat array (what batching the tensors into one kernel
call can reach), the floor kernel called once per tensor, and optax under
``jax.jit`` (one compiled program for all tensors).

    python benchmarks/bench_many_small.py [--quick] [--isolate]
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_dense  # noqa: E402
import common  # noqa: E402
import floor  # noqa: E402
from common import add_goal, entry, measure, new_result, peer, skipped_note  # noqa: E402

GROUPS = ["floor", "descend", "torch", "jax"]


def config(quick):
    n_tensors, size = (200, 5_000) if quick else (1_000, 10_000)
    timing = dict(repeats=10, warmup=3, max_time=0.5) if quick else dict(repeats=30, warmup=3, max_time=3.0)
    return n_tensors, size, timing, f"Adam, {n_tensors} x {size}"


def measure_group(group, quick):
    n_tensors, size, timing, case = config(quick)
    ps, gs = bench_dense.make_data(n_tensors, size)
    gb = 28 * n_tensors * size / 1e9

    def per(t):
        return f"{gb / t['best']:.1f} GB/s"

    if group == "floor":
        floor.compile_dense()
        out = []
        for label, role, arrays in (("memory floor, one flat array (28 B/param)", "floor",
                                     ([np.concatenate(ps)], [np.concatenate(gs)])),
                                    ("memory floor, one kernel call per tensor", "info", (ps, gs))):
            ts = common.measure_interleaved(bench_dense.make_floor(2, *arrays), **timing)
            t = min(ts.values(), key=lambda t: t["best"])
            out.append(entry(case, label, t, role=role, per=per(t)))
        return out
    if group == "descend":
        t = measure(bench_dense.make_descend(lambda ds: ds.optimizers.Adam(1e-3), ps, gs), **timing)
        out = [entry(case, "descend", t, role="descend", per=per(t),
                     note="default on_nonfinite='raise': one more read of the gradients (32 B/param)")]
        common.free()
        t = measure(bench_dense.make_descend(lambda ds: ds.optimizers.Adam(1e-3), ps, gs, "apply"), **timing)
        return out + [entry(case, "descend, on_nonfinite='apply'", t, role="descend_apply", per=per(t),
                            note="no check, as PyTorch")]
    if group == "torch":
        torch = peer("torch")
        if torch is None:
            return [entry(case, "PyTorch Adam (fused)", None, note=skipped_note("torch"))]
        steps = bench_dense.make_torch(torch, "Adam", {"lr": 1e-3}, ps, gs)
        return [entry(case, f"PyTorch Adam ({m})", measure(fn, **timing)) for m, fn in steps.items()]
    if group == "jax":
        if peer("jax") is None:
            return [entry(case, "optax adam", None, note=skipped_note("jax"))]
        t = measure(bench_dense.make_optax(lambda optax: optax.adam(1e-3), ps, gs), **timing)
        return [entry(case, "optax adam (jax.jit, donated)", t, per=per(t))]
    raise ValueError(group)


def run(quick: bool = False, isolate: bool = False, rounds: int | None = None) -> dict:
    n_tensors, size, timing, case = config(quick)
    total = n_tensors * size
    res = new_result(
        "many_small", "Many small tensors",
        f"One Adam step over {n_tensors:,} tensors of {size:,} float32 parameters ({total / 1e6:g}M in all), "
        "dense gradients. Floor: the 28 B/param traffic kernel over the same parameters as one flat array.",
        {"n_tensors": n_tensors, "tensor_size": size, **timing})
    common.add_entries(res, common.run_rounds(__file__, GROUPS, measure_group, quick, isolate, rounds), [case])
    for r in res["rows"]:
        if r["impl"].startswith("PyTorch") and r["ms"]:
            r["per"] = f"{28 * total / 1e9 / (r['ms'] / 1e3):.1f} GB/s"
    d = common.case_ms(res, case, "descend")
    tf = common.case_ms(res, case, "peer", impl="PyTorch Adam (fused)")
    for label, role in ((case, "descend"), (f"{case}, on_nonfinite='apply'", "descend_apply")):
        ms = common.case_ms(res, case, role)
        if tf is None or ms is None:
            add_goal(res, label, ">= 2x faster than PyTorch's fused Adam", None, "not measured")
        else:
            add_goal(res, label, ">= 2x faster than PyTorch's fused Adam", tf / ms >= 2.0,
                     f"PyTorch fused / descend = {tf / ms:.2f}")
    f = common.case_ms(res, case, "floor")
    if f and d:
        res["notes"].append(f"descend reaches {f / d:.2f} of the flat-array floor on {n_tensors} tensors")
    da = common.case_ms(res, case, "descend_apply")
    if f and da:
        res["notes"].append(f"with on_nonfinite='apply', descend reaches {f / da:.2f} of the flat-array floor (the "
                            "floor does not check the gradients either)")
    res["notes"].append("descend's step after the first is the batched step (descend.optimizers.batched): one "
                        "non-finite check and one update kernel call over every tensor, O(1) Python per tensor")
    return common.finish(res)


if __name__ == "__main__":
    if not common.group_main(measure_group):
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else None
        print(common.text_table([run("--quick" in sys.argv, "--isolate" in sys.argv, rounds)]))
