"""(5) End to end: one training step of an MLP, AdamW, float32, at two sizes:
784-512-512-10 with batch 128, and 784-256-10 with batch 64.

Forward, loss (mean sparse softmax cross-entropy), backward and the AdamW
update: descend eager (``GradientTape`` + ``apply_gradients``) and the same
step under ``@ds.function`` (traced once, run as a compiled plan), PyTorch
eager with the default AdamW and with ``fused=True``, PyTorch
``torch.compile`` (the model and the optimizer's step; fused AdamW), TensorFlow
(``tf.function``, and with ``jit_compile=True``) with Keras 3 AdamW, JAX
``jit`` with optax adamw and donated buffers. Floors: the matrix products of
the forward and backward passes alone (NumPy, into preallocated outputs, on
NumPy's default BLAS threads), AdamW's memory traffic over the parameters
(28 bytes each: ``floor.traffic``), and their sum, which the compiled step is
measured against; for information, the two run back to back in one step (each
floor is measured alone, with its arrays in the caches and the threads to
itself, which no step that runs both can have).

``--rounds N`` measures every group N times in turns (each a process of its
own with ``--isolate``; 3 by default, 1 with ``--quick``) and reports, per
implementation, the median of the rounds' medians (and the best of their
bests): a busy moment of the machine then falls on every implementation
alike.

``--busy`` measures the small MLP, descend (eager and compiled) and PyTorch,
on the machine as it is and then with two CPU-bound processes spinning beside
it, in rounds as above (quiet, then busy, each round), and reports each one's
slowdown (median step busy / quiet).

    python benchmarks/bench_e2e.py [--quick] [--isolate] [--rounds N] [--busy] [--json PATH]
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import add_goal, entry, log, measure, new_result, peer, skipped_note  # noqa: E402

LR, WD = 1e-3, 0.01
#: (case name, layer sizes, batch)
CASES = (
    ("MLP 784-512-512-10, batch 128", (784, 512, 512, 10), 128),
    ("MLP 784-256-10, batch 64", (784, 256, 10), 64),
)
SMALL = CASES[1][0]


def make_data(sizes, batch, seed=0):
    rng = np.random.default_rng(seed)
    ws, bs = [], []
    for a, b in zip(sizes[:-1], sizes[1:]):
        ws.append(rng.standard_normal((a, b), dtype=np.float32) * np.float32(np.sqrt(2.0 / a)))
        bs.append(np.zeros(b, np.float32))
    x = rng.standard_normal((batch, sizes[0]), dtype=np.float32)
    y = rng.integers(0, sizes[-1], batch).astype(np.int64)
    return ws, bs, x, y


def make_numpy_floor(ws, bs, x, y):
    """The matrix products of forward and backward (3n - 1 for n layers: no input gradient), into
    preallocated outputs."""
    batch = x.shape[0]
    hs = [np.empty((batch, w.shape[1]), np.float32) for w in ws]
    ds_ = [np.empty_like(h) for h in hs[:-1]]
    gs = [np.empty_like(w) for w in ws]
    dl = np.random.default_rng(1).standard_normal(hs[-1].shape, dtype=np.float32)
    n = len(ws)

    def step():
        h = x
        for w, out in zip(ws, hs):
            np.matmul(h, w, out=out)
            h = out
        d = dl
        for i in range(n - 1, -1, -1):
            np.matmul((hs[i - 1] if i else x).T, d, out=gs[i])
            if i:
                np.matmul(d, ws[i].T, out=ds_[i - 1])
                d = ds_[i - 1]

    return step


def make_adam_floor(ws, bs):
    """AdamW's memory traffic over all the parameters (one flat array each: param, grad, 2 slots)."""
    import floor

    n = sum(w.size for w in ws) + sum(b.size for b in bs)
    p, g, m, v = (np.ones(n, np.float32) for _ in range(4))
    floor.compile_dense()
    return lambda: floor.traffic(p, g, [m, v])


def make_sequence_floor(ws, bs, x, y):
    """The two floors run back to back, as a step must run them: the products on NumPy's BLAS threads, then
    the AdamW traffic on one thread (on two, numba's threads and OpenBLAS's spin against each other: measured
    8 ms a step at both sizes). Not the goal's floor: a check of how far the sum of the parts is from reach."""
    products, adam = make_numpy_floor(ws, bs, x, y), make_adam_floor(ws, bs)
    try:
        import numba
    except ImportError:  # pragma: no cover - the traffic then runs in NumPy, on one thread
        numba = None

    def step():
        products()
        if numba is None:
            adam()
            return
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        adam()
        numba.set_num_threads(threads)

    return step


def make_descend(ws, bs, x, y, compiled=False):
    import descend as ds

    W = [ds.Variable(w, name=f"w{i}") for i, w in enumerate(ws)]
    B = [ds.Variable(b, name=f"b{i}") for i, b in enumerate(bs)]
    variables = [v for pair in zip(W, B) for v in pair]
    opt = ds.optimizers.AdamW(learning_rate=LR, weight_decay=WD)
    xt, yt = ds.constant(x), ds.constant(y)
    last = len(W) - 1

    def step(xt, yt):
        with ds.GradientTape() as tape:
            h = xt
            for i, (w, b) in enumerate(zip(W, B)):
                h = ds.matmul(h, w) + b
                if i < last:
                    h = ds.nn.relu(h)
            loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(labels=yt, logits=h))
        grads = tape.gradient(loss, variables)
        opt.apply_gradients(zip(grads, variables))
        return loss

    fn = ds.function(step) if compiled else step
    return lambda: fn(xt, yt)


def make_torch(torch, ws, bs, x, y, fused, compiled=False):
    layers = []
    for i, (w, b) in enumerate(zip(ws, bs)):
        layer = torch.nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            layer.weight.copy_(torch.from_numpy(w.T.copy()))
            layer.bias.copy_(torch.from_numpy(b))
        layers.append(layer)
        if i < len(ws) - 1:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WD, **({"fused": True} if fused else {}))
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    f = torch.nn.functional
    forward = torch.compile(model) if compiled else model
    update = torch.compile(opt.step) if compiled else opt.step

    def step():
        opt.zero_grad(set_to_none=True)
        loss = f.cross_entropy(forward(xt), yt)
        loss.backward()
        update()
        return loss

    if compiled:  # compile here, not in the timing
        for _ in range(3):
            step()
    return step


def make_jax(ws, bs, x, y):
    import jax
    import jax.numpy as jnp
    import optax

    params = [(jnp.array(w), jnp.array(b)) for w, b in zip(ws, bs)]
    tx = optax.adamw(LR, weight_decay=WD)
    state = tx.init(params)
    xj, yj = jnp.array(x), jnp.array(y)

    def loss_fn(params, x, y):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < len(params) - 1:
                h = jax.nn.relu(h)
        return optax.softmax_cross_entropy_with_integer_labels(h, y).mean()

    @functools.partial(jax.jit, donate_argnums=(0, 1))
    def step(params, state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    box = [params, state]

    def run():
        box[0], box[1], loss = step(box[0], box[1], xj, yj)
        loss.block_until_ready()

    return run


def make_tf(ws, bs, x, y, jit):
    import keras
    import tensorflow as tf

    W = [keras.Variable(w) for w in ws]
    B = [keras.Variable(b) for b in bs]
    variables = [v for pair in zip(W, B) for v in pair]
    opt = keras.optimizers.AdamW(learning_rate=LR, weight_decay=WD)
    opt.build(variables)
    xt, yt = tf.constant(x), tf.constant(y)

    @tf.function(jit_compile=jit)
    def step(x, y):
        with tf.GradientTape() as tape:
            h = x
            for i, (w, b) in enumerate(zip(W, B)):
                h = tf.matmul(h, w) + b
                if i < len(W) - 1:
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        grads = tape.gradient(loss, variables)
        opt.apply_gradients(zip(grads, variables))
        return loss

    run = lambda: step(xt, yt).numpy()  # noqa: E731
    run()  # trace and compile here, not in the timing
    return run


GROUPS = ["floor", "descend", "torch", "torch_compile", "jax", "tf"]
BUSY_GROUPS = ["descend", "torch"]
FUSED = "PyTorch eager, AdamW fused=True"
EAGER = "descend eager (GradientTape + apply_gradients)"
COMPILED = "descend @ds.function (compiled plan)"
MATMULS = "NumPy matrix products alone"
ADAM_FLOOR = "AdamW memory floor (28 B/parameter)"
FLOOR_SUM = "floor: matrix products + AdamW memory"
SEQUENCE = "the same products, then the AdamW traffic, back to back"


def config(quick):
    return dict(repeats=10, warmup=3, max_time=0.5) if quick else dict(repeats=60, warmup=5, max_time=3.0)


def _case_entries(group, case, sizes, batch, timing, quick):
    ws, bs, x, y = make_data(sizes, batch)
    if group == "floor":
        n = 3 * len(ws) - 1
        mm = measure(make_numpy_floor(ws, bs, x, y), **timing)
        adam = measure(make_adam_floor(ws, bs), **timing)
        both = {"best": mm["best"] + adam["best"], "median": mm["median"] + adam["median"], "n": mm["n"]}
        sequence = measure(make_sequence_floor(ws, bs, x, y), **timing)
        return [entry(case, f"{MATMULS} ({n})", mm, role="info"),
                entry(case, ADAM_FLOOR, adam, role="info"),
                entry(case, FLOOR_SUM, both, role="floor"),
                entry(case, SEQUENCE, sequence, role="info")]
    if group == "descend":
        return [entry(case, EAGER, measure(make_descend(ws, bs, x, y), **timing), role="info"),
                entry(case, COMPILED, measure(make_descend(ws, bs, x, y, compiled=True), **timing), role="descend")]
    if group == "torch":
        torch = peer("torch")
        if torch is None:
            return [entry(case, "PyTorch eager", None, note=skipped_note("torch"))]
        return [entry(case, f"PyTorch eager, AdamW {label}", measure(make_torch(torch, ws, bs, x, y, fused), **timing))
                for label, fused in (("default", False), ("fused=True", True))]
    if group == "torch_compile":
        torch = peer("torch")
        label = "PyTorch torch.compile (model + AdamW fused step)"
        if torch is None:
            return [entry(case, label, None, note=skipped_note("torch"))]
        try:
            step = make_torch(torch, ws, bs, x, y, True, compiled=True)
        except Exception as e:  # noqa: BLE001 - no compiler here, say
            log(f"  {label}: {type(e).__name__}: {str(e)[:300]}")
            return [entry(case, label, None, note=f"does not run here: {type(e).__name__}")]
        return [entry(case, label, measure(step, **timing))]
    if group == "jax":
        if peer("jax") is None:
            return [entry(case, "JAX jit + optax", None, note=skipped_note("jax"))]
        return [entry(case, "JAX jit + optax adamw (donated)", measure(make_jax(ws, bs, x, y), **timing))]
    if group == "tf":
        if peer("tf") is None:
            return [entry(case, "TensorFlow tf.function", None, note=skipped_note("tf"))]
        out = []
        for jit in (False,) if quick else (False, True):
            label = "TensorFlow tf.function" + (" (jit_compile)" if jit else "") + " + Keras AdamW"
            try:
                out.append(entry(case, label, measure(make_tf(ws, bs, x, y, jit), **timing)))
            except Exception as e:  # noqa: BLE001
                log(f"  {label}: {type(e).__name__}: {str(e)[:300]}")
                out.append(entry(case, label, None, note=f"failed: {type(e).__name__}"))
        return out
    raise ValueError(group)


def measure_group(group, quick):
    timing = config(quick)
    only = os.environ.get("DESCEND_BENCH_E2E_CASE")  # the --busy run measures one case
    return [e for case, sizes, batch in CASES if only in (None, case)
            for e in _case_entries(group, case, sizes, batch, timing, quick)]


def _describe():
    return "; ".join(f"{c}: {'-'.join(map(str, s))}, batch {b}" for c, s, b in CASES)


def _median(res, case, impl=None, role=None):
    for r in res["rows"]:
        if r["case"] == case and (impl is None or r["impl"] == impl) and (role is None or r["role"] == role) \
                and r["median_ms"] is not None:
            return r["median_ms"]
    return None


def run(quick: bool = False, isolate: bool = False, rounds: int | None = None) -> dict:
    timing = config(quick)
    res = new_result(
        "e2e", "End to end: one training step",
        f"MLPs (ReLU) {_describe()}; float32, mean sparse softmax cross-entropy, AdamW "
        f"(lr {LR}, weight decay {WD}): forward, backward and update. Floor: the matrix products of "
        "forward and backward in NumPy (no elementwise work, no update) plus AdamW's memory traffic. "
        "cpu_ms: CPU time per step. Goals compare medians.",
        {"cases": [[c, list(s), b] for c, s, b in CASES], "rounds": rounds, **timing})
    res["notes"].append(f"load average at the start: {os.getloadavg()[0]:.2f}")
    if quick:
        res["notes"].append("quick: tf.function without jit_compile only")
    common.add_entries(res, common.run_rounds(__file__, GROUPS, measure_group, quick, isolate, rounds), [c for c, _, _ in CASES])
    res["notes"].append(f"load average at the end: {os.getloadavg()[0]:.2f}")
    for case, _, _ in CASES:
        d = _median(res, case, COMPILED)
        peers = [(r["impl"], r["median_ms"]) for r in res["rows"] if r["case"] == case and r["role"] == "peer"
                 and r["median_ms"] is not None]
        if d is None or not peers:
            add_goal(res, case, "@ds.function faster than every peer (median)", None, "not measured")
        else:
            best = min(peers, key=lambda p: p[1])
            add_goal(res, case, "@ds.function faster than every peer (median)", d < best[1],
                     f"fastest peer {best[0]} {best[1]:.3f} ms, descend {d:.3f} ms ({best[1] / d:.2f}x)")
        f = _median(res, case, FLOOR_SUM)
        if d is None or f is None:
            add_goal(res, case, "@ds.function within 1.2x of (matrix products + AdamW memory floor)", None,
                     "not measured")
        else:
            add_goal(res, case, "@ds.function within 1.2x of (matrix products + AdamW memory floor)", d <= 1.2 * f,
                     f"descend {d:.3f} ms / floor {f:.3f} ms = {d / f:.2f}")
    return common.finish(res)


def _spin():  # a CPU-bound process: what another user's job looks like to the scheduler
    while True:
        pass


def run_busy(quick: bool = False, isolate: bool = True, spinners: int = 2, rounds: int | None = None) -> dict:
    """The small MLP on a quiet machine, then with ``spinners`` CPU-bound processes on the cores:
    descend's and PyTorch's slowdowns (busy / quiet, median step), measured side by side; ``rounds``
    rounds of quiet-then-busy (3 by default, 1 with ``quick``), medians of the rounds' medians."""
    import multiprocessing

    timing = config(quick)
    res = new_result(
        "e2e_busy", "End to end on a busy machine",
        f"{SMALL}, AdamW, descend and PyTorch eager: median step time quiet and with {spinners} CPU-bound "
        "processes running (slowdown = busy median / quiet median; the best time hides the stalls).",
        {"spinners": spinners, "rounds": rounds, **timing})

    def one_round():
        quiet = common.run_groups(__file__, BUSY_GROUPS, measure_group, quick, isolate)
        ctx = multiprocessing.get_context("spawn")
        procs = [ctx.Process(target=_spin, daemon=True) for _ in range(spinners)]
        for p in procs:
            p.start()
        try:
            busy = common.run_groups(__file__, BUSY_GROUPS, measure_group, quick, isolate)
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.join()
        for label, out in (("quiet", quiet), (f"busy ({spinners} spinners)", busy)):
            for g in out:
                for e in out[g]:
                    e["case"] = f"{SMALL}, {label}"
        return {**{f"q{g}": quiet[g] for g in quiet}, **{f"b{g}": busy[g] for g in busy}}

    os.environ["DESCEND_BENCH_E2E_CASE"] = SMALL
    try:
        merged = common.run_rounds(__file__, [], measure_group, quick, isolate, rounds, run_once=one_round)
    finally:
        del os.environ["DESCEND_BENCH_E2E_CASE"]
    common.add_entries(res, merged, [])
    slow = {}
    for impl, role in ((EAGER, "eager"), (COMPILED, "descend"), (FUSED, "peer")):
        q = [r for r in res["rows"] if r["impl"] == impl and r["case"].endswith("quiet") and r["ms"] is not None]
        b = [r for r in res["rows"] if r["impl"] == impl and "busy" in r["case"] and r["ms"] is not None]
        if q and b:
            slow[role] = (b[0]["median_ms"], q[0]["median_ms"], b[0].get("cpu_ms"), q[0].get("cpu_ms"))
    if "descend" in slow and "peer" in slow:
        def say(name, f):
            return (f"{name} {f[0]:.2f}/{f[1]:.2f} ms = {f[0] / f[1]:.2f}x"
                    + (f" (cpu {f[2]:.2f}/{f[3]:.2f} ms)" if f[2] is not None else ""))
        d, t = slow["descend"], slow["peer"]
        eager = f", {say('descend eager', slow['eager'])}" if "eager" in slow else ""
        add_goal(res, SMALL, "slowdown on a busy machine no worse than PyTorch's (fused AdamW)",
                 d[0] / d[1] <= t[0] / t[1],
                 f"median step busy/quiet: {say('descend @ds.function', d)}, {say('PyTorch fused', t)}{eager}")
    else:
        add_goal(res, SMALL, "slowdown on a busy machine no worse than PyTorch's (fused AdamW)", None,
                 "not measured")
    return common.finish(res)


if __name__ == "__main__":
    if not common.group_main(measure_group):
        quick, isolate = "--quick" in sys.argv, "--isolate" in sys.argv
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else None
        result = run_busy(quick, isolate, rounds=rounds) if "--busy" in sys.argv else run(quick, isolate, rounds)
        print(common.text_table([result]))
        if "--json" in sys.argv:  # every row, medians and CPU times included
            import json

            with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
                json.dump(result, f, indent=1)
