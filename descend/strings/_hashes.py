"""The two other string hashes of ``tf.strings``, written from their published algorithms:

* ``hash64``: TF's ``Hash64`` (``tf.strings.to_hash_bucket``), MurmurHash64A with TF's seed ``0xDECAFCAFFE``;
* ``siphash24``: SipHash-2-4 with a 128-bit key given as two 64-bit halves (``tf.strings.to_hash_bucket_strong``).

tests/test_strings_more.py checks both against TF's buckets over lengths 0..70 and random bytes.
"""

from __future__ import annotations

import struct

__all__ = ["hash64", "siphash24"]

M64 = (1 << 64) - 1
_MURMUR_M = 0xC6A4A7935BD1E995
_TF_SEED = 0xDECAFCAFFE


def hash64(data: bytes, seed: int = _TF_SEED) -> int:
    """MurmurHash64A of ``data``: 8-byte little-endian words mixed into ``h``, then the tail bytes, then a final
    avalanche (TF's ``Hash64``)."""
    n = len(data)
    h = (seed ^ (n * _MURMUR_M)) & M64
    whole = n - n % 8
    for (k,) in struct.iter_unpack("<Q", data[:whole]):
        k = (k * _MURMUR_M) & M64
        k ^= k >> 47
        k = (k * _MURMUR_M) & M64
        h ^= k
        h = (h * _MURMUR_M) & M64
    tail = data[whole:]
    if tail:
        for i in range(len(tail) - 1, -1, -1):
            h ^= tail[i] << (8 * i)
        h = (h * _MURMUR_M) & M64
    h ^= h >> 47
    h = (h * _MURMUR_M) & M64
    h ^= h >> 47
    return h


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & M64


def siphash24(key0: int, key1: int, data: bytes) -> int:
    """SipHash-2-4 of ``data`` under the key ``(key0, key1)`` (two compression rounds per 8-byte word, four
    finalization rounds)."""
    v0 = key0 ^ 0x736F6D6570736575
    v1 = key1 ^ 0x646F72616E646F6D
    v2 = key0 ^ 0x6C7967656E657261
    v3 = key1 ^ 0x7465646279746573

    def rounds(count):
        nonlocal v0, v1, v2, v3
        for _ in range(count):
            v0 = (v0 + v1) & M64
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & M64
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & M64
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & M64
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)

    n = len(data)
    whole = n - n % 8
    for (m,) in struct.iter_unpack("<Q", data[:whole]):
        v3 ^= m
        rounds(2)
        v0 ^= m
    last = ((n & 0xFF) << 56) | int.from_bytes(data[whole:], "little")
    v3 ^= last
    rounds(2)
    v0 ^= last
    v2 ^= 0xFF
    rounds(4)
    return v0 ^ v1 ^ v2 ^ v3
