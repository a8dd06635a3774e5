"""The run folder: what may be written where, what a folder holds, and writing it.

A run folder holds ``config.json`` (the settings and the data facts, written
before training starts), ``checkpoints/`` (at each epoch's end and every
``--checkpoint-every`` batches), ``metrics.csv`` (one row per batch),
``epochs.csv`` (one row per epoch: train, validation and test), the plots,
``summary.json`` (``"status": "finished"`` or ``"interrupted"``) and, once
finished, ``final/`` (the trained weights, read by ``descend predict``).

One process at a time: a command that writes a run folder holds an exclusive
lock on its ``.lock`` file from its first write (from its first check when
the folder has a lock file already) to its end, and removes the file as it
ends; the operating system releases the lock when the process ends, even when
killed (a killed run's ``.lock`` then stays, unlocked). A second command is
refused, naming the holder's process id. A command refused before its first
write changes nothing in the folder (not even the ``.lock`` it checked). ``--overwrite`` removes only the
files descend writes (:data:`RUN_FILES`, and in ``checkpoints/`` and ``final/``
the checkpoint files and folders, named as the checkpoint format names them);
anything else in the folder stays.

Reading a run folder is bounded: ``config.json`` and ``summary.json`` are read
only as regular files of at most :data:`MAX_RUN_JSON_BYTES` holding at most
:data:`MAX_JSON_VALUES` values, nested at most as deep as Python parses, so
reading one takes at most about 5 times that size.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import math
import os
import re
import stat

from ..persistence.checkpoint.descend_format import INDEX_FILE, LOCK_FILE, MANAGER_FILE, MANIFEST_FILE, SHARD_RE, TENSORS_FILE
from ..persistence.durable import TMP_PREFIX, can_create_in
from .files import describe, open_input, write_bytes
from .options import UsageError
from .tabular import MAX_COLUMNS

__all__ = ["inspect_out", "OutFolder", "read_json", "write_json", "write_run", "smooth", "RUN_FILES",
           "clear_run", "newest_valid_checkpoint", "repair_checkpoints", "MAX_RUN_JSON_BYTES", "MAX_JSON_VALUES"]

# the files descend writes at a run folder's top (with checkpoints/ and final/: what --overwrite removes)
RUN_FILES = ("config.json", "summary.json", "metrics.csv", "epochs.csv", "loss.png", "accuracy.png",
             "learning_rate.png", "compare.png", "compare.json")
RUN_FOLDERS = ("checkpoints", "final")
MAX_RUN_JSON_BYTES = 128 << 20  # config.json of a run on MAX_COLUMNS features takes about 65 MiB
MAX_JSON_VALUES = 4 * MAX_COLUMNS + 100_000
SMOOTHING = 0.9

_HEX = "-[0-9a-f]{12}"
_TMP = re.escape(TMP_PREFIX)
_TOP_TMP = re.compile(rf"^{_TMP}(?:old-|del-)?(?:{'|'.join(map(re.escape, RUN_FILES + ('final',)))}){_HEX}$")
_CKPT = re.compile(r"^ckpt-\d+$")
_CKPT_ASIDE = re.compile(rf"^(?:corrupted-ckpt-\d+(?:\.\d+)?|{_TMP}(?:old-|del-)?ckpt-\d+{_HEX})$")
_CKPT_FILES = re.compile(rf"^(?:{re.escape(INDEX_FILE)}(?:\.corrupted)?|{re.escape(LOCK_FILE)}|"
                         rf"{re.escape(MANAGER_FILE)}|{_TMP}(?:{re.escape(INDEX_FILE)}|{re.escape(MANAGER_FILE)}){_HEX})$")


class OutFolder:
    """What ``--out`` names: ``exists``, the saved ``config`` and ``summary`` (or None).

    The folder's lock is taken as soon as there is one to take (a folder descend wrote before holds its
    ``.lock``), else by :meth:`claim`, right before the first write, which then checks the folder again.
    :meth:`close` releases it."""

    def __init__(self, path, exists, config, summary, holds_run, *, flag="--out", resume=False, overwrite=False):
        self.path, self.exists, self.config, self.summary, self.holds_run = path, exists, config, summary, holds_run
        self.flag, self.resume, self.overwrite = flag, resume, overwrite
        self.fingerprint = (None, None)  # the config.json and summary.json read (inode, size, time)
        self._lock = None
        self._claimed = False

    @property
    def finished(self) -> bool:
        return self.summary is not None and self.summary.get("status", "finished") == "finished"

    @property
    def locked(self) -> bool:
        return self._lock is not None

    def lock(self, *, create: bool = True) -> None:
        """Take the folder's lock (creating its ``.lock``; with ``create=False`` only an existing one, left as
        it is); UsageError naming the holder if another process has it."""
        from ..persistence.checkpoint.descend_format import DirectoryLock
        from ..persistence.checkpoint_errors import CheckpointLockedError

        lock = DirectoryLock(self.path)
        lock_path = os.path.join(self.path, LOCK_FILE)
        try:
            lock.acquire(create=create, record=create)
        except FileNotFoundError:
            if create:
                raise UsageError(f"{self.flag} {self.path}: cannot create its lock file {lock_path}") from None
            return  # its holder removed it as it ended: claim() creates it
        except CheckpointLockedError:
            raise UsageError(f"{self.flag} {self.path} is in use by another descend process (pid "
                             f"{_lock_holder(self.path)}); wait for it to end, or choose another {self.flag}") from None
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise UsageError(f"{self.flag} {self.path}: its lock file {lock_path} is a symbolic link; remove "
                                 "it") from None
            raise UsageError(f"{self.flag} {self.path}: cannot take its lock file {lock_path} ({e.strerror})") from None
        self._lock = lock

    def claim(self) -> None:
        """Before the first write: create the folder, take its lock if not held yet, and check that the
        folder is as it was found (another process may have written it meanwhile)."""
        if self._claimed:
            return
        if self._lock is not None:  # taken while checking: now it names this process
            self._lock.record()
            self._claimed = True
            return
        os.makedirs(self.path, exist_ok=True)
        self.lock()
        self._claimed = True
        try:
            now = OutFolder(self.path, True, None, None, False, flag=self.flag, resume=self.resume,
                            overwrite=self.overwrite)
            _check_out(now, self.resume, self.overwrite, self.flag)
            if now.fingerprint != self.fingerprint:
                raise UsageError(f"{self.flag} {self.path} changed while this command was preparing (another "
                                 "descend process wrote to it); run the command again")
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Let go of the folder's lock; a command that wrote removes its ``.lock`` (one only checked leaves
        the folder as it was)."""
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release(remove=self._claimed)
        self._claimed = False


def read_json(path, what):
    """Read a JSON object from the regular file ``path``, bounded (see the module's notes)."""
    try:
        f, size = open_input(path, what)
    except FileNotFoundError:
        raise UsageError(f"{path}: the run's {what} does not exist") from None
    with f:
        if size > MAX_RUN_JSON_BYTES:
            raise UsageError(f"{path}: the run's {what} has {size:,} bytes; at most {MAX_RUN_JSON_BYTES:,} are read "
                             "(refused without reading it)")
        raw = f.read(MAX_RUN_JSON_BYTES + 1)
    if len(raw) > MAX_RUN_JSON_BYTES:
        raise UsageError(f"{path}: the run's {what} is larger than {MAX_RUN_JSON_BYTES:,} bytes")
    if raw.count(b",") > MAX_JSON_VALUES:
        raise UsageError(f"{path}: the run's {what} holds more than {MAX_JSON_VALUES:,} values; refused before "
                         "parsing")
    try:
        text = raw.decode("utf-8-sig")
        del raw
        value = json.loads(text)
    except RecursionError:
        raise UsageError(f"{path}: cannot read the run's {what} (its JSON nests too deeply)") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise UsageError(f"{path}: cannot read the run's {what} ({type(e).__name__}: "
                         f"{' '.join(str(e).split())[:200]})") from None
    if not isinstance(value, dict):
        raise UsageError(f"{path}: the run's {what} is not a JSON object")
    return value


def json_text(value, indent: int = 0) -> str:
    """JSON with objects indented and lists of plain values on one line (a run's per-feature lists stay
    compact).

    Example:
        >>> print(json_text({"a": [1, 2.5], "b": {"c": None}}))
        {
          "a": [1, 2.5],
          "b": {
            "c": null
          }
        }
    """
    pad = " " * indent
    if isinstance(value, dict) and value:
        inner = ",\n".join(f"{pad}  {json.dumps(str(k))}: {json_text(v, indent + 2)}" for k, v in value.items())
        return "{\n" + inner + "\n" + pad + "}"
    if isinstance(value, (list, tuple)) and any(isinstance(v, (dict, list, tuple)) for v in value):
        inner = ",\n".join(f"{pad}  {json_text(v, indent + 2)}" for v in value)
        return "[\n" + inner + "\n" + pad + "]"
    return json.dumps(value)


def write_json(path, value) -> None:
    """Write JSON atomically (a new temporary file renamed over ``path``)."""
    write_bytes(path, (json_text(value) + "\n").encode("utf-8"))


def _probe_writable(folder) -> str | None:
    """None if a file can be created in ``folder``; else the reason."""
    return can_create_in(folder)


def _lock_holder(path) -> str:
    """The pid the lock's holder wrote in it. The holder writes it just after it takes the lock, so an empty
    file is read again for up to half a second before the pid is called unknown."""
    import time

    for attempt in range(26):
        try:
            f, _ = open_input(os.path.join(path, LOCK_FILE), "lock file")
            with f:
                pid = f.read(64).decode("ascii", "replace").strip()
        except (OSError, UsageError):
            return "unknown"
        if pid.isdigit():
            return pid
        time.sleep(0.02)
    return "unknown"


def inspect_out(path: str, *, resume: bool, overwrite: bool, flag: str = "--out", lock: bool = True) -> OutFolder:
    """Check ``--out`` before anything is written; raises UsageError (one line) when it cannot be used.
    With ``lock`` (False on the processes of an MPI job other than rank 0, which locks for all), the
    folder's lock is taken now if the folder has a lock file (so a second command fails at once),
    else by ``claim()``. The caller must ``close()`` the folder returned."""
    if resume and overwrite:
        raise UsageError("--resume continues the run in --out and --overwrite replaces it: pass one of them")
    if os.path.lexists(path) and not os.path.isdir(path):
        raise UsageError(f"{flag} {path} is {describe(path)}, not a folder; name a folder for the run")
    if not os.path.exists(path):
        if resume:
            raise UsageError(f"--resume: {path} does not exist, so there is no run to continue (drop --resume to "
                             "start a new run there)")
        parent = os.path.dirname(os.path.abspath(path))
        while not os.path.lexists(parent):
            parent = os.path.dirname(parent)
        if not os.path.isdir(parent):
            raise UsageError(f"{flag} {path} cannot be created: {parent} is {describe(parent)}")
        why = _probe_writable(parent)
        if why:
            raise UsageError(f"{flag} {path} cannot be created in {parent}: {why}")
        return OutFolder(path, False, None, None, False, flag=flag, resume=resume, overwrite=overwrite)
    folder = OutFolder(path, True, None, None, False, flag=flag, resume=resume, overwrite=overwrite)
    if lock and os.path.lexists(os.path.join(path, LOCK_FILE)):
        folder.lock(create=False)
    try:
        _check_out(folder, resume, overwrite, flag)  # a refusal here leaves the folder as it was
        why = _probe_writable(path)
        if why:
            raise UsageError(f"{flag} {path} is not writable: {why}")
    except BaseException:
        folder.close()
        raise
    return folder


def _stat_of(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _check_out(out: OutFolder, resume, overwrite, flag) -> None:
    path = out.path
    out.fingerprint = tuple(_stat_of(os.path.join(path, n)) for n in ("config.json", "summary.json"))
    present = [e for e in RUN_FILES + RUN_FOLDERS if os.path.lexists(os.path.join(path, e))]
    out.holds_run = bool(present)
    if os.path.lexists(os.path.join(path, "config.json")) and not overwrite:
        out.config = read_json(os.path.join(path, "config.json"), "settings (config.json)")
    if os.path.lexists(os.path.join(path, "summary.json")) and not overwrite:
        out.summary = read_json(os.path.join(path, "summary.json"), "summary (summary.json)")
    config, summary = out.config, out.summary
    if resume:
        if config is None:
            raise UsageError(f"--resume: {path} holds no descend train run to continue (no config.json)")
        if out.finished:
            raise UsageError(f"--resume: the run in {path} already finished ({_result(summary)}); nothing to "
                             "continue (--overwrite trains it again)")
        return
    if out.holds_run and not overwrite:
        if out.finished:
            raise UsageError(f"{flag} {path} holds a finished run ({_result(summary)}); pass --overwrite to "
                             f"replace it, or choose another {flag}")
        if config is not None:
            raise UsageError(f"{flag} {path} holds an unfinished run{_progress(summary)}; pass --resume to continue "
                             f"it, --overwrite to replace it, or choose another {flag}")
        raise UsageError(f"{flag} {path} already holds {', '.join(present)}; pass --overwrite to replace them, or "
                         f"choose another {flag}")
    if overwrite:
        _clear_plan(path)  # refuses now, before anything, what --overwrite could not clear


def _result(summary) -> str:
    test = (summary or {}).get("test") or {}
    if not isinstance(test, dict):
        return "no test results"
    parts = [f"test {k} {v:.4f}" for k, v in test.items() if isinstance(v, (int, float))][:2]
    return ", ".join(parts) or "no test results"


def _progress(summary) -> str:
    if summary and isinstance(summary.get("epochs_done"), int):
        return f" (interrupted after {summary['epochs_done']} of {summary.get('epochs', '?')} epochs)"
    return ""


# ---------------------------------------------------------------- --overwrite
def _plan_checkpoint_dir(d, files, dirs) -> list[str]:
    """Plan the removal of a checkpoint folder's own files (manifest, tensors, shards); returns the
    names of everything else in it (kept, and the folder with them)."""
    others = []
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        mode = os.lstat(p).st_mode
        if name in (MANIFEST_FILE, TENSORS_FILE) and stat.S_ISREG(mode):
            files.append(p)
        elif SHARD_RE.match(name) and stat.S_ISDIR(mode):
            inner = _plan_checkpoint_dir(p, files, dirs)
            others += [f"{name}/{n}" for n in inner]
        else:
            others.append(name)
    dirs.append(d)
    return others


def _clear_plan(path) -> tuple[list[str], list[str]]:
    """``(files, folders)`` that ``--overwrite`` removes in ``path``: only what descend writes. Raises
    UsageError, before anything is removed, where that cannot leave room for the new run."""
    files, dirs = [], []
    problems = []
    for name in sorted(os.listdir(path)):
        p = os.path.join(path, name)
        mode = os.lstat(p).st_mode
        if name in RUN_FILES or (_TOP_TMP.match(name) and not stat.S_ISDIR(mode)):
            if stat.S_ISREG(mode):
                files.append(p)
            elif name in RUN_FILES:
                problems.append(f"{p} is {describe(p)}, which descend did not write")
        elif _TOP_TMP.match(name) and stat.S_ISDIR(mode):
            _plan_checkpoint_dir(p, files, dirs)
        elif name == "final":
            if not stat.S_ISDIR(mode):
                problems.append(f"{p} is {describe(p)}, which descend did not write")
                continue
            others = _plan_checkpoint_dir(p, files, dirs)
            if others:
                problems.append(f"{p} holds {', '.join(others[:3])}{' ...' if len(others) > 3 else ''}, which "
                                "descend did not write (the new run writes its final weights there)")
        elif name == "checkpoints":
            if not stat.S_ISDIR(mode):
                problems.append(f"{p} is {describe(p)}, which descend did not write")
                continue
            for entry in sorted(os.listdir(p)):
                q = os.path.join(p, entry)
                m = os.lstat(q).st_mode
                if _CKPT_FILES.match(entry) and stat.S_ISREG(m):
                    files.append(q)
                elif (_CKPT.match(entry) or _CKPT_ASIDE.match(entry)) and stat.S_ISDIR(m):
                    others = _plan_checkpoint_dir(q, files, dirs)
                    if others and _CKPT.match(entry):
                        problems.append(f"{q} holds {', '.join(others[:3])}, which descend did not write (the new "
                                        "run writes a checkpoint of that name)")
            dirs.append(p)
    if problems:
        raise UsageError("--overwrite removes only what descend wrote, and " + "; ".join(problems[:3])
                         + ": move that elsewhere, or choose another --out")
    return files, dirs


def clear_run(path) -> None:
    """Remove what descend wrote in ``path`` (``--overwrite``); other files stay, and the folders
    holding them."""
    files, dirs = _clear_plan(path)
    for p in files:
        os.unlink(p)
    for d in dirs:  # inner folders come before the folders holding them
        try:
            os.rmdir(d)
        except OSError as e:
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise


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
    """Write a CSV file atomically (a new temporary file renamed over ``path``)."""
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=fieldnames, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    write_bytes(path, buf.getvalue().encode("utf-8"))


def figure(width, height, ncols=1):
    """A matplotlib Figure and its axes, without pyplot (no global state, no GUI backend, faster import)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)
    return fig, fig.subplots(1, ncols)


def log_axis(ax) -> None:
    """A log-scale y axis labelled 0.1, 0.01, 1e-05 (plain text: the default 10^k labels go through
    matplotlib's math-text parser, which took half of a save's time)."""
    from matplotlib.ticker import FuncFormatter

    def minor(v, _):  # 0.2 and 0.5 too when the axis spans less than two decades
        low, high = ax.get_ylim()
        if v <= 0 or low <= 0 or high / low > 100:
            return ""
        mantissa = round(v / 10 ** math.floor(math.log10(v) + 1e-9))
        return f"{v:g}" if mantissa in (2, 5) else ""

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(minor))


def save(fig, path, left: float = 0.12) -> None:
    # fixed margins (room for two-line titles, tick labels such as 0.00104 and the axis labels):
    # tight_layout measures every text and took half the time of a save, which an interrupted run
    # spends before it exits
    fig.subplots_adjust(left=left, right=0.98, bottom=0.12, top=0.86, wspace=0.25)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", pil_kwargs={"compress_level": 1})  # 20-30% larger, 4x faster to write
    write_bytes(path, buf.getvalue())


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
        log_axis(ax)
    ax.set_title("loss: every training batch, and validation/test after each epoch" + note)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(loc="upper right")  # (the default "best" place tests every point of every line)
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
    ax.legend(loc="lower right")
    save(fig, path)


def plot_lr(path, steps, rows, schedule):
    fig, ax = figure(8, 4)
    ax.plot(steps, [r["learning_rate"] for r in rows], color="tab:purple", linewidth=1.4)
    ax.set_xlabel("update step (batch)")
    ax.set_ylabel("learning rate")
    ax.ticklabel_format(axis="y", style="sci", scilimits=(-2, 3))  # short tick labels: 1.04 and x1e-3 above
    ax.set_title("learning rate the optimizer used at each step\n" + schedule, fontsize=10)
    ax.grid(alpha=0.3)
    save(fig, path)


def write_run(out, rows, epoch_rows, summary, *, task, schedule, plots: bool = True) -> dict:
    """Write metrics.csv, epochs.csv, the plots (unless ``plots`` is False) and summary.json; returns
    ``{what: path}``."""
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
    if rows and plots:
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
