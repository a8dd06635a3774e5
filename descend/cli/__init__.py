"""The ``descend`` command: ``descend train``, ``descend compare`` and ``descend predict``.

``descend train`` trains and evaluates a model and writes a run folder (see
:mod:`descend.cli.rundir`): per-batch and per-epoch metrics, plots, checkpoints
and the final weights. With no arguments it trains an MLP on the bundled
handwritten digits with AdamW, a short warm-up and cosine decay;
``--example clicks`` trains embeddings on a generated click log (sparse
updates); ``--data FILE.csv`` trains on a table (classification or
regression, inferred from the label column). ``descend predict`` applies a
finished run to new rows; ``descend compare`` trains one model per optimizer
and plots their curves.

Every bad input ends the command with one line on stderr and exit code 2,
before anything is written. Ctrl-C or SIGTERM during training saves a
checkpoint and the run folder and prints the command that continues the run
(exit code 130 / 143). stdout carries results only; progress goes to stderr.

Example:
    >>> from descend.cli import main
    >>> main(["train", "--epochs", "0"])
    2
"""

from __future__ import annotations

import math
import os
import shlex
import sys
import time

import numpy as np

from .options import CHANGEABLE, SETTINGS, UsageError, check_settings, parser, resolve_defaults
from .rundir import OutFolder, clear_run, inspect_out, newest_valid_checkpoint, read_json, repair_checkpoints, write_json, write_run

__all__ = ["main", "UsageError"]


def _err(msg: str) -> None:
    if _group().rank != 0:  # under mpiexec: one log, from rank 0
        return
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def _group():
    """This process's MPI group (a group of one without mpiexec)."""
    from ..distribute import comm

    return comm.world()


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _fmt(v) -> str:
    return "(none)" if v is None else f"{v:g}" if isinstance(v, float) else str(v)


# ---------------------------------------------------------------- settings
def _given(args) -> dict:
    return {k: getattr(args, k) for k in SETTINGS if getattr(args, k, None) is not None}


def _resume_settings(args, given: dict, folder: OutFolder) -> dict:
    """The saved run's settings, with the changes ``--allow-change`` permits; one line listing every
    difference otherwise."""
    from .tabular import file_sha256

    allow = [a.strip().replace("-", "_") for a in args.allow_change.split(",") if a.strip()]
    bad = [a for a in allow if a not in CHANGEABLE]
    if bad:
        raise UsageError(f"--allow-change: '{bad[0]}' cannot change on --resume; changeable settings: "
                         f"{', '.join(CHANGEABLE)}")
    config = folder.config
    saved = check_settings(config.get("settings"), f"--resume: {folder.path}/config.json")
    diffs, blocked = [], []
    for k, v in given.items():
        if k == "data":
            same = file_sha256(v) == (config.get("data") or {}).get("sha256")
        else:
            same = saved.get(k) == v or (isinstance(v, float) and isinstance(saved.get(k), (int, float))
                                         and float(saved[k]) == v)
        if not same:
            text = f"{_flag(k)} {_fmt(v)} (saved: {_fmt(saved.get(k))})"
            diffs.append(k)
            if k not in allow:
                blocked.append(text)
    if blocked:
        changeable = [b for b in blocked if b.split()[0][2:].replace("-", "_") in CHANGEABLE]
        hint = (f"; to change {', '.join(c.split()[0] for c in changeable)} on purpose add --allow-change "
                + ",".join(c.split()[0][2:] for c in changeable)) if changeable else ""
        raise UsageError(f"--resume: the run in {folder.path} was started with other settings: "
                         f"{'; '.join(blocked)}. Drop these flags to continue it{hint}")
    s = dict(saved)
    for k in diffs:
        s[k] = given[k]
    if "data" in given:  # the same content (checked above), perhaps from another path
        s["data"] = os.path.abspath(given["data"])
    return s


def _default_out(command: str) -> str:
    return os.path.join("runs", f"{command}-{time.strftime('%Y%m%d-%H%M%S')}")


# ---------------------------------------------------------------- train
def cmd_train(args) -> int:
    from .training import Interrupt, Stopped

    interrupt = Interrupt()
    try:  # the handler stays until the run folder is written: a signal never cuts a write short
        interrupt.install()
        return _train(args, interrupt)
    except Stopped as e:  # a signal before the first write: nothing to save
        return _stopped_early(e.signum)
    finally:
        interrupt.immediate = False  # from here a signal only sets the flag
        interrupt.restore()


def _stopped_early(signum) -> int:
    import signal

    _err(f"descend train: stopped by {signal.Signals(signum).name} before training started; nothing was written")
    group = _group()
    if group.size > 1:
        group.abort(128 + signum)
    return 128 + signum


def _train(args, interrupt) -> int:
    given = _given(args)
    if args.allow_change and not args.resume:
        raise UsageError("--allow-change only applies with --resume")
    if args.resume and args.out is None:
        raise UsageError("--resume needs --out: the run folder to continue")
    out = args.out or _default_out("train")
    folder = inspect_out(out, resume=args.resume, overwrite=args.overwrite, lock=_group().rank == 0)
    try:
        return _train_in(args, interrupt, given, out, folder)
    finally:
        folder.close()


def _train_in(args, interrupt, given, out, folder) -> int:
    from .job import build_optimizer, check_model_size, load_data, plan_updates, resolve_warmup, schedule_text

    if args.resume:
        s = _resume_settings(args, given, folder)
    else:
        s = resolve_defaults({k: given.get(k) for k in SETTINGS})
    # -- everything below up to the first write only reads and checks
    data = load_data(s, max_bytes=args.max_data_mb << 20)
    check_model_size(s, data.kind, data.train[0].shape[1], data.n_outputs, data.info, "descend train")
    if args.resume and data.info.get("sha256") != (folder.config.get("data") or {}).get("sha256"):
        raise UsageError(f"--resume: the data file {s['data']} changed since the run started (its SHA-256 "
                         "differs); restore it, or start a new run")
    per_epoch, total = plan_updates(s, len(data.train[0]))
    if total < 1:
        raise UsageError(f"--accum-steps {s['accum_steps']} leaves no update: the run has only "
                         f"{per_epoch * s['epochs']} batches")
    resolve_warmup(s, total, given="warmup_steps" in given)
    build_optimizer(s["optimizer"], s, total, sparse=data.kind == "clicks")  # its own checks, before any write
    ckdir = os.path.join(out, "checkpoints")
    chosen, problems, index = (newest_valid_checkpoint(ckdir) if args.resume else (None, [], "ok"))
    if args.resume and problems and chosen is None:
        raise UsageError(f"--resume: no checkpoint in {ckdir} can be read ({'; '.join(problems)}); nothing was "
                         "changed (--overwrite starts the run over)")
    # -- writes start here (under mpiexec: by rank 0 alone, once every rank has checked the folder)
    group = _group()
    group.barrier()
    chief = group.rank == 0
    if chief:
        folder.claim()  # the folder's lock, held until the command ends
    interrupt.immediate = False  # a signal from now on stops training after its step, with a checkpoint
    if args.overwrite and folder.exists and chief:
        clear_run(out)
    if s["data"] is not None:
        s["data"] = os.path.abspath(s["data"])
    config = {"command": "train", "settings": s, "data": data.info, "checkpoint_every": args.checkpoint_every,
              "descend_version": _version()}
    if args.resume:
        for p in problems:
            _err(f"checkpoint {p}")
        for line in (repair_checkpoints(ckdir, chosen, index) if chief else []):
            _err(f"checkpoints: {line}")
        if chosen is not None:
            _err(f"resuming from {os.path.basename(chosen)}" + (" (the newest valid one; newer ones are "
                                                                  "unreadable)" if problems else ""))
        else:
            _err(f"no checkpoint yet in {out}: starting the run over with its saved settings")
        config["checkpoint_every"] = args.checkpoint_every or folder.config.get("checkpoint_every")
    if chief:
        write_json(os.path.join(out, "config.json"), config)
    group.barrier()  # the other ranks read the checkpoints rank 0 has repaired
    schedule = schedule_text(s, total)
    _err(data.description)
    _err(f"model: {s['model']}" + (f" ({s['hidden']} hidden units x 2)" if s["model"] == "mlp" else "")
         + f"; optimizer {s['optimizer']}; {s['epochs']} epochs x {per_epoch} batches of {s['batch_size']}; "
         + f"schedule: {schedule}")
    return _train_and_write(s, data, out, config, interrupt, total, per_epoch, schedule)


def _train_and_write(s, data, out, config, interrupt, total, per_epoch, schedule) -> int:
    import descend as ds

    from .training import plotting_ready, train_job

    try:
        r = train_job(s, data, s["optimizer"], out=out, interrupt=interrupt,
                      checkpoint_every=config["checkpoint_every"])
    except ds.train.CheckpointError as e:  # verified before, so only a checkpoint of another program gets here
        raise UsageError(f"--resume: the checkpoint in {out}/checkpoints cannot be restored: "
                         f"{' '.join(str(e).split())[:300]}") from None
    interrupt.training = False
    model = r["model"]
    params = int(sum(int(np.prod(w.shape)) for w in model.trainable_weights))
    resume_cmd = f"descend train --out {shlex.quote(out)} --resume"
    summary = {"status": "interrupted" if r["interrupted"] else "finished", "task": data.kind,
               "optimizer": s["optimizer"], "lr": s["lr"], "schedule": schedule, "epochs": s["epochs"],
               "epochs_done": len(r["epoch_rows"]), "updates_planned": total,
               "batches_done": len(r["rows"]), "train_seconds_this_session": round(r["seconds"], 3),
               "first_update_seconds_since_start": (None if r["first_update_at"] is None
                                                    else round(r["first_update_at"], 3)),
               "parameters": params, "test": r["test"], "resumed_from": r["restored_from"] and os.path.basename(
                   r["restored_from"])}
    if _group().rank != 0:  # under mpiexec: one run folder and one log, written by rank 0
        return interrupt.exit_code if r["interrupted"] else 0
    if r["interrupted"]:
        summary["resume_command"] = resume_cmd
        plots = plotting_ready()
        write_run(out, r["rows"], r["epoch_rows"], summary, task=data.kind, schedule=schedule, plots=plots)
        sig = {130: "Ctrl-C (SIGINT)", 143: "SIGTERM"}.get(interrupt.exit_code, "a signal")
        _err(f"stopped by {sig} after {len(r['rows'])} batches ({len(r['epoch_rows'])} of {s['epochs']} epochs "
             f"complete); checkpoint and run folder saved in {out}"
             + ("" if plots else " (the plots are drawn when the run continues)"))
        _err(f"continue with: {resume_cmd}")
        return interrupt.exit_code
    test = _test_metrics(model, data, r["test"])
    summary["test"] = test
    from ..persistence.checkpoint.trackable import WithoutOptimizer  # (here: the CLI's start imports no model code)

    ds.train.Checkpoint(model=WithoutOptimizer(model)).write(os.path.join(out, "final"))  # the weights
    paths = write_run(out, r["rows"], r["epoch_rows"], summary, task=data.kind, schedule=schedule)
    print("  ".join(f"test {k} {v:.4f}" for k, v in test.items())
          + f"  ({r['seconds']:.1f} s training, {params:,} parameters)")
    print(f"run folder: {out}  ({', '.join(os.path.basename(p) for p in paths.values())}, final/)")
    return 0


def _test_metrics(model, data, test) -> dict:
    if data.kind != "regression":
        return {k: float(v) for k, v in test.items()}
    xt, yt = data.test
    pred = model.predict(xt, batch_size=1024).reshape(-1).astype(np.float64)
    scale, shift = data.info["y_std"], data.info["y_mean"]
    err = (pred - yt.reshape(-1)) * scale
    return {"mse": float(np.mean(err ** 2)), "rmse": float(np.sqrt(np.mean(err ** 2))),
            "mae": float(np.mean(np.abs(err))),
            "r2": float(1 - np.mean(err ** 2) / np.var(yt.reshape(-1).astype(np.float64) * scale + shift))}


def _version() -> str:
    from .. import __version__

    return __version__


# ---------------------------------------------------------------- predict
def cmd_predict(args) -> int:
    import descend as ds

    from .files import describe, output_target
    from .job import build_model, check_model_size, check_run_data, features_for_predict
    from .training import compile_model

    run = args.run
    if not os.path.isdir(run):
        raise UsageError(f"--run {run} is not a run folder (it is {describe(run)})")
    cpath = os.path.join(run, "config.json")
    if not os.path.lexists(cpath):
        raise UsageError(f"--run {run} holds no descend train run (no config.json)")
    config = read_json(cpath, "settings (config.json)")
    final = os.path.join(run, "final")
    if not os.path.isdir(final):
        raise UsageError(f"--run {run} has no final weights: the run did not finish (continue it with "
                         f"descend train --out {shlex.quote(run)} --resume)")
    target = None if args.output is None else output_target(args.output, "--output")
    s = check_settings(config.get("settings"), cpath)
    kind, info, n_out = check_run_data(config.get("data"), cpath)
    check_model_size(s, kind, len(info["features"]), n_out, info, f"--run {run}")
    x, labels = features_for_predict(args.data, info, max_bytes=args.max_data_mb << 20)
    if kind == "clicks":
        x = x * np.float32(1)  # ids stay integral floats; the embedding lookup casts them
        bad = (x < 0).any() or (x[:, 0] >= info["num_users"]).any() or (x[:, 1] >= info["num_items"]).any()
        if bad:
            raise UsageError(f"{args.data}: user or item ids outside the trained tables")
    ds.clear_session()
    model = build_model(s, kind, n_out, info)
    compile_model(model, kind, "sgd")
    model(x[:1])  # create the variables
    from ..persistence.checkpoint.trackable import WithoutOptimizer

    try:
        ds.train.Checkpoint(model=WithoutOptimizer(model)).read(final, strict=True)
    except ds.train.CheckpointError as e:
        raise UsageError(f"--run {run}: the final weights cannot be loaded ({str(e).splitlines()[0]})") from None
    out = model.predict(x, batch_size=1024)
    rows = []
    if kind == "classification":
        z = out - out.max(axis=1, keepdims=True)
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        idx = p.argmax(axis=1)
        classes = info["classes"]
        pred = [classes[i] for i in idx]
        rows = [{"row": i + 1, "prediction": c, "probability": f"{p[i, k]:.6f}"} for i, (c, k) in
                enumerate(zip(pred, idx))]
        fields = ["row", "prediction", "probability"]
        if labels is not None:
            truth = [str(v) if isinstance(v, str) else v for v in labels]
            acc = np.mean([str(a) == str(b) if isinstance(a, str) else float(a) == float(b)
                           for a, b in zip(pred, truth)])
            unseen = _unseen_labels(truth, classes)
            note = ""
            if unseen:
                n = sum(unseen.values())
                names = ", ".join(repr(k) for k in list(unseen)[:5]) + (", ..." if len(unseen) > 5 else "")
                note = (f" ({n} of them labelled with {len(unseen)} {'class' if len(unseen) == 1 else 'classes'} the "
                        f"run never saw in training ({names}): counted as wrong, since the model predicts only the "
                        f"{len(classes)} classes it was trained on)")
            _err(f"accuracy on the {len(truth)} labelled rows of {args.data}: {acc:.4f}{note}")
    elif kind == "regression":
        pred = out.reshape(-1).astype(np.float64) * info["y_std"] + info["y_mean"]
        rows = [{"row": i + 1, "prediction": f"{v:.6g}"} for i, v in enumerate(pred)]
        fields = ["row", "prediction"]
        if labels is not None and labels.dtype != object:
            err = pred - labels
            _err(f"on the {len(pred)} labelled rows of {args.data}: rmse {np.sqrt(np.mean(err ** 2)):.4f}, "
                 f"mae {np.mean(np.abs(err)):.4f}")
    else:
        prob = 1 / (1 + np.exp(-out.reshape(-1).astype(np.float64)))
        rows = [{"row": i + 1, "prediction": int(q >= 0.5), "probability": f"{q:.6f}"} for i, q in enumerate(prob)]
        fields = ["row", "prediction", "probability"]
    import csv

    if target is None:
        w = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    else:
        from .rundir import write_csv

        write_csv(target, fields, rows)
        _err(f"{len(rows)} predictions written to {args.output}" + (f" ({target})" if target != args.output else ""))
    return 0


def _unseen_labels(truth, classes) -> dict:
    """``{label: rows}`` of the labels in ``truth`` that are none of the trained ``classes`` (compared as
    the accuracy compares them: text as text, numbers as numbers)."""
    text = {str(c) for c in classes}
    numbers = set()
    for c in classes:
        try:
            numbers.add(float(c))
        except (TypeError, ValueError):
            pass
    out = {}
    for t in truth:
        if isinstance(t, str):
            seen = t in text
        else:
            try:
                seen = float(t) in numbers
            except (TypeError, ValueError):
                seen = str(t) in text
        if not seen:
            key = t if isinstance(t, str) else (int(t) if float(t).is_integer() else float(t))
            out[key] = out.get(key, 0) + 1
    return out


# ---------------------------------------------------------------- compare
def cmd_compare(args) -> int:
    from ..optimizers.convention import CONVENTIONS
    from .options import OPTIMIZERS, _choice

    names = []
    for n in args.optimizers.split(","):
        if n.strip():
            try:
                names.append(_choice("optimizer", OPTIMIZERS)(n))
            except Exception as e:  # noqa: BLE001 - ArgumentTypeError: its message is the one line
                raise UsageError(f"--optimizers: {e}") from None
    if not names:
        raise UsageError("--optimizers names no optimizer")
    if len(set(names)) != len(names):
        raise UsageError(f"--optimizers names an optimizer twice: {args.optimizers}")
    conventions = [c.strip() for c in args.conventions.split(",") if c.strip()]
    for c in conventions:
        if c not in CONVENTIONS:
            raise UsageError(f"--conventions: unknown convention {c!r}; expected some of {', '.join(CONVENTIONS)}")
    if not conventions or len(set(conventions)) != len(conventions):
        raise UsageError(f"--conventions must name each convention once (from {', '.join(CONVENTIONS)}). "
                         f"Received: {args.conventions!r}")
    given = _given(args)
    out = args.out or _default_out("compare")
    folder = inspect_out(out, resume=False, overwrite=args.overwrite)
    try:
        return _compare(args, names, conventions, given, out, folder)
    finally:
        folder.close()


def _compare(args, names, conventions, given, out, folder) -> int:
    from .job import NO_WARMUP, build_optimizer, check_model_size, check_warmup, load_data, plan_updates, resolve_warmup, usual_lr
    from .training import train_job

    base = resolve_defaults({k: given.get(k) for k in SETTINGS})
    data = load_data(base, max_bytes=args.max_data_mb << 20)
    check_model_size(base, data.kind, data.train[0].shape[1], data.n_outputs, data.info, "descend compare")
    per_epoch, total = plan_updates(base, len(data.train[0]))
    if total < 1:
        raise UsageError(f"--accum-steps {base['accum_steps']} leaves no update")
    resolve_warmup(base, total, given="warmup_steps" in given)
    for name in names:  # (every check before the first run)
        if "warmup_steps" in given:
            check_warmup(name, base["warmup_steps"])
        for c in conventions:  # an optimizer without that convention, or an argument it does not take
            build_optimizer(name, dict(base, lr=1.0, convention=c, weight_decay=given.get(
                "weight_decay", 0.004 if name == "adamw" else None)), total)
    clicks = data.kind == "clicks"
    _err(data.description)
    results, reference = {}, {}
    for name, convention in [(n, c) for n in names for c in conventions]:
        label = name if conventions == ["keras"] else f"{name}/{convention}"
        reference[label] = f"{name}/{conventions[0]}"
        center = given.get("lr", usual_lr(name, clicks))
        grid = [center / 3, center, center * 3] if args.lr_sweep else [center]
        tried = []
        for lr in grid:
            s = dict(base, optimizer=name, lr=lr, convention=convention,
                     weight_decay=given.get("weight_decay", 0.004 if name == "adamw" else None))
            if name in NO_WARMUP:  # (a warm-up given for it was refused above)
                s["warmup_steps"] = 0
            _err(f"== {label}, learning rate {lr:g}")
            r = train_job(s, data, name, progress=True, label=f"{label} lr {lr:g}")
            val = r["epoch_rows"][-1].get("val_loss", math.inf) if r["epoch_rows"] else math.inf
            tried.append((val if math.isfinite(val) else math.inf, lr, r))
            _err(f"   validation loss {val:.4f}")
        val, lr, r = min(tried, key=lambda t: t[0])
        test = _test_metrics(r["model"], data, r["test"])
        results[label] = {"lr": lr, "tried": {f"{t[1]:g}": t[0] for t in tried}, "test": test, "rows": r["rows"],
                          "epoch_rows": r["epoch_rows"], "seconds": r["seconds"]}
        print(f"{label:<16} lr {lr:<8g} " + "  ".join(f"test {k} {v:.4f}" for k, v in test.items())
              + f"  ({r['seconds']:.1f} s)", flush=True)
    folder.claim()
    if args.overwrite and folder.exists:
        clear_run(out)
    plot = os.path.join(out, "compare.png")
    _plot_compare(plot, results, data.kind, reference if len(conventions) > 1 else None)
    write_json(os.path.join(out, "compare.json"), {n: {k: v for k, v in r.items() if k not in ("rows",)}
                                                   for n, r in results.items()})
    print(f"comparison plot: {plot}")
    return 0


def _plot_compare(path, results, kind, reference=None):
    """The curves of every run; with ``reference`` (label -> the label of the same optimizer under the first
    convention) a third panel shows where the conventions' training losses part."""
    from matplotlib import colormaps

    from .rundir import figure, log_axis, save, smooth

    fig, axes = figure(18 if reference else 12, 4.8, ncols=3 if reference else 2)
    a1, a2 = axes[0], axes[1]
    colors = colormaps["tab10"].colors
    styles = ["-", "--", "-.", ":"]
    markers = ["o", "s", "^", "D", "v", "P", "X", "*"]
    metric = "val_loss" if kind == "regression" else "val_accuracy"
    for i, (n, r) in enumerate(results.items()):
        style = dict(color=colors[i % 10], linestyle=styles[i % 4], marker=markers[i % 8])
        steps = [row["step"] for row in r["rows"]]
        # markers at staggered places: curves that coincide (adam and adamw, say) stay distinguishable
        every = max(len(steps) // 8, 1)
        shift = (i * every) // max(len(results), 1)
        key = "accuracy" if "accuracy" in r["test"] else "rmse" if "rmse" in r["test"] else "loss"
        a1.plot(steps, smooth([row["loss"] for row in r["rows"]]), linewidth=1.4, markersize=6,
                markevery=(shift, every), label=f"{n} (lr {r['lr']:g}; test {key} {r['test'][key]:.4f})", **style)
        epochs = [row["epoch"] for row in r["epoch_rows"]]
        # one marker per epoch: earlier lines get larger markers, every other one hollow, so that
        # coinciding points still show each optimizer
        a2.plot(epochs, [row.get(metric) for row in r["epoch_rows"]], linewidth=1.4,
                markersize=5 + 2.5 * (len(results) - 1 - i), markerfacecolor="none" if i % 2 else style["color"],
                label=n, **style)
        if reference and reference[n] != n and reference[n] in results:
            base = {row["step"]: row["loss"] for row in results[reference[n]]["rows"]}
            pairs = [(row["step"], abs(row["loss"] - base[row["step"]]) / max(abs(base[row["step"]]), 1e-30))
                     for row in r["rows"] if row["step"] in base]
            axes[2].plot([p[0] for p in pairs], [max(p[1], 1e-17) for p in pairs], linewidth=1.2,
                         label=f"{n} vs {reference[n]}", color=style["color"], linestyle=style["linestyle"])
    if reference:
        axes[2].set_yscale("log")
        axes[2].set_title("training loss: relative difference from the first convention")
        axes[2].set_xlabel("update step (batch)")
        axes[2].set_ylabel("|loss - loss of the first convention| / loss")
    log_axis(a1)
    a1.set_title("training loss per update (smoothed, EMA 0.9)")
    a1.set_xlabel("update step (batch)")
    a1.set_ylabel("training loss (log scale)")
    a2.set_title(f"{metric.replace('val_', 'validation ')} per epoch")
    a2.set_xlabel("epoch")
    a2.set_ylabel(metric.replace("val_", "validation "))
    for a in axes:
        a.grid(alpha=0.3)
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=8)
    save(fig, path, left=0.07)


# ---------------------------------------------------------------- entry point
def main(argv=None) -> int:
    """Entry point of the ``descend`` console command; returns the exit code."""
    p = parser()
    try:
        args = p.parse_args(argv)
    except SystemExit as e:  # argparse: --help/--version (0) or a one-line error (2)
        return int(e.code or 0)
    from .. import _native

    # numba loads in a thread while the first steps run: until it is there, the kernels whose NumPy path
    # gives the same bits take that path (the numbers do not change; see descend._native)
    background = _native.set_background_loading(True)
    try:
        code = _run(args)
    finally:
        _native.set_background_loading(background)
    if argv is None:  # the process's own command, about to exit
        _leave(code)
    return code


def _leave(code: int) -> None:
    """The console command's end. Its objects need no collector pass at the interpreter's teardown
    (0.5-1 s with matplotlib and numba loaded). Stopped by a signal (everything saved and flushed to
    disk), it leaves at once: the interpreter would otherwise wait for numba's background loader
    (seconds, when the signal came during the first steps)."""
    import gc

    gc.freeze()
    if code in (130, 143) and _group().size == 1:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def _run(args) -> int:
    try:
        if args.command == "train":
            return cmd_train(args)
        if args.command == "compare":
            return cmd_compare(args)
        return cmd_predict(args)
    except UsageError as e:
        group = _group()
        if group.size > 1:  # under mpiexec: the other ranks may be waiting for this one; end the job
            sys.stderr.write(f"[rank {group.rank}] descend {args.command}: error: {e}\n")
            sys.stderr.flush()
            group.abort(2)
        _err(f"descend {args.command}: error: {e}")
        return 2
    except KeyboardInterrupt:  # train handles signals itself; compare and predict write only at their end
        _err(f"descend {args.command}: interrupted; nothing was written")
        return 130
    except MemoryError:  # beyond the bounds the readers and the model size keep: one line, not a traceback
        _err(f"descend {args.command}: error: out of memory (the data, or the model, does not fit in this "
             "process's memory; lower --max-data-mb, --hidden or --batch-size)")
        return 1
    except BrokenPipeError:  # `descend predict ... | head`: the reader left; nothing to report
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the interpreter's final flush does not fail again
        return 141
    except OSError as e:  # a disk that fills or a folder removed under us: one line, not a traceback
        _err(f"descend {args.command}: error: {e.strerror or e}: {e.filename or ''}".rstrip(": "))
        return 1


if __name__ == "__main__":
    sys.exit(main())
