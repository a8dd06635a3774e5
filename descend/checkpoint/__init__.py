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

from ..api.lazy import lazy_facade

# (descend.api.lazy) each name loads its module of descend.persistence on first use: a program that only catches
# CheckpointError does not import the checkpoint code
_LAZY = {  # module, relative to this package -> the names it defines
    "..persistence.checkpoint.checkpoint": ("Checkpoint",),
    "..persistence.checkpoint.manager": ("CheckpointManager", "latest_checkpoint"),
    "..persistence.checkpoint.reader": ("CheckpointReader", "load_checkpoint", "list_variables"),
    "..persistence.checkpoint.saver": ("Saver",),
    "..persistence.checkpoint_errors": ("RestoreReport", "CheckpointError", "CheckpointCorruptedError",
                                        "CheckpointMismatchError", "CheckpointLockedError"),
    # the file names and format tags, for tools that inspect checkpoint folders
    "..persistence.checkpoint.descend_format": ("FORMAT", "INDEX_FILE", "INDEX_FORMAT", "LOCK_FILE", "MANIFEST_FILE",
                                                "SCHEMA_VERSION", "TENSORS_FILE"),
}
__getattr__, __dir__, _LAZY_NAMES = lazy_facade(__name__, _LAZY)

__all__ = [
    "Checkpoint", "CheckpointManager", "CheckpointReader", "RestoreReport", "CheckpointError",
    "CheckpointCorruptedError", "CheckpointMismatchError", "CheckpointLockedError", "latest_checkpoint",
    "load_checkpoint", "list_variables", "Saver", "FORMAT", "INDEX_FILE", "INDEX_FORMAT", "LOCK_FILE",
    "MANIFEST_FILE", "SCHEMA_VERSION", "TENSORS_FILE",
]
