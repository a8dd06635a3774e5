"""More of ``tf.strings``: ``to_hash_bucket`` (TF's ``Hash64``), ``to_hash_bucket_strong`` (SipHash-2-4),
``unicode_transcode`` and the ``_with_offsets`` forms of ``unicode_decode`` / ``unicode_split``.

Decoding UTF-8 follows Unicode's "maximal subpart" rule, as ICU (TF's decoder) and Python: an ill-formed sequence
is replaced (``errors="replace"``) by one ``replacement_char`` per maximal prefix of a well-formed sequence (at
least one byte), skipped (``"ignore"``), or refused (``"strict"``, an ``InvalidArgumentError``). The offset of a
character is the byte position where its sequence starts. ``replace_control_characters`` treats the C0 controls
U+0000..U+001F as ill-formed (replaced by ``replacement_char``, or skipped with ``errors="ignore"``, as TF).

Example:
    >>> import descend as ds
    >>> chars, offsets = ds.strings.unicode_split_with_offsets("aé€")
    >>> chars.numpy().tolist(), offsets.numpy().tolist()
    ([b'a', b'\\xc3\\xa9', b'\\xe2\\x82\\xac'], [0, 1, 3])
"""

from __future__ import annotations

import codecs

import numpy as np

from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor
from ._common import _map, _strings
from ._hashes import hash64, siphash24
from ._ragged import RaggedTensor

__all__ = ["to_hash_bucket", "to_hash_bucket_strong", "unicode_transcode", "unicode_decode_with_offsets",
           "unicode_split_with_offsets"]

_MARK = "descend.strings.ill_formed"  # a codec error handler: each ill-formed unit becomes a lone U+DFFF


def _register_mark() -> None:
    try:
        codecs.lookup_error(_MARK)
    except LookupError:
        codecs.register_error(_MARK, lambda e: ("\udfff", e.end))
_ENCODINGS = {"UTF-8": "utf-8", "UTF8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def _buckets(num_buckets, name: str) -> int:
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, (int, np.integer)) or num_buckets < 1:
        raise ValueError(f"strings.{name}: num_buckets must be a positive int; received {num_buckets!r}")
    return int(num_buckets)


def to_hash_bucket(string_tensor, num_buckets, name=None) -> Tensor:
    """Each string's bucket in ``[0, num_buckets)``: TF's ``Hash64(s) % num_buckets`` (int64), TF's numbers.

    Example:
        >>> import descend as ds
        >>> ds.strings.to_hash_bucket(["a", "b"], 10).dtype.name
        'int64'
    """
    n = _buckets(num_buckets, "to_hash_bucket")
    return Tensor(_map(lambda s: hash64(s) % n, _strings(string_tensor, "to_hash_bucket", "string_tensor"), np.int64))


def to_hash_bucket_strong(input, num_buckets, key, name=None) -> Tensor:  # noqa: A002 - TF's name
    """Each string's bucket: ``SipHash-2-4(key, s) % num_buckets`` (int64), TF's numbers; ``key`` is two
    integers (the 128-bit key's halves; a negative one is its two's complement, as TF's int64 attribute)."""
    n = _buckets(num_buckets, "to_hash_bucket_strong")
    try:
        k0, k1 = (int(k) for k in key)
    except (TypeError, ValueError):
        raise ValueError(f"strings.to_hash_bucket_strong: key must be 2 integers; received {key!r}") from None
    if not (-(1 << 63) <= k0 < 1 << 64 and -(1 << 63) <= k1 < 1 << 64):
        raise ValueError(f"strings.to_hash_bucket_strong: key entries must be in [-2**63, 2**64); received {key!r}")
    k0, k1 = k0 & ((1 << 64) - 1), k1 & ((1 << 64) - 1)  # TF's int64 attribute read as uint64
    return Tensor(_map(lambda s: siphash24(k0, k1, s) % n, _strings(input, "to_hash_bucket_strong"), np.int64))


# ---------------------------------------------------------------- decoding with offsets
def _sequence_length(s: bytes, i: int) -> tuple[int, bool]:
    """``(length, well_formed)`` of the UTF-8 sequence at ``s[i]``: for an ill-formed one, the length of its
    maximal subpart (the longest prefix of a well-formed sequence, at least 1)."""
    b0 = s[i]
    if b0 < 0x80:
        return 1, True
    if 0xC2 <= b0 <= 0xDF:
        need, lo, hi = 1, 0x80, 0xBF
    elif 0xE0 <= b0 <= 0xEF:
        need = 2
        lo, hi = (0xA0, 0xBF) if b0 == 0xE0 else (0x80, 0x9F) if b0 == 0xED else (0x80, 0xBF)
    elif 0xF0 <= b0 <= 0xF4:
        need = 3
        lo, hi = (0x90, 0xBF) if b0 == 0xF0 else (0x80, 0x8F) if b0 == 0xF4 else (0x80, 0xBF)
    else:
        return 1, False
    for k in range(1, need + 1):
        if i + k >= len(s) or not (lo <= s[i + k] <= hi):
            return k, False
        lo, hi = 0x80, 0xBF  # only the second byte has the narrower range
    return need + 1, True


def _decode_utf8(s: bytes, errors: str, replacement_char: int, replace_control: bool, owner: str):
    points, offsets, i = [], [], 0
    while i < len(s):
        length, ok = _sequence_length(s, i)
        c = ord(s[i:i + length].decode("utf-8")) if ok else None
        if ok and not (replace_control and c < 0x20):
            points.append(c)
            offsets.append(i)
        elif errors == "strict":
            what = "a control character" if ok else "invalid UTF-8"
            raise InvalidArgumentError(f"strings.{owner}: {what} at byte {i} of {s!r}")
        elif errors == "replace":
            points.append(replacement_char)
            offsets.append(i)
        i += length
    return points, offsets


def _check_decode_args(encoding: str, errors: str, owner: str) -> None:
    if encoding.upper() not in ("UTF-8", "UTF8"):
        raise ValueError(f"strings.{owner}: only UTF-8 input is supported; received {encoding!r}")
    if errors not in ("replace", "strict", "ignore"):
        raise ValueError(f"strings.{owner}: errors must be 'replace', 'strict' or 'ignore'; received {errors!r}")


def _per_string(a: np.ndarray, fn, dtypes, owner: str):
    """``fn(bytes) -> (list, list)`` of each string: two 1-D Tensors for a scalar, two RaggedTensors for a vector."""
    def column(values, dtype):
        return np.array(list(values) + [b""], dtype=object)[:-1] if dtype == "string" else np.asarray(values, dtype)

    if a.ndim == 0:
        first, second = fn(a.item())
        return Tensor(column(first, dtypes[0])), Tensor(column(second, dtypes[1]))
    if a.ndim != 1:
        raise ValueError(f"strings.{owner}: input must be a scalar or a vector (one ragged dimension); received shape "
                         f"{a.shape}")
    pairs = [fn(s) for s in a.tolist()]
    return (RaggedTensor.from_rows([column(p[0], dtypes[0]) for p in pairs], dtype=dtypes[0]),
            RaggedTensor.from_rows([column(p[1], dtypes[1]) for p in pairs], dtype=dtypes[1]))


def unicode_decode_with_offsets(input, input_encoding: str = "UTF-8", errors: str = "replace",  # noqa: A002
                                replacement_char: int = 65533, replace_control_characters: bool = False, name=None):
    """Each string's code points (int32) and the byte offset where each starts (int64): two 1-D Tensors for a
    scalar, two RaggedTensors for a vector (``tf.strings.unicode_decode_with_offsets``)."""
    owner = "unicode_decode_with_offsets"
    _check_decode_args(input_encoding, errors, owner)
    return _per_string(_strings(input, owner), lambda s: _decode_utf8(s, errors, replacement_char,
                                                                      replace_control_characters, owner),
                       ("int32", "int64"), owner)


def unicode_split_with_offsets(input, input_encoding: str = "UTF-8", errors: str = "replace",  # noqa: A002
                               replacement_char: int = 65533, name=None):
    """Each string's characters (UTF-8 strings) and the byte offset where each starts
    (``tf.strings.unicode_split_with_offsets``); a replaced sequence is ``replacement_char`` encoded."""
    owner = "unicode_split_with_offsets"
    _check_decode_args(input_encoding, errors, owner)

    def split(s):
        points, offsets = _decode_utf8(s, errors, replacement_char, False, owner)
        return [chr(c).encode("utf-8", "surrogatepass") for c in points], offsets

    return _per_string(_strings(input, owner), split, ("string", "int64"), owner)


def unicode_transcode(input, input_encoding: str, output_encoding: str, errors: str = "replace",  # noqa: A002
                      replacement_char: int = 65533, replace_control_characters: bool = False, name=None) -> Tensor:
    """Each string re-encoded from ``input_encoding`` to ``output_encoding`` (``tf.strings.unicode_transcode``):
    ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"`` each way; ill-formed input is replaced, skipped or refused
    as ``errors`` says."""
    owner = "unicode_transcode"
    names = []
    for arg, enc in (("input_encoding", input_encoding), ("output_encoding", output_encoding)):
        if not isinstance(enc, str) or enc.upper() not in _ENCODINGS:
            raise ValueError(f"strings.{owner}: {arg} must be one of {sorted(_ENCODINGS)}; received {enc!r}")
        names.append(_ENCODINGS[enc.upper()])
    if errors not in ("replace", "strict", "ignore"):
        raise ValueError(f"strings.{owner}: errors must be 'replace', 'strict' or 'ignore'; received {errors!r}")

    def transcode(s):
        if names[0] == "utf-8":
            points, _ = _decode_utf8(s, errors, replacement_char, replace_control_characters, owner)
        else:
            try:  # an ill-formed unit decodes to a lone surrogate, which well-formed UTF-16/32 never gives
                text = s.decode(names[0], "strict" if errors == "strict" else _MARK)
            except UnicodeDecodeError as e:
                raise InvalidArgumentError(f"strings.{owner}: invalid {input_encoding} in {s!r}: {e}") from None
            points = []
            for ch in text:
                bad = ch == "\udfff" or (replace_control_characters and ch < " ")
                if not bad:
                    points.append(ord(ch))
                elif errors == "replace":
                    points.append(replacement_char)
        return "".join(chr(c) for c in points).encode(names[1], "surrogatepass")

    _register_mark()
    return Tensor(_map(transcode, _strings(input, owner)))
