"""Checkpoints: training state keyed by object structure, written atomically, read defensively.

``Checkpoint(**roots)`` saves and restores objects under their paths from the
roots (TF 2's ``tf.train.Checkpoint``), ``CheckpointManager`` numbers
checkpoints in a directory and keeps the newest (``tf.train.CheckpointManager``).
The package is split along its concerns:

* :mod:`~descend.checkpoint.format`: the files (safetensors + manifest), durable
  writes, verified and bounded reads, the directory lock;
* :mod:`~descend.checkpoint.trackable`: the path scheme and the object protocol
  (``state_dict()`` / ``restore_plan(state) -> commit``);
* :mod:`~descend.checkpoint.optim`: the optimizer's side of the protocol;
* :mod:`~descend.checkpoint.checkpoint`: ``Checkpoint`` and deferred restoration;
* :mod:`~descend.checkpoint.manager`: ``CheckpointManager``, ``latest_checkpoint``;
* :mod:`~descend.checkpoint.reader`: ``CheckpointReader``, ``load_checkpoint``, ``list_variables``;
* :mod:`~descend.checkpoint.errors`: the errors and ``RestoreReport``;
* :mod:`~descend.checkpoint.collective`: checkpoints written by every rank of a strategy (tables
  sharded over the ranks, sharded optimizer state), read at any number of ranks;
* :mod:`~descend.checkpoint.saver`: TF 1's name-keyed ``Saver`` (``descend.compat.v1.train.Saver``);
* :mod:`~descend.checkpoint.tf_checkpoint` and :mod:`~descend.checkpoint.tf_names`: TensorFlow's own
  checkpoints (TF 2 object graphs, TF 1 names) read into descend's objects, routed to by the files at
  the path (``<path>.index``); :mod:`~descend.checkpoint.tf_writer` writes TF 2's object graphs
  (``Checkpoint.save(prefix, format="tensorflow")``);
* :mod:`~descend.checkpoint.keras_layout`: where Keras 3 keeps each value of a model and its optimizer
  (for :mod:`descend.keras_files`).

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

from .checkpoint import Checkpoint
from .errors import (
    CheckpointCorruptedError,
    CheckpointError,
    CheckpointLockedError,
    CheckpointMismatchError,
    RestoreReport,
)
from .format import (  # the file names and format tags, for tools that inspect checkpoint folders
    FORMAT,
    INDEX_FILE,
    INDEX_FORMAT,
    LOCK_FILE,
    MANIFEST_FILE,
    SCHEMA_VERSION,
    TENSORS_FILE,
)
from .manager import CheckpointManager, latest_checkpoint
from .reader import CheckpointReader, list_variables, load_checkpoint
from .saver import Saver

__all__ = [
    "Checkpoint", "CheckpointManager", "CheckpointReader", "RestoreReport", "CheckpointError",
    "CheckpointCorruptedError", "CheckpointMismatchError", "CheckpointLockedError", "latest_checkpoint",
    "load_checkpoint", "list_variables", "Saver", "FORMAT", "INDEX_FILE", "INDEX_FORMAT", "LOCK_FILE",
    "MANIFEST_FILE", "SCHEMA_VERSION", "TENSORS_FILE",
]
