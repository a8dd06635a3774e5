"""Checkpoints: training state keyed by object structure, written atomically, read defensively.

``Checkpoint(**roots)`` saves and restores objects under their paths from the
roots (TF 2's ``tf.train.Checkpoint``), ``CheckpointManager`` numbers
checkpoints in a directory and keeps the newest (``tf.train.CheckpointManager``).
The package is split along its concerns:

* :mod:`~descend.persistence.checkpoint.descend_format`: the files (safetensors + manifest), durable
  writes, verified and bounded reads, the directory lock;
* :mod:`~descend.persistence.checkpoint.trackable`: the path scheme and the object protocol
  (``state_dict()`` / ``restore_plan(state) -> commit``);
* :mod:`~descend.persistence.checkpoint.optimizer_protocol`: the optimizer's side of the protocol;
* :mod:`~descend.persistence.checkpoint.checkpoint`: ``Checkpoint`` and deferred restoration;
* :mod:`~descend.persistence.checkpoint.manager`: ``CheckpointManager``, ``latest_checkpoint``;
* :mod:`~descend.persistence.checkpoint.reader`: ``CheckpointReader``, ``load_checkpoint``, ``list_variables``;
* :mod:`~descend.persistence.checkpoint_errors`: the errors and ``RestoreReport``;
* :mod:`~descend.persistence.checkpoint.collective`: checkpoints written by every rank of a strategy (tables
  sharded over the ranks, sharded optimizer state), read at any number of ranks;
* :mod:`~descend.persistence.checkpoint.saver`: TF 1's name-keyed ``Saver`` (``descend.compat.v1.train.Saver``);
* :mod:`~descend.persistence.checkpoint.tf_checkpoint` and :mod:`~descend.persistence.checkpoint.tf_names`: TensorFlow's own
  checkpoints (TF 2 object graphs, TF 1 names) read into descend's objects, routed to by the files at
  the path (``<path>.index``); :mod:`~descend.persistence.checkpoint.tf_writer` writes TF 2's object graphs
  (``Checkpoint.save(prefix, format="tensorflow")``);
* :mod:`~descend.persistence.checkpoint.keras_layout`: where Keras 3 keeps each value of a model and its optimizer
  (for :mod:`descend.persistence.keras_files`).


This package's ``__init__`` imports nothing (the floors below it import its modules without running
the whole package); the public names are published by :mod:`descend.checkpoint` and :mod:`descend.train`.
"""
