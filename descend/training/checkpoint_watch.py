"""``checkpoints_iterator`` (as ``tf.train.checkpoints_iterator``): the checkpoints a folder gains, as they appear.

An evaluation job follows a training job's folder: each new newest checkpoint (by
:func:`descend.train.latest_checkpoint`, descend's or TensorFlow's) is yielded once; the iterator polls once a
second while none is new and ends after ``timeout`` seconds without one (unless ``timeout_fn`` says go on).

Example:
    >>> import tempfile
    >>> import descend as ds
    >>> folder = tempfile.mkdtemp()
    >>> manager = ds.train.CheckpointManager(ds.train.Checkpoint(v=ds.Variable(1.0)), folder, max_to_keep=2)
    >>> first = manager.save()
    >>> [p == first for p in ds.train.checkpoints_iterator(folder, timeout=0)]
    [True]
"""

from __future__ import annotations

import time

from ..checkpoint import latest_checkpoint

__all__ = ["checkpoints_iterator"]


def _seconds(value, what: str, allow_none: bool):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"checkpoints_iterator: `{what}` must be a non-negative number of seconds"
                         f"{' or None' if allow_none else ''}. Received: {what}={value!r}")
    return float(value)


def _wait_for_new(directory, last, timeout, poll: float = 1.0, clock=time.time, sleep=time.sleep):
    """The newest checkpoint of ``directory`` once it differs from ``last``; None after ``timeout`` seconds."""
    stop = None if timeout is None else clock() + timeout
    while True:
        path = latest_checkpoint(directory)
        if path is not None and path != last:
            return path
        if stop is not None and clock() + poll > stop:
            return None
        sleep(poll)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields the path of each new newest checkpoint of ``checkpoint_dir`` (``tf.train.checkpoints_iterator``).

    Args:
        checkpoint_dir: the folder a :class:`~descend.train.CheckpointManager` (or TensorFlow's) saves into.
        min_interval_secs: at least this many seconds between two yields (counted from the previous yield).
        timeout: the most seconds to wait for a new checkpoint; None waits for ever.
        timeout_fn: called when ``timeout`` passes without one; the iterator ends when it returns True (or when
            there is none) and waits again otherwise.
    """
    min_interval = _seconds(min_interval_secs, "min_interval_secs", False)
    timeout = _seconds(timeout, "timeout", True)
    if timeout_fn is not None and not callable(timeout_fn):
        raise TypeError(f"checkpoints_iterator: `timeout_fn` must be callable or None. Received: {timeout_fn!r}")
    last = None
    while True:
        path = _wait_for_new(checkpoint_dir, last, timeout)
        if path is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        start = time.time()
        last = path
        yield path
        wait = start + min_interval - time.time()
        if wait > 0:
            time.sleep(wait)
