"""CRC-32C (Castagnoli), the checksum of TensorFlow's checkpoint files, in NumPy.

The bytes are cut into rows that are checksummed side by side (one NumPy step per byte of a row), and the
rows' checksums are joined with the operator "append n zero bytes" (a 32x32 matrix over GF(2)): about
0.1 s for 100 MB, exact. :func:`mask` / :func:`unmask` are LevelDB's and TensorFlow's masking of a
stored checksum.

Example:
    >>> from descend.persistence.formats.crc32c import crc32c, mask
    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    >>> crc32c(b"6789", crc32c(b"12345")) == crc32c(b"123456789")
    True
"""

from __future__ import annotations

import numpy as np

__all__ = ["crc32c", "mask", "unmask"]

_POLY = 0x82F63B78


def _table() -> np.ndarray:
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(_POLY), t >> 1).astype(np.uint32)
    return t


_T = _table()
_TL = [int(x) for x in _T]
_M32 = 0xFFFFFFFF


def _zeros_op() -> list[int]:
    """The columns of the operator "process one zero byte" on a raw CRC register."""
    return [(_TL[(1 << j) & 0xFF] ^ ((1 << j) >> 8)) for j in range(32)]


def _apply(cols: list[int], x: int) -> int:
    out = 0
    j = 0
    while x:
        if x & 1:
            out ^= cols[j]
        x >>= 1
        j += 1
    return out


def _compose(a: list[int], b: list[int]) -> list[int]:
    """The operator ``a`` after ``b``."""
    return [_apply(a, c) for c in b]


_ONE = _zeros_op()
_POWERS = [_ONE]  # _POWERS[k]: 2**k zero bytes
for _ in range(63):
    _POWERS.append(_compose(_POWERS[-1], _POWERS[-1]))


def _shift(x: int, n: int) -> int:
    """The raw register ``x`` after ``n`` zero bytes."""
    k = 0
    while n and x:
        if n & 1:
            x = _apply(_POWERS[k], x)
        n >>= 1
        k += 1
    return x


def _shift_many(x: np.ndarray, n: int) -> np.ndarray:
    """Every raw register of ``x`` after ``n`` zero bytes."""
    cols = None
    k = 0
    while n:
        if n & 1:
            cols = _POWERS[k] if cols is None else _compose(_POWERS[k], cols)
        n >>= 1
        k += 1
    if cols is None:
        return x
    out = np.zeros_like(x)
    for j, c in enumerate(cols):
        out ^= ((x >> np.uint32(j)) & np.uint32(1)) * np.uint32(c)
    return out


def _raw_small(data, reg: int = 0) -> int:
    t = _TL
    for b in bytes(data):
        reg = t[(reg ^ b) & 0xFF] ^ (reg >> 8)
    return reg


def _raw(data: np.ndarray) -> int:
    """The raw CRC register (start 0, no final xor) of a 1-D uint8 array."""
    n = data.size
    if n <= 4096:
        return _raw_small(data)
    width = max(64, int(np.sqrt(n)))
    head = n % width
    reg = _raw_small(data[:head]) if head else 0
    rows = data[head:].reshape(-1, width)
    regs = np.zeros(rows.shape[0], np.uint32)
    for j in range(width):
        regs = _T[(regs ^ rows[:, j]) & np.uint32(0xFF)] ^ (regs >> np.uint32(8))
    # join the rows pairwise: the earlier row's register runs over the later row's bytes as zeros
    span = width
    while regs.size > 1:
        if regs.size % 2:
            regs = np.concatenate([np.zeros(1, np.uint32), regs])  # a zero row in front changes nothing
        regs = _shift_many(regs[0::2], span) ^ regs[1::2]
        span *= 2
    return _shift(reg, n - head) ^ int(regs[0])


def crc32c(data, crc: int = 0) -> int:
    """The CRC-32C of ``data`` (bytes-like or a NumPy array's buffer), continuing from ``crc``."""
    arr = np.frombuffer(memoryview(data).cast("B"), np.uint8) if not isinstance(data, np.ndarray) else \
        data.reshape(-1).view(np.uint8)
    reg = crc ^ _M32
    return (_shift(reg, arr.size) ^ _raw(arr)) ^ _M32


def mask(crc: int) -> int:
    """LevelDB's masked form of a stored checksum."""
    return ((((crc >> 15) | (crc << 17)) & _M32) + 0xA282EAD8) & _M32


def unmask(masked: int) -> int:
    rot = (masked - 0xA282EAD8) & _M32
    return ((rot >> 17) | (rot << 15)) & _M32
