"""TF's ``Fingerprint64`` of a byte string (farmhash's 64-bit fingerprint, the ``na`` variant), written from the
published algorithm: ``strings.to_hash_bucket_fast`` and the OOV buckets of the lookup layers use it, so their
numbers are TF's (tests/test_strings.py checks lengths 0..300 and longer against ``tf.fingerprint``)."""

from __future__ import annotations

import struct

__all__ = ["fingerprint64"]

M = (1 << 64) - 1
K0, K1, K2 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F


def _f64(s, i):
    return struct.unpack_from("<Q", s, i)[0]


def _f32(s, i):
    return struct.unpack_from("<I", s, i)[0]


def _rot(v, r):
    return v if r == 0 else ((v >> r) | (v << (64 - r))) & M


def _mix(v):
    return v ^ (v >> 47)


def _h16(u, v, mul):
    a = ((u ^ v) * mul) & M
    a ^= a >> 47
    b = ((v ^ a) * mul) & M
    b ^= b >> 47
    return (b * mul) & M


def _len0to16(s, n):
    if n >= 8:
        mul = (K2 + n * 2) & M
        a = (_f64(s, 0) + K2) & M
        b = _f64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & M
        d = ((_rot(a, 25) + b) * mul) & M
        return _h16(c, d, mul)
    if n >= 4:
        mul = (K2 + n * 2) & M
        return _h16((n + (_f32(s, 0) << 3)) & M, _f32(s, n - 4), mul)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_mix(((y * K2) ^ (z * K0)) & M) * K2) & M
    return K2


def _len17to32(s, n):
    mul = (K2 + n * 2) & M
    a = (_f64(s, 0) * K1) & M
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & M
    d = (_f64(s, n - 16) * K2) & M
    return _h16((_rot((a + b) & M, 43) + _rot(c, 30) + d) & M, (a + _rot((b + K2) & M, 18) + c) & M, mul)


def _len33to64(s, n):
    mul = (K2 + n * 2) & M
    a = (_f64(s, 0) * K2) & M
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & M
    d = (_f64(s, n - 16) * K2) & M
    y = (_rot((a + b) & M, 43) + _rot(c, 30) + d) & M
    z = _h16(y, (a + _rot((b + K2) & M, 18) + c) & M, mul)
    e = (_f64(s, 16) * mul) & M
    f = _f64(s, 24)
    g = ((y + _f64(s, n - 32)) * mul) & M
    h = ((z + _f64(s, n - 24)) * mul) & M
    return _h16((_rot((e + f) & M, 43) + _rot(g, 30) + h) & M, (e + _rot((f + a) & M, 18) + g) & M, mul)


def _weak32(s, i, a, b):
    w, x, y, z = _f64(s, i), _f64(s, i + 8), _f64(s, i + 16), _f64(s, i + 24)
    a = (a + w) & M
    b = _rot((b + a + z) & M, 21)
    c = a
    a = (a + x + y) & M
    b = (b + _rot(a, 44)) & M
    return (a + z) & M, (b + c) & M


def fingerprint64(s: bytes) -> int:
    """The unsigned 64-bit fingerprint of ``s``."""
    n = len(s)
    if n <= 16:
        return _len0to16(s, n)
    if n <= 32:
        return _len17to32(s, n)
    if n <= 64:
        return _len33to64(s, n)
    seed = 81
    x = seed
    y = (seed * K1 + 113) & M
    z = (_mix((y * K2 + 113) & M) * K2) & M
    v0 = v1 = w0 = w1 = 0
    x = (x * K2 + _f64(s, 0)) & M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v0 + _f64(s, i + 8)) & M, 37) * K1) & M
        y = (_rot((y + v1 + _f64(s, i + 48)) & M, 42) * K1) & M
        x ^= w1
        y = (y + v0 + _f64(s, i + 40)) & M
        z = (_rot((z + w0) & M, 33) * K1) & M
        v0, v1 = _weak32(s, i, (v1 * K1) & M, (x + w0) & M)
        w0, w1 = _weak32(s, i + 32, (z + w1) & M, (y + _f64(s, i + 16)) & M)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = (K1 + ((z & 0xFF) << 1)) & M
    i = last64
    w0 = (w0 + ((n - 1) & 63)) & M
    v0 = (v0 + w0) & M
    w0 = (w0 + v0) & M
    x = (_rot((x + y + v0 + _f64(s, i + 8)) & M, 37) * mul) & M
    y = (_rot((y + v1 + _f64(s, i + 48)) & M, 42) * mul) & M
    x ^= (w1 * 9) & M
    y = (y + v0 * 9 + _f64(s, i + 40)) & M
    z = (_rot((z + w0) & M, 33) * mul) & M
    v0, v1 = _weak32(s, i, (v1 * mul) & M, (x + w0) & M)
    w0, w1 = _weak32(s, i + 32, (z + w1) & M, (y + _f64(s, i + 16)) & M)
    z, x = x, z
    return _h16((_h16(v0, w0, mul) + _mix(y) * K0 + z) & M, (_h16(v1, w1, mul) + x) & M, mul)
