"""Callbacks for ``Model.fit`` (Keras semantics): hooks called at train, epoch and batch boundaries."""

from __future__ import annotations

import csv
import math
import os
import sys
import time

import numpy as np

from .replica import replica_for

__all__ = [
    "Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping", "LearningRateScheduler",
    "CSVLogger", "ReduceLROnPlateau", "LambdaCallback", "ModelCheckpoint", "TerminateOnNaN", "python_logs",
    "SwapEMAWeights",
]


class Callback:
    """Base class: override any ``on_*`` hook. ``self.model`` and ``self.params`` are set by ``fit``."""

    def __init__(self):
        self.model = None
        self.params: dict = {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params: dict):
        self.params = params

    def on_train_begin(self, logs=None): ...
    def on_train_end(self, logs=None): ...
    def on_epoch_begin(self, epoch, logs=None): ...
    def on_epoch_end(self, epoch, logs=None): ...
    def on_batch_begin(self, batch, logs=None): ...
    def on_batch_end(self, batch, logs=None): ...

    def on_train_batch_begin(self, batch, logs=None):
        """Calls ``on_batch_begin`` (Keras: the older name of the training hook)."""
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        """Calls ``on_batch_end`` (Keras: the older name of the training hook)."""
        self.on_batch_end(batch, logs=logs)

    def on_test_begin(self, logs=None): ...
    def on_test_end(self, logs=None): ...
    def on_test_batch_begin(self, batch, logs=None): ...
    def on_test_batch_end(self, batch, logs=None): ...
    def on_predict_begin(self, logs=None): ...
    def on_predict_end(self, logs=None): ...
    def on_predict_batch_begin(self, batch, logs=None): ...
    def on_predict_batch_end(self, batch, logs=None): ...


class LambdaCallback(Callback):
    """A callback from plain functions: ``LambdaCallback(on_epoch_end=lambda epoch, logs: ...)``."""

    def __init__(self, **hooks):
        super().__init__()
        for name, fn in hooks.items():
            if not name.startswith("on_") or not hasattr(Callback, name):
                raise ValueError(f"LambdaCallback: unknown hook {name!r}")
            setattr(self, name, fn)


class TerminateOnNaN(Callback):
    """Stop training after the first batch whose loss is NaN or infinite.

    Args:
        raise_error: False (default): set ``model.stop_training``, so ``fit`` ends after this batch and every
            callback's ``on_train_end`` runs. True: raise ``RuntimeError`` at once instead (the other
            callbacks' ``on_train_end`` does not run: a backup is left as it was).

    Example:
        >>> import numpy as np, descend as ds
        >>> model = ds.Sequential([ds.layers.Dense(1)])
        >>> model.compile(optimizer=ds.optimizers.SGD(1e30), loss="mse")
        >>> x = np.ones((8, 2), np.float32)
        >>> h = model.fit(x, x[:, :1] * 1e30, batch_size=2, epochs=3, verbose=0,
        ...               callbacks=[ds.callbacks.TerminateOnNaN()])  # doctest: +ELLIPSIS
        Batch ...: invalid loss (inf), terminating training
        >>> len(h.history["loss"])
        1
    """

    def __init__(self, raise_error: bool = False):
        super().__init__()
        self.raise_error = bool(raise_error)

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None:
            return
        value = float(np.asarray(loss, np.float64).reshape(-1)[0]) if np.size(loss) == 1 else np.asarray(loss)
        if np.all(np.isfinite(value)):
            return
        if self.raise_error:
            raise RuntimeError(f"NaN or Inf loss at batch {batch} (loss {value}); training stops here")
        print(f"Batch {batch}: invalid loss ({value}), terminating training")
        self.model.stop_training = True


class CallbackList:
    """Calls each hook on every callback in order, as Keras 3's: every hook receives a logs dict (``{}`` where
    there are none), a fresh copy per call whose keys are sorted, nested dicts merged into it, and scalar
    Tensors and NumPy scalars made Python floats; the callbacks of one call share that dict (a callback may add
    to it for the ones after it, as ``LearningRateScheduler`` adds ``learning_rate`` for ``History``)."""

    def __init__(self, callbacks, model=None, params=None):
        self.callbacks = list(callbacks or [])
        for c in self.callbacks:
            if not isinstance(c, Callback):
                raise TypeError(f"callbacks must be descend.callbacks.Callback instances. Received: {c!r}")
            if model is not None:
                c.set_model(model)
            if params is not None:
                c.set_params(params)

    def _each(self, name, *args, logs=None):
        logs = python_logs(logs)
        for c in self.callbacks:
            getattr(c, name)(*args, logs)

    def on_train_begin(self, logs=None):
        self._each("on_train_begin", logs=logs)

    def on_train_end(self, logs=None):
        self._each("on_train_end", logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._each("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        self._each("on_epoch_end", epoch, logs=logs)

    def on_batch_begin(self, batch, logs=None):
        self._each("on_batch_begin", batch, logs=logs)

    def on_batch_end(self, batch, logs=None):
        self._each("on_batch_end", batch, logs=logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._each("on_train_batch_begin", batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self._each("on_train_batch_end", batch, logs=logs)

    def on_test_begin(self, logs=None):
        self._each("on_test_begin", logs=logs)

    def on_test_end(self, logs=None):
        self._each("on_test_end", logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._each("on_test_batch_begin", batch, logs=logs)

    def on_test_batch_end(self, batch, logs=None):
        self._each("on_test_batch_end", batch, logs=logs)

    def on_predict_begin(self, logs=None):
        self._each("on_predict_begin", logs=logs)

    def on_predict_end(self, logs=None):
        self._each("on_predict_end", logs=logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._each("on_predict_batch_begin", batch, logs=logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._each("on_predict_batch_end", batch, logs=logs)


def python_logs(logs) -> dict:
    """``logs`` as the callbacks receive them (Keras' ``pythonify_logs``): a new dict with sorted keys,
    nested dicts merged in, scalars as Python floats, anything else (arrays) as it is; ``{}`` for None."""
    out = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            out.update(python_logs(value))
            continue
        if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
            value = value.numpy()
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool) or \
                (isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf"):
            value = float(value)
        out[key] = value
    return out


class History(Callback):
    """Records each epoch's logs: ``history.history["loss"]`` is the list of epoch losses."""

    def __init__(self):
        super().__init__()
        self.history: dict[str, list] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


def _fmt_logs(logs: dict) -> dict:
    out = {}
    for k, v in logs.items():
        if isinstance(v, (float, np.floating)):
            out[k] = f"{v:.4g}"
        else:
            out[k] = v
    return out


def _tqdm_class():
    """tqdm's bar: the notebook widget under IPython (``tqdm.auto``), else the terminal bar of
    ``tqdm.std``, whose import is a quarter of ``tqdm.auto``'s (that one imports asyncio)."""
    if "IPython" in sys.modules:
        from tqdm.auto import tqdm
    else:
        from tqdm.std import tqdm
    return tqdm


class ProgbarLogger(Callback):
    """A live progress bar per epoch (tqdm): loss, metrics, learning rate and examples per second.

    The bar appears when the epoch's first batch ends (as Keras' does), so importing tqdm
    never delays the first training step; its clock starts at the epoch's start."""

    def __init__(self, file=None):
        super().__init__()
        self._bar = None
        self._file = file or sys.stdout
        self._seen = 0
        self._t0 = 0.0
        self._epoch = 0

    def description(self, epoch: int) -> str:
        """The bar's label for ``epoch`` (0-based)."""
        return f"epoch {epoch + 1}/{self.params.get('epochs', '?')}"

    def on_epoch_begin(self, epoch, logs=None):
        self._bar, self._epoch = None, epoch
        self._seen, self._t0 = 0, time.perf_counter()

    def _open(self):
        tqdm = _tqdm_class()
        # tqdm's own TQDM_* environment settings win over ours (an explicit argument would block them)
        pace = {} if "TQDM_MININTERVAL" in os.environ else {"mininterval": 0.2}
        bar = tqdm(total=self.params.get("steps"), desc=self.description(self._epoch), unit="step",
                   file=self._file, leave=True, dynamic_ncols=True, **pace)
        bar.start_t -= time.perf_counter() - self._t0  # elapsed time and rate count from the epoch's start
        return bar

    def on_train_batch_end(self, batch, logs=None):
        state = self.model.fit_state if self.model is not None else None
        self._seen += state.batch_rows if state is not None else 0
        rate = self._seen / max(time.perf_counter() - self._t0, 1e-9)
        shown = _fmt_logs(dict(logs or {}))
        if state is not None and state.learning_rate is not None:
            shown["learning_rate"] = f"{float(state.learning_rate):.4g}"
        shown["ex/s"] = f"{rate:,.0f}"
        if self._bar is None:
            self._bar = self._open()
        self._bar.set_postfix(shown, refresh=False)
        self._bar.update(1)

    def on_epoch_end(self, epoch, logs=None):
        if self._bar is None:  # an epoch without batches still shows its line
            self._bar = self._open()
        shown = _fmt_logs(logs or {})
        shown["ex/s"] = f"{self._seen / max(time.perf_counter() - self._t0, 1e-9):,.0f}"
        self._bar.set_postfix(shown, refresh=True)
        self._bar.close()
        self._bar = None


def _better(mode: str, monitor: str):
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"mode must be 'auto', 'min' or 'max'. Received: {mode!r}")
    if mode == "auto":
        mode = "max" if ("acc" in monitor or "auc" in monitor or monitor.endswith("precision")
                         or monitor.endswith("recall")) else "min"
    return mode


class EarlyStopping(Callback):
    """Stop training when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0.0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        if patience < 0:
            raise ValueError(f"patience must be >= 0. Received: {patience}")
        self.monitor, self.min_delta, self.patience = monitor, abs(float(min_delta)), int(patience)
        self.verbose, self.baseline, self.restore_best_weights = verbose, baseline, restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.mode = _better(mode, monitor)
        self.stopped_epoch = 0

    def _improved(self, current, reference):
        if self.mode == "min":
            return current < reference - self.min_delta
        return current > reference + self.min_delta

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch = 0, 0
        self.best = math.inf if self.mode == "min" else -math.inf
        self.best_weights, self.best_epoch = None, 0

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            raise KeyError(f"EarlyStopping: monitor '{self.monitor}' is not in the logs {sorted(logs or {})}")
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            # the first epoch watched: its weights are the best so far, even if it beats no baseline (Keras 3)
            self.best_weights, self.best_epoch = [w.numpy() for w in self.model.weights], epoch
        self.wait += 1
        if self._improved(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = [w.numpy() for w in self.model.weights]
            if self.baseline is None or self._improved(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch and self.verbose:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        # as Keras 3: the best epoch's weights come back at the end of training, whether it stopped early or not
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            for w, v in zip(self.model.weights, self.best_weights):
                w.assign(v)


class LearningRateScheduler(Callback):
    """Set the learning rate at each epoch's start to ``schedule(epoch, lr)`` (or ``schedule(epoch)``)."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        opt = self.model.optimizer
        try:
            lr = self.schedule(epoch, float(opt.learning_rate))
        except TypeError:
            lr = self.schedule(epoch)
        lr = float(lr)
        if not math.isfinite(lr):
            raise ValueError(f"LearningRateScheduler: the schedule returned {lr} for epoch {epoch}")
        opt.learning_rate = lr
        if self.verbose:
            print(f"Epoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(self.model.optimizer.learning_rate)


class CSVLogger(Callback):
    """Append each epoch's logs as a CSV row (header from the first epoch's keys)."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.sep, self.append = os.fspath(filename), separator, append
        self._file = self._writer = None
        self._keys = None

    def on_train_begin(self, logs=None):
        self._keys = None
        if not replica_for(self.model).is_chief:  # under a strategy rank 0 alone writes the (global) logs
            self._file = None
            return
        exists = self.append and os.path.exists(self.filename) and os.path.getsize(self.filename) > 0
        self._file = open(self.filename, "a" if self.append else "w", newline="")  # noqa: SIM115
        self._has_header = exists

    def on_epoch_end(self, epoch, logs=None):
        if self._file is None:
            return
        logs = logs or {}
        if self._keys is None:
            self._keys = sorted(logs)
            self._writer = csv.DictWriter(self._file, fieldnames=["epoch"] + self._keys, delimiter=self.sep)
            if not self._has_header:
                self._writer.writeheader()
        self._writer.writerow({"epoch": epoch, **{k: logs.get(k, "NA") for k in self._keys}})
        self._file.flush()

    def on_train_end(self, logs=None):
        if self._file is not None:
            self._file.close()
            self._file = None


class ReduceLROnPlateau(Callback):
    """Multiply the learning rate by ``factor`` when ``monitor`` stops improving for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0.0):
        super().__init__()
        if not 0 <= factor < 1:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1 or < 0. Received: factor={factor}")
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.min_delta, self.cooldown, self.min_lr = min_delta, cooldown, min_lr
        self.mode = _better(mode, monitor)

    def on_train_begin(self, logs=None):
        self.wait = self.cooldown_counter = 0
        self.best = math.inf if self.mode == "min" else -math.inf

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        current = logs.get(self.monitor)
        opt = self.model.optimizer
        logs["learning_rate"] = float(opt.learning_rate)
        if current is None:
            raise KeyError(f"ReduceLROnPlateau: monitor '{self.monitor}' is not in the logs {sorted(logs)}")
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        improved = current < self.best - self.min_delta if self.mode == "min" else current > self.best + self.min_delta
        if improved:
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(opt.learning_rate)
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    opt.learning_rate = new
                    if self.verbose:
                        print(f"Epoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0


class ModelCheckpoint(Callback):
    """Save the model (or its weights) during ``fit`` (Keras's callback of that name).

    Args:
        filepath: where to save; may hold ``{epoch}`` (1-based), ``{batch}`` and any log key with a
            format, e.g. ``"ckpt/e{epoch:02d}-{val_loss:.3f}"``. Each save writes a directory
            (:meth:`Model.save` or :meth:`Model.save_weights`), replacing one already there.
        monitor: the log value compared by ``save_best_only``.
        save_best_only: save only when ``monitor`` improves on the best value so far.
        save_weights_only: ``save_weights`` instead of ``save``.
        mode: ``"auto"``, ``"min"`` or ``"max"`` (auto: max for accuracies/AUC, else min).
        save_freq: ``"epoch"`` or a number of batches.
        initial_value_threshold: the best value to beat at the start.
        verbose: 1 prints a line per save.

    Its best value is training state: :class:`BackupAndRestore` saves and restores it, so a
    resumed run keeps only checkpoints that beat the uninterrupted run's best.

    Example:
        >>> import os, tempfile, numpy as np, descend as ds
        >>> folder = tempfile.mkdtemp()
        >>> model = ds.Sequential([ds.layers.Dense(1)])
        >>> _ = model.compile(optimizer="sgd", loss="mse")
        >>> cb = ds.callbacks.ModelCheckpoint(os.path.join(folder, "w-{epoch}"), monitor="loss",
        ...                                   save_weights_only=True)
        >>> _ = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[cb])
        >>> sorted(os.listdir(folder))
        ['w-1', 'w-2']
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__()
        if save_freq != "epoch" and (isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq < 1):
            raise ValueError(f"`save_freq` must be 'epoch' or a positive integer. Received: save_freq={save_freq!r}")
        self.filepath = os.fspath(filepath)
        self.monitor, self.verbose = monitor, verbose
        self.save_best_only, self.save_weights_only = bool(save_best_only), bool(save_weights_only)
        self.mode = _better(mode, monitor)
        self.save_freq = save_freq
        self.best = initial_value_threshold if initial_value_threshold is not None else (
            math.inf if self.mode == "min" else -math.inf)
        self._batches = 0
        self._epoch = 0

    def _improved(self, current) -> bool:
        return current < self.best if self.mode == "min" else current > self.best

    def _save(self, epoch, batch, logs):
        logs = dict(logs or {})
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                import warnings

                warnings.warn(f"ModelCheckpoint: monitor '{self.monitor}' is not in the logs {sorted(logs)}; "
                              "skipping", stacklevel=3)
                return
            if not self._improved(float(current)):
                return
            self.best = float(current)
        try:
            path = self.filepath.format(epoch=epoch + 1, batch=batch, **logs)
        except (KeyError, IndexError, ValueError) as e:
            raise KeyError(f"ModelCheckpoint: cannot fill in filepath '{self.filepath}' with epoch, batch and the "
                           f"logs {sorted(logs)}: {e}") from None
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)
        if self.verbose:
            print(f"Epoch {epoch + 1}: saved the model to {path}")

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self._batches += 1
        if self.save_freq != "epoch" and self._batches % self.save_freq == 0:
            self._save(self._epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    # -- state protocol (saved by BackupAndRestore) ------------------------------------------------
    def state_dict(self) -> dict:
        return {"best": float(self.best), "batches": int(self._batches)}

    def restore_plan(self, state: dict):
        best, batches = state.get("best"), state.get("batches")
        if set(state) != {"best", "batches"} or not isinstance(best, (int, float)) or isinstance(best, bool) \
                or isinstance(batches, bool) or not isinstance(batches, int) or batches < 0:
            raise ValueError(f"ModelCheckpoint: expected {{'best': number, 'batches': int >= 0}}; received "
                             f"{str(state)[:200]}")

        def commit():
            self.best, self._batches = float(best), batches
        return commit


class SwapEMAWeights(Callback):
    """Evaluate and predict with the optimizer's moving averages (``keras.callbacks.SwapEMAWeights``).

    The optimizer must have ``use_ema=True``. Around ``evaluate``/``predict`` (and the validation of ``fit``)
    each trainable variable trades values with its moving average, and trades back after; with
    ``swap_on_epoch=True`` the averages are also in the model at each epoch's end (so a later callback, a
    ``ModelCheckpoint``, saves them) and the training weights back at the next epoch's start. Variables the
    optimizer has not updated yet have no average and are left alone.

    Not included from ``keras.callbacks``: ``OrbaxCheckpoint`` (JAX's Orbax format; use ``ModelCheckpoint`` or
    ``BackupAndRestore``).
    """

    def __init__(self, swap_on_epoch: bool = False):
        super().__init__()
        self.swap_on_epoch = bool(swap_on_epoch)
        self._ema_in_model = False

    def _pairs(self):
        opt = getattr(self.model, "optimizer", None)
        if opt is None or not getattr(opt, "use_ema", False):
            raise ValueError("SwapEMAWeights needs a compiled model whose optimizer has use_ema=True. Received "
                             f"optimizer {type(opt).__name__ if opt is not None else None} with use_ema="
                             f"{getattr(opt, 'use_ema', None)}")
        flush = getattr(opt, "flush", None)
        if flush is not None:
            flush()
        pairs = []
        for var in self.model.trainable_variables:
            found = opt.state.find(var)
            if found is not None and "average" in found[1]:
                pairs.append((var, found[1]["average"]))
        return pairs

    def _swap(self):
        for var, avg in self._pairs():
            held = var.numpy().copy()
            var.assign(avg.numpy())
            avg.assign(held)
        self._ema_in_model = not self._ema_in_model

    def _to_ema(self):
        if not self._ema_in_model:
            self._swap()

    def _to_training(self):
        if self._ema_in_model:
            self._swap()

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch:
            self._to_training()

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch:
            self._to_ema()
            if epoch == self.params.get("epochs", 0) - 1:
                # fit ends by copying the averages into the weights: let the averages be what is in the model
                for var, avg in self._pairs():
                    avg.assign(var.numpy())

    def on_test_begin(self, logs=None):
        self._to_ema()

    def on_test_end(self, logs=None):
        self._to_training()

    def on_predict_begin(self, logs=None):
        self._to_ema()

    def on_predict_end(self, logs=None):
        self._to_training()
