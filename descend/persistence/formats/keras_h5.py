"""Keras 3's weights file (``.weights.h5``, and ``model.weights.h5`` inside a ``.keras`` archive), through
h5py: a group per object (``layers/dense/vars``, ``optimizer/vars``) holding its variables as datasets
``"0"``, ``"1"``, ... (a layer's default ``save_own_variables``) or under the names its own ``save_own_variables``
gives them (``"variables"``).

Reading trusts nothing: the file must be a regular file (not a symbolic link); links inside it (soft,
external), datasets stored outside it (external or virtual), compressed or chunked datasets (Keras
writes neither), and values that are not plain numbers (strings, compounds, references) are refused;
every dataset's declared size is checked against the file's size before it is read, and the objects a
file may hold are bounded by its size (one per :data:`OBJECT_BYTES`, checked from a group's link count
before its names are listed); an object reached through a second (hard) link is refused. Errors name
the file and the group.

Example:
    >>> import io
    >>> import numpy as np
    >>> from descend.persistence.formats import keras_h5
    >>> buffer = io.BytesIO()
    >>> keras_h5.write_groups(buffer, [("layers/dense/vars", {"0": np.ones((2, 2), np.float32)})])
    >>> groups = keras_h5.read_groups(io.BytesIO(buffer.getvalue()), "example.weights.h5")
    >>> groups["layers/dense/vars"]["0"].shape
    (2, 2)
"""

from __future__ import annotations

import io
import os

import numpy as np

from ..bounded_read import open_regular
from ..checkpoint_errors import CheckpointCorruptedError, CheckpointError, short

__all__ = ["read_groups", "write_groups", "dataset_order", "MAX_OBJECTS", "OBJECT_BYTES", "open_weights_file", "check_head",
           "HEAD_BYTES"]

#: the most groups and datasets one weights file may hold
MAX_OBJECTS = 1 << 20
#: a weights file holds at most one group or dataset per this many of its bytes (each has an object header
#: of its own: h5py writes 270 bytes or more for a dataset, 400 or more for a group)
OBJECT_BYTES = 128
_MAX_RANK = 64
_MAX_DEPTH = 64
_SIGNATURE = b"\x89HDF\r\n\x1a\n"
#: how many of a weights file's first bytes :func:`check_head` needs
HEAD_BYTES = 64


def _h5py():
    try:
        import h5py
    except ImportError:  # pragma: no cover - h5py is a dependency
        raise CheckpointError("reading and writing Keras' .weights.h5 files needs h5py (pip install h5py)") from None
    return h5py


def open_weights_file(path: str):
    """The bytes of the weights file at ``path`` as a file object (a regular file, never a link)."""
    directory, name = os.path.split(os.path.abspath(path))
    f, size = open_regular(directory, name, "Keras weights file")
    return f, size


def check_head(head: bytes, size: int, where: str) -> None:
    """Check the first bytes of a weights file of ``size`` bytes before the rest is read (a ``.keras``
    archive's weights are inflated as they are checked): the HDF5 signature, and the end-of-file address
    its superblock declares, which must be the file's size (h5py writes it so; a file padded past it is
    refused, e.g. a small HDF5 file ahead of a zip bomb's zeros). ``head``: at least the first
    :data:`HEAD_BYTES` bytes (fewer if the file is shorter)."""
    if head[:8] != _SIGNATURE:
        raise CheckpointCorruptedError(f"{where}: not an HDF5 file (its signature is {short(head[:8])}); a Keras "
                                       "weights file is HDF5", ["signature"])
    if len(head) < 10:
        return  # libhdf5 refuses what is left
    version = head[8]
    if version in (0, 1):
        width, at = head[13] if len(head) > 13 else 0, 24 if version == 0 else 28
    elif version in (2, 3):
        width, at = head[9], 12
    else:
        return  # a superblock version libhdf5 will name
    if width not in (2, 4, 8) or len(head) < at + 3 * width:
        return
    base = int.from_bytes(head[at:at + width], "little")
    end = int.from_bytes(head[at + 2 * width:at + 3 * width], "little")
    if base + end < size:
        raise CheckpointCorruptedError(f"{where}: holds {size} bytes; the HDF5 file in it ends at byte {base + end} "
                                       "(its superblock's end-of-file address): padded or not a weights file "
                                       "(refused before reading the rest)", ["superblock"])


def _bad(where: str, group: str, problem: str) -> CheckpointCorruptedError:
    return CheckpointCorruptedError(f"{where}: '{group}' {problem}", [group])


def read_groups(source, where: str, size: int | None = None) -> dict[str, dict[str, np.ndarray]]:
    """``{group path: {dataset name: array}}`` of every group holding datasets (and every ``.../vars`` group,
    empty ones too), the names in Keras' order (:func:`dataset_order`: ``"0"``, ``"1"``, ..., then other
    names sorted). ``source``: a path or a binary file object; ``size``: its bytes
    (the bound every declared size is checked against)."""
    h5py = _h5py()
    if isinstance(source, (str, os.PathLike)):
        f, size = open_weights_file(os.fspath(source))
    else:
        f = source
        if size is None:
            pos = f.tell()
            size = f.seek(0, io.SEEK_END)
            f.seek(pos)
    try:
        head = f.read(8)
        f.seek(0)
        if head != _SIGNATURE:
            raise CheckpointCorruptedError(f"{where}: not an HDF5 file (its signature is {short(head)}); a Keras "
                                           "weights file is HDF5", ["signature"])
        try:
            h5 = h5py.File(f, "r")
        except (OSError, ValueError, RuntimeError) as e:
            raise CheckpointCorruptedError(f"{where}: not a readable HDF5 file ({short(str(e), 300)})",
                                           ["file"]) from None
        with h5:
            return _walk(h5py, h5, where, size)
    finally:
        if isinstance(source, (str, os.PathLike)):
            f.close()


def dataset_order(name: str) -> tuple:
    """The order of a group's datasets: the numbered ones (``"0"``, ``"1"``, ..., ``"10"``) by number first,
    then the others by name."""
    return (0, int(name), "") if name.isdigit() and name.isascii() else (1, 0, name)


def _walk(h5py, h5, where: str, size: int) -> dict[str, dict[str, np.ndarray]]:
    out: dict[str, dict[str, np.ndarray]] = {}
    count = 0
    most = min(MAX_OBJECTS, size // OBJECT_BYTES + 16)  # every object has a header of its own in the file
    budget = size
    seen: dict[int, str] = {}  # the file address of every object reached -> its path
    stack = [("", h5, 0)]
    while stack:
        path, group, depth = stack.pop()
        if depth > _MAX_DEPTH:
            raise _bad(where, path, f"nests more than {_MAX_DEPTH} groups deep")
        try:
            links = len(group)
        except (OSError, RuntimeError, ValueError) as e:
            raise _bad(where, path or "/", f"cannot be listed ({short(str(e), 200)})") from None
        if count + links > most:
            raise _bad(where, path or "/", f"holds {links} links, and the groups before it {count}: more objects "
                                           f"than a file of {size} bytes holds (at most {most}, one per "
                                           f"{OBJECT_BYTES} bytes); refused before listing them")
        try:
            names = list(group.keys())
        except (OSError, RuntimeError, ValueError) as e:
            raise _bad(where, path or "/", f"cannot be listed ({short(str(e), 200)})") from None
        datasets = {}
        for name in names:
            count += 1
            if count > most:
                raise _bad(where, path or "/", f"holds more than {most} objects")
            full = f"{path}/{name}" if path else name
            try:
                link = group.get(name, getlink=True)
            except (OSError, RuntimeError, ValueError) as e:
                raise _bad(where, full, f"cannot be read ({short(str(e), 200)})") from None
            if isinstance(link, (h5py.SoftLink, h5py.ExternalLink)):
                raise _bad(where, full, "is a link (soft or external); a Keras weights file holds none and descend "
                                        "follows none")
            try:
                obj = group[name]
            except (OSError, RuntimeError, ValueError, KeyError) as e:
                raise _bad(where, full, f"cannot be read ({short(str(e), 200)})") from None
            try:
                address = h5py.h5o.get_info(obj.id).addr
            except (OSError, RuntimeError, ValueError, AttributeError) as e:
                raise _bad(where, full, f"cannot be read ({short(str(e), 200)})") from None
            if address in seen:
                raise _bad(where, full, f"is a second link to the object at '{seen[address]}' (a hard link); Keras "
                                        "writes every variable once, and descend reads every object once")
            seen[address] = full
            if isinstance(obj, h5py.Group):
                stack.append((full, obj, depth + 1))
                continue
            if not isinstance(obj, h5py.Dataset):
                raise _bad(where, full, f"is a {type(obj).__name__}, not a group or dataset")
            datasets[name] = _check_dataset(h5py, obj, where, full, size)
            budget -= datasets[name][2]
            if budget < 0:
                raise _bad(where, full, f"and the datasets before it declare more bytes than the file's {size}")
        if datasets or path.endswith("vars"):
            keys = sorted(datasets, key=dataset_order)
            arrays = {}
            for k in keys:
                obj, dtype, nbytes = datasets[k]
                arr = np.empty(obj.shape, dtype=dtype)
                if nbytes:
                    try:
                        obj.read_direct(arr)
                    except (OSError, RuntimeError, ValueError, TypeError) as e:
                        raise _bad(where, f"{path}/{k}", f"cannot be read ({short(str(e), 200)})") from None
                arrays[k] = arr
            out[path] = arrays
    return out


def _check_dataset(h5py, obj, where: str, full: str, size: int):
    try:
        shape, dtype = obj.shape, obj.dtype
        external, virtual = obj.external, obj.is_virtual
        chunks, compression = obj.chunks, obj.compression
    except (OSError, RuntimeError, ValueError, TypeError) as e:
        raise _bad(where, full, f"cannot be read ({short(str(e), 200)})") from None
    if external or virtual:
        raise _bad(where, full, "keeps its data outside the file (external or virtual); descend reads what the file "
                                "holds")
    if compression is not None or chunks is not None or obj.compression_opts is not None:
        raise _bad(where, full, "is chunked or compressed; Keras writes plain datasets and descend reads only those")
    if shape is None or len(shape) > _MAX_RANK:
        raise _bad(where, full, f"has shape {short(shape)}; expected a known rank of at most {_MAX_RANK}")
    if dtype.kind not in "biuf" or dtype.fields is not None or dtype.subdtype is not None or \
            h5py.check_dtype(vlen=dtype) is not None or h5py.check_dtype(ref=dtype) is not None:
        raise _bad(where, full, f"has dtype {short(str(dtype))}; a weight is a number (bool, integer or float)")
    if dtype.itemsize > 8:
        raise _bad(where, full, f"has dtype {dtype}, wider than descend's variables")
    nbytes = dtype.itemsize
    for d in shape:
        nbytes *= int(d)
    if nbytes > size:
        raise _bad(where, full, f"declares shape {tuple(shape)} of {dtype.name} ({nbytes} bytes); the file has "
                                f"{size} (refused before reading)")
    return obj, dtype.newbyteorder("="), nbytes


def write_groups(target, groups: list[tuple[str, dict]], names: dict | None = None) -> None:
    """Write ``groups`` (``(group path, {dataset name: array})``, in order) as Keras writes them: each group
    created (with the attribute ``name`` from ``names``), its arrays as datasets of their names.
    ``target``: a path or a binary file object."""
    h5py = _h5py()
    with h5py.File(target, "w") as h5:
        for path, arrays in groups:
            group = h5.require_group(path)
            if names and path in names and names[path] is not None:
                group.attrs["name"] = names[path]
            for key, arr in arrays.items():
                group.create_dataset(key, data=np.asarray(arr))
