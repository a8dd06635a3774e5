"""The ``descend`` command: ``descend train`` and ``descend compare``.

``descend train`` trains and evaluates a model, shows a live progress bar,
and writes a run folder with a per-step metrics CSV and PNG plots. With no
arguments it trains an MLP on the bundled handwritten digits with AdamW,
warm-up and cosine decay. ``--example clicks`` trains an embedding model on a
generated click log, so the sparse optimizer paths run in a real job.

Bad input (a missing or malformed data file, an unknown optimizer, a missing
label column, NaN in the data) prints one line and exits with code 2.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import time

import numpy as np

__all__ = ["main"]

OPTIMIZERS = ("sgd", "momentum", "adam", "adamw", "adagrad", "adagraddecay", "rmsprop", "adadelta", "adamax",
              "nadam", "ftrl", "lion", "lamb", "adamweightdecay")
SCHEDULES = ("constant", "cosine", "linear", "exponential")


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit code 2."""


# ---------------------------------------------------------------- data
def _load_data(args):
    """``(x_train, y_train, x_test, y_test, kind)`` where kind is 'classes' or 'clicks'."""
    from . import datasets

    if args.data is None:
        if args.example == "clicks":
            users, items, clicks = datasets.click_log(n=args.examples or 60000, seed=args.seed)
            x = np.stack([users, items], axis=1)
            cut = int(len(x) * 0.8)
            return x[:cut], clicks[:cut], x[cut:], clicks[cut:], "clicks"
        (x, y), (xt, yt) = datasets.load_digits(seed=args.seed)
        return x, y, xt, yt, "classes"
    path = args.data
    if not os.path.exists(path):
        raise UsageError(f"data file not found: {path}")
    if path.endswith(".npz"):
        try:
            with np.load(path) as f:
                keys = set(f.files)
                xk = next((k for k in ("x", "X", "features", "images") if k in keys), None)
                yk = next((k for k in ("y", "Y", "labels", "label", "target") if k in keys), None)
                if xk is None or yk is None:
                    raise UsageError(f"{path}: expected arrays named x and y (found {sorted(keys)})")
                x, y = np.asarray(f[xk]), np.asarray(f[yk])
        except UsageError:
            raise
        except Exception as e:  # noqa: BLE001 - any reader failure is a malformed file
            raise UsageError(f"{path}: not a readable .npz file ({type(e).__name__}: {e})") from None
    elif path.endswith(".csv"):
        x, y = _read_csv(path, args.label)
    else:
        raise UsageError(f"{path}: unsupported data format; expected .npz (arrays x, y) or .csv")
    x = x.reshape(len(x), -1)
    if x.dtype.kind not in "fiub" or y.dtype.kind not in "fiub":
        raise UsageError(f"{path}: features and labels must be numeric")
    x = x.astype(np.float32)
    if not np.all(np.isfinite(x)) or (y.dtype.kind == "f" and not np.all(np.isfinite(y))):
        bad = int(np.argwhere(~np.isfinite(x))[0][0]) if not np.all(np.isfinite(x)) else int(
            np.argwhere(~np.isfinite(y))[0][0])
        raise UsageError(f"{path}: the data contains NaN or infinite values (first at row {bad})")
    if len(x) != len(y):
        raise UsageError(f"{path}: x has {len(x)} rows but y has {len(y)}")
    if len(x) < 10:
        raise UsageError(f"{path}: need at least 10 examples; found {len(x)}")
    labels, y_idx = np.unique(y, return_inverse=True)
    order = np.random.default_rng(args.seed).permutation(len(x))
    cut = int(len(x) * 0.8)
    tr, te = order[:cut], order[cut:]
    return x[tr], y_idx[tr].astype(np.int32), x[te], y_idx[te].astype(np.int32), "classes"


def _read_csv(path, label):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: cannot read ({e})") from None
    if len(rows) < 2:
        raise UsageError(f"{path}: expected a header row and data rows")
    header = [h.strip() for h in rows[0]]
    if label is None:
        label = header[-1]
    if label not in header:
        raise UsageError(f"{path}: label column '{label}' does not exist; columns are {header}")
    j = header.index(label)
    try:
        table = np.array([[float(v) if v.strip() != "" else np.nan for v in r] for r in rows[1:] if r], np.float64)
    except ValueError as e:
        raise UsageError(f"{path}: non-numeric value ({e})") from None
    if table.ndim != 2 or table.shape[1] != len(header):
        raise UsageError(f"{path}: rows do not all have {len(header)} columns")
    return np.delete(table, j, axis=1), table[:, j]


# ---------------------------------------------------------------- model, optimizer, schedule
def _build_model(args, kind, n_features, n_classes):
    import descend as ds

    L = ds.layers
    if kind == "clicks":
        users, items = args.num_users, args.num_items

        class ClickModel(ds.Model):
            def __init__(self):
                super().__init__(name="clicks")
                self.user_emb = L.Embedding(users, 16, name="user_embedding")
                self.item_emb = L.Embedding(items, 16, name="item_embedding")
                self.item_bias = L.Embedding(items, 1, name="item_bias")

            def call(self, x, training=None):
                u = self.user_emb(x[:, 0])
                i = self.item_emb(x[:, 1])
                return ds.reduce_sum(u * i, axis=1) + ds.reshape(self.item_bias(x[:, 1]), (-1,))

        return ClickModel()
    if args.model == "linear":
        return ds.Sequential([L.Dense(n_classes)], name="linear")
    if args.model == "mlp":
        return ds.Sequential([L.Dense(args.hidden, activation="relu"), L.Dense(args.hidden, activation="relu"),
                              L.Dense(n_classes)], name="mlp")
    raise UsageError(f"unknown model '{args.model}'; known models: linear, mlp")


def _build_schedule(args, total_steps):
    from .optimizers import schedules as S

    name = args.schedule
    if name not in SCHEDULES:
        raise UsageError(f"unknown schedule '{name}'; known schedules: {', '.join(SCHEDULES)}")
    warm = min(args.warmup_steps, max(total_steps - 1, 0))
    decay_steps = max(total_steps - warm, 1)
    if name == "constant":
        base = S.PiecewiseConstantDecay([], [args.lr])
    elif name == "cosine":
        base = S.CosineDecay(args.lr, decay_steps, alpha=0.01)
    elif name == "linear":
        base = S.PolynomialDecay(args.lr, decay_steps, end_learning_rate=args.lr * 0.01)
    else:
        base = S.ExponentialDecay(args.lr, max(decay_steps // 4, 1), 0.5)
    return S.WarmUp(args.lr, base, warm) if warm > 0 else base


def _build_optimizer(name, args, total_steps, kind="classes"):
    from . import optimizers as O

    name = name.lower().replace("_", "").replace("-", "")
    if name not in OPTIMIZERS:
        raise UsageError(f"unknown optimizer '{name}'; known optimizers: {', '.join(OPTIMIZERS)}")
    schedule = _build_schedule(args, total_steps)
    common = {}
    if args.clip_norm:
        common["global_clipnorm"] = args.clip_norm
    if args.accum_steps and args.accum_steps > 1:
        common["gradient_accumulation_steps"] = args.accum_steps
    if kind == "clicks":  # embedding tables: update only the rows a batch touches
        common["sparse_updates"] = "lazy"
    wd = args.weight_decay
    if name == "sgd":
        return O.SGD(schedule, **common, weight_decay=wd or None)
    if name == "momentum":
        return O.SGD(schedule, momentum=0.9, **common, weight_decay=wd or None)
    if name == "adamw":
        return O.AdamW(schedule, weight_decay=wd if wd is not None else 0.004, **common)
    if name == "adamweightdecay":
        return O.AdamWeightDecay(schedule, weight_decay_rate=wd or 0.0, exclude_from_weight_decay=["bias"], **common)
    cls = {"adam": O.Adam, "adagrad": O.Adagrad, "adagraddecay": O.AdagradDecay, "rmsprop": O.RMSprop,
           "adadelta": O.Adadelta, "adamax": O.Adamax, "nadam": O.Nadam, "ftrl": O.Ftrl, "lion": O.Lion,
           "lamb": O.Lamb}[name]
    return cls(schedule, weight_decay=wd or None, **common)


# ---------------------------------------------------------------- recording and plots
def _step_recorder():
    from .callbacks import Callback

    class StepRecorder(Callback):
        """Per-step loss, accuracy and learning rate, for the CSV and the plots."""

        def __init__(self):
            super().__init__()
            self.rows = []
            self._step = 0

        def on_train_batch_end(self, batch, logs=None):
            logs = logs or {}
            self._step += 1
            self.rows.append({"step": self._step, "loss": logs.get("loss"), "accuracy": logs.get("accuracy"),
                              "learning_rate": logs.get("learning_rate")})

        # saved inside each checkpoint, so that a resumed run's CSV and plots are the uninterrupted run's
        def get_state(self):
            return {"step": self._step, "rows": self.rows}

        def set_state(self, state):
            self._step, self.rows = int(state["step"]), list(state["rows"])

    return StepRecorder()


def _plot(path, series: dict, ylabel, title, logy=False):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    for label, (xs, ys) in series.items():
        ax.plot(xs, ys, label=label, linewidth=1.2)
    ax.set_xlabel("step")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if logy:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _write_run(out, rows, summary, plot_acc: bool):
    os.makedirs(out, exist_ok=True)
    metrics_csv = os.path.join(out, "metrics.csv")
    with open(metrics_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["step", "loss", "accuracy", "learning_rate"])
        w.writeheader()
        w.writerows(rows)
    steps = [r["step"] for r in rows]
    paths = {"metrics": metrics_csv}
    paths["loss"] = os.path.join(out, "loss.png")
    _plot(paths["loss"], {"train": (steps, [r["loss"] for r in rows])}, "loss", "training loss per step", logy=True)
    if plot_acc:
        paths["accuracy"] = os.path.join(out, "accuracy.png")
        _plot(paths["accuracy"], {"train": (steps, [r["accuracy"] for r in rows])}, "accuracy",
              "training accuracy per step (running mean over the epoch)")
    paths["learning_rate"] = os.path.join(out, "learning_rate.png")
    _plot(paths["learning_rate"], {"lr": (steps, [r["learning_rate"] for r in rows])}, "learning rate",
          "learning rate per step")
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump({**summary, "files": paths}, f, indent=2)
    return paths


# ---------------------------------------------------------------- commands
def _train_once(args, optimizer_name, verbose=True):
    import descend as ds

    ds.clear_session()
    np.random.seed(args.seed)  # unseeded initializers draw from NumPy's global generator
    x, y, xt, yt, kind = _load_data(args)
    if kind == "clicks":
        args.num_users = int(max(x[:, 0].max(), xt[:, 0].max()) + 1)
        args.num_items = int(max(x[:, 1].max(), xt[:, 1].max()) + 1)
    n_classes = int(max(y.max(), yt.max()) + 1) if kind == "classes" else 1
    steps_per_epoch = math.ceil(len(x) / args.batch_size)
    total = steps_per_epoch * args.epochs // max(args.accum_steps or 1, 1)
    model = _build_model(args, kind, x.shape[1], n_classes)
    if ds.distribute.size() > 1:  # under mpiexec: replicated variables (broadcast from rank 0); fit splits batches
        with ds.distribute.MultiWorkerMirroredStrategy().scope():
            model(ds.constant(x[:1]))
    opt = _build_optimizer(optimizer_name, args, max(total, 1), kind)
    if kind == "clicks":
        model.compile(optimizer=opt, loss=ds.losses.BinaryCrossentropy(from_logits=True),
                      metrics=[ds.metrics.BinaryAccuracy(name="accuracy", threshold=0.0)])
    else:
        model.compile(optimizer=opt, loss=ds.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    recorder = _step_recorder()
    callbacks = [recorder]  # first: the backup (last) then saves the rows of the step it checkpoints
    if args.checkpoint_every or args.resume:
        backup_dir = os.path.join(args.out, "checkpoints")
        if os.path.isdir(backup_dir) and ds.train.latest_checkpoint(backup_dir) and not args.resume:
            raise UsageError(f"{args.out} already holds checkpoints: pass --resume to continue that run, "
                             "or choose another --out")
        backup = ds.train.BackupAndRestore(backup_dir, save_freq=args.checkpoint_every or "epoch",
                                           extra={"recorder": recorder})
        callbacks.append(backup)
    t0 = time.perf_counter()
    model.fit(x, y, batch_size=args.batch_size, epochs=args.epochs, callbacks=callbacks,
              verbose=1 if verbose else 0, seed=args.seed, steps_per_epoch=args.max_steps)
    if callbacks[-1] is not recorder and callbacks[-1].restored_from and verbose and ds.distribute.rank() == 0:
        print(f"resumed from {callbacks[-1].restored_from}")
    seconds = time.perf_counter() - t0
    test = model.evaluate(xt, yt, batch_size=512, verbose=0, return_dict=True)
    return model, recorder.rows, test, seconds, kind


def cmd_train(args) -> int:
    model, rows, test, seconds, kind = _train_once(args, args.optimizer)
    import descend as ds

    if ds.distribute.rank() != 0:  # under mpiexec: one run folder and one log, written by rank 0
        return 0
    summary = {"optimizer": args.optimizer, "epochs": args.epochs, "batch_size": args.batch_size, "lr": args.lr,
               "schedule": args.schedule, "train_seconds": round(seconds, 3), "test": test,
               "parameters": int(sum(w.size for w in model.trainable_weights))}
    paths = _write_run(args.out, rows, summary, plot_acc=True)
    import descend as ds

    ds.train.Checkpoint(model=model).write(os.path.join(args.out, "final"))  # the trained weights
    print(f"test loss {test['loss']:.4f}  test accuracy {test['accuracy']:.4f}  "
          f"({seconds:.1f} s training, {summary['parameters']:,} parameters)")
    print(f"run folder: {args.out}  (metrics.csv, " + ", ".join(os.path.basename(p) for k, p in paths.items()
                                                           if k != "metrics") + ")")
    return 0


def cmd_compare(args) -> int:
    names = [n.strip() for n in args.optimizers.split(",") if n.strip()]
    for n in names:
        if n.lower().replace("_", "").replace("-", "") not in OPTIMIZERS:
            raise UsageError(f"unknown optimizer '{n}'; known optimizers: {', '.join(OPTIMIZERS)}")
    results = {}
    for n in names:
        print(f"== {n}")
        _, rows, test, seconds, kind = _train_once(args, n, verbose=False)
        results[n] = (rows, test)
        print(f"   test loss {test['loss']:.4f}  test accuracy {test['accuracy']:.4f}  ({seconds:.1f} s)")
    os.makedirs(args.out, exist_ok=True)
    plot = os.path.join(args.out, "compare.png")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4), dpi=110)
    for n, (rows, test) in results.items():
        steps = [r["step"] for r in rows]
        a1.plot(steps, [r["loss"] for r in rows], label=f"{n} (test acc {test['accuracy']:.3f})", linewidth=1.1)
        a2.plot(steps, [r["accuracy"] for r in rows], label=n, linewidth=1.1)
    a1.set_yscale("log")
    a1.set_title("training loss")
    a2.set_title("training accuracy")
    for a in (a1, a2):
        a.set_xlabel("step")
        a.grid(alpha=0.3)
        a.legend()
    fig.tight_layout()
    fig.savefig(plot)
    plt.close(fig)
    with open(os.path.join(args.out, "compare.json"), "w") as f:
        json.dump({n: t for n, (_, t) in results.items()}, f, indent=2)
    print(f"comparison plot: {plot}")
    return 0


def _parser():
    p = argparse.ArgumentParser(prog="descend", description="Train and compare models with descend.")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp):
        sp.add_argument("--data", help="a .npz (arrays x, y) or .csv (numeric, with a label column) file")
        sp.add_argument("--label", help="the label column of a .csv file (default: the last column)")
        sp.add_argument("--example", choices=("digits", "clicks"), default="digits",
                        help="bundled data when --data is not given (default digits)")
        sp.add_argument("--examples", type=int, default=None, help="click-log size for --example clicks")
        sp.add_argument("--model", default="mlp", help="mlp (default) or linear")
        sp.add_argument("--hidden", type=int, default=128, help="hidden units of the MLP")
        sp.add_argument("--lr", type=float, default=None, help="peak learning rate")
        sp.add_argument("--schedule", default="cosine", help=f"one of {', '.join(SCHEDULES)}")
        sp.add_argument("--warmup-steps", type=int, default=None, help="linear warm-up steps")
        sp.add_argument("--weight-decay", type=float, default=None)
        sp.add_argument("--clip-norm", type=float, default=None, help="clip gradients to this global norm")
        sp.add_argument("--accum-steps", type=int, default=1, help="gradient accumulation steps")
        sp.add_argument("--epochs", type=int, default=None)
        sp.add_argument("--batch-size", type=int, default=None)
        sp.add_argument("--max-steps", type=int, default=None, help="stop each epoch after this many steps")
        sp.add_argument("--seed", type=int, default=0)
        sp.add_argument("--checkpoint-every", type=int, default=None,
                        help="save a checkpoint in <out>/checkpoints every N steps (exact resume)")
        sp.add_argument("--resume", action="store_true",
                        help="continue the run in --out from its latest checkpoint (or start it)")
        sp.add_argument("--out", default=None, help="run folder (default runs/<command>-<time>)")

    t = sub.add_parser("train", help="train and evaluate one model")
    common(t)
    t.add_argument("--optimizer", default="adamw", help="optimizer name (default adamw)")
    c = sub.add_parser("compare", help="train the same model with several optimizers and plot their curves")
    common(c)
    c.add_argument("--optimizers", default="sgd,momentum,adam,adamw", help="comma-separated optimizer names")
    return p


def _defaults(args):
    clicks = args.data is None and args.example == "clicks"
    if args.epochs is None:
        args.epochs = 3 if clicks else 40
    if args.batch_size is None:
        args.batch_size = 256 if clicks else 64
    if args.lr is None:
        args.lr = 0.02 if clicks else 3e-3
    if args.warmup_steps is None:
        args.warmup_steps = 50
    for name in ("epochs", "batch_size", "accum_steps"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be >= 1. Received: {getattr(args, name)}")
    if args.lr <= 0 or not math.isfinite(args.lr):
        raise UsageError(f"--lr must be a positive number. Received: {args.lr}")
    if args.checkpoint_every is not None and args.checkpoint_every < 1:
        raise UsageError(f"--checkpoint-every must be >= 1. Received: {args.checkpoint_every}")
    if args.out is None:
        if args.resume:
            raise UsageError("--resume needs --out: the run folder to continue")
        args.out = os.path.join("runs", f"{args.command}-{time.strftime('%Y%m%d-%H%M%S')}")
    return args


def main(argv=None) -> int:
    """Entry point of the ``descend`` console command; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        args = _defaults(args)
        return cmd_train(args) if args.command == "train" else cmd_compare(args)
    except UsageError as e:
        print(f"descend {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
