"""Keras 3's ``.keras`` archive: a zip holding ``metadata.json``, ``config.json`` and ``model.weights.h5``
(and ``assets/`` for layers that keep files: :mod:`descend.persistence.keras_hooks` copies them out).

Reading trusts nothing: the archive must be a regular file (not a symbolic link); a member whose name
is absolute, climbs out with ``..``, holds a backslash or a drive, repeats, or is a symbolic link
makes the whole archive refused (descend never extracts, but a Keras archive holds none of these);
each member's declared size is checked against a bound and, when compressed, against its compressed
size (at most :data:`MAX_RATIO` times it) before a byte is inflated, and no more than the declared
size is ever read; a member can be inflated a chunk at a time (:meth:`KerasArchive.chunks`). The
member count of the end-of-central-directory record, and the count of central-directory records, are
checked before :mod:`zipfile` parses the directory. Errors name the archive and the member.

Example:
    >>> import io
    >>> from descend.persistence.formats import keras_zip
    >>> buffer = io.BytesIO()
    >>> keras_zip.write_archive(buffer, {"config.json": b"{}", "metadata.json": b"{}", "model.weights.h5": b""})
    >>> archive = keras_zip.KerasArchive(io.BytesIO(buffer.getvalue()), "m.keras")
    >>> archive.read("config.json", 100)
    b'{}'
"""

from __future__ import annotations

import os
import stat
import struct
import zipfile

from ..bounded_read import open_regular
from ..checkpoint_errors import CheckpointCorruptedError, short

__all__ = ["KerasArchive", "write_archive", "CONFIG", "METADATA", "WEIGHTS", "MAX_RATIO", "MAX_MEMBERS"]

CONFIG, METADATA, WEIGHTS = "config.json", "metadata.json", "model.weights.h5"
#: the largest ratio of a compressed member's size to its compressed size (a zip bomb is refused)
MAX_RATIO = 1000
#: the most members an archive may hold
MAX_MEMBERS = 1 << 16
#: how much of a member is inflated at a time
CHUNK_BYTES = 1 << 20
_EOCD, _EOCD64, _EOCD64_LOCATOR, _CD_RECORD = 22, 56, 20, 46
_S_IFLNK = 0o120000


class KerasArchive:
    """The members of a ``.keras`` archive, every name and size checked when it is opened."""

    def __init__(self, source, where: str):
        self.where = where
        self._file = None
        if isinstance(source, (str, os.PathLike)):
            directory, name = os.path.split(os.path.abspath(os.fspath(source)))
            self._file, self.size = open_regular(directory, name, "Keras model archive")
            source = self._file
        else:
            pos = source.tell()
            self.size = source.seek(0, 2)
            source.seek(pos)
        try:
            _check_directory(source, self.size, where)
        except BaseException:
            self.close()
            raise
        try:
            self.zip = zipfile.ZipFile(source, "r")
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
            self.close()
            raise CheckpointCorruptedError(f"{where}: not a .keras archive (not a readable zip file: "
                                           f"{short(str(e), 200)})", ["archive"]) from None
        try:
            self._check()
        except BaseException:
            self.close()
            raise

    def _check(self) -> None:
        infos = self.zip.infolist()
        if len(infos) > MAX_MEMBERS:
            raise CheckpointCorruptedError(f"{self.where}: holds {len(infos)} members; at most {MAX_MEMBERS} are read",
                                           ["members"])
        seen = set()
        self.members: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            name = info.filename
            parts = name.split("/")
            if (name.startswith("/") or "\\" in name or ".." in parts or (len(name) > 1 and name[1] == ":")
                    or "\x00" in name):
                raise CheckpointCorruptedError(f"{self.where}: member {short(name, 200)} has an absolute or climbing "
                                               "path; a Keras archive holds none (refused, nothing was read)", [name[:300]])
            if name in seen:
                raise CheckpointCorruptedError(f"{self.where}: member {short(name, 200)} appears twice", [name[:300]])
            seen.add(name)
            mode = (info.external_attr >> 16) & 0o170000
            if mode == _S_IFLNK:
                raise CheckpointCorruptedError(f"{self.where}: member {short(name, 200)} is a symbolic link; a Keras "
                                               "archive holds none", [name[:300]])
            if info.flag_bits & 0x1:
                raise CheckpointCorruptedError(f"{self.where}: member {short(name, 200)} is encrypted", [name[:300]])
            self.members[name] = info

    def names(self) -> list[str]:
        return sorted(self.members)

    def has(self, name: str) -> bool:
        return name in self.members

    def declared_size(self, name: str) -> int:
        return self.members[name].file_size

    def read(self, name: str, limit: int) -> bytes:
        """The bytes of member ``name``: its declared size checked against ``limit``, the archive's size and
        (compressed) :data:`MAX_RATIO` times its compressed size before it is inflated."""
        return b"".join(self.chunks(name, limit))

    def chunks(self, name: str, limit: int, max_ratio: int = MAX_RATIO):
        """The bytes of member ``name``, :data:`CHUNK_BYTES` at a time (inflated as they are asked for): its
        declared size checked against ``limit``, the archive's size and (compressed) ``max_ratio`` times its
        compressed size before a byte is inflated; more or fewer bytes than it declares, or a wrong CRC-32,
        are an error once they show."""
        info = self.members.get(name)
        if info is None:
            raise CheckpointCorruptedError(f"{self.where}: has no member '{name}' (a .keras archive holds "
                                           f"{CONFIG}, {METADATA} and {WEIGHTS}; it holds {short(self.names(), 300)})",
                                           [name])
        declared = info.file_size
        if declared > limit:
            raise CheckpointCorruptedError(f"{self.where}: member '{name}' declares {declared} bytes; at most {limit} "
                                           "are read (refused before reading it)", [name])
        if info.compress_type == zipfile.ZIP_STORED:
            if declared != info.compress_size or declared > self.size:
                raise CheckpointCorruptedError(f"{self.where}: member '{name}' declares {declared} bytes stored in "
                                               f"{info.compress_size} (the archive has {self.size}): corrupted",
                                               [name])
        elif declared > max_ratio * max(info.compress_size, 1) or info.compress_size > self.size:
            raise CheckpointCorruptedError(f"{self.where}: member '{name}' declares {declared} bytes compressed into "
                                           f"{info.compress_size}: more than {max_ratio} times (a zip bomb?); refused "
                                           "before inflating it", [name])
        got = 0
        try:
            with self.zip.open(info) as f:
                while True:
                    chunk = f.read(min(CHUNK_BYTES, declared + 1 - got))
                    if not chunk:
                        break
                    got += len(chunk)
                    if got > declared:
                        break
                    yield chunk
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError) as e:
            raise CheckpointCorruptedError(f"{self.where}: member '{name}' cannot be read ({short(str(e), 200)}): "
                                           "truncated or corrupted", [name]) from None
        if got != declared:
            raise CheckpointCorruptedError(f"{self.where}: member '{name}' holds {'more' if got > declared else got} "
                                           f"bytes, not the {declared} it declares", [name])

    def close(self) -> None:
        z = getattr(self, "zip", None)
        if z is not None:
            z.close()
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _check_directory(f, size: int, where: str) -> None:
    """Check the central directory's size and member count where the end-of-central-directory record
    declares them, then count its records (reading 46 bytes of each), before :mod:`zipfile` parses it: an
    archive of more than :data:`MAX_MEMBERS` records is refused after reading at most that many headers.
    Finds the record where :mod:`zipfile` does (at the very end, else the last signature in the last 64 KiB);
    an archive without one is left for :mod:`zipfile` to refuse."""
    pos = f.tell()
    try:
        tail = min(size, _EOCD + 0xFFFF)
        f.seek(size - tail)
        data = f.read(tail)
        at = len(data) - _EOCD if data[-_EOCD:-_EOCD + 4] == b"PK\x05\x06" else data.rfind(b"PK\x05\x06")
        if at < 0 or len(data) - at < _EOCD:
            return
        _, _, _, _, count, cd_size, _, _ = struct.unpack_from("<4s4H2LH", data, at)
        location = size - tail + at
        if at >= _EOCD64_LOCATOR and data[at - _EOCD64_LOCATOR:at - _EOCD64_LOCATOR + 4] == b"PK\x06\x07":
            record = at - _EOCD64_LOCATOR - _EOCD64
            if record >= 0 and data[record:record + 4] == b"PK\x06\x06":
                count, cd_size = struct.unpack_from("<QQ", data, record + 32)
                location = size - tail + record
        if count > MAX_MEMBERS:
            raise CheckpointCorruptedError(f"{where}: its end-of-central-directory record declares {count} members; "
                                           f"at most {MAX_MEMBERS} are read (refused before reading them)",
                                           ["members"])
        start = location - cd_size
        if cd_size > size or start < 0:
            raise CheckpointCorruptedError(f"{where}: its end-of-central-directory record declares a central "
                                           f"directory of {cd_size} bytes before byte {location}: corrupted",
                                           ["central directory"])
        f.seek(start)
        records, done = 0, 0
        while done + _CD_RECORD <= cd_size:
            head = f.read(_CD_RECORD)
            if len(head) < _CD_RECORD or head[:4] != b"PK\x01\x02":
                return  # not a record: zipfile says what is wrong
            records += 1
            if records > MAX_MEMBERS:
                raise CheckpointCorruptedError(f"{where}: its central directory holds more than {MAX_MEMBERS} "
                                               "members (refused after counting that many)", ["members"])
            n, e, c = struct.unpack_from("<3H", head, 28)
            f.seek(n + e + c, os.SEEK_CUR)
            done += _CD_RECORD + n + e + c
    finally:
        f.seek(pos)


def write_archive(target, members: dict[str, bytes]) -> None:
    """Write ``members`` (name -> bytes, in order) as Keras does: a zip of stored (uncompressed) members,
    regular files of mode 0644. ``target``: a path or a binary file object."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            z.writestr(info, data)
