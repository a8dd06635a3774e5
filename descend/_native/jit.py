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
import functools

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["DATA_OFFSET", "any_nonfinite", "check_headers", "chunk_table", "data_at", "first_nonfinite", "gemm_split",
           "group_ids", "header_ok", "layout_ok", "part_table", "pointer_like", "prefetch", "sum_groups",
           "sum_segments", "threads"]

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


@intrinsic
def prefetch(typingctx, array, byte_offset):
    """Ask the CPU to bring the cache line at ``byte_offset`` of ``array``'s data into cache, for
    writing (``llvm.prefetch``: a hint; it never faults, whatever the address)."""

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        address = builder.gep(builder.bitcast(data, cgutils.voidptr_t), [args[1]])
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
            ir.VoidType(), [cgutils.voidptr_t, i32, i32, i32]), "llvm.prefetch.p0i8")
        # write intent, keep in all cache levels, data cache
        builder.call(fn, [address, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(array, types.int64), codegen


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


def part_table(bounds: np.ndarray, chunk: int) -> np.ndarray:
    """A :func:`chunk_table` whose chunks are grouped by thread: ``bounds[t]`` holds the ``parts + 1``
    flat offsets where ``parts`` threads share tensor ``t``; the rows of part 0 (every tensor's first
    share, cut into chunks of at most ``chunk`` elements) come first, then part 1, ..., each part padded
    with empty chunks ``(0, 0, 0)`` to the same count. A parallel kernel's static schedule gives thread
    ``i`` the ``i``-th equal run of chunks: exactly part ``i``."""
    key = ("parts", chunk, bounds.shape, bounds.tobytes())
    table = _chunk_cache.get(key)
    if table is None:
        parts = []
        for i in range(bounds.shape[1] - 1):
            lo, hi = bounds[:, i], bounds[:, i + 1]
            counts = (hi - lo + chunk - 1) // chunk
            tensor = np.repeat(np.arange(bounds.shape[0], dtype=np.int64), counts)
            first = np.repeat(np.cumsum(counts) - counts, counts)
            start = lo[tensor] + (np.arange(tensor.size, dtype=np.int64) - first) * chunk
            parts.append(np.stack([tensor, start, np.minimum(start + chunk, hi[tensor])], axis=1))
        most = max(p.shape[0] for p in parts)
        table = np.zeros((most * len(parts), 3), np.int64)
        for i, p in enumerate(parts):
            table[i * most:i * most + p.shape[0]] = p
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
    return int(chunks[hit, 0].min()) if hit.size else -1  # (a part_table is not in tensor order)



@numba.njit(nogil=True, cache=True)
def _sum_segment(values, order, bounds, out, u):
    # out[u] <- sum of values[order[k]] for k in [bounds[u], bounds[u+1]), in that order (as np.add.at)
    acc = out[u]
    for k in range(bounds[u], bounds[u + 1]):
        row = values[order[k]]
        for j in range(acc.shape[0]):
            acc[j] += row[j]


@numba.njit(parallel=True, nogil=True, cache=True)
def sum_segments(values, order, bounds, out, serial):
    if serial:
        for u in range(out.shape[0]):
            _sum_segment(values, order, bounds, out, u)
    else:
        for u in prange(out.shape[0]):
            _sum_segment(values, order, bounds, out, u)


# ---------------------------------------------------------------------------- grouping repeated ids
@numba.njit(nogil=True, cache=True)
def _sort_keys(keys, bits, order):
    # order <- the permutation that sorts the unsigned ``keys`` stably (keys[k] < 2**bits): an insertion
    # sort for a few keys, else an LSD radix sort of at most 12-bit digits (each pass is stable)
    n = keys.size
    for k in range(n):
        order[k] = k
    if n <= 32:
        for k in range(1, n):
            pos, key = order[k], keys[k]
            i = k - 1
            while i >= 0 and keys[order[i]] > key:
                order[i + 1] = order[i]
                i -= 1
            order[i + 1] = pos
        return
    if bits == 0:  # one distinct key
        return
    passes = (bits + 11) // 12
    width = (bits + passes - 1) // passes
    mask = np.uint64((1 << width) - 1)
    counts = np.empty(1 << width, np.int64)
    src_key, src_pos = keys.copy(), order
    dst_key, dst_pos = np.empty_like(keys), np.empty_like(order)
    for p in range(passes):
        shift = np.uint64(p * width)
        counts[:] = 0
        for i in range(n):
            counts[(src_key[i] >> shift) & mask] += 1
        total = 0
        for b in range(counts.size):
            c = counts[b]
            counts[b] = total
            total += c
        for i in range(n):
            key = src_key[i]
            b = (key >> shift) & mask
            at = counts[b]
            counts[b] = at + 1
            dst_key[at] = key
            dst_pos[at] = src_pos[i]
        src_key, dst_key = dst_key, src_key
        src_pos, dst_pos = dst_pos, src_pos
    if passes % 2:
        order[:] = src_pos


@numba.njit(nogil=True, cache=True)
def group_ids(ids, flip, order, unique, bounds, inverse):
    """Group the 1-D integer ``ids`` by value, in one pass over them plus a radix sort.

    Writes ``order`` (the permutation of a stable sort: ``np.argsort(ids, kind="stable")``),
    ``unique`` (the sorted distinct ids, first ``u`` entries), ``bounds`` (group ``g`` is
    ``order[bounds[g]:bounds[g + 1]]``, first ``u + 1`` entries) and ``inverse`` (each id's group)
    and returns ``u``; returns -1, writing nothing, when ``ids`` are already strictly increasing.
    ``flip`` is ``2**63`` for signed ids (it maps them onto unsigned keys in the same order), else 0.
    """
    n = ids.size
    if n == 0:
        return -1
    keys = np.empty(n, np.uint64)
    increasing = True
    lo = hi = np.uint64(np.int64(ids[0])) ^ flip if flip else np.uint64(ids[0])
    keys[0] = lo
    for k in range(1, n):
        key = np.uint64(np.int64(ids[k])) ^ flip if flip else np.uint64(ids[k])
        keys[k] = key
        if key <= keys[k - 1]:
            increasing = False
        if key < lo:
            lo = key
        if key > hi:
            hi = key
    if increasing:
        return -1
    span = hi - lo
    bits = 0
    while span:
        bits += 1
        span >>= np.uint64(1)
    for k in range(n):
        keys[k] -= lo
    _sort_keys(keys, bits, order)
    u = 0
    previous = keys[order[0]]
    for i in range(n):
        k = order[i]
        key = keys[k]
        if i == 0 or key != previous:
            bounds[u] = i
            unique[u] = ids[k]
            u += 1
            previous = key
        inverse[k] = u - 1
    bounds[u] = n
    return u


@numba.njit(nogil=True, cache=True)
def _sum_part(values, inverse, out, bits, seen, lo, hi, zero, exponent):
    # rows [lo, hi) of out <- zero + the rows values[k] with inverse[k] in [lo, hi), added in order of k (np.add.at
    # into zeros, bit for bit: -0.0 becomes +0.0 as there). values are read in order (the prefetcher streams
    # them; gathering them by group waits on memory for every row), out's rows stay in cache and are written
    # first by their first term (seen[g]: a pass that zeroes out first costs a third more). Returns how many of
    # those rows hold a NaN or Inf.
    width = out.shape[1]
    seen[lo:hi] = 0
    for k in range(inverse.size):
        g = inverse[k]
        if g >= lo and g < hi:
            acc = out[g]
            row = values[k]
            if seen[g]:
                for j in range(width):
                    acc[j] += row[j]
            else:
                seen[g] = 1
                for j in range(width):
                    acc[j] = zero + row[j]
    bad = 0
    for g in range(lo, hi):
        word = bits[g]
        top = exponent ^ exponent
        for j in range(width):
            top = max(top, word[j] & exponent)
        if top == exponent:
            bad += 1
    return bad


@numba.njit(parallel=True, nogil=True, cache=True)
def sum_groups(values, inverse, out, bits, seen, parts, zero, exponent):
    """``out[g]`` (every row written) <- the sum of the rows ``values[k]`` with ``inverse[k] == g``, added in
    order of ``k`` to zero (``np.add.at(zeros, inverse, values)`` bit for bit); ``bits`` is ``out`` viewed as
    unsigned integers, ``seen`` a scratch array of one byte per row. ``parts`` threads each take a range of
    output rows (1: serial). Returns the number of rows holding a NaN or Inf."""
    n_groups = out.shape[0]
    bad = 0
    if parts <= 1:
        bad = _sum_part(values, inverse, out, bits, seen, 0, n_groups, zero, exponent)
    else:
        for p in prange(parts):
            bad += _sum_part(values, inverse, out, bits, seen, p * n_groups // parts, (p + 1) * n_groups // parts,
                             zero, exponent)
    return bad


# ---------------------------------------------------------------------------- array headers
#: byte offsets, in a NumPy array object, of ``ob_type`` and of the ``PyArrayObject`` fields after ``data``:
#: ``nd`` (int), ``dimensions`` and ``strides`` (``npy_intp *``) and ``descr`` (NumPy's C ABI);
#: :func:`header_ok` checks them on this interpreter before :func:`check_headers` relies on them
TYPE_OFFSET = DATA_OFFSET - 8
ND_OFFSET, DIMS_OFFSET, STRIDES_OFFSET, DESCR_OFFSET = DATA_OFFSET + 8, DATA_OFFSET + 16, DATA_OFFSET + 24, \
    DATA_OFFSET + 40


@functools.cache
def header_ok() -> bool:
    """Whether array objects hold ``ob_type``, ``nd``, ``dimensions``, ``strides`` and ``descr`` at the
    offsets above here (checked once, on arrays of 0 to 3 dimensions, views and both float dtypes)."""
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


# ---------------------------------------------------------------------------------------------- products
def threads() -> int:
    """How many threads a parallel kernel runs on (``numba.get_num_threads()``)."""
    return numba.get_num_threads()


_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112  # CblasRowMajor, CblasNoTrans, CblasTrans


@numba.njit(inline="always")
def _operand(obj, rows, cols, size):
    """``(address, CblasNoTrans or CblasTrans, leading dimension, bytes from one row to the next, bytes from one
    column to the next)`` of the 2-D array object at ``obj`` (``rows x cols``) as NumPy hands it to BLAS: rows
    contiguous (no transpose) or columns contiguous (transposed), the other stride a whole number of elements
    no shorter than a row (column); the leading dimension -1 where NumPy would not hand these strides to BLAS
    as they are."""
    strides = _load_i64(obj + STRIDES_OFFSET)
    s0, s1 = _load_i64(strides), _load_i64(strides + 8)
    ld = -1
    trans = _NO_TRANS
    if s1 == size and s0 % size == 0 and s0 // size >= cols:
        ld = s0 // size
    elif s0 == size and s1 % size == 0 and s1 // size >= rows:
        trans, ld = _TRANS, s1 // size
    return _load_i64(obj + DATA_OFFSET), trans, ld, s0, s1


@numba.njit(inline="always")
def _apart(p, s0, s1, rows, cols, q, t0, t1, q_rows, q_cols, size) -> bool:
    """Whether the bytes of two strided blocks (positive strides) lie apart (``np.may_share_memory``'s bounds)."""
    return p + (rows - 1) * s0 + (cols - 1) * s1 + size <= q or q + (q_rows - 1) * t0 + (q_cols - 1) * t1 + size <= p


@numba.njit(parallel=True, nogil=True, cache=True)
def gemm_split(gemm, out, a_object, b_object, k, cut_rows, cut_cols):
    """``out[...] = a @ b`` for the 2-D arrays whose objects are at ``a_object`` and ``b_object`` (``id(a)``,
    ``id(b)``; ``a`` is ``m x k``, ``b`` ``k x n``, ``out`` ``m x n``, all of ``out``'s dtype), as calls of the
    single-threaded BLAS function ``gemm`` (a cblas ``?gemm`` of that dtype, as a ctypes function), one a thread,
    at once: one per block of rows between the ``cut_rows`` (of ``a`` and ``out``) or, when ``cut_rows`` has
    fewer than 3 cuts, one per block of columns between the ``cut_cols`` (of ``b`` and ``out``). The operands'
    addresses and strides are read from their array headers (:func:`header_ok` must hold; the caller keeps the
    arrays alive), so no Python object is made for them. Returns False, having written nothing, where NumPy
    would not call ``gemm`` on them as they are: an operand's strides, ``out``'s rows not contiguous, ``a`` and
    ``b`` at one address (NumPy computes ``a @ a.T`` another way) or ``out`` overlapping an operand.
    (``out`` is passed as an array, not an address, so each dtype gets its own compiled version.)"""
    size = out.itemsize
    m, n = out.shape
    pa, trans_a, lda, sa0, sa1 = _operand(a_object, m, k, size)
    pb, trans_b, ldb, sb0, sb1 = _operand(b_object, k, n, size)
    so0, so1 = out.strides
    if lda < 0 or ldb < 0 or so1 != size or so0 % size != 0 or so0 // size < n or pa == pb:
        return False
    c = out.ctypes.data
    if not (_apart(c, so0, so1, m, n, pa, sa0, sa1, m, k, size) and _apart(c, so0, so1, m, n, pb, sb0, sb1, k, n, size)):
        return False
    ldc = so0 // size
    by_rows = cut_rows.shape[0] > 2
    blocks = cut_rows.shape[0] - 1 if by_rows else cut_cols.shape[0] - 1
    for i in prange(blocks):
        if by_rows:
            r0 = cut_rows[i]
            gemm(_ROW_MAJOR, trans_a, trans_b, cut_rows[i + 1] - r0, n, k, 1.0, pa + r0 * sa0, lda, pb, ldb, 0.0,
                 c + r0 * so0, ldc)
        else:
            c0 = cut_cols[i]
            gemm(_ROW_MAJOR, trans_a, trans_b, m, cut_cols[i + 1] - c0, k, 1.0, pa, lda, pb + c0 * sb1, ldb, 0.0,
                 c + c0 * size, ldc)
    return True
