"""The files the ``descend`` command reads and writes: what a path is, opening an input, replacing an output.

Inputs (``--data``, a run's ``config.json``) must be regular files: a named
pipe, a device such as ``/dev/zero`` or a folder is refused before a byte is
read (opening never waits for a pipe's writer). Outputs are written to a new
temporary file beside the target (created exclusively, never through a link),
flushed to disk and renamed over the target, so a reader sees the old file or
the new one, never half of one. Only a regular file is replaced: a folder, a
device, a pipe or a socket at the path is refused, except the command's own standard output
(``--output /dev/stdout`` into a pipe or a terminal is written there). ``descend predict --output
LINK``, a symbolic link to a regular file (or to a free name in an existing
folder), writes the link's target and keeps the link, as a shell's ``>`` does.

Example:
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> describe(d), describe(os.path.join(d, "nothing"))
    ('a folder', 'nothing (it does not exist)')
    >>> os.symlink(os.path.join(d, "gone"), os.path.join(d, "link"))
    >>> describe(os.path.join(d, "link")).startswith("a symbolic link to ")
    True
"""

from __future__ import annotations

import errno
import os
import stat

from .options import UsageError

__all__ = ["describe", "is_stdout", "open_input", "output_target", "write_bytes"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (fifo)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def describe(path) -> str:
    """What ``path`` is, in words: ``"a folder"``, ``"a character device"``, ``"a symbolic link to X, which
    does not exist"``, ``"nothing (it does not exist)"``..."""
    path = os.fspath(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "nothing (it does not exist)"
    except OSError as e:
        return f"unreadable ({e.strerror})"
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(path)
        try:
            return f"a symbolic link to {target}, which is {_kind(os.stat(path).st_mode)}"
        except FileNotFoundError:
            return f"a symbolic link to {target}, which does not exist"
        except OSError as e:
            return f"a symbolic link to {target}, which cannot be followed ({e.strerror})"
    return _kind(st.st_mode)


def open_input(path, what: str = "data file"):
    """Open ``path`` for reading as a binary file object; returns ``(file, size)``.

    Only a regular file (a link to one is followed): a pipe is refused without
    waiting for its writer, a device or a folder without reading it. Raises
    ``FileNotFoundError`` for a missing file and ``UsageError`` (one line) otherwise.
    """
    path = os.fspath(path)
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK)  # a fifo opens at once instead of waiting for a writer
    except FileNotFoundError:
        raise
    except OSError as e:
        if e.errno == errno.ENOENT:
            raise FileNotFoundError(e.errno, e.strerror, path) from None
        raise UsageError(f"{path}: cannot read the {what} ({e.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"{path}: the {what} is {describe(path)}, not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), st.st_size
    except BaseException:
        os.close(fd)
        raise


def is_stdout(path) -> bool:
    """Whether ``path`` names this process's standard output (``/dev/stdout``, ``/dev/fd/1``, or the file or
    pipe the shell connected it to)."""
    try:
        st, out = os.stat(path), os.fstat(1)
    except (OSError, ValueError):
        return False
    return (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino)


def output_target(path, flag: str) -> str | None:
    """The file that writing to ``path`` replaces, checked before any work: ``path`` itself, or the
    target of a symbolic link at ``path``; None when ``path`` is this process's standard output
    (``/dev/stdout`` into a pipe or a terminal: written there as it is, as when the flag is left out).
    Raises UsageError when it is not a regular file (or a free name in an existing folder)."""
    path = os.fspath(path)
    if is_stdout(path) and not stat.S_ISREG(os.fstat(1).st_mode):
        return None
    target = os.path.realpath(path) if os.path.islink(path) else path
    shown = path if target == path else f"{path} (a symbolic link to {target})"
    try:
        st = os.stat(target)
    except FileNotFoundError:
        parent = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(parent):
            raise UsageError(f"{flag} {shown}: the folder {parent} does not exist") from None
        return target
    except OSError as e:
        raise UsageError(f"{flag} {shown}: cannot be written ({e.strerror})") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{flag} {shown} is a folder; name a file")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{flag} {shown} is {_kind(st.st_mode)}; descend replaces only a regular file"
                         + (" (leave --output out to write to stdout)" if flag == "--output" else ""))
    return target


def write_bytes(path, data: bytes) -> None:
    """Replace the regular file ``path`` (or create it) with ``data``, atomically and durably."""
    from ..persistence.durable import atomic_replace_file

    atomic_replace_file(os.fspath(path), data)
