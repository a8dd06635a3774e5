"""The run folder: what may be written where, what a folder holds, and writing it.

A run folder holds ``config.json`` (the settings and the data facts, written
before training starts), ``checkpoints/`` (at each epoch's end and every
``--checkpoint-every`` batches), ``metrics.csv`` (one row per batch),
``epochs.csv`` (one row per epoch: train, validation and test), the plots,
``summary.json`` (``"status": "finished"`` or ``"interrupted"``) and, once
finished, ``final/`` (the trained weights, read by ``descend predict``).
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import shutil
import tempfile

from .options import UsageError

__all__ = ["inspect_out", "OutFolder", "read_json", "write_json", "write_run", "smooth", "RUN_ENTRIES",
           "newest_valid_checkpoint", "repair_checkpoints"]

# everything descend writes into a run folder (what --overwrite removes; nothing else is touched)
RUN_ENTRIES = ("config.json", "summary.json", "metrics.csv", "epochs.csv", "loss.png", "accuracy.png",
               "learning_rate.png", "checkpoints", "final", "compare.png", "compare.json")
SMOOTHING = 0.9


class OutFolder:
    """What ``--out`` names: ``exists``, the saved ``config`` and ``summary`` (or None)."""

    def __init__(self, path, exists, config, summary, holds_run):
        self.path, self.exists, self.config, self.summary, self.holds_run = path, exists, config, summary, holds_run

    @property
    def finished(self) -> bool:
        return self.summary is not None and self.summary.get("status", "finished") == "finished"


def read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise UsageError(f"{path}: cannot read the run's {what} ({type(e).__name__}: {e})") from None
    if not isinstance(value, dict):
        raise UsageError(f"{path}: the run's {what} is not a JSON object")
    return value


def write_json(path, value) -> None:
    """Write JSON atomically (a temporary file renamed over ``path``)."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(value, f, indent=2)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _probe_writable(folder) -> str | None:
    """None if a file can be created in ``folder``; else the reason."""
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-probe-")
        os.close(fd)
        os.unlink(tmp)
        return None
    except OSError as e:
        return e.strerror or str(e)


def inspect_out(path: str, *, resume: bool, overwrite: bool, flag: str = "--out") -> OutFolder:
    """Check ``--out`` before anything is written; raises UsageError (one line) when it cannot be used."""
    if resume and overwrite:
        raise UsageError("--resume continues the run in --out and --overwrite replaces it: pass one of them")
    if os.path.lexists(path) and not os.path.isdir(path):
        raise UsageError(f"{flag} {path} is a file, not a folder; name a folder for the run")
    if not os.path.exists(path):
        if resume:
            raise UsageError(f"--resume: {path} does not exist, so there is no run to continue (drop --resume to "
                             "start a new run there)")
        parent = os.path.dirname(os.path.abspath(path))
        while not os.path.exists(parent):
            parent = os.path.dirname(parent)
        if not os.path.isdir(parent):
            raise UsageError(f"{flag} {path} cannot be created: {parent} is a file")
        why = _probe_writable(parent)
        if why:
            raise UsageError(f"{flag} {path} cannot be created in {parent}: {why}")
        return OutFolder(path, False, None, None, False)
    why = _probe_writable(path)
    if why:
        raise UsageError(f"{flag} {path} is not writable: {why}")
    present = [e for e in RUN_ENTRIES if os.path.lexists(os.path.join(path, e))]
    config = summary = None
    if os.path.exists(os.path.join(path, "config.json")) and not overwrite:
        config = read_json(os.path.join(path, "config.json"), "settings (config.json)")
    if os.path.exists(os.path.join(path, "summary.json")) and not overwrite:
        summary = read_json(os.path.join(path, "summary.json"), "summary (summary.json)")
    out = OutFolder(path, True, config, summary, bool(present))
    if resume:
        if config is None:
            raise UsageError(f"--resume: {path} holds no descend train run to continue (no config.json)")
        if out.finished:
            raise UsageError(f"--resume: the run in {path} already finished ({_result(summary)}); nothing to "
                             "continue (--overwrite trains it again)")
        return out
    if out.holds_run and not overwrite:
        if out.finished:
            raise UsageError(f"{flag} {path} holds a finished run ({_result(summary)}); pass --overwrite to "
                             f"replace it, or choose another {flag}")
        if config is not None:
            raise UsageError(f"{flag} {path} holds an unfinished run{_progress(summary)}; pass --resume to continue "
                             f"it, --overwrite to replace it, or choose another {flag}")
        raise UsageError(f"{flag} {path} already holds {', '.join(present)}; pass --overwrite to replace them, or "
                         f"choose another {flag}")
    return out


def _result(summary) -> str:
    test = (summary or {}).get("test") or {}
    parts = [f"test {k} {v:.4f}" for k, v in test.items() if isinstance(v, (int, float))][:2]
    return ", ".join(parts) or "no test results"


def _progress(summary) -> str:
    if summary and summary.get("epochs_done") is not None:
        return f" (interrupted after {summary['epochs_done']} of {summary.get('epochs', '?')} epochs)"
    return ""


def clear_run(path) -> None:
    """Remove what descend wrote in ``path`` (``--overwrite``); other files stay."""
    for e in RUN_ENTRIES:
        p = os.path.join(path, e)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        elif os.path.lexists(p):
            os.unlink(p)


# ---------------------------------------------------------------- checkpoints
_CKPT_RE = re.compile(r"^ckpt-(\d+)$")


def _checkpoint_dirs(directory) -> list[tuple[int, str]]:
    found = []
    for name in os.listdir(directory):
        m = _CKPT_RE.match(name)
        if m and os.path.isdir(os.path.join(directory, name)):
            found.append((int(m.group(1)), name))
    return sorted(found)


def newest_valid_checkpoint(directory) -> tuple[str | None, list[str], str]:
    """``(path, problems, index)``: the newest checkpoint folder in ``directory`` that loads and
    verifies (every checksum), why each newer one was passed over, and the state of the index:
    ``"ok"``, ``"unreadable"``, ``"missing"`` or ``"behind"`` (it does not name that checkpoint as the
    latest, e.g. after a crash between a checkpoint's rename and the index's update). Reads only;
    :func:`repair_checkpoints` makes the folder agree with the choice."""
    from .. import checkpoint as ck

    if not os.path.isdir(directory):
        return None, [], "ok"
    try:
        listed = ck.latest_checkpoint(directory)
        index = "ok" if os.path.exists(os.path.join(directory, ck.INDEX_FILE)) else "missing"
    except Exception:  # noqa: BLE001 - any failure to read the index means it must be rebuilt
        listed, index = None, "unreadable"
    problems = []
    chosen = None
    for _, name in reversed(_checkpoint_dirs(directory)):
        path = os.path.join(directory, name)
        try:
            ck.load_checkpoint(path)
            chosen = path
            break
        except Exception as e:  # noqa: BLE001 - whatever fails to load is passed over, with its reason
            problems.append(f"{name}: {' '.join(str(e).split())[:200]}")
    if index == "ok" and chosen is not None and not problems and listed != chosen:
        index = "behind"
    if index == "missing" and chosen is None:
        index = "ok"  # nothing to index
    return chosen, problems, index


def repair_checkpoints(directory, chosen: str | None, index: str) -> list[str]:
    """Move checkpoint folders newer than ``chosen`` aside (``corrupted-ckpt-N``, kept for inspection)
    and rebuild an unreadable, missing or stale index from the checkpoint folders (an unreadable one is
    kept as ``checkpoint.json.corrupted``). Returns what was done, one line each."""
    from .. import checkpoint as ck

    done = []
    if not os.path.isdir(directory):
        return done
    keep = os.path.basename(chosen) if chosen else None
    keep_n = int(_CKPT_RE.match(keep).group(1)) if keep else -1
    for n, name in _checkpoint_dirs(directory):
        if n > keep_n:
            dest = os.path.join(directory, f"corrupted-{name}")
            k = 1
            while os.path.exists(dest):
                k += 1
                dest = os.path.join(directory, f"corrupted-{name}.{k}")
            os.rename(os.path.join(directory, name), dest)
            done.append(f"moved {name} aside to {os.path.basename(dest)}")
    path = os.path.join(directory, ck.INDEX_FILE)
    if index != "ok" or done:
        if index == "unreadable" and os.path.exists(path):
            os.replace(path, path + ".corrupted")
            done.append(f"kept the unreadable index as {ck.INDEX_FILE}.corrupted")
        entries = []
        for _, name in _checkpoint_dirs(directory):
            try:
                created = float(read_json(os.path.join(directory, name, ck.MANIFEST_FILE),
                                          "checkpoint manifest").get("created", 0.0))
            except (UsageError, TypeError, ValueError):
                created = os.path.getmtime(os.path.join(directory, name))
            entries.append({"name": name, "time": created})
        # the index format CheckpointManager documents: format, schema_version, latest, checkpoints (oldest first)
        write_json(path, {"format": ck.INDEX_FORMAT, "schema_version": ck.SCHEMA_VERSION,
                          "latest": entries[-1]["name"] if entries else None, "checkpoints": entries})
        if index != "ok":
            why = {"unreadable": "it was unreadable", "missing": "it was missing",
                   "behind": "it did not list the newest checkpoint"}[index]
            done.append(f"rebuilt the index from {len(entries)} checkpoint folder(s) ({why})")
    return done


# ---------------------------------------------------------------- metrics and plots
def smooth(values, weight: float = SMOOTHING) -> list[float]:
    """TensorBoard's smoothing: an exponential moving average, debiased for its zero start
    (non-finite values are passed through and skipped).

    Example:
        >>> [round(v, 4) for v in smooth([1.0, 0.0, 0.0], 0.5)]
        [1.0, 0.3333, 0.1429]
    """
    out, last, n = [], 0.0, 0
    for v in values:
        if v is None or not math.isfinite(v):
            out.append(v)
            continue
        last = last * weight + (1 - weight) * v
        n += 1
        out.append(last / (1 - weight ** n))
    return out


def write_csv(path, fieldnames, rows) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fieldnames, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)


def figure(width, height, ncols=1):
    """A matplotlib Figure and its axes, without pyplot (no global state, no GUI backend, faster import)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)
    return fig, fig.subplots(1, ncols)


def save(fig, path) -> None:
    fig.tight_layout()
    fig.savefig(path)


def _epoch_marks(ax, epoch_rows):
    for r in epoch_rows:
        ax.axvline(r["step"], color="0.6", linewidth=0.7, linestyle=":", zorder=0)


def plot_loss(path, steps, rows, epoch_rows, *, loss_name, log_scale, note=""):
    fig, ax = figure(8, 4.5)
    raw = [r["loss"] for r in rows]
    ax.plot(steps, raw, color="tab:blue", alpha=0.25, linewidth=0.8, label="train, per batch")
    ax.plot(steps, smooth(raw), color="tab:blue", linewidth=1.6,
            label=f"train, smoothed (EMA {SMOOTHING}, as TensorBoard)")
    ends = [r["step"] for r in epoch_rows]
    for key, label, style in (("val_loss", "validation, per epoch", dict(color="tab:orange", marker="o")),
                              ("test_loss", "test, per epoch", dict(color="tab:green", marker="s",
                                                                    linestyle="--"))):
        ys = [r.get(key) for r in epoch_rows]
        if any(v is not None for v in ys):
            ax.plot(ends, ys, label=label, linewidth=1.4, markersize=4, **style)
    _epoch_marks(ax, epoch_rows)
    ax.set_xlabel("update step (batch)" + ("; dotted lines: epoch ends" if epoch_rows else ""))
    finite = [v for v in raw if v is not None and math.isfinite(v)]
    log_scale = log_scale and bool(finite) and min(finite) > 0 and max(finite) / min(finite) > 10
    ax.set_ylabel(loss_name + (" (log scale)" if log_scale else ""))
    if log_scale:
        ax.set_yscale("log")
    ax.set_title("loss: every training batch, and validation/test after each epoch" + note)
    ax.grid(alpha=0.3, axis="y")
    ax.legend()
    save(fig, path)


def plot_accuracy(path, epoch_rows):
    fig, ax = figure(8, 4.5)
    epochs = [r["epoch"] for r in epoch_rows]
    for key, label, style in (("accuracy", "train (mean over the epoch)", dict(color="tab:blue", marker=".")),
                              ("val_accuracy", "validation", dict(color="tab:orange", marker="o")),
                              ("test_accuracy", "test", dict(color="tab:green", marker="s", linestyle="--"))):
        ys = [r.get(key) for r in epoch_rows]
        if any(v is not None for v in ys):
            ax.plot(epochs, ys, label=label, linewidth=1.4, markersize=4, **style)
    ax.set_xlabel("epoch")
    ax.set_ylabel("accuracy")
    ax.set_title("accuracy per epoch")
    ax.grid(alpha=0.3)
    ax.legend()
    save(fig, path)


def plot_lr(path, steps, rows, schedule):
    fig, ax = figure(8, 4)
    ax.plot(steps, [r["learning_rate"] for r in rows], color="tab:purple", linewidth=1.4)
    ax.set_xlabel("update step (batch)")
    ax.set_ylabel("learning rate")
    ax.set_title("learning rate the optimizer used at each step\n" + schedule, fontsize=10)
    ax.grid(alpha=0.3)
    save(fig, path)


def write_run(out, rows, epoch_rows, summary, *, task, schedule) -> dict:
    """Write metrics.csv, epochs.csv, the plots and summary.json; returns ``{what: path}``."""
    os.makedirs(out, exist_ok=True)
    paths = {"metrics": os.path.join(out, "metrics.csv"), "epochs": os.path.join(out, "epochs.csv")}
    smoothed = smooth([r["loss"] for r in rows])
    step_fields = ["step", "epoch", "loss", "loss_smoothed", "learning_rate"]
    if task != "regression":
        step_fields.insert(4, "accuracy_epoch_mean")
    write_csv(paths["metrics"], step_fields, [dict(r, loss_smoothed=s) for r, s in zip(rows, smoothed)])
    epoch_fields = ["epoch", "step", "loss", "val_loss", "test_loss", "learning_rate"]
    if task != "regression":
        epoch_fields[3:3] = ["accuracy", "val_accuracy", "test_accuracy"]
        epoch_fields = ["epoch", "step", "loss", "accuracy", "val_loss", "val_accuracy", "test_loss",
                        "test_accuracy", "learning_rate"]
    write_csv(paths["epochs"], epoch_fields, epoch_rows)
    if rows:
        steps = [r["step"] for r in rows]
        loss_name = "mean squared error (standardized target)" if task == "regression" else (
            "binary cross-entropy" if task == "clicks" else "cross-entropy")
        paths["loss"] = os.path.join(out, "loss.png")
        note = f"\n(interrupted after {len(rows)} batches)" if summary.get("status") == "interrupted" else ""
        plot_loss(paths["loss"], steps, rows, epoch_rows, loss_name=loss_name, log_scale=True, note=note)
        if task != "regression" and epoch_rows:
            paths["accuracy"] = os.path.join(out, "accuracy.png")
            plot_accuracy(paths["accuracy"], epoch_rows)
        paths["learning_rate"] = os.path.join(out, "learning_rate.png")
        plot_lr(paths["learning_rate"], steps, rows, schedule)
    write_json(os.path.join(out, "summary.json"), {**summary, "files": {k: os.path.basename(v)
                                                                        for k, v in paths.items()}})
    return paths
