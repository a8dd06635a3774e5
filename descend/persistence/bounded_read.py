"""Reading a file a hostile party may have written: opened without following links, only when it is a regular
file, and JSON refused before it is parsed when it nests too deep. Every failure is a
:class:`~descend.persistence.checkpoint_errors.CheckpointCorruptedError` naming the file.

The lowest floor of :mod:`descend.persistence` with :mod:`~descend.persistence.durable`: it imports nothing
of descend but the errors.

Example:
    >>> from descend.persistence.bounded_read import json_depth, parse_json
    >>> json_depth(b'{"a": [1, "[[["]}'), parse_json(b'{"a": 1}', "x.json", "config")
    (2, {'a': 1})
"""

from __future__ import annotations

import errno
import json
import os
import stat

import numpy as np

from .checkpoint_errors import CheckpointCorruptedError, CheckpointError, short

__all__ = ["MAX_JSON_DEPTH", "json_depth", "open_regular", "parse_json"]

#: the deepest JSON nesting accepted in a manifest, an index or a tensors header
MAX_JSON_DEPTH = 64

_DEPTH_PIECE = 1 << 18  # bytes of JSON text :func:`json_depth` looks at at a time


def json_depth(raw: bytes) -> int:
    """The deepest nesting of ``[``/``{`` in JSON text (strings skipped), without parsing it. Reads the
    text in pieces, so it needs about 12 MiB whatever the text's size."""
    codes = np.frombuffer(raw, dtype=np.uint8)
    depth = deepest = 0
    inside = 0  # whether the piece starts inside a string
    run = 0  # how many backslashes end the previous piece
    for start in range(0, len(codes), _DEPTH_PIECE):
        c = codes[start:start + _DEPTH_PIECE]
        idx = np.arange(len(c), dtype=np.int64)
        last = np.where(c != 92, idx, -1 - run)  # the last character that is not a backslash, up to here
        np.maximum.accumulate(last, out=last)
        before = np.empty_like(last)  # backslashes just before each character
        before[0] = run
        np.subtract(idx[1:] - 1, last[:-1], out=before[1:])
        quote = (c == 34) & (before % 2 == 0)  # a quote that is not escaped opens or closes a string
        outside = (np.cumsum(quote, dtype=np.int64) + inside) % 2 == 0
        steps = (((c == 91) | (c == 123)) & outside).astype(np.int64)
        steps -= ((c == 93) | (c == 125)) & outside
        levels = np.cumsum(steps, out=steps)
        levels += depth
        deepest = max(deepest, int(levels.max()))
        depth = int(levels[-1])
        inside = 0 if outside[-1] else 1
        run = int(len(c) - 1 - last[-1])
    return deepest


def parse_json(raw: bytes, file: str, what: str):
    """Parse bounded JSON bytes; every failure is a CheckpointCorruptedError naming ``file``."""
    depth = json_depth(raw)
    if depth > MAX_JSON_DEPTH:
        raise CheckpointCorruptedError(f"{file}: the {what} nests {depth} levels deep; at most {MAX_JSON_DEPTH} "
                                       "are accepted (refused before parsing)", [os.path.basename(file)])
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise CheckpointCorruptedError(f"{file}: the {what} is corrupted or truncated (not valid JSON: "
                                       f"{short(str(e), 200)})", [os.path.basename(file)]) from None
    except MemoryError:
        raise CheckpointError(f"{file}: parsing the {what} ({len(raw)} bytes) needs more memory than this process "
                              "can have; nothing was read from it") from None


# ---------------------------------------------------------------------------------------------------------------
# opening files without following links
# ---------------------------------------------------------------------------------------------------------------
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def open_regular(directory: str, name: str, what: str):
    """Open ``directory/name`` for reading: never through a symbolic link, only a regular file.
    Returns ``(file object, size)``."""
    full = os.path.join(directory, name)
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        raise
    except OSError as e:
        raise CheckpointCorruptedError(f"{full}: cannot be read ({e.strerror})", [name]) from None
    if stat.S_ISLNK(st.st_mode):
        raise CheckpointCorruptedError(f"{full}: the {what} is a symbolic link; a checkpoint never follows links "
                                       "out of its folder", [name])
    if not stat.S_ISREG(st.st_mode):
        raise CheckpointCorruptedError(f"{full}: the {what} is not a regular file", [name])
    try:
        fd = os.open(full, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except OSError as e:
        if e.errno == errno.ENOENT:  # deleted since lstat (a checkpoint rotated away while it is read)
            raise FileNotFoundError(errno.ENOENT, f"the {what} was deleted while it was opened", full) from None
        if e.errno == errno.ELOOP:
            raise CheckpointCorruptedError(f"{full}: the {what} is a symbolic link; a checkpoint never follows "
                                           "links out of its folder", [name]) from None
        raise CheckpointCorruptedError(f"{full}: cannot be read ({e.strerror})", [name]) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise CheckpointCorruptedError(f"{full}: the {what} is not a regular file", [name])
    return os.fdopen(fd, "rb"), st.st_size
