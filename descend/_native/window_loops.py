"""The exact window kernels of convolution and pooling (:func:`descend._native.loops.windows` documents them), on the
numba CPU backend.

The kernels are module-level functions and call each other as globals: numba reloads a kernel from its disk cache
only when its closure captures no other compiled function, so kernels built inside a function would be compiled
again in every process (``tests/test_kernel_cache.py``).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

__all__ = ["add_patches", "patches", "pool_gather", "pool_max", "pool_scatter"]

_OPTS = dict(cache=True, nogil=True, error_model="numpy")


@numba.njit(**_OPTS)
def _patches_of(x, out, q, sh, sw, dh, dw):
    _, oh, ow, kh, kw, c = out.shape
    if dw == 1 and c < 8:  # a window's row is one run of kw * c elements of the image's row (measured faster
        # for few channels only: 1 channel, 3x3 windows, 0.9 ms against 1.85 for 128 28x28 images; 32 channels,
        # 2.5 ms against 0.75 for 128 13x13 images)
        n, h, w, _ = x.shape
        rows = x.reshape(n, h, w * c)
        runs = out.reshape(n, oh, ow, kh, kw * c)
        for i in range(oh):
            for j in range(ow):
                s0 = j * sw * c
                for a in range(kh):
                    r = i * sh + a * dh
                    for e in range(kw * c):
                        runs[q, i, j, a, e] = rows[q, r, s0 + e]
        return
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                r = i * sh + a * dh
                for b in range(kw):
                    s = j * sw + b * dw
                    for ch in range(c):
                        out[q, i, j, a, b, ch] = x[q, r, s, ch]


@numba.njit(parallel=True, **_OPTS)
def patches(x, out, sh, sw, dh, dw, serial):
    if serial:
        for q in range(out.shape[0]):
            _patches_of(x, out, q, sh, sw, dh, dw)
    else:
        for q in prange(out.shape[0]):
            _patches_of(x, out, q, sh, sw, dh, dw)


@numba.njit(**_OPTS)
def _add_patches_of(cols, acc, q, sh, sw, dh, dw, row):
    # row by row of acc: the row's terms added offset by offset (a, then b, in order) onto zeros in a buffer that
    # stays in cache, then the row stored: each element's terms in the order col2im's NumPy adds reach it
    _, oh, ow, kh, kw, c = cols.shape
    _, h, _, _ = acc.shape
    for r in range(h):
        row[:, :] = 0
        for a in range(kh):
            i = r - a * dh
            if i < 0 or i % sh:
                continue
            i //= sh
            if i >= oh:
                continue
            for b in range(kw):
                for j in range(ow):
                    s = j * sw + b * dw
                    for ch in range(c):
                        row[s, ch] += cols[q, i, j, a, b, ch]
        acc[q, r] = row


@numba.njit(parallel=True, **_OPTS)
def add_patches(cols, acc, sh, sw, dh, dw, serial):
    w, c = acc.shape[2], acc.shape[3]
    if serial:
        row = np.empty((w, c), acc.dtype)
        for q in range(cols.shape[0]):
            _add_patches_of(cols, acc, q, sh, sw, dh, dw, row)
    else:
        for q in prange(cols.shape[0]):
            row = np.empty((w, c), acc.dtype)
            _add_patches_of(cols, acc, q, sh, sw, dh, dw, row)


@numba.njit(**_OPTS)
def _pool_max_of(x, out, arg, q, kh, kw, sh, sw, pt, pl, best, at):
    _, h, w, c = x.shape
    _, oh, ow, _ = out.shape
    for i in range(oh):
        r0 = i * sh - pt
        for j in range(ow):
            s0 = j * sw - pl
            first = True
            for a in range(kh):
                r = r0 + a
                if r < 0 or r >= h:
                    continue
                for b in range(kw):
                    s = s0 + b
                    if s < 0 or s >= w:
                        continue
                    k = a * kw + b
                    if first:
                        for ch in range(c):
                            best[ch] = x[q, r, s, ch]
                            at[ch] = k
                        first = False
                    else:
                        for ch in range(c):
                            v = x[q, r, s, ch]
                            m = best[ch]
                            # (after a NaN nothing is larger: the first NaN stays, as np.argmax's)
                            take = m == m and (v > m or v != v)
                            best[ch] = v if take else m
                            at[ch] = k if take else at[ch]
            for ch in range(c):
                out[q, i, j, ch] = best[ch]
                arg[q, i, j, ch] = at[ch]


@numba.njit(parallel=True, **_OPTS)
def pool_max(x, out, arg, kh, kw, sh, sw, pt, pl, serial):
    c = x.shape[3]
    if serial:
        best, at = np.empty(c, x.dtype), np.empty(c, np.int64)
        for q in range(x.shape[0]):
            _pool_max_of(x, out, arg, q, kh, kw, sh, sw, pt, pl, best, at)
    else:
        for q in prange(x.shape[0]):
            best, at = np.empty(c, x.dtype), np.empty(c, np.int64)
            _pool_max_of(x, out, arg, q, kh, kw, sh, sw, pt, pl, best, at)


@numba.njit(**_OPTS)
def _first_bad(arg, q, kh, kw, sh, sw, pt, pl, h, w):
    # the flat index of image q's first offset outside its window or in the padding, else -1
    _, oh, ow, c = arg.shape
    inside = pt <= 0 and pl <= 0 and (oh - 1) * sh + kh - pt <= h and (ow - 1) * sw + kw - pl <= w
    if inside:  # (no window reaches the padding: a count of offsets out of range, in one vector pass)
        count = 0
        for i in range(oh):
            for j in range(ow):
                for ch in range(c):
                    k = arg[q, i, j, ch]
                    count += (k < 0) | (k >= kh * kw)
        if count == 0:
            return -1
    for i in range(oh):
        for j in range(ow):
            for ch in range(c):
                k = arg[q, i, j, ch]
                a = k // kw
                r, s = i * sh + a - pt, j * sw + k - a * kw - pl
                if k < 0 or k >= kh * kw or r < 0 or r >= h or s < 0 or s >= w:
                    return ((q * oh + i) * ow + j) * c + ch
    return -1


@numba.njit(**_OPTS)
def _pool_scatter_of(g, arg, out, q, kh, kw, sh, sw, pt, pl):
    _, oh, ow, c = g.shape
    _, h, w, _ = out.shape
    bad = _first_bad(arg, q, kh, kw, sh, sw, pt, pl, h, w)
    if bad >= 0:
        return bad
    zero = np.zeros(1, out.dtype)[0]
    if sh == kh and sw == kw and oh * sh - pt >= h and ow * sw - pl >= w:
        # windows that tile the image: each element is in one window, written once (0 + g, or 0)
        for i in range(oh):
            for a in range(kh):
                r = i * sh + a - pt
                if r < 0 or r >= h:
                    continue
                for j in range(ow):
                    for b in range(kw):
                        s = j * sw + b - pl
                        if s < 0 or s >= w:
                            continue
                        k = a * kw + b
                        for ch in range(c):
                            out[q, r, s, ch] = zero + g[q, i, j, ch] if arg[q, i, j, ch] == k else zero
        return -1
    for r in range(h):
        for s in range(w):
            for ch in range(c):
                out[q, r, s, ch] = zero
    for a in range(kh):  # offset by offset: an element's terms come in add_patches' order
        for b in range(kw):
            k = a * kw + b
            for i in range(oh):
                r = i * sh + a - pt
                if r < 0 or r >= h:
                    continue
                for j in range(ow):
                    s = j * sw + b - pl
                    if s < 0 or s >= w:
                        continue
                    for ch in range(c):
                        if arg[q, i, j, ch] == k:
                            out[q, r, s, ch] += g[q, i, j, ch]
    return -1


@numba.njit(parallel=True, **_OPTS)
def pool_scatter(g, arg, out, kh, kw, sh, sw, pt, pl, serial):
    n = g.shape[0]
    bad = np.full(n, -1, np.int64)
    if serial:
        for q in range(n):
            bad[q] = _pool_scatter_of(g, arg, out, q, kh, kw, sh, sw, pt, pl)
    else:
        for q in prange(n):
            bad[q] = _pool_scatter_of(g, arg, out, q, kh, kw, sh, sw, pt, pl)
    for q in range(n):
        if bad[q] >= 0:
            return bad[q]
    return -1


@numba.njit(**_OPTS)
def _pool_gather_of(x, arg, out, q, kh, kw, sh, sw, pt, pl):
    _, h, w, _ = x.shape
    _, oh, ow, c = out.shape
    bad = _first_bad(arg, q, kh, kw, sh, sw, pt, pl, h, w)
    if bad >= 0:
        return bad
    for i in range(oh):
        for j in range(ow):
            for ch in range(c):
                k = arg[q, i, j, ch]
                a = k // kw
                out[q, i, j, ch] = x[q, i * sh + a - pt, j * sw + k - a * kw - pl, ch]
    return -1


@numba.njit(parallel=True, **_OPTS)
def pool_gather(x, arg, out, kh, kw, sh, sw, pt, pl, serial):
    n = x.shape[0]
    bad = np.full(n, -1, np.int64)
    if serial:
        for q in range(n):
            bad[q] = _pool_gather_of(x, arg, out, q, kh, kw, sh, sw, pt, pl)
    else:
        for q in prange(n):
            bad[q] = _pool_gather_of(x, arg, out, q, kh, kw, sh, sw, pt, pl)
    for q in range(n):
        if bad[q] >= 0:
            return bad[q]
    return -1
