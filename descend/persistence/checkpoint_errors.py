"""The checkpoint errors and the restore report.

Every problem with a checkpoint's files or with matching it to the objects is
a :class:`CheckpointError` (a ``ValueError``). Messages name the file and the
field concerned and are bounded in length (:data:`MAX_MESSAGE`), whatever a
hostile file holds.

Example:
    >>> from descend.checkpoint import CheckpointCorruptedError, CheckpointError
    >>> issubclass(CheckpointCorruptedError, CheckpointError), issubclass(CheckpointError, ValueError)
    (True, True)
"""

from __future__ import annotations

__all__ = [
    "CheckpointError", "CheckpointCorruptedError", "CheckpointMismatchError", "CheckpointLockedError",
    "CheckpointAssertionError", "RestoreReport", "MAX_MESSAGE",
]

#: the longest message a checkpoint error carries (characters); longer lists are cut with a count
MAX_MESSAGE = 8000
_MAX_ITEM = 300


def short(value, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters (values from a file can be huge)."""
    try:
        text = repr(value)
    except Exception:  # a value whose repr fails (deep recursion)
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def bounded(message: str, limit: int = MAX_MESSAGE) -> str:
    """Cut ``message`` to ``limit`` characters, saying how much was left out."""
    if len(message) <= limit:
        return message
    cut = message[:limit - 60]
    return f"{cut}\n  ... ({len(message) - len(cut)} more characters left out)"


class CheckpointError(ValueError):
    """A checkpoint cannot be written or restored."""

    def __init__(self, message: str = ""):
        super().__init__(bounded(str(message)))


class CheckpointCorruptedError(CheckpointError):
    """A checkpoint's files are truncated, modified, malformed or hostile. ``entries``
    names the tensors, files or manifest fields concerned."""

    def __init__(self, message: str, entries=()):
        super().__init__(message)
        self.entries = [e if len(e) <= _MAX_ITEM else e[:_MAX_ITEM] for e in list(entries)[:1000]]


class CheckpointLockedError(CheckpointError):
    """Another writer holds the checkpoint directory's lock."""


class CheckpointMismatchError(CheckpointError):
    """The checkpoint does not match the objects to restore; ``missing``,
    ``unexpected`` and ``mismatched`` list every problem (paths)."""

    def __init__(self, message: str, missing=(), unexpected=(), mismatched=()):
        super().__init__(message)
        self.missing, self.unexpected, self.mismatched = list(missing), list(unexpected), list(mismatched)


def mismatch_message(head: str, missing, unexpected, mismatched, hint: str = "") -> str:
    lines = [head]
    for title, items in (("missing (in the objects, not in the checkpoint)", missing),
                         ("unexpected (in the checkpoint, not in the objects)", unexpected),
                         ("mis-shaped, mis-typed or refused", mismatched)):
        if items:
            lines.append(f"  {title} [{len(items)}]:")
            lines += [f"    {m if len(m) <= _MAX_ITEM else m[:_MAX_ITEM] + '...'}" for m in items]
    if hint:
        lines.append(hint)
    return bounded("\n".join(lines))


class CheckpointAssertionError(CheckpointMismatchError, AssertionError):
    """A load status's assertion failed (``assert_consumed()`` and the others): an ``AssertionError`` as
    TensorFlow raises, and a :class:`CheckpointMismatchError` with the lists of what did not match."""


class RestoreReport:
    """What :meth:`Checkpoint.restore` did: TensorFlow's load status.

    Attributes:
        path: the checkpoint restored (None for ``restore(None)``).
        restored: paths whose values were applied.
        deferred: paths kept for variables (and optimizer slots) that do not
            exist yet; they are applied when those are created.
        missing: paths the objects have and the checkpoint lacks.
        unexpected: paths the checkpoint has and the objects lacked at the restore.
        waiting: those of ``unexpected`` kept for an object assigned or appended
            to the checkpoint later (a restore that is not strict).
        mismatched: entries whose shape, dtype or value was refused (one line each).

    The assertions look at the state when they are called: a value given to an
    object created since the restore no longer counts as unused.
    """

    def __init__(self, path=None, checkpoint=None):
        self.path = path
        self.restored: list[str] = []
        self.deferred: list[str] = []
        self.missing: list[str] = []
        self.unexpected: list[str] = []
        self.waiting: list[str] = []
        self.mismatched: list[str] = []
        self.counter_restored = False  # restore() (not read()) took the checkpoint's save_counter
        self._checkpoint = checkpoint

    @property
    def complete(self) -> bool:
        """True when nothing was missing, unexpected or mismatched at the restore."""
        return not (self.missing or self.unexpected or self.mismatched)

    def _fail(self, head: str, missing, unexpected, mismatched):
        raise CheckpointAssertionError(
            mismatch_message(f"checkpoint '{self.path}' {head}", missing, unexpected, mismatched),
            missing, unexpected, mismatched)

    def _unused(self) -> list[str]:
        still = set(self._checkpoint.pending) if self._checkpoint is not None else set()
        waiting = set(self.waiting)
        return [u for u in self.unexpected if u not in waiting or u in still]

    def assert_consumed(self) -> RestoreReport:
        """Raise unless every value of the checkpoint went to an object and every object got a value
        (values still waiting for objects never created count as unused)."""
        if self.path is None:
            return self
        unused = self._unused()
        if self.missing or unused or self.mismatched:
            self._fail("did not match the objects", self.missing, unused, self.mismatched)
        if self._checkpoint is not None:
            self._checkpoint.assert_consumed()
        return self

    def assert_existing_objects_matched(self) -> RestoreReport:
        """Raise unless every object that exists got its value (values no object takes are allowed)."""
        if self.path is not None and (self.missing or self.mismatched):
            self._fail("left existing objects without a value", self.missing, [], self.mismatched)
        return self

    def assert_nontrivial_match(self) -> RestoreReport:
        """Raise if nothing but the root matched: no object took a value of the checkpoint (as in TensorFlow,
        ``restore()`` matches the checkpoint's ``save_counter``; ``read()`` does not)."""
        if self.path is None:
            return self
        used = (len(self.restored) + len(self.deferred) + (len(self.waiting) - len(self._unused_waiting()))
                + self.counter_restored)
        if used == 0:
            self._fail("matched no object (restoring the wrong checkpoint?)", self.missing, self.unexpected,
                       self.mismatched)
        return self

    def _unused_waiting(self) -> list[str]:
        still = set(self._checkpoint.pending) if self._checkpoint is not None else set()
        return [w for w in self.waiting if w in still]

    def expect_partial(self) -> RestoreReport:
        """TF's spelling for "a partial restore is fine" (descend warns about nothing): returns self."""
        return self

    def __repr__(self):
        return (f"<RestoreReport path={self.path!r} restored={len(self.restored)} deferred={len(self.deferred)} "
                f"missing={self.missing} unexpected={self.unexpected} mismatched={self.mismatched}>")
