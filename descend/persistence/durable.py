"""Files that a crash never leaves half-written: each is written whole under a temporary name beside its
place, flushed to disk, and renamed into place (a rename is atomic), its folder flushed after.

Every file descend writes whole goes through here: checkpoints (descend's folders, TensorFlow's bundles, the
manager's index), saved models (``model.save``, ``saved_model.save``), ``.keras`` and ``.weights.h5`` files,
datasets saved and cached (``Dataset.save``, ``Dataset.cache(filename)``), the generated-kernel cache, files
fetched by ``keras.utils.get_file`` and the command line's outputs. ``tests/test_persistence_layout.py`` finds
no temporary file, ``os.replace`` or temporary name elsewhere in descend, but for the few listed there with
their reasons (renames that move finished files aside, an anonymous spool). Not through here: logs appended
to while a program runs (``CSVLogger``'s rows, TensorBoard's event files, written by ``descend.summary``), as in Keras.

Temporary names are ``.tmp-<target>-<12 hex digits>`` (:data:`TMP_PREFIX`; ``.tmp-old-<target>-...`` for a
folder moved aside while its replacement is renamed in, ``.tmp-del-<target>-...`` for a folder being
deleted, ``.tmp-<target>-<hex>-shard-<r>`` for a rank's part of a collective checkpoint); a reader skips
them. The process writing one holds an exclusive ``flock`` on it from its creation to its rename (the
operating system drops the lock when the process ends, however it ends), so a later write to the same
target tells what a killed write left -- unlocked -- from what a write still running in another process
holds, and :func:`clear_leftovers` removes only the former. A file that is not named so is never touched.

A replaced file keeps the mode (and, where the writer may set it, the owner and group) of the file it
replaces, as Keras' in-place writes do. An error names the target, never only the temporary name.

Example:
    >>> import os, tempfile
    >>> from descend.persistence import durable
    >>> folder = tempfile.mkdtemp()
    >>> durable.atomic_replace_file(os.path.join(folder, "a.txt"), b"one")
    >>> open(os.path.join(folder, "a.txt"), "rb").read()
    b'one'
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import shutil
import stat

__all__ = ["TMP_PREFIX", "TempDir", "atomic_replace_file", "can_create_in", "clear_leftovers", "fsync_dir", "hold_dir", "naming_target",
           "remove_tree", "replace_dir", "replace_file_set", "replacing", "temp_dir", "temp_name", "write_durable"]

#: the prefix of every temporary file or folder descend writes beside its target
TMP_PREFIX = ".tmp-"

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_HEX = "[0-9a-f]{12}"


def fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # platforms that cannot open directories (Windows)
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------------------------
# the lock a live write holds on its temporary file or folder
# ---------------------------------------------------------------------------------------------------------------
def _flock(fd: int, wait: bool) -> bool:
    """Take an exclusive flock on ``fd``; False when another open file holds it (``wait=False``) or the file
    system has no locks (then nothing is ever taken for dead: :func:`clear_leftovers` leaves it)."""
    try:
        import fcntl
    except ImportError:  # Windows
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        return True
    except OSError:
        return False


def _lock_new(path: str, fd: int) -> bool:
    """Lock the object just created at ``path`` (opened as ``fd``). False when a cleaner removed it between
    its creation and the lock (its name then names nothing, or something else): the caller makes another."""
    _flock(fd, wait=True)  # on a file system without locks it stays unlocked: never cleared as dead either
    try:
        st, now = os.fstat(fd), os.lstat(path)
    except FileNotFoundError:
        return False
    return st.st_nlink != 0 and (st.st_dev, st.st_ino) == (now.st_dev, now.st_ino)


def temp_name(path: str, kind: str = "") -> str:
    """A fresh temporary name beside ``path`` (``kind``: ``""``, ``"old-"`` or ``"del-"``)."""
    parent, base = os.path.split(os.path.abspath(path))
    return os.path.join(parent, f"{TMP_PREFIX}{kind}{base}-{secrets.token_hex(6)}")


class TempDir:
    """A new folder under a temporary name beside its target, locked by this process until :meth:`release`
    (call it once the folder has been renamed into place or removed)."""

    def __init__(self, path: str, fd: int | None):
        self.path = path
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # drops the flock

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()

    def __del__(self):
        try:
            self.release()
        except Exception:
            pass


def temp_dir(path: str, suffix: str = "") -> TempDir:
    """Create and lock a new folder ``.tmp-<base>-<hex><suffix>`` beside ``path``."""
    for _ in range(100):
        tmp = temp_name(path) + suffix
        os.mkdir(tmp)
        try:
            fd = os.open(tmp, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
        except FileNotFoundError:
            continue  # removed at once by a cleaner that took it for dead: another name
        if _lock_new(tmp, fd):
            return TempDir(tmp, fd)
        os.close(fd)
    raise OSError(errno.EAGAIN, "could not create a temporary folder beside it", path)


def hold_dir(path: str) -> TempDir:
    """Lock the existing temporary folder ``path`` (renamed into its temporary name by this process) until
    :meth:`TempDir.release`; not locked when another process holds it already."""
    return TempDir(path, _lock_existing(path, directory=True))


def _lock_existing(path: str, directory: bool) -> int | None:
    """Open ``path`` (a folder when ``directory``) and take its lock at once; the descriptor holding it, or
    None when it cannot be opened or another process holds it."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | (_DIRECTORY if directory else 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    if _flock(fd, wait=False):
        return fd
    os.close(fd)
    return None


# ---------------------------------------------------------------------------------------------------------------
# clearing what a killed write left
# ---------------------------------------------------------------------------------------------------------------
def _leftover_kind(name: str, base: str) -> str | None:
    """What ``name`` is to the target ``base``: ``"tmp"`` (a temporary file or folder, a rank's staged part),
    ``"old"`` (the previous version moved aside), ``"del"`` (a folder being deleted), or None (not ours)."""
    b = re.escape(base)
    if re.fullmatch(rf"{re.escape(TMP_PREFIX)}{b}-{_HEX}(?:-shard-\d+)?", name):
        return "tmp"
    if re.fullmatch(rf"{re.escape(TMP_PREFIX)}old-{b}-{_HEX}", name):
        return "old"
    if re.fullmatch(rf"{re.escape(TMP_PREFIX)}del-{b}-{_HEX}", name):
        return "del"
    return None


def _aside_of_missing(parent: str, name: str) -> bool:
    """Whether ``name`` may be the only copy of a target moved aside (``.tmp-old-<t>-<hex>`` while ``t`` does
    not exist): never removed then."""
    m = re.fullmatch(rf"{re.escape(TMP_PREFIX)}old-(.+)-{_HEX}", name)
    return m is not None and not os.path.lexists(os.path.join(parent, m.group(1)))


def clear_leftovers(path: str) -> list[str]:
    """Remove what writes of ``path`` killed before their end left beside it -- the temporary files and
    folders named after it that no live process holds -- and return their names. The previous version of a
    folder moved aside is removed only while ``path`` itself exists (else it may be the only copy: a
    checkpoint manager puts it back). Nothing else is touched: neither a name of another form, nor what a
    write still running in any process holds."""
    parent, base = os.path.split(os.path.abspath(path))
    try:
        names = os.listdir(parent)
    except OSError:
        return []
    removed = []
    for name in names:
        if not name.startswith(TMP_PREFIX):
            continue
        kind = _leftover_kind(name, base)
        if kind is None or _aside_of_missing(parent, name):
            continue
        full = os.path.join(parent, name)
        try:
            mode = os.lstat(full).st_mode
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(mode) or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            continue  # never ours: descend writes regular files and folders only
        fd = _lock_existing(full, stat.S_ISDIR(mode))
        if fd is None:
            continue  # a write in progress (or a file system without locks): left alone
        try:
            if stat.S_ISDIR(mode):
                shutil.rmtree(full, ignore_errors=True)
            else:
                os.remove(full)
        except OSError:
            continue
        finally:
            os.close(fd)
        removed.append(name)
    return removed


# ---------------------------------------------------------------------------------------------------------------
# errors that name the target
# ---------------------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def naming_target(path: str):
    """Re-raise an ``OSError`` (full disk, file-size limit, read-only folder...) as the same error naming
    ``path``, the file being written, instead of a temporary name or none."""
    try:
        yield
    except OSError as e:
        where = os.fspath(path)
        if e.errno is None or e.filename == where:
            raise
        detail = e.strerror or str(e)
        if e.filename is not None and os.path.basename(os.fspath(e.filename)).startswith(TMP_PREFIX):
            detail += f" (writing its temporary copy {os.path.basename(os.fspath(e.filename))})"
        elif e.filename is not None:
            detail += f" ({os.fspath(e.filename)})"
        raise type(e)(e.errno, f"{detail}; while writing", where) from e


# ---------------------------------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------------------------------
def can_create_in(folder: str) -> str | None:
    """None when a file can be created in ``folder`` (one is, under a temporary name, and removed at once);
    else the operating system's reason."""
    tmp = temp_name(os.path.join(folder, "probe"))
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600))
        os.remove(tmp)
        return None
    except OSError as e:
        return e.strerror or str(e)


def write_durable(path: str, data: bytes) -> None:
    with open(path, "xb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _keep_identity(fd: int, old: os.stat_result) -> None:
    """Give the new file the old one's permission bits and, where this process may, its owner and group."""
    try:
        os.fchown(fd, old.st_uid, old.st_gid)
    except (OSError, AttributeError):  # not allowed (not root, not the owner's group), or Windows
        try:
            os.fchown(fd, -1, old.st_gid)
        except (OSError, AttributeError):
            pass
    try:
        os.fchmod(fd, stat.S_IMODE(old.st_mode))  # after chown, which may clear setuid/setgid bits
    except (OSError, AttributeError):
        pass


def atomic_replace_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (:func:`replacing` with the bytes known up front)."""
    with replacing(path) as f:
        f.write(data)


@contextlib.contextmanager
def replacing(path: str):
    """Write ``path`` atomically through the binary file this yields: temporary file, fsync, rename, fsync the
    directory when the block ends; an exception in the block removes the temporary file and leaves ``path``
    as it was.

    The temporary file is new (created exclusively, so never through a link), lies beside ``path`` and is
    locked while it is written; what earlier killed writes of ``path`` left is removed first. A replaced
    file's mode (and owner where allowed) is kept. Only a regular file is replaced; a symbolic link at
    ``path`` is replaced by the file (its target is never written); a folder, device, pipe or socket raises
    ``FileExistsError`` and nothing changes. An ``OSError`` names ``path``.

    Example:
        >>> import json, os, tempfile
        >>> from descend.persistence import durable
        >>> path = os.path.join(tempfile.mkdtemp(), "spec.json")
        >>> with durable.replacing(path) as f:
        ...     f.write(json.dumps({"count": 3}).encode())
        12
        >>> open(path).read()
        '{"count": 3}'
    """
    path = os.fspath(path)
    parent = os.path.dirname(os.path.abspath(path))
    try:
        old = os.lstat(path)
    except FileNotFoundError:
        old = None
    if old is not None and not (stat.S_ISREG(old.st_mode) or stat.S_ISLNK(old.st_mode)):
        raise FileExistsError(errno.EEXIST, "exists and is not a regular file; refusing to replace it", path)
    with naming_target(path):
        clear_leftovers(path)
        for _ in range(100):
            tmp = temp_name(path)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_BINARY", 0), 0o666)
            try:
                if _lock_new(tmp, fd):
                    break
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)
        else:
            raise OSError(errno.EAGAIN, "could not create a temporary file beside it", path)
        try:
            with open(fd, "wb", closefd=False) as f:
                yield f
                f.flush()
            if old is not None and stat.S_ISREG(old.st_mode):
                _keep_identity(fd, old)
            os.fsync(fd)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.remove(tmp)
            except OSError:
                pass
            raise
        finally:
            os.close(fd)
        fsync_dir(parent)


def replace_dir(tmp: str, path: str) -> None:
    """Put the finished folder ``tmp`` (beside ``path``) in the place of ``path``: its contents flushed, an
    old folder at ``path`` moved aside (never deleted first; it keeps its mode, given to the new one),
    ``tmp`` renamed into place, the parent flushed, the old folder deleted. On a failure ``tmp`` is removed
    and an old folder moved aside is put back. Then what killed writes of ``path`` left is removed."""
    aside, held = None, None
    try:
        fsync_dir(tmp)
        if os.path.lexists(path):
            old = os.lstat(path)
            if stat.S_ISDIR(old.st_mode):
                try:
                    os.chmod(tmp, stat.S_IMODE(old.st_mode))
                except OSError:
                    pass
                held = _lock_existing(path, directory=True)  # a dead aside is told from a live one by it
            aside = temp_name(path, "old-")
            os.rename(path, aside)
        os.rename(tmp, path)
        tmp = None
        fsync_dir(os.path.dirname(os.path.abspath(path)))
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if aside is not None and not os.path.lexists(path):
            try:
                os.rename(aside, path)
                aside = None
            except OSError:
                pass
        if held is not None:
            os.close(held)
        raise
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)
    if held is not None:
        os.close(held)
    clear_leftovers(path)


def remove_tree(path: str) -> None:
    """Delete a folder: hide it under a temporary name first, so a crash never leaves it half-deleted under
    its real name (a killed deletion's rest is cleared by a later write of ``path``)."""
    held = _lock_existing(path, directory=True)
    try:
        hidden = temp_name(path, "del-")
        try:
            os.rename(path, hidden)
        except FileNotFoundError:
            return
        shutil.rmtree(hidden, ignore_errors=True)
    finally:
        if held is not None:
            os.close(held)


def replace_file_set(files: list[tuple[str, bytes]]) -> None:
    """Write files that are read together, all in one folder, the last of ``files`` naming the others (a
    TensorFlow bundle's ``.index`` after its ``.data-*``): each is written whole under a temporary name and
    flushed, then the old last file is removed (a reader never finds an old index over new data), then each
    is renamed into place in order and the folder flushed. A crash between the renames leaves no last file:
    no set rather than a mixed one. Writes of sets in one folder wait for each other (an exclusive ``flock``
    on the folder), so two never mix their files; what killed writes of these files left is cleared first."""
    parent = os.path.dirname(os.path.abspath(files[-1][0]))
    temps = []
    held = _lock_folder(parent)  # every set written in this folder waits here: temporaries found now are dead
    try:
        for path, _ in files:
            clear_leftovers(path)
        for path, blob in files:
            tmp = temp_name(path)
            temps.append(tmp)
            write_durable(tmp, blob)
        try:
            os.remove(files[-1][0])
            fsync_dir(parent)
        except FileNotFoundError:
            pass
        for tmp, (path, _) in zip(temps, files):
            os.replace(tmp, path)
    finally:
        for tmp in temps:
            try:
                os.remove(tmp)
            except OSError:
                pass
        if held is not None:
            os.close(held)  # drops the flock
    fsync_dir(parent)


def _lock_folder(folder: str) -> int | None:
    """An exclusive ``flock`` on ``folder`` (waiting for another holder), as a descriptor to close; None where
    folders cannot be opened or locked (Windows)."""
    try:
        import fcntl
    except ImportError:
        return None
    try:
        fd = os.open(folder, os.O_RDONLY | _DIRECTORY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        os.close(fd)
        return None
    return fd
