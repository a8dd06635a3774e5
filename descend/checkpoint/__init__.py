"""``descend.checkpoint``: checkpoints keyed by object structure (``tf.train.Checkpoint``, ``CheckpointManager``).

The implementation is :mod:`descend.persistence.checkpoint` (its docstring says which module holds what).

Example:
    >>> import tempfile
    >>> import descend as ds
    >>> ds.clear_session()
    >>> a = ds.Sequential([ds.layers.Dense(2)]); _ = a(ds.ones((1, 3)))
    >>> b = ds.Sequential([ds.layers.Dense(2)]); _ = b(ds.ones((1, 3)))  # other names: sequential_1/...
    >>> path = ds.train.Checkpoint(model=a).write(tempfile.mkdtemp() + "/ckpt")
    >>> _ = ds.train.Checkpoint(model=b).restore(path)  # matched by path: model/layers/0/kernel
    >>> bool((a.weights[0].numpy() == b.weights[0].numpy()).all())
    True
"""

from ..persistence.checkpoint.checkpoint import Checkpoint
from ..persistence.checkpoint.descend_format import (  # the file names and format tags, for tools that inspect checkpoint folders
    FORMAT,
    INDEX_FILE,
    INDEX_FORMAT,
    LOCK_FILE,
    MANIFEST_FILE,
    SCHEMA_VERSION,
    TENSORS_FILE,
)
from ..persistence.checkpoint.manager import CheckpointManager, latest_checkpoint
from ..persistence.checkpoint.reader import CheckpointReader, list_variables, load_checkpoint
from ..persistence.checkpoint.saver import Saver
from ..persistence.checkpoint_errors import (
    CheckpointCorruptedError,
    CheckpointError,
    CheckpointLockedError,
    CheckpointMismatchError,
    RestoreReport,
)

__all__ = [
    "Checkpoint", "CheckpointManager", "CheckpointReader", "RestoreReport", "CheckpointError",
    "CheckpointCorruptedError", "CheckpointMismatchError", "CheckpointLockedError", "latest_checkpoint",
    "load_checkpoint", "list_variables", "Saver", "FORMAT", "INDEX_FILE", "INDEX_FORMAT", "LOCK_FILE",
    "MANIFEST_FILE", "SCHEMA_VERSION", "TENSORS_FILE",
]
