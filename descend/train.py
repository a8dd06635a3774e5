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
from .persistence.checkpoint.checkpoint_state import get_checkpoint_state
from .persistence.formats.tf_example import (
    BytesList,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    SequenceExample,
)
from .persistence.backup import BackupAndRestore
from .training.checkpoint_watch import checkpoints_iterator
from .training.coordinator import Coordinator
from .training.ema import ExponentialMovingAverage

__all__ = [
    "BackupAndRestore", "Checkpoint", "CheckpointCorruptedError", "CheckpointError", "CheckpointLockedError",
    "CheckpointManager", "CheckpointMismatchError",
    "CheckpointReader", "RestoreReport", "latest_checkpoint", "list_variables", "load_checkpoint",
    "ExponentialMovingAverage", "load_variable", "checkpoints_iterator", "Coordinator",
    "BytesList", "Example", "Feature", "FeatureList", "FeatureLists", "Features", "FloatList", "Int64List",
    "SequenceExample", "get_checkpoint_state",
]


def load_variable(ckpt_dir_or_file, name):
    """The value (a NumPy array) of the tensor ``name`` in the checkpoint at ``ckpt_dir_or_file`` (a folder's
    newest), as ``tf.train.load_variable``; a trailing ``":0"`` of ``name`` is ignored."""
    if not isinstance(name, str):
        raise TypeError(f"load_variable: `name` must be a string. Received: name={name!r}")
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def __getattr__(name: str):
    from ._api_exclusions import refuse  # a name tf.train has and descend leaves out says why

    raise refuse("tf.train", name, __name__)
