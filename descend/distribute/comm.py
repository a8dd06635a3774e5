"""The process group: MPI's ``COMM_WORLD`` through mpi4py, or one process on its own.

``world()`` decides once per process. A process started by ``mpiexec`` (the
launcher leaves ``PMI_RANK``/``PMI_SIZE``, ``OMPI_COMM_WORLD_SIZE`` or
``PMIX_RANK`` in the environment) joins ``COMM_WORLD``; any other process is a
group of one and never imports mpi4py, so the same script runs on a laptop.

When the group has more than one process, joining it also:

* makes an uncaught exception on any rank end the whole job with that rank's
  traceback (``MPI_Abort``), instead of leaving the other ranks waiting in a
  collective forever;
* limits each rank's threads (BLAS pools through threadpoolctl, numba's
  kernels) to ``cores // ranks on this host`` so ranks do not fight over
  cores. ``DESCEND_THREADS_PER_RANK`` sets another number; ``0`` leaves the
  thread pools alone.

Example:
    >>> from descend.distribute import comm
    >>> w = comm.world()
    >>> 0 <= w.rank < w.size
    True
"""

from __future__ import annotations

import os
import sys
import traceback

import numpy as np

__all__ = ["Group", "LocalGroup", "MPIGroup", "world", "launched_by_mpiexec", "threads_per_rank"]

#: the first message tag of ``sendrecv`` (descend's only point-to-point traffic)
_TAG_BASE = 0x100
_LAUNCHER_VARS = ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS")
_WORLD = None


def launched_by_mpiexec() -> bool:
    """Whether this process was started by an MPI launcher (``mpiexec``/``mpirun``/``srun``)."""
    return any(v in os.environ for v in _LAUNCHER_VARS)


class Group:
    """What the collectives need from a process group: rank, size and buffer operations."""

    rank: int = 0
    size: int = 1
    local_rank: int = 0
    local_size: int = 1

    def allreduce_sum(self, buf: np.ndarray) -> None:
        """Sum the contiguous array ``buf`` over the group, in place."""
        raise NotImplementedError

    def sendrecv(self, sends: list, recvs: list) -> None:
        """Receive into every ``(source, tag, array)`` of ``recvs`` and send every ``(dest, tag, array)`` of
        ``sends`` (contiguous arrays, moved as bytes: any dtype), all at once; return when all are done."""
        raise NotImplementedError

    def allgather_parts(self, buf: np.ndarray) -> None:
        """In place: cut the contiguous ``buf`` into ``size`` equal parts; rank ``r``'s part ``r`` reaches
        every rank."""
        raise NotImplementedError

    def allgather_counts(self, counts: np.ndarray) -> np.ndarray:
        """Every rank's int64 vector ``counts`` (same length on all), stacked as ``(size, len)``."""
        raise NotImplementedError

    def allgatherv(self, buf: np.ndarray, counts) -> np.ndarray:
        """Concatenate every rank's 1-D ``buf`` (rank ``r`` holds ``counts[r]`` elements) in rank order."""
        raise NotImplementedError

    def bcast(self, buf: np.ndarray, root: int = 0) -> None:
        """Overwrite the contiguous ``buf`` with rank ``root``'s, in place."""
        raise NotImplementedError

    def allgather_object(self, obj) -> list:
        """Every rank's small Python object (pickled: for checks and metadata, never for tensors)."""
        raise NotImplementedError

    def any(self, flag: bool) -> bool:
        """Whether ``flag`` is true on any rank (one integer all-reduced): every rank decides alike."""
        buf = np.array([1 if flag else 0], np.int64)
        self.allreduce_sum(buf)
        return bool(buf[0])

    def barrier(self) -> None:
        raise NotImplementedError

    def abort(self, code: int = 1) -> None:
        raise NotImplementedError


class LocalGroup(Group):
    """A group of one process: every collective is the identity."""

    def allreduce_sum(self, buf):
        return None

    def sendrecv(self, sends, recvs):
        if sends or recvs:
            raise ValueError("a one-process group has no other rank to send to or receive from")

    def allgather_parts(self, buf):
        return None

    def allgather_counts(self, counts):
        return np.asarray(counts, np.int64).reshape(1, -1)

    def allgatherv(self, buf, counts):
        return buf

    def bcast(self, buf, root=0):
        if root != 0:
            raise ValueError(f"`root_rank` must be in [0, 1) in a one-process group. Received: {root}")

    def allgather_object(self, obj):
        return [obj]

    def barrier(self):
        return None

    def abort(self, code=1):
        os._exit(code)

    def __repr__(self):
        return "<LocalGroup rank=0 size=1>"


class MPIGroup(Group):
    """``COMM_WORLD`` of an mpiexec job: buffer collectives (``Allreduce``, ``Allgatherv``, ``Bcast``) on
    NumPy arrays, in place where MPI allows; nothing is pickled but small metadata."""

    def __init__(self, comm=None):
        from mpi4py import MPI

        self._MPI = MPI
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        local = self.comm.Split_type(MPI.COMM_TYPE_SHARED, key=self.rank)
        self.local_rank, self.local_size = local.Get_rank(), local.Get_size()
        local.Free()

    def allreduce_sum(self, buf):
        self.comm.Allreduce(self._MPI.IN_PLACE, buf, op=self._MPI.SUM)

    def sendrecv(self, sends, recvs):
        MPI = self._MPI
        byte = MPI.BYTE
        requests = [self.comm.Irecv([a.reshape(-1).view(np.uint8), byte], source=p, tag=_TAG_BASE + t)
                    for p, t, a in recvs]
        requests += [self.comm.Isend([a.reshape(-1).view(np.uint8), byte], dest=p, tag=_TAG_BASE + t)
                     for p, t, a in sends]
        MPI.Request.Waitall(requests)

    def allgather_parts(self, buf):
        if buf.size % self.size:
            raise ValueError(f"allgather_parts needs a length divisible by {self.size}. Received: {buf.size}")
        self.comm.Allgather(self._MPI.IN_PLACE, [buf.reshape(-1).view(np.uint8), self._MPI.BYTE])

    def allgather_counts(self, counts):
        counts = np.ascontiguousarray(counts, np.int64)
        out = np.empty((self.size, counts.size), np.int64)
        self.comm.Allgather(counts, out)
        return out

    def allgatherv(self, buf, counts):
        counts = [int(c) for c in counts]
        out = np.empty(sum(counts), buf.dtype)
        displs = np.concatenate([[0], np.cumsum(counts[:-1])]).astype(np.int64).tolist()
        self.comm.Allgatherv(np.ascontiguousarray(buf), [out, (counts, displs)])
        return out

    def bcast(self, buf, root=0):
        if not 0 <= root < self.size:
            raise ValueError(f"`root_rank` must be in [0, {self.size}). Received: {root}")
        self.comm.Bcast(buf, root=root)

    def allgather_object(self, obj):
        return self.comm.allgather(obj)

    def barrier(self):
        self.comm.Barrier()

    def abort(self, code=1):
        self.comm.Abort(code)

    def __repr__(self):
        return f"<MPIGroup rank={self.rank} size={self.size}>"


def threads_per_rank(local_size: int) -> int:
    """The thread count each of ``local_size`` ranks on one host gets: ``cores // local_size`` (at least 1),
    or ``DESCEND_THREADS_PER_RANK`` when set."""
    env = os.environ.get("DESCEND_THREADS_PER_RANK")
    if env is not None:
        try:
            n = int(env)
        except ValueError:
            raise ValueError(f"DESCEND_THREADS_PER_RANK must be an integer >= 0. Received: {env!r}") from None
        if n < 0:
            raise ValueError(f"DESCEND_THREADS_PER_RANK must be an integer >= 0. Received: {env!r}")
        return n
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores // max(1, local_size))


def _limit_threads(n: int) -> None:
    if n <= 0:
        return
    try:
        import threadpoolctl

        threadpoolctl.threadpool_limits(n)
    except ImportError:  # without threadpoolctl, BLAS keeps its own count (the mpi extra installs it)
        pass
    try:
        import numba

        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    except (ImportError, ValueError):
        pass


def _unread_bytes(fd: int) -> int:
    """Bytes written to ``fd`` that its reader has not taken yet (0 where ``fd`` is not a pipe or socket)."""
    import fcntl
    import termios

    try:
        buf = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
    except OSError:
        return 0
    return int.from_bytes(buf, sys.byteorder)


def _let_the_launcher_forward_output(limit_s: float = 3.0) -> None:
    """Wait until mpiexec has read what this rank wrote to stdout and stderr (at most ``limit_s``).

    ``MPI_Abort`` makes the launcher tear the job down at once, and output still sitting in a rank's pipe
    is then lost: the traceback that says why the job ended would never reach the user.
    """
    import time

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and (_unread_bytes(2) or _unread_bytes(1)):
        time.sleep(0.01)
    time.sleep(0.2)  # once read, the launcher still has to pass it on to its own stderr


def _install_abort_on_error(group: MPIGroup) -> None:
    previous = sys.excepthook

    def hook(kind, value, tb):
        try:
            text = "".join(traceback.format_exception(kind, value, tb))
            sys.stderr.write(f"[descend rank {group.rank}/{group.size}] {text}")
            sys.stderr.write(f"[descend rank {group.rank}/{group.size}] ending the job (MPI_Abort)\n")
            sys.stderr.flush()
            sys.stdout.flush()
            _let_the_launcher_forward_output()
        finally:
            if kind is KeyboardInterrupt:
                previous(kind, value, tb)
            group.abort(1)

    sys.excepthook = hook


def world() -> Group:
    """This process's group (created on the first call): ``MPIGroup`` under mpiexec, else ``LocalGroup``.

    Raises:
        ImportError: launched by mpiexec but mpi4py is missing (``pip install 'descend[mpi]'``).
    """
    global _WORLD
    if _WORLD is not None:
        return _WORLD
    if not launched_by_mpiexec():
        _WORLD = LocalGroup()
        return _WORLD
    try:
        import mpi4py  # noqa: F401
    except ImportError as e:
        raise ImportError("this process was started by mpiexec but mpi4py is not installed; install the MPI extra: "
                          "pip install 'descend[mpi]'") from e
    group = MPIGroup()
    if group.size > 1:
        _install_abort_on_error(group)
        _limit_threads(threads_per_rank(group.local_size))
    _WORLD = group
    return _WORLD
