"""Keras 3's ``.keras`` archive: a zip holding ``metadata.json``, ``config.json`` and ``model.weights.h5``
(and ``assets/`` for layers that keep files, which descend does not read).

Reading trusts nothing: the archive must be a regular file (not a symbolic link); a member whose name
is absolute, climbs out with ``..``, holds a backslash or a drive, repeats, or is a symbolic link
makes the whole archive refused (descend never extracts, but a Keras archive holds none of these);
each member's declared size is checked against a bound and, when compressed, against its compressed
size (at most :data:`MAX_RATIO` times it) before a byte is inflated, and no more than the declared
size is ever read. Errors name the archive and the member.

Example:
    >>> import io
    >>> from descend.formats import keras_zip
    >>> buffer = io.BytesIO()
    >>> keras_zip.write_archive(buffer, {"config.json": b"{}", "metadata.json": b"{}", "model.weights.h5": b""})
    >>> archive = keras_zip.KerasArchive(io.BytesIO(buffer.getvalue()), "m.keras")
    >>> archive.read("config.json", 100)
    b'{}'
"""

from __future__ import annotations

import os
import stat
import zipfile

from ..checkpoint.errors import CheckpointCorruptedError, short
from ..checkpoint.format import open_regular

__all__ = ["KerasArchive", "write_archive", "CONFIG", "METADATA", "WEIGHTS", "MAX_RATIO", "MAX_MEMBERS"]

CONFIG, METADATA, WEIGHTS = "config.json", "metadata.json", "model.weights.h5"
#: the largest ratio of a compressed member's size to its compressed size (a zip bomb is refused)
MAX_RATIO = 1000
#: the most members an archive may hold
MAX_MEMBERS = 1 << 16
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
        elif declared > MAX_RATIO * max(info.compress_size, 1) or info.compress_size > self.size:
            raise CheckpointCorruptedError(f"{self.where}: member '{name}' declares {declared} bytes compressed into "
                                           f"{info.compress_size}: more than {MAX_RATIO} times (a zip bomb?); refused "
                                           "before inflating it", [name])
        try:
            with self.zip.open(info) as f:
                data = f.read(declared + 1)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError) as e:
            raise CheckpointCorruptedError(f"{self.where}: member '{name}' cannot be read ({short(str(e), 200)}): "
                                           "truncated or corrupted", [name]) from None
        if len(data) != declared:
            raise CheckpointCorruptedError(f"{self.where}: member '{name}' holds {len(data)} bytes, not the {declared} "
                                           "it declares", [name])
        return data

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


def write_archive(target, members: dict[str, bytes]) -> None:
    """Write ``members`` (name -> bytes, in order) as Keras does: a zip of stored (uncompressed) members,
    regular files of mode 0644. ``target``: a path or a binary file object."""
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            z.writestr(info, data)
