"""Persistence: everything descend writes to files and reads back, in floors that import down only.

Floor 0, the bytes of files (they import nothing of descend outside this floor):

* :mod:`~descend.persistence.durable`: atomic, flushed writes of files and folders (every file descend
  writes whole goes through it);
* :mod:`~descend.persistence.bounded_read`: opening files without following links, JSON bounded in depth;
* :mod:`~descend.persistence.checkpoint_errors`: ``CheckpointError`` and its kinds, bounded messages;
* :mod:`~descend.persistence.formats`: TensorFlow's tensor bundles (``wire``, ``crc32c``, ``sstable``,
  ``tf_bundle``) and Keras 3's files (``keras_h5``, ``keras_zip``), byte by byte;
* :mod:`~descend.persistence.checkpoint.descend_format`: descend's checkpoint folder (safetensors + manifest);
* :mod:`~descend.persistence.registry`: descend's built-in objects by kind and name, filled by the modules
  that define them.

Floor 1: :mod:`~descend.persistence.object_config`, objects as Keras 3 configs and back (and the ``get``
functions of descend's modules).

Floor 2: :mod:`~descend.persistence.checkpoint`, checkpoints keyed by object structure (``Checkpoint``,
``CheckpointManager``, TF 1's ``Saver``, TensorFlow's own checkpoints read and written).

Floor 3, whole models and training: :mod:`~descend.persistence.model_config` (a model's and its compile
arguments' configs), :mod:`~descend.persistence.keras_files` (``.keras``, ``.weights.h5``),
:mod:`~descend.persistence.model_saving` (``save_model``/``load_model``, descend's model folders) and
:mod:`~descend.persistence.backup` (``BackupAndRestore``).

The public names stay where TensorFlow and Keras keep them: :mod:`descend.saving`, :mod:`descend.checkpoint`,
:mod:`descend.train`, ``descend.keras.saving``. ``tests/test_persistence_layout.py`` keeps the floors. This
``__init__`` imports nothing, so importing a low module never runs a higher one.
"""
