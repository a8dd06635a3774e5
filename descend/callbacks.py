"""``descend.callbacks`` (Keras' ``keras.callbacks``): the callbacks of ``fit``, ``BackupAndRestore`` and
``TensorBoard``.

They live in :mod:`descend.training`; this is the namespace Keras code imports them from.
"""

from .persistence.backup import BackupAndRestore
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
    SwapEMAWeights,
    TerminateOnNaN,
)
from .training.tensorboard import TensorBoard

__all__ = [
    "Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping", "LearningRateScheduler",
    "CSVLogger", "ReduceLROnPlateau", "LambdaCallback", "ModelCheckpoint", "TerminateOnNaN", "BackupAndRestore",
    "TensorBoard",
]
__all__ += ["SwapEMAWeights"]


def __getattr__(name: str):
    from ._api_exclusions import refuse  # a name keras.callbacks has and descend leaves out says why

    raise refuse("keras.callbacks", name, __name__)


from .training.remote_monitor import RemoteMonitor  # noqa: E402

__all__ += ["RemoteMonitor"]
