"""Image file codecs of ``tf.image``/``tf.io`` written on zlib: PNG (decode and encode), BMP and GIF
(decode), ``decode_image`` (by the file's signature), and ``is_jpeg``/``extract_jpeg_shape`` (JPEG headers).

``encode_png`` writes TF's bytes: libpng's choice of row filter (the smallest sum of absolute filtered
bytes, None/Sub/Up/Average/Paeth), its zlib settings (level, ``Z_FILTERED``, the window shrunk to the
image's size, memory level 9) and its 8192-byte IDAT chunks. ``decode_png`` reads every PNG colour type, bit depth and
Adam7 interlacing, converting channels as TF's libpng settings do (grey from RGB with libpng's fixed-point
0.299/0.587/0.114 weights, palette and ``tRNS`` to RGB(A), 16-bit to 8 by taking the high byte).

JPEG pixels need a JPEG codec, which descend does not have (docs/api.md lists ``decode_jpeg`` and its
family as left out); :func:`decode_image` refuses a JPEG file naming that. Every length read from a file
is checked against the bytes that remain, and the declared image size against a cap, before any buffer
is allocated.

Example:
    >>> import numpy as np, descend as ds
    >>> img = np.arange(18, dtype=np.uint8).reshape(2, 3, 3)
    >>> png = ds.image.encode_png(img)
    >>> bool((ds.image.decode_png(png).numpy() == img).all())
    True
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor

__all__ = ["decode_bmp", "decode_gif", "decode_image", "decode_png", "encode_png", "extract_jpeg_shape", "is_jpeg"]

_PNG_SIG = b"\x89PNG\r\n\x1a\n"
_MAX_PIXELS = 1 << 29  # a declared image larger than this is refused before decoding (TF's bound is similar)


def _contents(contents, op: str) -> bytes:
    t = convert_to_tensor(contents)
    if t.dtype != backend.string or np.ndim(t.numpy()) != 0:
        raise TypeError(f"{op}: contents must be a scalar string tensor (the file's bytes). Received dtype "
                        f"{t.dtype.name}, shape {list(np.shape(t.numpy()))}")
    value = t.numpy()
    return value if isinstance(value, bytes) else value.item()


def _bytes_tensor(data: bytes) -> Tensor:
    return Tensor(np.array(data, dtype=object))


# ------------------------------------------------------------------------------------------------ JPEG headers

def is_jpeg(contents, name=None) -> Tensor:
    """Whether ``contents`` starts with JPEG's signature (``FF D8 FF``), as a bool scalar."""
    return Tensor(np.array(_contents(contents, "is_jpeg")[:3] == b"\xff\xd8\xff"))


def extract_jpeg_shape(contents, output_type="int32", name=None) -> Tensor:
    """``[height, width, channels]`` from a JPEG file's frame header (the pixels are not decoded)."""
    data = _contents(contents, "extract_jpeg_shape")
    if data[:2] != b"\xff\xd8":
        raise InvalidArgumentError("extract_jpeg_shape: not a JPEG file (no SOI marker)")
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise InvalidArgumentError(f"extract_jpeg_shape: expected a marker at byte {pos}")
        marker = data[pos + 1]
        if marker == 0xFF:  # fill byte
            pos += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            pos += 2
            continue
        length = struct.unpack_from(">H", data, pos + 2)[0]
        if length < 2 or pos + 2 + length > len(data):
            raise InvalidArgumentError(f"extract_jpeg_shape: segment at byte {pos} declares {length} bytes; "
                                       f"{len(data) - pos - 2} remain")
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            if length < 8:
                raise InvalidArgumentError("extract_jpeg_shape: a frame header shorter than 8 bytes")
            height, width = struct.unpack_from(">HH", data, pos + 5)
            channels = data[pos + 9]
            return Tensor(np.array([height, width, channels], dtype=backend.np_dtype(output_type)))
        if marker == 0xD9:
            break
        pos += 2 + length
    raise InvalidArgumentError("extract_jpeg_shape: the file has no frame header (SOF marker)")


# ------------------------------------------------------------------------------------------------ PNG

def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _filter_rows(raw: np.ndarray, bpp: int) -> bytes:
    """libpng's adaptive filtering: per row, the filter whose output has the smallest sum of absolute
    (signed) bytes, trying None, Sub, Up, Average, Paeth in order and keeping the first minimum."""
    out = bytearray()
    prev = np.zeros(raw.shape[1], np.int32)
    for row in raw.astype(np.int32):
        left = np.concatenate([np.zeros(bpp, np.int32), row[:-bpp]])
        upleft = np.concatenate([np.zeros(bpp, np.int32), prev[:-bpp]])
        p = left + prev - upleft
        pa, pb, pc = np.abs(p - left), np.abs(p - prev), np.abs(p - upleft)
        paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
        candidates = [row, row - left, row - prev, row - (left + prev) // 2, row - paeth]
        best, best_sum = 0, None
        for kind, filtered in enumerate(candidates):
            v = filtered & 0xFF
            s = int(np.where(v < 128, v, 256 - v).sum())
            if best_sum is None or s < best_sum:
                best, best_sum = kind, s
        out.append(best)
        out += (candidates[best] & 0xFF).astype(np.uint8).tobytes()
        prev = row
    return bytes(out)


def _deflate_like_libpng(data: bytes, level: int, row: int) -> bytes:
    size = len(data)
    window_bits = 15
    if size <= 16384:  # libpng shrinks the window to the image's size
        half = 1 << (window_bits - 1)
        while size + 262 <= half:
            half >>= 1
            window_bits -= 1
    comp = zlib.compressobj(level, zlib.DEFLATED, max(window_bits, 9), 9, zlib.Z_FILTERED)  # memLevel 9, as TF
    # fed a row at a time, as libpng does (stored blocks at level 0 follow the feeding)
    out = bytearray(b"".join(comp.compress(data[i:i + row]) for i in range(0, size, row)) + comp.flush())
    if size <= 16384 and (out[0] & 0x0F) == 8 and (out[0] & 0xF0) <= 0x70:  # libpng's optimize_cmf
        cinfo = out[0] >> 4
        half = 1 << (cinfo + 7)
        if size <= half:
            while True:
                half >>= 1
                cinfo -= 1
                if not (cinfo > 0 and size <= half):
                    break
            out[0] = (out[0] & 0x0F) | (cinfo << 4)
            flags = out[1] & 0xE0
            out[1] = flags + 0x1F - ((out[0] << 8) + flags) % 0x1F
    return bytes(out)


def encode_png(image, compression=-1, name=None) -> Tensor:
    """A PNG file of ``image`` (uint8 or uint16 ``[height, width, channels]``, 1 to 4 channels), as a scalar
    string tensor; ``compression`` is zlib's level (-1: the default, 6)."""
    a = np.asarray(convert_to_tensor(image).numpy())
    if a.ndim != 3 or not 1 <= a.shape[2] <= 4:
        raise InvalidArgumentError(f"encode_png: image must be [height, width, channels] with 1 to 4 channels. "
                                   f"Received shape {list(a.shape)}")
    if a.dtype not in (np.uint8, np.uint16):
        raise TypeError(f"encode_png: image must be uint8 or uint16. Received dtype {a.dtype.name}")
    level = int(compression)
    if not -1 <= level <= 9:
        raise InvalidArgumentError(f"encode_png: compression must be in [-1, 9]. Received {compression}")
    height, width, channels = a.shape
    if height == 0 or width == 0 or height >= 1 << 31 or width >= 1 << 31:
        raise InvalidArgumentError(f"encode_png: image must have positive dimensions below 2**31. Received "
                                   f"{list(a.shape)}")
    depth = 8 * a.dtype.itemsize
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    raw = a.astype(">u2").view(np.uint8) if depth == 16 else a
    raw = np.ascontiguousarray(raw).reshape(height, -1)
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 0)
    compressed = _deflate_like_libpng(_filter_rows(raw, channels * depth // 8), level, raw.shape[1] + 1)
    idat = b"".join(_chunk(b"IDAT", compressed[i:i + 8192]) for i in range(0, len(compressed), 8192))
    return _bytes_tensor(_PNG_SIG + _chunk(b"IHDR", ihdr) + idat + _chunk(b"IEND", b""))


def _unfilter(data: bytes, pos: int, height: int, rowbytes: int, bpp: int, where: str):
    """The rows of one (sub)image starting at ``data[pos]``, unfiltered: ``(uint8 [height, rowbytes], end)``."""
    need = height * (rowbytes + 1)
    if len(data) - pos < need:
        raise InvalidArgumentError(f"{where}: the image data ends early ({len(data) - pos} bytes where {need} "
                                   "are needed)")
    rows = np.frombuffer(data, np.uint8, need, pos).reshape(height, rowbytes + 1)
    out = np.zeros((height, rowbytes), np.uint8)
    prev = np.zeros(rowbytes, np.int32)
    for y in range(height):
        kind, f = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            cur = f
        elif kind == 1:  # Sub: a running sum per byte position modulo bpp
            cur = f.copy()
            for i in range(bpp, rowbytes):
                cur[i] = (cur[i] + cur[i - bpp]) & 0xFF
        elif kind == 2:
            cur = (f + prev) & 0xFF
        elif kind in (3, 4):
            cur = f.copy()
            up = prev
            for i in range(rowbytes):
                a = int(cur[i - bpp]) if i >= bpp else 0
                b = int(up[i])
                if kind == 3:
                    cur[i] = (cur[i] + ((a + b) >> 1)) & 0xFF
                else:
                    c = int(up[i - bpp]) if i >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                    cur[i] = (cur[i] + pred) & 0xFF
        else:
            raise InvalidArgumentError(f"{where}: row {y} has filter type {kind} (0 to 4 exist)")
        out[y] = cur
        prev = cur
    return out, pos + need


def _samples(rows: np.ndarray, width: int, channels: int, depth: int) -> np.ndarray:
    """``[height, width, channels]`` samples (uint8 or uint16) from unfiltered rows."""
    if depth == 16:
        return rows.view(">u2").reshape(rows.shape[0], -1)[:, :width * channels].reshape(
            rows.shape[0], width, channels).astype(np.uint16)
    if depth == 8:
        return rows[:, :width * channels].reshape(rows.shape[0], width, channels)
    bits = np.unpackbits(rows, axis=1).reshape(rows.shape[0], -1, depth)
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
    values = (bits * weights).sum(axis=2).astype(np.uint8)
    return values[:, :width * channels].reshape(rows.shape[0], width, channels)


_ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def _read_png(data: bytes):
    """``(samples [h, w, c], color_type, depth, palette, trns)`` of a PNG file, checked as it is read."""
    where = "decode_png"
    if data[:8] != _PNG_SIG:
        raise InvalidArgumentError(f"{where}: not a PNG file (the signature is {data[:8]!r})")
    pos, header, palette, trns, idat = 8, None, None, None, []
    while True:
        if len(data) - pos < 12:
            raise InvalidArgumentError(f"{where}: the file ends inside a chunk header (no IEND chunk)")
        length, kind = struct.unpack_from(">I4s", data, pos)
        if length > len(data) - pos - 12:
            raise InvalidArgumentError(f"{where}: chunk {kind!r} declares {length} bytes; {len(data) - pos - 12} "
                                       "remain")
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack_from(">I", data, pos + 8 + length)[0]
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise InvalidArgumentError(f"{where}: chunk {kind!r} fails its CRC check")
        pos += 12 + length
        if kind == b"IHDR":
            if length != 13:
                raise InvalidArgumentError(f"{where}: IHDR has {length} bytes (13 expected)")
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            if length % 3 or length == 0 or length > 768:
                raise InvalidArgumentError(f"{where}: a palette of {length} bytes")
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        elif header is None:
            raise InvalidArgumentError(f"{where}: the first chunk is {kind!r}, not IHDR")
    if header is None or not idat:
        raise InvalidArgumentError(f"{where}: the file has no {'IHDR' if header is None else 'IDAT'} chunk")
    width, height, depth, color_type, method, filter_method, interlace = header
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(color_type)
    allowed = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
    if channels is None or depth not in allowed[color_type] or method or filter_method or interlace > 1:
        raise InvalidArgumentError(f"{where}: an IHDR PNG does not define (colour type {color_type}, depth {depth}, "
                                   f"compression {method}, filter {filter_method}, interlace {interlace})")
    if width == 0 or height == 0 or width * height > _MAX_PIXELS:
        raise InvalidArgumentError(f"{where}: image size {width}x{height} is empty or above the {_MAX_PIXELS}-pixel "
                                   "cap")
    if color_type == 3 and palette is None:
        raise InvalidArgumentError(f"{where}: a palette image without a PLTE chunk")
    bits = channels * depth
    bpp = max(1, bits // 8)
    expected = sum(((w * bits + 7) // 8 + 1) * h for w, h in _pass_sizes(width, height, interlace))
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(b"".join(idat), expected + 1)  # never more than the image needs
    except zlib.error as e:
        raise InvalidArgumentError(f"{where}: the image data is not a zlib stream ({e})") from None
    dtype = np.uint16 if depth == 16 else np.uint8
    samples = np.zeros((height, width, channels), dtype)
    pos = 0
    if interlace == 0:
        rows, pos = _unfilter(raw, 0, height, (width * bits + 7) // 8, bpp, where)
        samples = _samples(rows, width, channels, depth)
    else:
        for (x0, y0, dx, dy), (w, h) in zip(_ADAM7, _pass_sizes(width, height, 1)):
            if w == 0 or h == 0:
                continue
            rows, pos = _unfilter(raw, pos, h, (w * bits + 7) // 8, bpp, where)
            samples[y0::dy, x0::dx] = _samples(rows, w, channels, depth)
    return samples, color_type, depth, palette, trns


def _pass_sizes(width, height, interlace):
    if interlace == 0:
        return [(width, height)]
    return [((width - x0 + dx - 1) // dx if width > x0 else 0, (height - y0 + dy - 1) // dy if height > y0 else 0)
            for x0, y0, dx, dy in _ADAM7]


# libpng's fixed-point weights for png_set_rgb_to_gray(1, 0.299, 0.587), as TF asks for
_RC, _GC = 29900 * 32768 // 100000, 58700 * 32768 // 100000
_BC = 32768 - _RC - _GC


def _to_gray(rgb: np.ndarray, depth: int) -> np.ndarray:
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    gray = (_RC * r + _GC * g + _BC * b + (16384 if depth == 16 else 0)) >> 15  # 8 bits truncate, 16 round
    same = (r == g) & (g == b)
    return np.where(same, r, gray).astype(rgb.dtype)


def decode_png(contents, channels=0, dtype="uint8", name=None) -> Tensor:
    """The pixels of a PNG file: ``[height, width, channels]`` uint8 (or uint16). ``channels``: 0 (the
    file's), 1 (grey), 3 (RGB) or 4 (RGBA)."""
    data = _contents(contents, "decode_png")
    channels = int(channels)
    if channels not in (0, 1, 3, 4):
        raise InvalidArgumentError(f"decode_png: channels must be 0, 1, 3 or 4. Received {channels}")
    out_dtype = backend.np_dtype(dtype)
    if out_dtype not in (np.uint8, np.uint16):
        raise TypeError(f"decode_png: dtype must be uint8 or uint16. Received {out_dtype.name}")
    samples, color_type, depth, palette, trns = _read_png(data)
    return Tensor(_convert_png(samples, color_type, depth, palette, trns, channels, out_dtype))


def _convert_png(samples, color_type, depth, palette, trns, channels, out_dtype):
    file_depth = depth
    # expand to 8 or 16 bits per sample, palette to RGB(A), tRNS to alpha (libpng's expand transforms)
    if color_type == 3:
        index = samples[..., 0].astype(np.int64)
        if index.max(initial=0) >= len(palette):
            raise InvalidArgumentError("decode_png: a pixel indexes past the end of the palette")
        img = palette[index]
        if trns is not None:
            alpha = np.full(256, 255, np.uint8)
            alpha[:len(trns)] = np.frombuffer(trns[:256], np.uint8)
            img = np.concatenate([img, alpha[index][..., None]], axis=-1)
        depth = 8
    else:
        img = samples
        if depth < 8:  # grey scaled to 8 bits
            img = (img.astype(np.uint16) * (255 // ((1 << depth) - 1))).astype(np.uint8)
        if trns is not None and color_type in (0, 2):
            key = np.frombuffer(trns[:6], ">u2")[:1 if color_type == 0 else 3]  # compared with the raw samples
            match = np.all(samples == key.astype(samples.dtype), axis=-1) if len(key) == img.shape[-1] else None
            if match is not None:
                top = 65535 if depth == 16 else 255
                img = np.concatenate([img, np.where(match, 0, top).astype(img.dtype)[..., None]], axis=-1)
        depth = 16 if depth == 16 else 8
    # channels first, at the file's depth (libpng's transforms), then the output's bit depth (TF's)
    have = img.shape[-1]
    has_alpha = have in (2, 4)
    color = img[..., :have - 1] if has_alpha else img
    if channels in (0, have):
        out = img
    elif channels == 1:
        out = color if color.shape[-1] == 1 else _to_gray(color, depth)[..., None]
    else:
        color = np.repeat(color, 3, axis=-1) if color.shape[-1] == 1 else color
        if channels == 3:
            out = color
        else:
            # the filler alpha is opaque at the file's own bit depth: a 1/2/4-bit grey file gets 1/3/15 (libpng's
            # filler is not expanded with the samples; TF keeps what libpng gives)
            top = 65535 if depth == 16 else (255 if file_depth >= 8 or color_type == 3 else (1 << file_depth) - 1)
            alpha = img[..., -1:] if has_alpha else np.full(color.shape[:-1] + (1,), top, img.dtype)
            out = np.concatenate([color, alpha], axis=-1)
    if out_dtype == np.uint8 and depth == 16:
        out = (out >> 8).astype(np.uint8)  # libpng's strip_16: the high byte
    elif out_dtype == np.uint16 and depth == 8:
        out = out.astype(np.uint16) * 257
    return np.ascontiguousarray(out)


# ------------------------------------------------------------------------------------------------ BMP

def decode_bmp(contents, channels=0, name=None) -> Tensor:
    """The pixels of an uncompressed 24- or 32-bit BMP file (rows bottom-up or top-down), uint8
    ``[height, width, channels]``; ``channels`` 0 (the file's: 3 or 4), 3 or 4."""
    data = _contents(contents, "decode_bmp")
    where = "decode_bmp"
    channels = int(channels)
    if channels not in (0, 3, 4):
        raise InvalidArgumentError(f"{where}: channels must be 0, 3 or 4. Received {channels}")
    if len(data) < 26 or data[:2] != b"BM":
        raise InvalidArgumentError(f"{where}: not a BMP file (the first bytes are {data[:2]!r})")
    offset, header_size = struct.unpack_from("<II", data, 10)
    if header_size < 40 or len(data) < 14 + 40:
        raise InvalidArgumentError(f"{where}: a BMP info header of {header_size} bytes (at least 40 expected)")
    width, height, _planes, bpp, compression = struct.unpack_from("<iiHHI", data, 18)
    if bpp not in (24, 32) or compression not in (0, 3):
        raise InvalidArgumentError(f"{where}: only uncompressed 24- and 32-bit BMP files are supported. Received "
                                   f"{bpp} bits, compression {compression}")
    top_down = height < 0
    height = abs(height)
    if width <= 0 or height == 0 or width * height > _MAX_PIXELS:
        raise InvalidArgumentError(f"{where}: image size {width}x{height} is empty, negative or above the cap")
    file_channels = bpp // 8
    row = (width * file_channels + 3) // 4 * 4
    if offset > len(data) or len(data) - offset < row * (height - 1) + width * file_channels:
        raise InvalidArgumentError(f"{where}: the pixel data ends early ({len(data) - offset} bytes for {height} "
                                   f"rows of {row})")
    padded = data[offset:offset + row * height].ljust(row * height, b"\0")
    rows = np.frombuffer(padded, np.uint8).reshape(height, row)[:, :width * file_channels]
    img = rows.reshape(height, width, file_channels)
    if not top_down:
        img = img[::-1]
    img = img[..., [2, 1, 0, 3][:file_channels]]  # BGR(A) -> RGB(A)
    if channels == 3 and file_channels == 4:
        img = img[..., :3]
    elif channels == 4 and file_channels == 3:
        img = np.concatenate([img, np.full(img.shape[:2] + (1,), 255, np.uint8)], axis=-1)
    return Tensor(np.ascontiguousarray(img))


# ------------------------------------------------------------------------------------------------ GIF

def _lzw(data: bytes, min_size: int, count: int, where: str) -> np.ndarray:
    """GIF's LZW decoding of ``data`` into ``count`` colour indices (extra codes ignored, short data padded
    with index 0)."""
    if not 2 <= min_size <= 11:
        raise InvalidArgumentError(f"{where}: LZW minimum code size {min_size} (2 to 11 allowed)")
    clear, end = 1 << min_size, (1 << min_size) + 1
    out = bytearray()
    table: list = []

    def reset():
        table[:] = [bytes([i]) for i in range(clear)] + [b"", b""]

    reset()
    size, prev = min_size + 1, None
    bits = int.from_bytes(data, "little")
    nbits, pos = len(data) * 8, 0
    while pos + size <= nbits and len(out) < count:
        code = (bits >> pos) & ((1 << size) - 1)
        pos += size
        if code == clear:
            reset()
            size, prev = min_size + 1, None
            continue
        if code == end:
            break
        if code < len(table) and (code < clear or code > end):
            entry = table[code]
        elif code < clear:
            entry = table[code]
        elif code == len(table) and prev is not None:
            entry = prev + prev[:1]
        else:
            raise InvalidArgumentError(f"{where}: an LZW code {code} names no table entry")
        out += entry
        if prev is not None and len(table) < 4096:
            table.append(prev + entry[:1])
            if len(table) == 1 << size and size < 12:
                size += 1
        prev = entry
    got = np.frombuffer(bytes(out[:count]), np.uint8)
    return np.concatenate([got, np.zeros(count - len(got), np.uint8)]) if len(got) < count else got


def decode_gif(contents, name=None) -> Tensor:
    """The frames of a GIF file: uint8 ``[frames, height, width, 3]`` (RGB), each frame drawn over the previous
    one (transparent pixels keep it; a frame disposed to background clears its area to black), as TF."""
    data = _contents(contents, "decode_gif")
    where = "decode_gif"
    if len(data) < 13 or data[:6] not in (b"GIF87a", b"GIF89a"):
        raise InvalidArgumentError(f"{where}: not a GIF file (the signature is {data[:6]!r})")
    width, height, flags = struct.unpack_from("<HHB", data, 6)
    if width == 0 or height == 0 or width * height > _MAX_PIXELS:
        raise InvalidArgumentError(f"{where}: screen size {width}x{height} is empty or above the cap")
    pos = 13
    global_table = None
    if flags & 0x80:
        n = 3 << ((flags & 7) + 1)
        if len(data) - pos < n:
            raise InvalidArgumentError(f"{where}: the global colour table ends early")
        global_table = np.frombuffer(data, np.uint8, n, pos).reshape(-1, 3)
        pos += n
    canvas = np.zeros((height, width, 3), np.uint8)
    frames, transparent, disposal = [], None, 0

    def blocks(p):
        parts = []
        while True:
            if p >= len(data):
                raise InvalidArgumentError(f"{where}: the file ends inside a data block")
            size = data[p]
            p += 1
            if size == 0:
                return b"".join(parts), p
            if len(data) - p < size:
                raise InvalidArgumentError(f"{where}: a data block declares {size} bytes; {len(data) - p} remain")
            parts.append(data[p:p + size])
            p += size

    while pos < len(data):
        tag = data[pos]
        pos += 1
        if tag == 0x3B:  # trailer
            break
        if tag == 0x21:  # extension
            if pos >= len(data):
                raise InvalidArgumentError(f"{where}: the file ends inside an extension")
            label = data[pos]
            body, pos = blocks(pos + 1)
            if label == 0xF9 and len(body) >= 4:  # graphic control
                disposal = (body[0] >> 2) & 7
                transparent = body[3] if body[0] & 1 else None
            continue
        if tag != 0x2C:
            raise InvalidArgumentError(f"{where}: unknown block 0x{tag:02x} at byte {pos - 1}")
        if len(data) - pos < 9:
            raise InvalidArgumentError(f"{where}: an image descriptor ends early")
        left, top, w, h, iflags = struct.unpack_from("<HHHHB", data, pos)
        pos += 9
        table = global_table
        if iflags & 0x80:
            n = 3 << ((iflags & 7) + 1)
            if len(data) - pos < n:
                raise InvalidArgumentError(f"{where}: a local colour table ends early")
            table = np.frombuffer(data, np.uint8, n, pos).reshape(-1, 3)
            pos += n
        if table is None:
            raise InvalidArgumentError(f"{where}: a frame has no colour table")
        if pos >= len(data):
            raise InvalidArgumentError(f"{where}: the file ends before a frame's data")
        min_size = data[pos]
        body, pos = blocks(pos + 1)
        index = _lzw(body, min_size, w * h, where).reshape(h, w) if w and h else np.zeros((h, w), np.uint8)
        if iflags & 0x40:  # interlaced rows: 0, 8, ...; 4, 12, ...; 2, 6, ...; 1, 3, ...
            order = [*range(0, h, 8), *range(4, h, 8), *range(2, h, 4), *range(1, h, 2)]
            deinterlaced = np.empty_like(index)
            deinterlaced[order] = index
            index = deinterlaced
        bottom, right = min(top + h, height), min(left + w, width)
        index = index[:bottom - top, :right - left]
        colors = table[np.minimum(index, len(table) - 1)]
        region = canvas[top:bottom, left:right]
        if transparent is not None:
            keep = (index == transparent)[..., None]
            region[...] = np.where(keep, region, colors)
        else:
            region[...] = colors
        frames.append(canvas.copy())
        if disposal == 2:
            canvas[top:bottom, left:right] = 0
        transparent, disposal = None, 0
    if not frames:
        raise InvalidArgumentError(f"{where}: the file has no frame")
    return Tensor(np.stack(frames))


# ------------------------------------------------------------------------------------------------ any of them

def decode_image(contents, channels=None, dtype="uint8", name=None, expand_animations=True) -> Tensor:
    """The pixels of a PNG, GIF or BMP file, chosen by its signature: ``[height, width, channels]`` (a GIF:
    ``[frames, height, width, 3]``, or its first frame when ``expand_animations`` is False). A float
    ``dtype`` scales to [0, 1] as ``convert_image_dtype``. JPEG files are refused (no JPEG codec)."""
    data = _contents(contents, "decode_image")
    want = np.dtype(backend.np_dtype(dtype))
    ch = 0 if channels is None else int(channels)
    if data[:8] == _PNG_SIG:
        image = decode_png(data, ch, "uint16" if want == np.uint16 else "uint8")
    elif data[:6] in (b"GIF87a", b"GIF89a"):
        if ch not in (0, 3):
            raise InvalidArgumentError(f"decode_image: a GIF has 3 channels; channels={ch} was asked")
        image = decode_gif(data)
        if not expand_animations:
            image = Tensor(image.numpy()[0])
    elif data[:2] == b"BM":
        image = decode_bmp(data, ch)
    elif data[:3] == b"\xff\xd8\xff":
        raise InvalidArgumentError("decode_image: a JPEG file needs a JPEG codec, which descend does not have "
                                   "(decode it with Pillow, then pass the array)")
    else:
        raise InvalidArgumentError("decode_image: unknown image file format (PNG, GIF and BMP are read)")
    if want.kind == "f":
        from ._common import convert_image_dtype

        return convert_image_dtype(image, want.name)
    if want not in (np.uint8, np.uint16):
        raise TypeError(f"decode_image: dtype must be uint8, uint16 or a float dtype. Received {want.name}")
    return image
