"""(1) Dense optimizer step: 10M float32 parameters in 20 tensors, dense gradients.

For SGD, SGD+momentum, Adagrad, Adam, AdamW, RMSprop and Lion: descend's
``apply_gradients``, the memory-traffic floor (a kernel reading and writing the
same arrays: 12 bytes/param for SGD, 20 for momentum/Adagrad/RMSprop/Lion, 28
for Adam/AdamW), and each peer's fastest mode: PyTorch ``fused=True`` where
supported (else the faster of foreach and for-loop), optax under ``jax.jit``
with donated buffers, Keras 3 (TensorFlow) under ``tf.function(jit_compile=True)``.

    python benchmarks/bench_dense.py [--quick] [--isolate] [--rounds N] [--avx2]

``--avx2`` measures every implementation with AVX2 code on a CPU that has
AVX-512 (what an AVX2-only CPU runs): PyTorch with ``ATEN_CPU_CAPABILITY=avx2``,
descend's kernels and the floor with ``NUMBA_CPU_NAME=haswell`` *and*
``NUMBA_CPU_FEATURES`` set to the CPU's own features without AVX-512
(:func:`avx2_environment`): numba takes the CPU's features whatever
``NUMBA_CPU_NAME`` says, so the name alone still compiles AVX-512 (zmm) code.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import floor  # noqa: E402
from common import add_goal, free, log, measure, new_result, peer, skipped_note  # noqa: E402

# name, slots (for the floor), descend, torch (class, kwargs), optax, keras
SPECS = [
    ("SGD", 0, lambda ds: ds.optimizers.SGD(0.01),
     ("SGD", {"lr": 0.01}), lambda optax: optax.sgd(0.01), lambda k: k.optimizers.SGD(0.01)),
    ("SGD+momentum", 1, lambda ds: ds.optimizers.SGD(0.01, momentum=0.9),
     ("SGD", {"lr": 0.01, "momentum": 0.9}), lambda optax: optax.sgd(0.01, momentum=0.9),
     lambda k: k.optimizers.SGD(0.01, momentum=0.9)),
    ("Adagrad", 1, lambda ds: ds.optimizers.Adagrad(0.01),
     ("Adagrad", {"lr": 0.01}), lambda optax: optax.adagrad(0.01), lambda k: k.optimizers.Adagrad(0.01)),
    ("Adam", 2, lambda ds: ds.optimizers.Adam(1e-3),
     ("Adam", {"lr": 1e-3}), lambda optax: optax.adam(1e-3), lambda k: k.optimizers.Adam(1e-3)),
    ("AdamW", 2, lambda ds: ds.optimizers.AdamW(1e-3, weight_decay=0.01),
     ("AdamW", {"lr": 1e-3, "weight_decay": 0.01}), lambda optax: optax.adamw(1e-3, weight_decay=0.01),
     lambda k: k.optimizers.AdamW(1e-3, weight_decay=0.01)),
    ("RMSprop", 1, lambda ds: ds.optimizers.RMSprop(1e-3),
     ("RMSprop", {"lr": 1e-3}), lambda optax: optax.rmsprop(1e-3), lambda k: k.optimizers.RMSprop(1e-3)),
    ("Lion", 1, lambda ds: ds.optimizers.Lion(1e-4),
     None, lambda optax: optax.lion(1e-4), lambda k: k.optimizers.Lion(1e-4)),
]


#: prefixes of the CPU features that AVX2 code leaves out (AVX-512 and its successors, AMX)
_PAST_AVX2 = ("avx512", "avx10", "amx", "evex512")


def avx2_environment() -> dict:
    """Environment variables under which PyTorch's kernels and numba's (descend's, the floor's) use AVX2 code
    on this CPU: ``ATEN_CPU_CAPABILITY=avx2``, ``NUMBA_CPU_NAME=haswell`` and ``NUMBA_CPU_FEATURES`` (the
    host's features as LLVM names them, every AVX-512 and later one turned off). Set them before numba or
    torch is imported (``--avx2`` does it first thing; ``--isolate``'s processes inherit them)."""
    env = {"ATEN_CPU_CAPABILITY": "avx2"}
    try:
        import llvmlite.binding as ll
    except ImportError:  # no numba: descend and the floor take their NumPy paths
        return env
    features = ll.get_host_cpu_features()
    env["NUMBA_CPU_NAME"] = "haswell"
    env["NUMBA_CPU_FEATURES"] = ",".join(("+" if on and not name.startswith(_PAST_AVX2) else "-") + name
                                         for name, on in sorted(features.items()))
    return env


def make_data(n_tensors, size, seed=0):
    rng = np.random.default_rng(seed)
    ps = [rng.standard_normal(size, dtype=np.float32) for _ in range(n_tensors)]
    gs = [rng.standard_normal(size, dtype=np.float32) * np.float32(0.01) for _ in range(n_tensors)]
    return ps, gs


# ------------------------------------------------------------------------------------------ implementations
# Each maker sets an implementation up (slots, compilation) and returns the zero-argument step to time.


def make_descend(make, ps, gs, on_nonfinite="raise"):
    """descend's step; ``on_nonfinite="raise"`` (the default) reads every gradient once more to
    check it, ``"apply"`` applies it unchecked as the peers do."""
    import descend as ds

    vs = [ds.Variable(p, name=f"w{i}") for i, p in enumerate(ps)]
    grads = [ds.convert_to_tensor(g) for g in gs]
    opt = make(ds)
    opt.on_nonfinite = on_nonfinite
    pairs = list(zip(grads, vs))
    return lambda: opt.apply_gradients(pairs)


def make_floor(slots, ps, gs):
    """The traffic kernel over the same arrays: on numba's default threads, and on one thread
    (the floor is the faster: on a busy machine a parallel kernel can wait for a descheduled thread)."""
    pa = [p.copy() for p in ps]
    sa = [[np.zeros_like(p) for _ in range(slots)] for p in ps]

    def run():
        for p, g, s in zip(pa, gs, sa):
            floor.traffic(p, g, s)

    if not floor.HAVE_NUMBA:
        return {"floor": run}
    import numba

    threads = numba.get_num_threads()

    def run1():
        numba.set_num_threads(1)
        try:
            run()
        finally:
            numba.set_num_threads(threads)

    return {"floor": run, "floor, 1 thread": run1} if threads > 1 else {"floor": run}


def torch_modes(torch, cls_name):
    import inspect

    if "fused" in inspect.signature(getattr(torch.optim, cls_name)).parameters:
        return [("fused", {"fused": True})]
    return [("foreach", {"foreach": True}), ("for-loop", {"foreach": False})]


def make_torch(torch, cls_name, kwargs, ps, gs):
    """``{mode: step}`` for each mode to try (fused where supported, else foreach and for-loop)."""
    out = {}
    for mode, extra in torch_modes(torch, cls_name):
        params = [torch.nn.Parameter(torch.from_numpy(p.copy())) for p in ps]
        for p, g in zip(params, gs):
            p.grad = torch.from_numpy(g)
        try:
            opt = getattr(torch.optim, cls_name)(params, **kwargs, **extra)
            opt.step()
        except (RuntimeError, TypeError, ValueError) as e:
            log(f"  torch {cls_name} {mode}: {e}")
            continue
        out[mode] = opt.step
    return out


def make_optax(make, ps, gs):
    import functools

    import jax
    import jax.numpy as jnp
    import optax

    tx = make(optax)
    params = [jnp.array(p, copy=True) for p in ps]
    grads = [jnp.array(g, copy=True) for g in gs]
    state = tx.init(params)

    @functools.partial(jax.jit, donate_argnums=(0, 1))
    def step(params, state, grads):
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    box = [params, state]

    def run():
        box[0], box[1] = step(box[0], box[1], grads)
        jax.block_until_ready(box[0])

    return run


def make_keras(make, ps, gs):
    """(step, mode) with ``tf.function(jit_compile=True)``, else plain ``tf.function``; None if both fail."""
    import keras
    import tensorflow as tf

    variables = [keras.Variable(p) for p in ps]
    grads = [tf.constant(g) for g in gs]
    for jit in (True, False):
        opt = make(keras)
        opt.build(variables)
        fn = tf.function(lambda grads, opt=opt: opt.apply_gradients(zip(grads, variables)), jit_compile=jit)
        try:
            fn(grads)
        except Exception as e:  # noqa: BLE001
            log(f"  keras jit_compile={jit}: {type(e).__name__}: {str(e)[:200]}")
            continue

        def run(fn=fn):
            fn(grads)
            variables[0].value.numpy().flat[0]  # wait for completion

        return run, "jit_compile" if jit else "tf.function (jit_compile failed)"
    return None


def time_descend(make, ps, gs, timing):
    """descend alone (used by other benchmarks)."""
    return measure(make_descend(make, ps, gs), **timing)


def time_floor(slots, ps, gs, timing):
    """The floor alone: the faster of its thread settings."""
    ts = common.measure_interleaved(make_floor(slots, ps, gs), **timing)
    return min(ts.values(), key=lambda t: t["best"])


def time_torch(torch, cls_name, kwargs, ps, gs, timing):
    """PyTorch alone, fastest mode: (timing, mode) or None."""
    steps = make_torch(torch, cls_name, kwargs, ps, gs)
    if not steps:
        return None
    ts = common.measure_interleaved(steps, **timing)
    mode = min(ts, key=lambda m: ts[m]["best"])
    return ts[mode], mode


def time_optax(make, ps, gs, timing):
    return measure(make_optax(make, ps, gs), **timing)


# ------------------------------------------------------------------------------------------ the benchmark
GROUPS = ["floor", "descend", "torch", "jax", "tf"]


def config(quick):
    n_tensors = 20
    size = 50_000 if quick else 500_000
    timing = dict(repeats=5, warmup=2, max_time=0.5) if quick else dict(repeats=30, warmup=3, max_time=4.0)
    specs = [s for s in SPECS if s[0] in ("SGD", "Adam", "Lion")] if quick else SPECS
    return n_tensors, size, timing, specs


def measure_group(group, quick):
    """The entries of one group (see ``common.run_groups``)."""
    n_tensors, size, timing, specs = config(quick)
    total = n_tensors * size
    ps, gs = make_data(n_tensors, size)
    out = []

    slots_of = {s[0]: s[1] for s in SPECS}

    def gbs(name, t):  # effective bandwidth at the optimizer's traffic
        return f"{floor.BYTES_PER_PARAM[slots_of[name]] * total / 1e9 / t['best']:.1f} GB/s"

    if group == "floor":
        floor.compile_dense()
        for name, slots, *_ in specs:
            ts = common.measure_interleaved(make_floor(slots, ps, gs), **timing)
            best = min(ts, key=lambda k: ts[k]["best"])
            note = (f"faster with {'1 thread' if best.endswith('1 thread') else 'default threads'}"
                    if len(ts) > 1 else floor.kind())
            out.append(common.entry(name, f"memory floor ({floor.BYTES_PER_PARAM[slots]} B/param)", ts[best],
                                    role="floor", note=note, per=gbs(name, ts[best])))
    elif group == "descend":
        for name, _, make_ds, *_ in specs:
            t = measure(make_descend(make_ds, ps, gs), **timing)
            out.append(common.entry(name, "descend", t, role="descend", per=gbs(name, t),
                                    note="default on_nonfinite='raise': one more read of the gradients"))
            free()
            t = measure(make_descend(make_ds, ps, gs, "apply"), **timing)
            out.append(common.entry(name, "descend, on_nonfinite='apply'", t, role="descend_apply",
                                    per=gbs(name, t), note="no check, as TF/Keras/PyTorch"))
            free()
    elif group == "torch":
        torch = peer("torch")
        for name, _, _, torch_spec, *_ in specs:
            if torch is None:
                out.append(common.entry(name, "PyTorch", None, note=skipped_note("torch")))
            elif torch_spec is None:
                out.append(common.entry(name, "PyTorch", None, note=f"torch.optim has no {name}"))
            else:
                steps = make_torch(torch, *torch_spec, ps, gs)
                if not steps:
                    out.append(common.entry(name, "PyTorch", None, note="every mode failed"))
                    continue
                ts = {m: measure(fn, **timing) for m, fn in steps.items()}
                best = min(ts, key=lambda m: ts[m]["best"])
                others = ", ".join(f"{m} {ts[m]['best'] * 1e3:.2f} ms" for m in ts if m != best)
                out.append(common.entry(name, f"PyTorch ({best})", ts[best], note=others, per=gbs(name, ts[best])))
            free()
    elif group == "jax":
        ok = peer("jax") is not None
        for name, *_, mk_optax, _ in specs:
            if not ok:
                out.append(common.entry(name, "optax", None, note=skipped_note("jax")))
                continue
            t = measure(make_optax(mk_optax, ps, gs), **timing)
            out.append(common.entry(name, "optax (jax.jit, donated)", t, per=gbs(name, t)))
            free()
    elif group == "tf":
        ok = peer("tf") is not None
        for name, *_, mk_keras in specs:
            if not ok:
                out.append(common.entry(name, "Keras 3", None, note=skipped_note("tf")))
                continue
            if quick and name != "Adam":
                continue
            made = make_keras(mk_keras, ps, gs)
            if made is None:
                out.append(common.entry(name, "Keras 3", None, note="tf.function failed"))
                continue
            t = measure(made[0], **timing)
            out.append(common.entry(name, f"Keras 3 ({made[1]})", t, per=gbs(name, t)))
            free()
    return out


def run(quick: bool = False, isolate: bool = False, rounds: int | None = None) -> dict:
    n_tensors, size, timing, specs = config(quick)
    total = n_tensors * size
    res = new_result(
        "dense", "Dense optimizer step",
        f"{total / 1e6:g}M float32 parameters in {n_tensors} tensors, dense gradients; one optimizer step. "
        f"Floor: {floor.kind()} reading and writing the optimizer's arrays (SGD 12 B/param, "
        "momentum/Adagrad/RMSprop/Lion 20, Adam/AdamW 28), the faster of numba's default threads and one thread. "
        "Peers in their fastest mode.",
        {"n_tensors": n_tensors, "tensor_size": size, "params": total, **timing})
    if quick:
        res["notes"].append("quick: SGD, Adam and Lion only; Keras for Adam only")
    numba_cpu, aten = os.environ.get("NUMBA_CPU_NAME"), os.environ.get("ATEN_CPU_CAPABILITY")
    if numba_cpu or aten:
        no512 = " without AVX-512" if "-avx512f" in os.environ.get("NUMBA_CPU_FEATURES", "") else ""
        res["notes"].append(f"code: numba for {numba_cpu or 'this CPU'}{no512}; PyTorch {aten or 'its default'}")
    out = common.run_rounds(__file__, GROUPS, measure_group, quick, isolate, rounds)
    common.add_entries(res, out, [s[0] for s in specs])
    for name, slots, *_ in specs:
        f = common.case_ms(res, name, "floor")
        # on_nonfinite='apply' (no check, as the peers): >= 0.95 of the floor and faster than every peer
        d = common.case_ms(res, name, "descend_apply")
        goal = ">= 0.95 of floor and faster than every peer"
        if d is None or f is None:
            add_goal(res, f"{name}, on_nonfinite='apply'", goal, None, "not measured")
        else:
            peers = common.peers_ms(res, name)
            fastest = min(peers, key=lambda x: x[1]) if peers else None
            detail = f"floor/descend {f / d:.2f}"
            if fastest:
                detail += f"; fastest peer {fastest[0]} {fastest[1] / d:.2f}x descend's time"
            add_goal(res, f"{name}, on_nonfinite='apply'", goal, f / d >= 0.95 and all(ms > d for _, ms in peers),
                     detail)
        # the default (on_nonfinite='raise') reads every gradient once more before it writes anything: its floor
        # is the update's traffic plus that read (Adam: 28 + 4 = 32 B/param)
        d = common.case_ms(res, name, "descend")
        b = floor.BYTES_PER_PARAM[slots]
        goal = f">= 0.95 of its floor with the check ({b} + 4 = {b + 4} B/param)"
        if d is None or f is None:
            add_goal(res, name, goal, None, "not measured")
        else:
            f_check = f * (b + 4) / b
            add_goal(res, name, goal, f_check / d >= 0.95,
                     f"floor {f:.2f} ms x {b + 4}/{b} = {f_check:.2f} ms; floor/descend {f_check / d:.2f}")
    return common.finish(res)


if __name__ == "__main__":
    if "--avx2" in sys.argv:
        os.environ.update(avx2_environment())
    if not common.group_main(measure_group):
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else None
        print(common.text_table([run("--quick" in sys.argv, "--isolate" in sys.argv, rounds)]))
