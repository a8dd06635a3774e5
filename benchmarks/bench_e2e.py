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

Models as users write them (``MODEL_CASES``): the two MLPs as a Keras
``Sequential``, a small CNN (Conv2D, MaxPooling2D), an LSTM and an attention
block (MultiHeadAttention, LayerNormalization), each trained with AdamW on
sparse softmax cross-entropy: descend's ``@ds.function`` step over the model
built by its first call (and, for information, the same model built before
it), descend's ``fit(jit_compile=True)`` per step (one epoch of
``FIT_STEPS`` steps / ``FIT_STEPS``; for its goal of at least 1.5x, the same
epoch with ``jit_compile=False``, eager), against the same model in PyTorch
(eager, fused AdamW; ``torch.compile``), JAX ``jit`` with optax adamw (the
model written in ``jax.numpy``/``lax``), TensorFlow ``tf.function(jit_compile=True)``
(XLA) over the Keras model and Keras ``fit(jit_compile=True)`` per step.
Peers that are not installed are skipped with a note. Every implementation of
every case runs in a process of its own with ``--isolate`` (the default of
``benchmarks/run.py``), and its row reports its median time and that
process's peak resident memory.

``--rounds N`` measures every group N times in turns (each a process of its
own with ``--isolate``; 3 by default, 1 with ``--quick``) and reports, per
implementation, the median of the rounds' medians (and the best of their
bests): a busy moment of the machine then falls on every implementation
alike.

``--busy`` measures the small MLP, descend (eager and compiled) and PyTorch,
on the machine as it is and then with two CPU-bound processes spinning beside
it, in rounds as above (quiet, then busy, each round), and reports each one's
slowdown (median step busy / quiet).

    python benchmarks/bench_e2e.py [--quick] [--isolate] [--rounds N] [--cases KEY,...] [--busy] [--json PATH]

``--cases`` picks cases by key (``mlp_large``, ``mlp_small`` and the keys of ``MODEL_CASES``);
``--group IMPL:KEY`` measures one implementation of one case in this process (what ``--isolate`` runs).
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
#: keys of CASES (the raw-Variable MLPs), for --cases and the per-case groups
CASE_KEYS = ("mlp_large", "mlp_small")
#: (key, case name, model kind, input shape without the batch, batch, layer sizes of an MLP)
MODEL_CASES = (
    ("seq_mlp_large", "Sequential MLP 784-512-512-10, batch 128", "mlp", (784,), 128, (512, 512, 10)),
    ("seq_mlp_small", "Sequential MLP 784-256-10, batch 64", "mlp", (784,), 64, (256, 10)),
    ("cnn", "CNN Conv2D(32)-MaxPool-Conv2D(64)-MaxPool-Dense(10), 28x28x1, batch 128", "cnn", (28, 28, 1), 128, None),
    ("lstm", "LSTM(64)-Dense(10), 32 steps x 16 features, batch 64", "lstm", (32, 16), 64, None),
    ("attention", "MultiHeadAttention(4 x 16) + LayerNorm + pool + Dense(10), 32 x 64, batch 32", "attention",
     (32, 64), 32, None),
)
MODEL_KEYS = tuple(c[0] for c in MODEL_CASES)
#: steps of the one fit() epoch timed for a ``fit(jit_compile=True)`` row (its time / these steps); quick: 4
FIT_STEPS = 16


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
    """The MLP with the weights ``ws``, ``bs`` in PyTorch: :func:`make_torch_step`."""
    model = torch_model(torch, "mlp", [w.shape[1] for w in ws], (ws[0].shape[0],))
    linears = [m for m in model if isinstance(m, torch.nn.Linear)]
    with torch.no_grad():
        for layer, w, b in zip(linears, ws, bs):
            layer.weight.copy_(torch.from_numpy(w.T.copy()))
            layer.bias.copy_(torch.from_numpy(b))
    return make_torch_step(torch, model, x, y, fused, compiled)


def make_jax(ws, bs, x, y):
    """The MLP with the weights ``ws``, ``bs`` in JAX: :func:`make_jax_step`."""
    import jax.numpy as jnp

    _, apply = jax_model("mlp", [w.shape[1] for w in ws], (ws[0].shape[0],))
    return make_jax_step([(jnp.array(w), jnp.array(b)) for w, b in zip(ws, bs)], apply, x, y)


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


# ------------------------------------------------------------------------------------------ models as users write them
def make_model_data(in_shape, batch, n=None, seed=0):
    rng = np.random.default_rng(seed)
    n = batch if n is None else n
    return rng.standard_normal((n, *in_shape), dtype=np.float32), rng.integers(0, 10, n).astype(np.int64)


def keras_model(K, kind, sizes):
    """The case's model in Keras' API: ``K`` is ``keras`` or ``descend.keras`` (the same code for both). Its
    weights are created by its first call."""
    L = K.layers
    if kind == "mlp":
        return K.Sequential([L.Dense(u, activation="relu") for u in sizes[:-1]] + [L.Dense(sizes[-1])])
    if kind == "cnn":
        return K.Sequential([L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(2), L.Conv2D(64, 3, activation="relu"),
                             L.MaxPooling2D(2), L.Flatten(), L.Dense(10)])
    if kind == "lstm":
        return K.Sequential([L.LSTM(64), L.Dense(10)])
    if kind == "attention":
        class Block(K.Model):
            def __init__(self):
                super().__init__()
                self.attention = L.MultiHeadAttention(num_heads=4, key_dim=16)
                self.norm = L.LayerNormalization()
                self.pool = L.GlobalAveragePooling1D()
                self.head = L.Dense(10)

            def call(self, x):
                return self.head(self.pool(self.norm(x + self.attention(x, x))))

        return Block()
    raise ValueError(kind)


def make_descend_model_step(kind, sizes, x, y, built_first=False):
    """descend's ``@ds.function`` training step over the Keras-API model (built by its first call, which the step
    traces, or before it: ``built_first``)."""
    import descend as ds
    from descend import keras as K

    model = keras_model(K, kind, sizes)
    xt, yt = ds.constant(x), ds.constant(y)
    if built_first:
        model(xt)
    opt = K.optimizers.AdamW(learning_rate=LR, weight_decay=WD)
    loss_fn = K.losses.SparseCategoricalCrossentropy(from_logits=True)

    @ds.function
    def step(x, y):
        with ds.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return lambda: step(xt, yt)


def make_fit(K, kind, sizes, in_shape, batch, steps, jit=True):
    """One epoch of ``fit`` over ``steps`` batches of the model compiled with ``jit_compile=jit`` (``K``: keras or
    descend.keras); the first epoch (tracing, compiling) runs here, not in the timing."""
    model = keras_model(K, kind, sizes)
    model.compile(optimizer=K.optimizers.AdamW(learning_rate=LR, weight_decay=WD),
                  loss=K.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=jit)
    x, y = make_model_data(in_shape, batch, n=batch * steps, seed=1)

    def run():
        model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)

    run()
    return run


def make_tf_model_step(kind, sizes, x, y):
    """TensorFlow ``tf.function(jit_compile=True)`` (XLA) over the Keras model, Keras AdamW."""
    import keras
    import tensorflow as tf

    model = keras_model(keras, kind, sizes)
    xt, yt = tf.constant(x), tf.constant(y)
    model(xt)  # (the variables before the XLA trace)
    opt = keras.optimizers.AdamW(learning_rate=LR, weight_decay=WD)
    opt.build(model.trainable_variables)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function(jit_compile=True)
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    run = lambda: step(xt, yt).numpy()  # noqa: E731
    run()
    return run


def torch_model(torch, kind, sizes, in_shape):
    nn = torch.nn
    if kind == "mlp":
        layers, width = [], in_shape[0]
        for i, u in enumerate(sizes):
            layers.append(nn.Linear(width, u))
            if i < len(sizes) - 1:
                layers.append(nn.ReLU())
            width = u
        return nn.Sequential(*layers)
    if kind == "cnn":  # (NCHW: the data is transposed once, outside the step)
        return nn.Sequential(nn.Conv2d(in_shape[2], 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(),
                             nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 5 * 5, 10))

    if kind == "lstm":
        class Recurrent(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(in_shape[1], 64, batch_first=True)
                self.head = nn.Linear(64, 10)

            def forward(self, x):
                _, (h, _) = self.lstm(x)
                return self.head(h[-1])

        return Recurrent()
    if kind == "attention":
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.attention = nn.MultiheadAttention(in_shape[1], 4, batch_first=True)
                self.norm = nn.LayerNorm(in_shape[1], eps=1e-3)
                self.head = nn.Linear(in_shape[1], 10)

            def forward(self, x):
                a, _ = self.attention(x, x, x, need_weights=False)
                return self.head(self.norm(x + a).mean(1))

        return Block()
    raise ValueError(kind)


def make_torch_step(torch, model, x, y, fused, compiled=False):
    """A PyTorch training step of ``model`` (AdamW, cross-entropy): eager, or ``torch.compile`` of the model and
    of the optimizer's step (compiled here, not in the timing)."""
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

    if compiled:
        for _ in range(3):
            step()
    return step


def jax_model(kind, sizes, in_shape, seed=0):
    """``(params, apply)``: the case's model in ``jax.numpy``/``lax`` (Keras' LSTM gates, its LayerNorm epsilon)."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    rng = np.random.default_rng(seed)

    def w(*shape, fan_in):
        return jnp.array(rng.standard_normal(shape, dtype=np.float32) * np.float32(np.sqrt(2.0 / fan_in)))

    def zeros(*shape):
        return jnp.zeros(shape, jnp.float32)

    if kind == "mlp":
        widths = (in_shape[0], *sizes)
        params = [(w(a, b, fan_in=a), zeros(b)) for a, b in zip(widths[:-1], widths[1:])]

        def apply(params, x):
            h = x
            for i, (wi, bi) in enumerate(params):
                h = h @ wi + bi
                if i < len(params) - 1:
                    h = jax.nn.relu(h)
            return h
    elif kind == "cnn":
        params = {"c1": w(3, 3, in_shape[2], 32, fan_in=9 * in_shape[2]), "b1": zeros(32),
                  "c2": w(3, 3, 32, 64, fan_in=288), "b2": zeros(64), "d": w(64 * 5 * 5, 10, fan_in=1600),
                  "bd": zeros(10)}
        dn = ("NHWC", "HWIO", "NHWC")

        def pool(h):
            return lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

        def apply(p, x):
            h = pool(jax.nn.relu(lax.conv_general_dilated(x, p["c1"], (1, 1), "VALID", dimension_numbers=dn) + p["b1"]))
            h = pool(jax.nn.relu(lax.conv_general_dilated(h, p["c2"], (1, 1), "VALID", dimension_numbers=dn) + p["b2"]))
            return h.reshape(h.shape[0], -1) @ p["d"] + p["bd"]
    elif kind == "lstm":
        units, features = 64, in_shape[1]
        params = {"w": w(features, 4 * units, fan_in=features), "u": w(units, 4 * units, fan_in=units),
                  "b": zeros(4 * units), "d": w(units, 10, fan_in=units), "bd": zeros(10)}

        def apply(p, x):
            def cell(carry, xt):
                h, c = carry
                i, f, g, o = jnp.split(xt @ p["w"] + h @ p["u"] + p["b"], 4, axis=-1)
                c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
                h = jax.nn.sigmoid(o) * jnp.tanh(c)
                return (h, c), None

            h0 = jnp.zeros((x.shape[0], units), x.dtype)
            (h, _), _ = lax.scan(cell, (h0, h0), jnp.swapaxes(x, 0, 1))
            return h @ p["d"] + p["bd"]
    elif kind == "attention":
        d, heads, key = in_shape[1], 4, 16
        params = {"q": w(d, heads, key, fan_in=d), "k": w(d, heads, key, fan_in=d), "v": w(d, heads, key, fan_in=d),
                  "bq": zeros(heads, key), "bk": zeros(heads, key), "bv": zeros(heads, key),
                  "o": w(heads, key, d, fan_in=heads * key), "bo": zeros(d), "gamma": jnp.ones(d, jnp.float32),
                  "beta": zeros(d), "d": w(d, 10, fan_in=d), "bd": zeros(10)}

        def apply(p, x):
            q = jnp.einsum("btd,dhk->bthk", x, p["q"]) + p["bq"]
            k = jnp.einsum("btd,dhk->bthk", x, p["k"]) + p["bk"]
            v = jnp.einsum("btd,dhk->bthk", x, p["v"]) + p["bv"]
            a = jax.nn.softmax(jnp.einsum("bqhk,bshk->bhqs", q, k) / np.float32(np.sqrt(key)), axis=-1)
            h = x + jnp.einsum("bqhk,hkd->bqd", jnp.einsum("bhqs,bshk->bqhk", a, v), p["o"]) + p["bo"]
            mean = h.mean(-1, keepdims=True)
            var = ((h - mean) ** 2).mean(-1, keepdims=True)
            h = (h - mean) * lax.rsqrt(var + 1e-3) * p["gamma"] + p["beta"]
            return h.mean(1) @ p["d"] + p["bd"]
    else:
        raise ValueError(kind)
    return params, apply


def make_jax_step(params, apply, x, y):
    """A JAX ``jit`` training step (optax adamw, donated buffers) of ``apply``."""
    import jax
    import jax.numpy as jnp
    import optax

    tx = optax.adamw(LR, weight_decay=WD)
    state = tx.init(params)
    xj, yj = jnp.array(x), jnp.array(y)

    def loss_fn(params, x, y):
        return optax.softmax_cross_entropy_with_integer_labels(apply(params, x), y).mean()

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


#: implementations measured for each model case: (group key, row label, role)
MODEL_IMPLS = (
    ("descend_step", "descend @ds.function step, model built by its first call", "descend"),
    ("descend_built", "descend @ds.function step, model built before it", "info"),
    ("descend_fit", "descend fit(jit_compile=True), per step", "descend_fit"),
    ("descend_fit_eager", "descend fit(jit_compile=False) (eager), per step", "info"),
    ("torch", "PyTorch eager, AdamW fused=True", "peer"),
    ("torch_compile", "PyTorch torch.compile (model + AdamW fused step)", "peer"),
    ("jax", "JAX jit + optax adamw (donated)", "peer"),
    ("tf_step", "TensorFlow tf.function(jit_compile=True) (XLA) + Keras model and AdamW", "peer"),
    ("tf_fit", "TensorFlow Keras fit(jit_compile=True) (XLA), per step", "peer"),
)
MODEL_GROUPS = [k for k, _, _ in MODEL_IMPLS]
_PEER_OF = {"torch": "torch", "torch_compile": "torch", "jax": "jax", "tf_step": "tf", "tf_fit": "tf"}


def _label(impl):
    return next(lab for k, lab, _ in MODEL_IMPLS if k == impl)


def _per_step(timing, steps):
    return {k: (v / steps if k != "n" else v) for k, v in timing.items()}


def _model_entry(impl, key, quick):
    _, case, kind, in_shape, batch, sizes = next(c for c in MODEL_CASES if c[0] == key)
    label, role = next((lab, r) for k, lab, r in MODEL_IMPLS if k == impl)
    timing = config(quick)
    steps = 4 if quick else FIT_STEPS
    x, y = make_model_data(in_shape, batch)
    name = _PEER_OF.get(impl)
    if name is not None and peer(name) is None:
        return entry(case, label, None, role=role, note=skipped_note(name))
    try:
        if impl in ("descend_step", "descend_built"):
            return entry(case, label, measure(make_descend_model_step(kind, sizes, x, y, impl == "descend_built"),
                                              **_warm(timing, plan_warmup())), role=role)
        if impl in ("descend_fit", "descend_fit_eager", "tf_fit"):
            if impl.startswith("descend"):
                from descend import keras as K
            else:
                import keras as K
            run = make_fit(K, kind, sizes, in_shape, batch, steps, jit=impl != "descend_fit_eager")
            warm = -(-plan_warmup() // steps) if impl == "descend_fit" else 0  # (epochs)
            return entry(case, label, _per_step(measure(run, **_warm(timing, warm)), steps), role=role,
                         per=f"one fit() epoch of {steps} steps / {steps}")
        if impl in ("torch", "torch_compile"):
            torch = peer("torch")
            xt = np.ascontiguousarray(x.transpose(0, 3, 1, 2)) if kind == "cnn" else x
            model = torch_model(torch, kind, sizes, in_shape)
            return entry(case, label, measure(make_torch_step(torch, model, xt, y, True, impl == "torch_compile"),
                                              **timing), role=role)
        if impl == "jax":
            params, apply = jax_model(kind, sizes, in_shape)
            return entry(case, label, measure(make_jax_step(params, apply, x, y), **timing), role=role)
        if impl == "tf_step":
            return entry(case, label, measure(make_tf_model_step(kind, sizes, x, y), **timing), role=role)
    except Exception as e:  # noqa: BLE001 - a peer that cannot run this model here: reported, the rest goes on
        log(f"  {label}: {type(e).__name__}: {str(e)[:300]}")
        return entry(case, label, None, role=role, note=f"failed: {type(e).__name__}: {str(e)[:120]}")
    raise ValueError(f"bench_e2e: unknown implementation {impl!r}; expected one of {MODEL_GROUPS}")


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


def plan_warmup() -> int:
    """Calls a compiled descend step makes before its steady state: its first calls trace it and then time it
    with threads and without (``descend.compiler.plan.ThreadChoice``), two ways that take very different times
    on a busy machine."""
    from descend.compiler.plan import ThreadChoice

    return ThreadChoice.WARM + 2 * (ThreadChoice.TRIAL + 1) + 2


def _warm(timing, calls):
    return dict(timing, warmup=max(timing["warmup"], calls))


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
                entry(case, COMPILED, measure(make_descend(ws, bs, x, y, compiled=True), **_warm(timing, plan_warmup())),
                      role="descend")]
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
    """The entries of ``group``: an implementation of :data:`GROUPS` over every raw-Variable MLP case (or the one
    ``DESCEND_BENCH_E2E_CASE`` names), or ``IMPL:KEY``, one implementation of one case (in a process of its own
    with ``--isolate``, so that its peak memory is the case's)."""
    timing = config(quick)
    if ":" in group:
        impl, key = group.split(":", 1)
        if key in MODEL_KEYS:
            return [_model_entry(impl, key, quick)]
        case, sizes, batch = CASES[CASE_KEYS.index(key)]
        return _case_entries(impl, case, sizes, batch, timing, quick)
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


def run(quick: bool = False, isolate: bool = False, rounds: int | None = None, cases=None) -> dict:
    """Every case (or those whose keys ``cases`` names), each implementation of each case a group of its own."""
    timing = config(quick)
    keys = list(cases) if cases else list(CASE_KEYS) + list(MODEL_KEYS)
    unknown = [k for k in keys if k not in CASE_KEYS and k not in MODEL_KEYS]
    if unknown:
        raise ValueError(f"bench_e2e: unknown case keys {unknown}; expected some of {list(CASE_KEYS + MODEL_KEYS)}")
    groups = [f"{g}:{k}" for k in keys for g in (GROUPS if k in CASE_KEYS else MODEL_GROUPS)]
    raw = [c for k, c in zip(CASE_KEYS, CASES) if k in keys]
    models = [c for c in MODEL_CASES if c[0] in keys]
    res = new_result(
        "e2e", "End to end: one training step",
        f"MLPs (ReLU) {_describe()}; float32, mean sparse softmax cross-entropy, AdamW "
        f"(lr {LR}, weight decay {WD}): forward, backward and update. Floor: the matrix products of "
        "forward and backward in NumPy (no elementwise work, no update) plus AdamW's memory traffic. "
        "cpu_ms: CPU time per step. Goals compare medians. Then models as users write them (Keras API): "
        + "; ".join(c[1] for c in MODEL_CASES) + ": descend's @ds.function step over the model built by its first "
        "call, and fit(jit_compile=True) per step, against PyTorch (eager fused AdamW, torch.compile), JAX jit + "
        "optax and TensorFlow with XLA (tf.function(jit_compile=True), Keras fit(jit_compile=True)). peak RSS: the "
        "peak resident memory of the process that measured the row alone (with --isolate).",
        {"cases": [[c, list(s), b] for c, s, b in CASES], "model_cases": [list(c[:5]) for c in MODEL_CASES],
         "fit_steps": 4 if quick else FIT_STEPS, "rounds": rounds, **timing})
    res["notes"].append(f"load average at the start: {os.getloadavg()[0]:.2f}")
    if quick:
        res["notes"].append("quick: tf.function without jit_compile only")
    common.add_entries(res, common.run_rounds(__file__, groups, measure_group, quick, isolate, rounds),
                       [c for c, _, _ in CASES] + [c[1] for c in MODEL_CASES])
    res["notes"].append(f"load average at the end: {os.getloadavg()[0]:.2f}")
    if not isolate:
        res["notes"].append("not isolated: no peak RSS (every case ran in this one process)")
    for c in models:
        _model_goals(res, c[1])
    for case, _, _ in raw:
        _rss_goal(res, case, COMPILED)
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


def _peers(res, case):
    return [(r["impl"], r["median_ms"]) for r in res["rows"] if r["case"] == case and r["role"] == "peer"
            and r["median_ms"] is not None]


def _rss_goal(res, case, impl):
    mine = next((r.get("peak_rss_mb") for r in res["rows"] if r["case"] == case and r["impl"] == impl), None)
    peers = [r.get("peak_rss_mb") for r in res["rows"] if r["case"] == case and r["role"] == "peer"
             and r.get("peak_rss_mb") is not None]
    goal = f"{impl}: peak RSS no more than the largest peer's"
    if mine is None or not peers:
        add_goal(res, case, goal, None, "not measured")
    else:
        add_goal(res, case, goal, mine <= max(peers),
                 f"descend {mine:.0f} MiB, peers {min(peers):.0f}-{max(peers):.0f} MiB")


def _model_goals(res, case):
    """A model case's goals: the compiled step and fit per step faster than every peer (medians), the step over
    the model built by its first call within 1.10x of the one built before it, peak memory within the peers'."""
    peers = _peers(res, case)
    for impl in ("descend_step", "descend_fit"):
        label = _label(impl)
        d = _median(res, case, label)
        goal = f"{label}: faster than every peer (median)"
        if d is None or not peers:
            add_goal(res, case, goal, None, "not measured")
        else:
            best = min(peers, key=lambda p: p[1])
            add_goal(res, case, goal, d < best[1],
                     f"fastest peer {best[0]} {best[1]:.3f} ms, descend {d:.3f} ms ({best[1] / d:.2f}x)")
        _rss_goal(res, case, label)
    fit, eager = _median(res, case, _label("descend_fit")), _median(res, case, _label("descend_fit_eager"))
    goal = "fit(jit_compile=True) at least 1.5x faster per epoch than fit(jit_compile=False)"
    if fit is None or eager is None:
        add_goal(res, case, goal, None, "not measured")
    else:
        add_goal(res, case, goal, eager >= 1.5 * fit, f"{eager:.3f} ms / {fit:.3f} ms = {eager / fit:.2f}x")
    lazy, built = _median(res, case, _label("descend_step")), _median(res, case, _label("descend_built"))
    goal = "the model built by its first call: its step within 1.10x of the model built before it"
    if lazy is None or built is None:
        add_goal(res, case, goal, None, "not measured")
    else:
        add_goal(res, case, goal, lazy <= 1.10 * built, f"{lazy:.3f} ms / {built:.3f} ms = {lazy / built:.2f}")


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
        cases = sys.argv[sys.argv.index("--cases") + 1].split(",") if "--cases" in sys.argv else None
        result = run_busy(quick, isolate, rounds=rounds) if "--busy" in sys.argv else run(quick, isolate, rounds, cases)
        print(common.text_table([result]))
        if "--json" in sys.argv:  # every row, medians and CPU times included
            import json

            with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
                json.dump(result, f, indent=1)
