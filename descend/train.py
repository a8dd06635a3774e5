"""``descend.train``: checkpoints (TensorFlow's ``tf.train`` checkpointing API).

Example:
    >>> import tempfile
    >>> import descend as ds
    >>> import descend.train as train
    >>> w = ds.Variable([1.0], name="w")
    >>> manager = train.CheckpointManager(train.Checkpoint(w=w), tempfile.mkdtemp(), max_to_keep=3)
    >>> path = manager.save()
    >>> train.latest_checkpoint(manager.directory) == path
    True
"""

from .checkpoint import (
    Checkpoint,
    CheckpointCorruptedError,
    CheckpointError,
    CheckpointLockedError,
    CheckpointManager,
    CheckpointMismatchError,
    CheckpointReader,
    RestoreReport,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
)
from .training.backup import BackupAndRestore

__all__ = [
    "BackupAndRestore", "Checkpoint", "CheckpointCorruptedError", "CheckpointError", "CheckpointLockedError",
    "CheckpointManager", "CheckpointMismatchError",
    "CheckpointReader", "RestoreReport", "latest_checkpoint", "list_variables", "load_checkpoint",
]


def __getattr__(name: str):
    from ._api_exclusions import refuse  # a name tf.train has and descend leaves out says why

    raise refuse("tf.train", name, __name__)
