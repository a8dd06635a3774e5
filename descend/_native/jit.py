"""numba kernels and their low-level helpers (imported only through ``descend._native``).

**Many tensors, one call.** A dense update of many variables is one kernel
call over a *table*: row ``t`` holds the addresses of the NumPy array objects
of tensor ``t`` (``id(param)``, ``id(grad)``, ``id(slot_k)``...), and a
*chunk list* cuts every tensor into pieces of at most ``CHUNK`` elements that
the threads share. The kernel reads each array's data pointer from its object
(:func:`data_at`), so building the table costs one ``id()`` per array, about
30 ns, where ``a.ctypes.data`` costs about 1 us: with 1,000 tensors that is
the difference between a step at the memory floor and a step 1.5 ms above it.

The data pointer is the field right after the object header in NumPy's
``PyArrayObject`` (its layout is part of NumPy's C ABI). :func:`layout_ok`
checks that on this interpreter (with a view, an owner and both dtypes)
before anything relies on it; when it does not hold, fused kernels are off
and the NumPy path runs.

The caller keeps every array in the table alive for the duration of the call.
"""

from __future__ import annotations

import ctypes

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["DATA_OFFSET", "any_nonfinite", "check_headers", "chunk_table", "data_at", "first_nonfinite", "header_ok",
           "layout_ok", "pointer_like", "segment_sum"]

#: byte offset of ``PyArrayObject.data``: just after the object header (refcount, type)
DATA_OFFSET = object.__basicsize__


@intrinsic
def data_at(typingctx, array_object, byte_offset):
    """``(char *) PyArray_DATA(array_object) + byte_offset`` as a ``void *``
    (``array_object`` is the address of a NumPy array object, ``id(a)``)."""

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        field = builder.inttoptr(builder.add(args[0], ir.Constant(i64, DATA_OFFSET)), i64.as_pointer())
        data = builder.inttoptr(builder.load(field), cgutils.voidptr_t)
        return builder.gep(data, [args[1]])

    return types.voidptr(types.int64, types.int64), codegen


def layout_ok() -> bool:
    """Whether NumPy arrays keep their data pointer at :data:`DATA_OFFSET` here."""
    base = np.arange(24, dtype=np.float64)
    probes = [base, base[3:], np.zeros(5, np.float32), np.zeros((3, 4), np.float32)[1:]]
    try:
        return all(ctypes.c_void_p.from_address(id(a) + DATA_OFFSET).value == a.ctypes.data for a in probes)
    except Exception:  # pragma: no cover - an interpreter without ctypes addresses
        return False


_chunk_cache: dict = {}


def chunk_table(sizes: np.ndarray, chunk: int) -> np.ndarray:
    """``(n_chunks, 3)`` int64 rows ``(tensor, start, stop)`` cutting tensors of
    ``sizes`` elements into pieces of at most ``chunk`` (empty tensors get none).
    Cached by the sizes: a model's shapes repeat every step."""
    key = (chunk, sizes.tobytes())
    table = _chunk_cache.get(key)
    if table is None:
        counts = (sizes + chunk - 1) // chunk
        tensor = np.repeat(np.arange(sizes.size, dtype=np.int64), counts)
        first = np.repeat(np.cumsum(counts) - counts, counts)
        start = (np.arange(tensor.size, dtype=np.int64) - first) * chunk
        stop = np.minimum(start + chunk, sizes[tensor])
        table = np.ascontiguousarray(np.stack([tensor, start, stop], axis=1).astype(np.int64))
        if len(_chunk_cache) > 256:
            _chunk_cache.clear()
        _chunk_cache[key] = table
    return table


@intrinsic
def pointer_like(typingctx, address, like):
    """``address`` (a ``void *``) as a pointer to values of ``like``'s type."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(signature.return_type))

    return types.CPointer(like)(types.voidptr, like), codegen


@numba.njit(nogil=True, cache=True)
def _chunk_nonfinite(objects, chunks, c, exponent, itemsize):
    # an IEEE value is NaN or Inf exactly when its exponent bits are all ones; an integer max over the
    # masked exponents vectorizes (a float reduction would not, without reassociation)
    j0 = chunks[c, 1]
    n = chunks[c, 2] - j0
    bits = numba.carray(pointer_like(data_at(objects[chunks[c, 0]], j0 * itemsize), exponent), n)
    top = exponent ^ exponent
    for j in range(n):
        top = max(top, bits[j] & exponent)
    return top == exponent


@numba.njit(parallel=True, nogil=True, cache=True)
def _nonfinite(objects, chunks, flags, serial, exponent, itemsize):
    # (flags is allocated by the caller: with parallel=True numba would turn np.zeros into a parallel
    # region, which a child forked after a parallel kernel must not start; see fused)
    if serial:
        for c in range(chunks.shape[0]):
            flags[c] = _chunk_nonfinite(objects, chunks, c, exponent, itemsize)
    else:
        for c in prange(chunks.shape[0]):
            flags[c] = _chunk_nonfinite(objects, chunks, c, exponent, itemsize)


_EXPONENT = {4: np.uint32(0x7F800000), 8: np.uint64(0x7FF0000000000000)}


def any_nonfinite(arrays: list, chunk: int, serial: bool) -> int:
    """Index of the first array holding a NaN or Inf, else -1 (C-contiguous
    float32 or float64 arrays, all of one dtype)."""
    objects = np.fromiter(map(id, arrays), np.int64, len(arrays))
    sizes = np.fromiter((a.size for a in arrays), np.int64, len(arrays))
    return first_nonfinite(objects, chunk_table(sizes, chunk), arrays[0].dtype.itemsize, serial)


def first_nonfinite(objects: np.ndarray, chunks: np.ndarray, itemsize: int, serial: bool) -> int:
    """:func:`any_nonfinite` over arrays given by their objects (``id``), cut into ``chunks``
    (:func:`chunk_table` of their sizes); ``itemsize`` 4 (float32) or 8 (float64)."""
    flags = np.zeros(chunks.shape[0], np.bool_)
    _nonfinite(objects, chunks, flags, serial, _EXPONENT[itemsize], itemsize)
    hit = np.flatnonzero(flags)
    return int(chunks[hit[0], 0]) if hit.size else -1



@numba.njit(nogil=True, cache=True)
def _sum_segment(values, order, bounds, out, u):
    # out[u] <- sum of values[order[k]] for k in [bounds[u], bounds[u+1]), in that order (as np.add.at)
    acc = out[u]
    for k in range(bounds[u], bounds[u + 1]):
        row = values[order[k]]
        for j in range(acc.shape[0]):
            acc[j] += row[j]


@numba.njit(parallel=True, nogil=True, cache=True)
def _sum_segments(values, order, bounds, out, serial):
    if serial:
        for u in range(out.shape[0]):
            _sum_segment(values, order, bounds, out, u)
    else:
        for u in prange(out.shape[0]):
            _sum_segment(values, order, bounds, out, u)


def segment_sum(out: np.ndarray, ids: np.ndarray, rows: np.ndarray, serial: bool) -> None:
    """``out[ids[k]] += rows[k]`` for every k, in order of k (as ``np.add.at``): the rows are
    sorted stably by id and each output row sums its own run, one thread per output row."""
    from . import stable_order

    order, _ = stable_order(ids)
    bounds = np.zeros(out.shape[0] + 1, np.int64)
    np.cumsum(np.bincount(ids, minlength=out.shape[0]), out=bounds[1:])
    _sum_segments(rows, order, bounds, out, serial)


# ---------------------------------------------------------------------------- array headers
#: byte offsets, in a NumPy array object, of ``ob_type`` and of the ``PyArrayObject`` fields after ``data``:
#: ``nd`` (int), ``dimensions`` and ``strides`` (``npy_intp *``) and ``descr`` (NumPy's C ABI);
#: :func:`header_ok` checks them on this interpreter before :func:`check_headers` relies on them
TYPE_OFFSET = DATA_OFFSET - 8
ND_OFFSET, DIMS_OFFSET, STRIDES_OFFSET, DESCR_OFFSET = DATA_OFFSET + 8, DATA_OFFSET + 16, DATA_OFFSET + 24, \
    DATA_OFFSET + 40


def header_ok() -> bool:
    """Whether array objects hold ``ob_type``, ``nd``, ``dimensions``, ``strides`` and ``descr`` at the
    offsets above here (checked on arrays of 0 to 3 dimensions, views and both float dtypes)."""
    base = np.arange(48, dtype=np.float64)
    probes = [base, base[3:], np.zeros((), np.float32), np.zeros((3, 4), np.float32)[1:], base.reshape(2, 3, 8)[:, ::2],
              np.zeros((2, 0, 3), np.float32)]
    i64, ptr = ctypes.c_int64, ctypes.c_void_p
    try:
        for a in probes:
            at = id(a)
            nd = ctypes.c_int.from_address(at + ND_OFFSET).value
            dims, strides = ptr.from_address(at + DIMS_OFFSET).value, ptr.from_address(at + STRIDES_OFFSET).value
            if (ptr.from_address(at + TYPE_OFFSET).value != id(type(a)) or nd != a.ndim
                    or ptr.from_address(at + DESCR_OFFSET).value != id(a.dtype)
                    or tuple(i64.from_address(dims + 8 * k).value for k in range(nd)) != a.shape
                    or tuple(i64.from_address(strides + 8 * k).value for k in range(nd)) != a.strides):
                return False
        return True
    except Exception:  # pragma: no cover - an interpreter without ctypes addresses
        return False


@intrinsic
def _load_i64(typingctx, address):
    """The int64 at ``address`` (an integer)."""

    def codegen(context, builder, signature, args):
        return builder.load(builder.inttoptr(args[0], ir.IntType(64).as_pointer()))

    return types.int64(types.int64), codegen


@intrinsic
def _load_i32(typingctx, address):
    """The int32 at ``address`` (an integer), widened to int64."""

    def codegen(context, builder, signature, args):
        return builder.sext(builder.load(builder.inttoptr(args[0], ir.IntType(32).as_pointer())), ir.IntType(64))

    return types.int64(types.int64), codegen


@numba.njit(nogil=True, cache=True)
def _check_headers(objects, ndarray_type, descr, nds, starts, layout):
    for t in range(objects.shape[0]):
        obj = objects[t]
        if _load_i64(obj + TYPE_OFFSET) != ndarray_type or _load_i64(obj + DESCR_OFFSET) != descr:
            return t
        nd = nds[t]
        if _load_i32(obj + ND_OFFSET) != nd:
            return t
        dims = _load_i64(obj + DIMS_OFFSET)
        strides = _load_i64(obj + STRIDES_OFFSET)
        s = starts[t]
        for k in range(nd):
            if _load_i64(dims + 8 * k) != layout[s + k] or _load_i64(strides + 8 * k) != layout[s + nd + k]:
                return t
    return -1


def check_headers(objects: np.ndarray, descr: int, nds: np.ndarray, starts: np.ndarray, layout: np.ndarray) -> int:
    """Index of the first object (by ``id``) that is not an exact ndarray with dtype object ``descr``
    (an address), ``nds[t]`` dimensions of the shape ``layout[starts[t]:starts[t] + nd]`` and the
    strides that follow it; -1 when all are. Call only when :func:`header_ok` holds, with the
    objects alive: an object that is not an ndarray is told apart by its type before any array
    field is read."""
    return _check_headers(objects, id(np.ndarray), descr, nds, starts, layout)
