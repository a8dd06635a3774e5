"""``descend.strings``: TF's ``tf.strings`` ops on string tensors (NumPy object arrays of ``bytes``).

None has a gradient: a string tensor is not differentiable. Ops that TF returns ragged (``split``,
``bytes_split``, ``unicode_split``, ``ngrams`` of ragged rows) return :class:`RaggedTensor`, a minimal
one-ragged-dimension type with ``to_list()``, ``to_tensor()``, ``values``, ``row_splits``.

Example:
    >>> import descend as ds
    >>> ds.strings.upper(["ab", "c"]).numpy()
    array([b'AB', b'C'], dtype=object)
    >>> ds.strings.split(["a b", "c"]).to_list()
    [[b'a', b'b'], [b'c']]
"""

from __future__ import annotations

import builtins
import re

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor
from ._common import _map, _strings
from ._fingerprint import fingerprint64
from ._more import (
    to_hash_bucket,
    to_hash_bucket_strong,
    unicode_decode_with_offsets,
    unicode_split_with_offsets,
    unicode_transcode,
)
from ._ragged import RaggedTensor

__all__ = ["RaggedTensor", "as_string", "bytes_split", "format", "join", "length", "lower", "ngrams",
           "reduce_join", "regex_full_match", "regex_replace", "split", "strip", "substr", "to_hash_bucket_fast",
           "to_number", "unicode_decode", "unicode_encode", "unicode_split", "unsorted_segment_join", "upper",
           "to_hash_bucket", "to_hash_bucket_strong", "unicode_decode_with_offsets", "unicode_split_with_offsets",
           "unicode_transcode"]


def _bytes(x, name: str, arg: str) -> bytes:
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, bytes):
        return x
    raise TypeError(f"strings.{name}: {arg} must be a str or bytes; received {type(x).__name__} {x!r}")


def _check_encoding(encoding: str, name: str) -> None:
    if encoding not in ("", "utf-8", "UTF-8"):
        raise ValueError(f"strings.{name}: encoding must be '' (ASCII) or 'utf-8'; received {encoding!r}")


def lower(input, encoding: str = "", name=None) -> Tensor:  # noqa: A002 - TF's names
    """Lower-case each string: ASCII letters only, or all of Unicode with ``encoding="utf-8"``."""
    a = _strings(input, "lower")
    _check_encoding(encoding, "lower")
    fn = bytes.lower if not encoding else (lambda s: s.decode("utf-8").lower().encode("utf-8"))
    return Tensor(_map(fn, a))


def upper(input, encoding: str = "", name=None) -> Tensor:  # noqa: A002
    """Upper-case each string: ASCII letters only, or all of Unicode with ``encoding="utf-8"``."""
    a = _strings(input, "upper")
    _check_encoding(encoding, "upper")
    fn = bytes.upper if not encoding else (lambda s: s.decode("utf-8").upper().encode("utf-8"))
    return Tensor(_map(fn, a))


def strip(input, name=None) -> Tensor:  # noqa: A002
    """Remove leading and trailing ASCII whitespace."""
    return Tensor(_map(bytes.strip, _strings(input, "strip")))


def length(input, unit: str = "BYTE", name=None) -> Tensor:  # noqa: A002
    """Each string's length in bytes (``unit="BYTE"``) or in UTF-8 characters (``"UTF8_CHAR"``), int32."""
    a = _strings(input, "length")
    if unit == "BYTE":
        return Tensor(_map(len, a, np.int32))
    if unit == "UTF8_CHAR":
        return Tensor(_map(lambda s: len(s.decode("utf-8")), a, np.int32))
    raise ValueError(f"strings.length: unit must be 'BYTE' or 'UTF8_CHAR'; received {unit!r}")


def substr(input, pos, len, unit: str = "BYTE", name=None) -> Tensor:  # noqa: A002
    """``len`` bytes (or UTF-8 characters) of each string from ``pos`` (negative: from the end), as TF:
    a position outside the string is an InvalidArgumentError; a length past the end stops at the end."""
    a = _strings(input, "substr")
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"strings.substr: unit must be 'BYTE' or 'UTF8_CHAR'; received {unit!r}")
    a, p, n = np.broadcast_arrays(a, np.asarray(getattr(pos, "_value", pos)), np.asarray(getattr(len, "_value", len)))
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(a.shape):
        s = a[idx] if unit == "BYTE" else a[idx].decode("utf-8")
        size, start, count = builtins.len(s), int(p[idx]), int(n[idx])
        first = start + size if start < 0 else start
        if not 0 <= first <= size:
            raise InvalidArgumentError(f"strings.substr: pos {start} out of range for string of length {size}")
        piece = s[first:first + max(count, 0)]
        out[idx] = piece if unit == "BYTE" else piece.encode("utf-8")
    return Tensor(out)


def join(inputs, separator: str = "", name=None) -> Tensor:
    """Join string tensors elementwise (they broadcast), with ``separator`` between."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError(f"strings.join: inputs must be a non-empty list of string tensors; received {inputs!r}")
    sep = _bytes(separator, "join", "separator")
    arrays = np.broadcast_arrays(*[_strings(x, "join", f"inputs[{i}]") for i, x in enumerate(inputs)])
    out = np.empty(arrays[0].shape, dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = sep.join(a[idx] for a in arrays)
    return Tensor(out)


def reduce_join(inputs, axis=None, keepdims: bool = False, separator: str = "", name=None) -> Tensor:
    """Join the strings along ``axis`` (all axes when None) with ``separator``."""
    a = _strings(inputs, "reduce_join", "inputs")
    sep = _bytes(separator, "reduce_join", "separator")
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        given = [int(x) for x in np.atleast_1d(np.asarray(getattr(axis, "_value", axis)))]
        for ax in given:
            if not -a.ndim <= ax < a.ndim:
                raise InvalidArgumentError(f"strings.reduce_join: axis {ax} is out of range for rank {a.ndim}")
        axes = tuple(sorted({ax % a.ndim for ax in given}))
    keep = [d for d in range(a.ndim) if d not in axes]
    moved = np.transpose(a, keep + list(axes)).reshape([a.shape[d] for d in keep] + [-1])
    out = np.empty(moved.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = sep.join(moved[idx].tolist())
    if keepdims:
        out = out.reshape([1 if d in axes else a.shape[d] for d in range(a.ndim)])
    return Tensor(out)


def _pattern(pattern, name: str) -> re.Pattern:
    p = _bytes(getattr(pattern, "numpy", lambda: pattern)(), name, "pattern")
    try:
        return re.compile(p)
    except re.error as e:
        raise InvalidArgumentError(f"strings.{name}: invalid pattern {p!r}: {e}") from None


def regex_replace(input, pattern, rewrite, replace_global: bool = True, name=None) -> Tensor:  # noqa: A002
    """Replace matches of ``pattern`` (Python ``re`` syntax, which agrees with TF's RE2 on common patterns)
    with ``rewrite`` (``\\1`` for groups): all matches, or the first with ``replace_global=False``."""
    rx = _pattern(pattern, "regex_replace")
    rw = _bytes(getattr(rewrite, "numpy", lambda: rewrite)(), "regex_replace", "rewrite")
    count = 0 if replace_global else 1
    return Tensor(_map(lambda s: rx.sub(rw, s, count=count), _strings(input, "regex_replace")))


def regex_full_match(input, pattern, name=None) -> Tensor:  # noqa: A002
    """True where the whole string matches ``pattern``."""
    rx = _pattern(pattern, "regex_full_match")
    return Tensor(_map(lambda s: rx.fullmatch(s) is not None, _strings(input, "regex_full_match"), np.bool_))


def to_number(string_tensor, out_type="float32", name=None) -> Tensor:
    """Parse each string as a number of ``out_type`` (float32, float64, int32 or int64); a string that is not one
    is an InvalidArgumentError naming it."""
    a = _strings(string_tensor, "to_number", "string_tensor")
    dtype = backend.np_dtype(out_type)
    if dtype.name not in ("float32", "float64", "int32", "int64"):
        raise TypeError(f"strings.to_number: out_type must be float32, float64, int32 or int64; received {dtype.name}")
    parse = float if dtype.kind == "f" else int
    info = None if dtype.kind == "f" else np.iinfo(dtype)

    def convert(s):
        try:
            v = parse(s.decode("utf-8").strip())
        except (ValueError, UnicodeDecodeError):
            raise InvalidArgumentError(f"StringToNumberOp could not correctly convert string: {s.decode('utf-8', 'replace')}") from None
        if info is not None and not info.min <= v <= info.max:
            raise InvalidArgumentError(f"StringToNumberOp could not correctly convert string: {s.decode()} "
                                       f"(out of range for {dtype.name})")
        return v

    return Tensor(_map(convert, a).astype(dtype))


def as_string(input, precision: int = -1, scientific: bool = False, shortest: bool = False, width: int = -1,  # noqa: A002
              fill: str = "", name=None) -> Tensor:
    """Each number as text, as TF: floats ``%f`` (6 decimals, or ``precision``; ``%e`` with ``scientific``,
    ``%g`` with ``shortest``), integers in decimal, bools ``true``/``false``; ``width`` pads with ``fill``."""
    t = convert_to_tensor(input)
    a = t._value
    if t.dtype == backend.string:
        raise TypeError("strings.as_string: input must be numeric or bool; received a string tensor")
    if scientific and shortest:
        raise InvalidArgumentError("strings.as_string: cannot select both scientific and shortest notation")
    if fill not in ("", " ", "0"):
        raise InvalidArgumentError(f"strings.as_string: fill must be '', ' ' or '0'; received {fill!r}")
    flags = "0" if fill == "0" else ""
    w = str(width) if width >= 0 else ""
    if a.dtype.kind == "f":
        prec = f".{precision}" if precision >= 0 else ""
        spec = f"%{flags}{w}{prec}{'e' if scientific else 'g' if shortest else 'f'}"
        fn = lambda v: (spec % v).encode()  # noqa: E731
    elif a.dtype.kind == "b":
        fn = lambda v: (f"%{w}s" % ("true" if v else "false")).encode()  # noqa: E731
    else:
        spec = f"%{flags}{w}d"
        fn = lambda v: (spec % v).encode()  # noqa: E731
    return Tensor(_map(fn, a))


def _format_value(a: np.ndarray, summarize: int) -> str:
    """A tensor's value as TF's ``strings.format`` writes it: numbers shortest (``2``, ``1.5``), strings quoted,
    rows in brackets, axes longer than ``2 * summarize`` cut to their ends around ``...``."""
    def one(v):
        if isinstance(v, bytes):
            return '"' + v.decode("utf-8", "replace") + '"'
        if isinstance(v, (bool, np.bool_)):
            return "1" if v else "0"
        if isinstance(v, float):
            return np.format_float_positional(v, trim="-") if abs(v) < 1e16 or v == 0 else repr(v)
        return str(v)

    def rows(x, depth):
        if x.ndim == 0:
            return one(x.item())
        n = x.shape[0]
        keep = list(range(n)) if summarize < 0 or n <= 2 * summarize else \
            list(range(summarize)) + [None] + list(range(n - summarize, n))
        parts = ["..." if i is None else rows(np.asarray(x[i], dtype=x.dtype), depth + 1) for i in keep]
        sep = " " if x.ndim == 1 else "\n" + " " * (depth + 1)
        return "[" + sep.join(parts) + "]"

    return rows(a, 0)


def format(template: str, inputs, placeholder: str = "{}", summarize: int = 3, name=None) -> Tensor:  # noqa: A001
    """``template`` with each ``placeholder`` replaced by the next of ``inputs`` printed as TF prints it; a count of
    placeholders different from the number of inputs is an InvalidArgumentError."""
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise InvalidArgumentError(f"strings.format: {len(pieces) - 1} placeholder(s) in the template but "
                                   f"{len(inputs)} input(s)")
    out = pieces[0]
    for x, piece in zip(inputs, pieces[1:]):
        out += _format_value(convert_to_tensor(x)._value, summarize) + piece
    return Tensor(np.array(out.encode("utf-8"), dtype=object))


def _ragged_of(a: np.ndarray, fn, name: str):
    """``fn`` (bytes -> list of bytes) of each string: a 1-D Tensor for a scalar, a RaggedTensor for a vector."""
    if a.ndim == 0:
        return Tensor(np.array(fn(a.item()) + [b""], dtype=object)[:-1])  # the [b""] keeps a 1-D object array
    if a.ndim != 1:
        raise ValueError(f"strings.{name}: input must be a scalar or a vector (this RaggedTensor has one ragged "
                         f"dimension); received shape {a.shape}")
    return RaggedTensor.from_rows([np.array(fn(s) + [b""], dtype=object)[:-1] for s in a.tolist()], dtype="string")


def split(input, sep=None, maxsplit: int = -1, name=None):  # noqa: A002
    """Split each string: at runs of whitespace (``sep=None``; no empty pieces) or at each ``sep`` (empty pieces
    kept); a scalar gives a 1-D Tensor, a vector a RaggedTensor of rows."""
    a = _strings(input, "split")
    if sep is None or sep == "" or sep == b"":
        fn = (lambda s: s.split(None, maxsplit))
    else:
        sep_b = _bytes(sep, "split", "sep")
        fn = (lambda s: s.split(sep_b, maxsplit))
    return _ragged_of(a, fn, "split")


def bytes_split(input, name=None):  # noqa: A002
    """Each string's bytes as one-byte strings (ragged for a vector)."""
    return _ragged_of(_strings(input, "bytes_split"), lambda s: [s[i:i + 1] for i in range(builtins.len(s))],
                      "bytes_split")


def unicode_split(input, input_encoding: str = "UTF-8", errors: str = "replace", replacement_char: int = 65533,  # noqa: A002
                  name=None):
    """Each string's UTF-8 characters as strings (ragged for a vector)."""
    if input_encoding.upper() not in ("UTF-8", "UTF8"):
        raise ValueError(f"strings.unicode_split: only UTF-8 is supported; received {input_encoding!r}")
    if errors not in ("replace", "strict", "ignore"):
        raise ValueError(f"strings.unicode_split: errors must be 'replace', 'strict' or 'ignore'; received {errors!r}")

    def chars(s):
        try:
            text = s.decode("utf-8", "strict" if errors == "strict" else errors)
        except UnicodeDecodeError as e:
            raise InvalidArgumentError(f"strings.unicode_split: invalid UTF-8 in {s!r}: {e}") from None
        if errors == "replace" and replacement_char != 65533:
            text = text.replace("\ufffd", chr(replacement_char))
        return [c.encode("utf-8") for c in text]

    return _ragged_of(_strings(input, "unicode_split"), chars, "unicode_split")


def ngrams(data, ngram_width, separator: str = " ", pad_values=None, padding_width=None,
           preserve_short_sequences: bool = False, name=None):
    """The ``ngram_width``-grams of a vector of tokens (a 1-D Tensor), or of each row of a RaggedTensor (ragged);
    ``ngram_width`` may be a list of widths (all of them, width by width). Padding is not supported."""
    if pad_values is not None or padding_width is not None or preserve_short_sequences:
        raise NotImplementedError("strings.ngrams: pad_values, padding_width and preserve_short_sequences "
                                  "are not supported")
    widths = [int(w) for w in np.atleast_1d(ngram_width)]
    if any(w < 1 for w in widths):
        raise InvalidArgumentError(f"strings.ngrams: ngram_width must be positive; received {ngram_width!r}")
    sep = _bytes(separator, "ngrams", "separator")

    def grams(tokens):
        return [sep.join(tokens[i:i + w]) for w in widths for i in range(builtins.len(tokens) - w + 1)]

    if isinstance(data, RaggedTensor):
        if data.dtype != backend.string:
            raise TypeError(f"strings.ngrams: data must hold strings; received dtype {data.dtype.name}")
        return RaggedTensor.from_rows([np.array(grams(row) + [b""], dtype=object)[:-1] for row in data.to_list()],
                                      dtype="string")
    a = _strings(data, "ngrams", "data")
    if a.ndim != 1:
        raise ValueError(f"strings.ngrams: data must be a vector or a RaggedTensor; received shape {a.shape}")
    return Tensor(np.array(grams(a.tolist()) + [b""], dtype=object)[:-1])


def to_hash_bucket_fast(input, num_buckets, name=None) -> Tensor:  # noqa: A002
    """Each string's bucket in ``[0, num_buckets)``: TF's ``Fingerprint64(s) % num_buckets`` (int64), the same
    numbers as TF."""
    a = _strings(input, "to_hash_bucket_fast")
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, (int, np.integer)) or num_buckets < 1:
        raise ValueError(f"strings.to_hash_bucket_fast: num_buckets must be a positive int; received {num_buckets!r}")
    n = int(num_buckets)
    return Tensor(_map(lambda s: fingerprint64(s) % n, a, np.int64))


def _utf8(encoding: str, name: str) -> None:
    if encoding.upper() not in ("UTF-8", "UTF8"):
        raise ValueError(f"strings.{name}: only UTF-8 is supported; received {encoding!r}")


def unicode_decode(input, input_encoding: str = "UTF-8", errors: str = "replace", replacement_char: int = 65533,  # noqa: A002
                   replace_control_characters: bool = False, name=None):
    """Each string's Unicode code points (int32): a 1-D Tensor for a scalar, a RaggedTensor for a vector."""
    _utf8(input_encoding, "unicode_decode")
    a = _strings(input, "unicode_decode")

    def points(s):
        try:
            text = s.decode("utf-8", "strict" if errors == "strict" else errors)
        except UnicodeDecodeError as e:
            raise InvalidArgumentError(f"strings.unicode_decode: invalid UTF-8 in {s!r}: {e}") from None
        return [replacement_char if c == "\ufffd" else ord(c) for c in text]

    if a.ndim == 0:
        return Tensor(np.asarray(points(a.item()), dtype=np.int32))
    if a.ndim != 1:
        raise ValueError(f"strings.unicode_decode: input must be a scalar or a vector; received shape {a.shape}")
    return RaggedTensor.from_rows([np.asarray(points(s), dtype=np.int32) for s in a.tolist()], dtype="int32")


def unicode_encode(input, output_encoding: str = "UTF-8", errors: str = "replace", replacement_char: int = 65533,  # noqa: A002
                   name=None) -> Tensor:
    """Code points to UTF-8 strings: a vector gives one string, each row of a matrix or RaggedTensor one string."""
    _utf8(output_encoding, "unicode_encode")

    def encode(row):
        out = []
        for c in row:
            if not 0 <= int(c) <= 0x10FFFF or 0xD800 <= int(c) <= 0xDFFF:
                if errors == "strict":
                    raise InvalidArgumentError(f"strings.unicode_encode: {int(c)} is not a Unicode code point")
                if errors == "ignore":
                    continue
                c = replacement_char
            out.append(chr(int(c)))
        return "".join(out).encode("utf-8")

    if isinstance(input, RaggedTensor):
        rows = input.to_list()
        return Tensor(np.array([encode(r) for r in rows] + [b""], dtype=object)[:-1])
    a = convert_to_tensor(input)._value
    if a.dtype.kind not in "iu":
        raise TypeError(f"strings.unicode_encode: input must hold integer code points; received dtype {a.dtype}")
    if a.ndim == 0:
        raise ValueError("strings.unicode_encode: input must have rank >= 1 (a vector of code points)")
    if a.ndim == 1:
        return Tensor(np.array(encode(a.tolist()), dtype=object))
    rows = a.reshape(-1, a.shape[-1]).tolist()
    return Tensor(np.array([encode(r) for r in rows] + [b""], dtype=object)[:-1].reshape(a.shape[:-1]))


def unsorted_segment_join(inputs, segment_ids, num_segments, separator: str = "", name=None) -> Tensor:
    """Join the strings of each segment in input order (``segment_ids`` index the leading axes of ``inputs``);
    a segment without strings is ``b""``; an id outside ``[0, num_segments)`` is an InvalidArgumentError
    (negative ids are dropped, as TF)."""
    a = _strings(inputs, "unsorted_segment_join", "inputs")
    ids = np.asarray(getattr(segment_ids, "_value", segment_ids))
    if ids.dtype.kind not in "iu" or ids.shape != a.shape[:ids.ndim]:
        raise ValueError(f"strings.unsorted_segment_join: segment_ids must be integers shaped like the leading axes "
                         f"of inputs {a.shape}; received shape {ids.shape}, dtype {ids.dtype}")
    n = int(num_segments)
    sep = _bytes(separator, "unsorted_segment_join", "separator")
    rest = a.shape[ids.ndim:]
    flat_ids = ids.reshape(-1).tolist()
    items = a.reshape((len(flat_ids),) + rest)
    if any(i >= n for i in flat_ids):
        raise InvalidArgumentError(f"strings.unsorted_segment_join: segment id {max(flat_ids)} is not in "
                                   f"[0, {n})")
    out = np.empty((n,) + rest, dtype=object)
    for idx in np.ndindex(*rest):
        for k in range(n):
            out[(k,) + idx] = sep.join(items[(j,) + idx] for j, i in enumerate(flat_ids) if i == k)
    return Tensor(out)

