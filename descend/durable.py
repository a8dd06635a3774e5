"""Files that a crash never leaves half-written: each is written whole under a temporary name beside its
place, flushed to disk, and renamed into place (a rename is atomic), its folder flushed after. A
checkpoint, a saved model, a ``.keras`` archive, the command line's outputs: every file descend writes
goes through here.

Temporary names start with :data:`TMP_PREFIX` (a reader skips them; a checkpoint folder's lock holder
removes what an interrupted write left, see :func:`descend.checkpoint.format.cleanup_tmp`).

Example:
    >>> import os, tempfile
    >>> from descend import durable
    >>> folder = tempfile.mkdtemp()
    >>> durable.atomic_replace_file(os.path.join(folder, "a.txt"), b"one")
    >>> open(os.path.join(folder, "a.txt"), "rb").read()
    b'one'
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import stat

__all__ = ["TMP_PREFIX", "atomic_replace_file", "fsync_dir", "remove_tree", "replace_dir", "write_durable"]

#: the prefix of every temporary file or folder descend writes beside its target
TMP_PREFIX = ".tmp-"


def fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # platforms that cannot open directories (Windows)
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_durable(path: str, data: bytes) -> None:
    with open(path, "xb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def atomic_replace_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: temporary file, fsync, rename, fsync the directory.

    The temporary file is new (created exclusively, so never through a link) and lies beside ``path``.
    Only a regular file is replaced; a symbolic link at ``path`` is replaced by the file (its target is
    never written); a folder, device, pipe or socket raises ``FileExistsError`` and nothing changes."""
    parent = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise FileExistsError(errno.EEXIST, "exists and is not a regular file; refusing to replace it", path)
    tmp = os.path.join(parent, f"{TMP_PREFIX}{os.path.basename(path)}-{secrets.token_hex(6)}")
    try:
        write_durable(tmp, data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    fsync_dir(parent)


def replace_dir(tmp: str, path: str) -> None:
    """Put the finished folder ``tmp`` (beside ``path``) in the place of ``path``: its contents flushed, an
    old folder at ``path`` moved aside (never deleted first), ``tmp`` renamed into place, the parent flushed,
    the old folder deleted. On a failure ``tmp`` is removed and an old folder moved aside is put back."""
    parent, base = os.path.split(os.path.abspath(path))
    aside = None
    try:
        fsync_dir(tmp)
        if os.path.lexists(path):
            aside = os.path.join(parent, f"{TMP_PREFIX}old-{base}-{secrets.token_hex(6)}")
            os.rename(path, aside)
        os.rename(tmp, path)
        tmp = None
        fsync_dir(parent)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if aside is not None and not os.path.lexists(path):
            try:
                os.rename(aside, path)
                aside = None
            except OSError:
                pass
        raise
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


def remove_tree(path: str) -> None:
    """Delete a folder: hide it under a temporary name first, so a crash never leaves it half-deleted under
    its real name."""
    parent, base = os.path.split(os.path.abspath(path))
    hidden = os.path.join(parent, f"{TMP_PREFIX}del-{base}-{secrets.token_hex(6)}")
    try:
        os.rename(path, hidden)
    except FileNotFoundError:
        return
    shutil.rmtree(hidden, ignore_errors=True)
