"""``descend.callbacks`` (Keras' ``keras.callbacks``): the callbacks of ``fit``, ``BackupAndRestore`` and
``TensorBoard``.

They live in :mod:`descend.training`; this is the namespace Keras code imports them from.
"""

from .training.backup import BackupAndRestore
from .training.callbacks import (
    Callback,
    CallbackList,
    CSVLogger,
    EarlyStopping,
    History,
    LambdaCallback,
    LearningRateScheduler,
    ModelCheckpoint,
    ProgbarLogger,
    ReduceLROnPlateau,
    TerminateOnNaN,
)
from .training.tensorboard import TensorBoard

__all__ = [
    "Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping", "LearningRateScheduler",
    "CSVLogger", "ReduceLROnPlateau", "LambdaCallback", "ModelCheckpoint", "TerminateOnNaN", "BackupAndRestore",
    "TensorBoard",
]


def __getattr__(name: str):
    from ._api_exclusions import refuse  # a name keras.callbacks has and descend leaves out says why

    raise refuse("keras.callbacks", name, __name__)


class SwapEMAWeights(Callback):
    """Evaluate and predict with the optimizer's moving averages (``keras.callbacks.SwapEMAWeights``).

    The optimizer must have ``use_ema=True``. Around ``evaluate``/``predict`` (and the validation of ``fit``)
    each trainable variable trades values with its moving average, and trades back after; with
    ``swap_on_epoch=True`` the averages are also in the model at each epoch's end (so a later callback, a
    ``ModelCheckpoint``, saves them) and the training weights back at the next epoch's start. Variables the
    optimizer has not updated yet have no average and are left alone.

    Not included from ``keras.callbacks``: ``RemoteMonitor`` (posts to a server: descend makes no network
    calls) and ``OrbaxCheckpoint`` (JAX's Orbax format; use ``ModelCheckpoint`` or ``BackupAndRestore``).
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


__all__ += ["SwapEMAWeights"]
from .training.remote_monitor import RemoteMonitor  # noqa: E402

__all__ += ["RemoteMonitor"]
