"""Running one training job: the per-step recorder, checkpoints, Ctrl-C/SIGTERM, the evaluation."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import numpy as np

from .job import build_model, build_optimizer, plan_updates

__all__ = ["Interrupt", "Stopped", "train_job", "compile_model", "plotting_ready"]

_plotting = threading.Event()  # set once matplotlib is imported (see _preload_plotting)


class Stopped(BaseException):
    """A signal arrived before anything was written: the command ends at once (a BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` of a reader swallows it)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


class Interrupt:
    """SIGINT/SIGTERM during a run. While ``immediate`` (nothing written yet: reading data, checking)
    the first signal raises :class:`Stopped` at once; later it is a request to stop after the current
    step (with a checkpoint and the run folder), or, once training is over, to finish writing the run
    folder. A second signal ends the process at once (the newest checkpoint on disk stays valid)."""

    def __init__(self):
        self.signum = None
        self.immediate = True  # False from the first write on
        self.training = True  # False once training is over: a signal then only ends the folder's writing
        self._old = {}

    def install(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._old[sig] = signal.signal(sig, self._handle)
        return self

    def restore(self):
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old = {}

    def _handle(self, signum, frame):
        # os.write, not sys.stderr: the signal may arrive while the progress bar is writing to
        # sys.stderr, and a buffered stream refuses a reentrant write (RuntimeError)
        name = signal.Signals(signum).name
        if self.signum is not None:
            os.write(2, f"\n{name} again: stopping now; the newest checkpoint on disk is kept\n".encode())
            os._exit(128 + signum)
        self.signum = signum
        if self.immediate:
            raise Stopped(signum)
        what = "finishing this step and saving a checkpoint" if self.training else "finishing the run folder"
        os.write(2, f"\n{name}: {what} ({name} again stops at once)\n".encode())

    @property
    def exit_code(self) -> int:
        return 128 + int(self.signum)


def _recorder(model, evaluate_test):
    from ..training.callbacks import Callback

    class Recorder(Callback):
        """One row per batch (the batch's own loss, not a running mean) and one per epoch
        (train, validation and test); its state is saved in every checkpoint, so a resumed
        run's rows are the uninterrupted run's."""

        def __init__(self):
            super().__init__()
            self.rows, self.epoch_rows, self.last = [], [], {}
            self.stopped = False
            self.first_update_at = None  # seconds from the process's start to its first update (cold start)

        def on_train_batch_end(self, batch, logs=None):
            logs = logs or {}
            if self.first_update_at is None:
                self.first_update_at = process_seconds()
                _preload_plotting()
            state = model.fit_state
            row = {"step": len(self.rows) + 1, "epoch": state.epoch + 1,
                   "loss": state.batch_loss,
                   "learning_rate": float("nan") if state.learning_rate is None else float(state.learning_rate)}
            if "accuracy" in logs:
                row["accuracy_epoch_mean"] = float(logs["accuracy"])
            self.rows.append(row)
            self.last = {k: float(v) for k, v in logs.items() if k in ("loss", "accuracy")}

        def on_epoch_end(self, epoch, logs=None):
            if self.stopped:  # interrupted inside the epoch: it is not over
                return
            logs = logs or {}
            # the rate of the epoch's last update, from the rows (after a resume at an epoch's very end the
            # optimizer has not run an update yet in this process)
            row = {"epoch": epoch + 1, "step": len(self.rows), **self.last,
                   "learning_rate": self.rows[-1]["learning_rate"] if self.rows else None}
            for k in ("val_loss", "val_accuracy"):
                if k in logs:
                    row[k] = float(logs[k])
            row.update({f"test_{k}": v for k, v in evaluate_test().items()})
            self.epoch_rows.append(row)

        def get_state(self):
            return {"rows": self.rows, "epoch_rows": self.epoch_rows, "last": self.last}

        def set_state(self, state):
            self.rows, self.epoch_rows = list(state["rows"]), list(state["epoch_rows"])
            self.last = dict(state["last"])

    return Recorder()


def _preload_plotting() -> None:
    """Import matplotlib in a background thread once training runs (after its first update: the cold
    start does not wait for it), so that an interrupted run's save does not (see :func:`plotting_ready`)."""
    def load():
        try:
            import matplotlib.backends.backend_agg  # noqa: F401
            import matplotlib.figure  # noqa: F401
        except Exception:  # noqa: BLE001 - the plots import it again and report what fails
            pass
        finally:
            _plotting.set()

    if not _plotting.is_set():
        threading.Thread(target=load, name="descend-plot-preload", daemon=True).start()


def plotting_ready() -> bool:
    """Whether matplotlib is loaded. A run stopped by a signal before that (within about a second of
    its first update) saves its checkpoint, metrics and summary without the plots, which would cost
    the import (seconds on a busy machine, beside numba's loading); the resumed run draws them."""
    return _plotting.is_set()


def _backup(backup_dir, save_freq, extra, interrupt, recorder):
    from ..persistence.backup import BackupAndRestore

    class RunBackup(BackupAndRestore):
        """``BackupAndRestore`` that also saves at every epoch's end, and saves and stops training
        after the step in which a signal arrived."""

        def on_train_batch_end(self, batch, logs=None):
            super().on_train_batch_end(batch, logs)
            if _any_rank(interrupt.signum is not None, self.model) and not self.model.stop_training:
                if self.save_freq == "epoch" or self._steps % self.save_freq:  # not saved by the line above
                    self.save_now()
                recorder.stopped = True
                self.model.stop_training = True

        def on_epoch_end(self, epoch, logs=None):
            if recorder.stopped:
                return
            if self.save_freq == "epoch":
                super().on_epoch_end(epoch, logs)
            else:
                self._save(epoch + 1, 0, None)

    return RunBackup(backup_dir, save_freq=save_freq, max_to_keep=3, extra=extra)


def _any_rank(flag: bool, model) -> bool:
    """Whether ``flag`` holds on any rank (under a distribution strategy every rank must stop after the
    same step; one process: ``flag``)."""
    from ..training.replica import replica_for

    return replica_for(model).any(flag)


def compile_model(model, kind, optimizer):
    """Compile with the job's loss and accuracy metric (fit records each batch's loss in ``model.fit_state``)."""
    import descend as ds

    if kind == "clicks":
        base, metrics = ds.losses.BinaryCrossentropy, [ds.metrics.BinaryAccuracy(name="accuracy", threshold=0.0)]
        kwargs = {"from_logits": True}
    elif kind == "regression":
        base, metrics, kwargs = ds.losses.MeanSquaredError, [], {}
    else:
        base, metrics = ds.losses.SparseCategoricalCrossentropy, [ds.metrics.SparseCategoricalAccuracy(
            name="accuracy")]
        kwargs = {"from_logits": True}
    model.compile(optimizer=optimizer, loss=base(**kwargs), metrics=metrics)
    return model


def process_seconds() -> float | None:
    """Seconds since this process started (Linux: from /proc, 10 ms resolution); None where unknown."""
    try:
        with open("/proc/self/stat") as f:
            start_ticks = int(f.read().rsplit(")", 1)[1].split()[19])  # field 22: starttime, in clock ticks
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(uptime - start_ticks / os.sysconf("SC_CLK_TCK"), 0.0)
    except (OSError, ValueError, IndexError):
        return None


def train_job(s, data, optimizer_name, *, out=None, interrupt=None, progress=True, checkpoint_every=None,
              resume_from=None, label=""):
    """Train one model as the settings say. Returns a dict: model, rows, epoch_rows, test, seconds,
    first_update_at (seconds from the process's start to this session's first update), updates,
    interrupted (bool), restored_from."""
    import descend as ds

    from ..distribute import comm
    from ..training.callbacks import ProgbarLogger

    ds.clear_session()
    ds.random.set_seed(s["seed"])  # unseeded initializers draw from the global seed's sequence
    np.random.seed(s["seed"])
    x, y = data.train
    per_epoch, total = plan_updates(s, len(x))
    model = build_model(s, data.kind, data.n_outputs, data.info)
    group = comm.world()  # (the MPI group alone: one process loads no strategy, Horovod or ZeRO code)
    if group.size > 1:  # under mpiexec: replicated variables (broadcast from rank 0); fit splits batches
        with ds.distribute.MultiWorkerMirroredStrategy().scope():
            model(ds.constant(x[:1]))
        progress = progress and group.rank == 0
    optimizer = build_optimizer(optimizer_name, s, total, sparse=data.kind == "clicks")
    compile_model(model, data.kind, optimizer)
    xt, yt = data.test

    def evaluate_test():
        return model.evaluate(xt, yt, batch_size=1024, verbose=0, return_dict=True)

    recorder = _recorder(model, evaluate_test)
    callbacks = [recorder]
    if progress:
        callbacks.append(_LabelledProgbar(label) if label else ProgbarLogger(file=sys.stderr))
    backup = None
    if out is not None:
        backup = _backup(os.path.join(out, "checkpoints"), checkpoint_every or "epoch", {"recorder": recorder},
                         interrupt or Interrupt(), recorder)
        callbacks.append(backup)  # last: it saves after the recorder has recorded the step
    t0 = time.perf_counter()
    # --max-steps beyond an epoch means the whole epoch (plan_updates): fit is asked for no more batches
    # than the data has, so it never warns that the input ran out
    model.fit(x, y, batch_size=s["batch_size"], epochs=s["epochs"], callbacks=callbacks, verbose=0, seed=s["seed"],
              steps_per_epoch=per_epoch if s["max_steps"] is not None else None, validation_data=data.val)
    seconds = time.perf_counter() - t0
    interrupted = recorder.stopped
    test = None if interrupted else evaluate_test()
    return {"model": model, "rows": recorder.rows, "epoch_rows": recorder.epoch_rows, "test": test,
            "seconds": seconds, "first_update_at": recorder.first_update_at,
            "updates": total, "per_epoch": per_epoch, "interrupted": interrupted,
            "restored_from": backup.restored_from if backup is not None else None}


def _LabelledProgbar(label):
    from ..training.callbacks import ProgbarLogger

    class Labelled(ProgbarLogger):
        def description(self, epoch):
            return f"{label} {super().description(epoch)}"

    return Labelled(file=sys.stderr)
