"""Image files to tensors and back, as ``tf.io`` / ``tf.image``: PNG (decode and encode), GIF and BMP (decode),
and the JPEG header (``is_jpeg``, ``extract_jpeg_shape``), written on the standard library's ``zlib``.

Encoding writes libpng's bytes, as TF: its choice of row filter (the smallest sum of absolute filtered bytes),
its zlib settings (level, ``Z_FILTERED``, the window shrunk to the image's size, memory level 9) and its
8192-byte IDAT chunks. Decoding a PNG gives TensorFlow's arrays for every colour type, bit depth and interlacing (TF decodes with
libpng; ``tests/test_image_codecs.py`` compares the two over a table of files): a palette expands to RGB (RGBA
when it has transparency), 16-bit samples become ``uint8`` by their high byte, 8-bit ones become ``uint16``
times 257, RGB becomes gray with libpng's integer weights for 0.299 / 0.587 / 0.114 (truncated).

JPEG pixels need a JPEG codec, which descend does not carry: ``decode_jpeg``, ``encode_jpeg`` and the JPEG
quality ops are not provided (decode with Pillow, ``np.asarray(PIL.Image.open(path))``, and pass the array).

Files are untrusted: every length is checked against the bytes present before anything is allocated, and
decompression stops at the size the header declares, so a small file cannot make descend allocate more
than its image (at most :data:`MAX_PIXELS` pixels). Every malformed file raises ``InvalidArgumentError``.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor, to_array

__all__ = ["MAX_PIXELS", "decode_bmp", "decode_gif", "decode_image", "decode_png", "encode_png",
           "extract_jpeg_shape", "is_jpeg"]

#: the largest image (height x width, times frames for a GIF) a file may declare; larger ones are refused
MAX_PIXELS = 1 << 28

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# libpng's fixed-point weights for png_set_rgb_to_gray(0.299, 0.587): red and green as 100000ths of 32768
_GRAY_R, _GRAY_G = 29900 * 32768 // 100000, 58700 * 32768 // 100000
_GRAY_B = 32768 - _GRAY_R - _GRAY_G


def _contents(contents, fn: str) -> bytes:
    """The bytes of a scalar string tensor (or ``bytes``)."""
    if isinstance(contents, (bytes, bytearray, memoryview)):
        return bytes(contents)
    t = convert_to_tensor(contents)
    if t.dtype != backend.string or t.ndim != 0:
        raise InvalidArgumentError(f"{fn}: `contents` must be a scalar string tensor (the file's bytes); "
                                   f"received dtype {t.dtype.name} and shape {tuple(t.shape)}")
    value = to_array(t).item()
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def _check_channels(channels, allowed, fn: str) -> int:
    if channels is None:
        return 0
    if isinstance(channels, bool) or not isinstance(channels, (int, np.integer)) or int(channels) not in allowed:
        raise InvalidArgumentError(f"{fn}: `channels` must be one of {', '.join(map(str, allowed))}; "
                                   f"received {channels!r}")
    return int(channels)


def _check_size(width: int, height: int, frames: int, fn: str) -> None:
    if width <= 0 or height <= 0:
        raise InvalidArgumentError(f"{fn}: the file declares an empty image ({width} x {height})")
    if width * height * frames > MAX_PIXELS:
        raise InvalidArgumentError(f"{fn}: the file declares {frames} x {height} x {width} pixels, more than "
                                   f"MAX_PIXELS ({MAX_PIXELS})")


# ----------------------------------------------------------------------------------------------------- PNG
_PNG_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_PNG_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
# Adam7: (first row, first column, row step, column step) of each pass
_ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2), (1, 0, 2, 1))


def _png_chunks(data: bytes, fn: str):
    if not data.startswith(_PNG_SIGNATURE):
        raise InvalidArgumentError(f"{fn}: not a PNG file (the first 8 bytes are not PNG's signature)")
    pos = len(_PNG_SIGNATURE)
    while True:
        if pos + 12 > len(data):
            raise InvalidArgumentError(f"{fn}: truncated PNG file: a chunk header at byte {pos} is cut off "
                                       "before IEND")
        length, kind = struct.unpack_from(">I4s", data, pos)
        end = pos + 12 + length
        if length > 0x7FFFFFFF or end > len(data):
            raise InvalidArgumentError(f"{fn}: truncated PNG file: chunk {kind!r} at byte {pos} declares "
                                       f"{length} bytes, {len(data) - pos - 12} remain")
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack_from(">I", data, pos + 8 + length)
        if zlib.crc32(kind + body) != crc and not (kind[0] & 0x20):  # (a bad ancillary chunk is skipped)
            raise InvalidArgumentError(f"{fn}: corrupt PNG file: chunk {kind!r} at byte {pos} fails its CRC")
        if zlib.crc32(kind + body) == crc:
            yield kind, body
        if kind == b"IEND":
            return
        pos = end


def _unfilter(raw: bytes, offset: int, rows: int, stride: int, bpp: int, fn: str) -> np.ndarray:
    """The ``rows x stride`` bytes of one (pass of an) image, its scanlines' filters undone."""
    out = np.zeros((rows, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for r in range(rows):
        start = offset + r * (stride + 1)
        kind = raw[start]
        line = np.frombuffer(raw, np.uint8, stride, start + 1).astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 1:  # Sub: a running sum, one per byte of a pixel
            padded = np.zeros(-(-stride // bpp) * bpp, np.int32)
            padded[:stride] = line
            cur = (np.cumsum(padded.reshape(-1, bpp), axis=0).reshape(-1)[:stride]) & 0xFF
        elif kind == 2:  # Up
            cur = (line + prev) & 0xFF
        elif kind in (3, 4):  # Average, Paeth: each byte depends on the one just decoded
            cur = _sequential_filter(line.tolist(), prev.tolist(), bpp, kind)
        else:
            raise InvalidArgumentError(f"{fn}: corrupt PNG file: scanline {r} has filter type {kind} (0 to 4)")
        out[r] = cur
        prev = np.asarray(cur, np.int32)
    return out


def _sequential_filter(line: list, prev: list, bpp: int, kind: int) -> np.ndarray:
    cur = [0] * len(line)
    for i, x in enumerate(line):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        if kind == 3:
            cur[i] = (x + ((a + b) >> 1)) & 0xFF
        else:
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            cur[i] = (x + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    return np.asarray(cur, np.int32)


def _samples(rows: np.ndarray, width: int, depth: int, samples: int) -> np.ndarray:
    """Scanline bytes -> ``[rows, width, samples]`` sample values (uint8 or uint16)."""
    if depth == 16:
        return rows.view(">u2")[:, :width * samples].astype(np.uint16).reshape(len(rows), width, samples)
    if depth == 8:
        return rows[:, :width * samples].reshape(len(rows), width, samples)
    bits = np.unpackbits(rows, axis=1)[:, :width * depth].reshape(len(rows), width, depth)
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
    return (bits * weights).sum(axis=2, dtype=np.uint8)[..., None]


def _png_pixels(raw: bytes, width: int, height: int, depth: int, samples: int, interlaced: bool, fn: str):
    bits = depth * samples
    bpp = max(1, bits // 8)

    def line_bytes(w):
        return (w * bits + 7) // 8

    if not interlaced:
        need = height * (line_bytes(width) + 1)
        if len(raw) < need:
            raise InvalidArgumentError(f"{fn}: truncated PNG file: the image data hold {len(raw)} bytes, "
                                       f"{need} expected")
        return _samples(_unfilter(raw, 0, height, line_bytes(width), bpp, fn), width, depth, samples)
    out = np.zeros((height, width, samples), np.uint16 if depth == 16 else np.uint8)
    offset = 0
    for r0, c0, dr, dc in _ADAM7:
        w = (width - c0 + dc - 1) // dc if width > c0 else 0
        h = (height - r0 + dr - 1) // dr if height > r0 else 0
        if not w or not h:
            continue
        need = offset + h * (line_bytes(w) + 1)
        if len(raw) < need:
            raise InvalidArgumentError(f"{fn}: truncated PNG file: the image data hold {len(raw)} bytes, "
                                       f"at least {need} expected")
        out[r0::dr, c0::dc] = _samples(_unfilter(raw, offset, h, line_bytes(w), bpp, fn), w, depth, samples)
        offset = need
    return out


def _scale_low_depth(values: np.ndarray, depth: int) -> np.ndarray:
    """1, 2 and 4-bit gray to 8 bits, as libpng's ``png_set_expand_gray_1_2_4_to_8``."""
    return (values.astype(np.uint16) * (255 // ((1 << depth) - 1))).astype(np.uint8)


def _to_gray(rgb: np.ndarray) -> np.ndarray:
    """libpng's integer RGB -> gray: equal samples stay, others get the weighted sum (truncated at 8 bits,
    rounded at 16)."""
    r, g, b = (rgb[..., k].astype(np.int64) for k in range(3))
    gray = (_GRAY_R * r + _GRAY_G * g + _GRAY_B * b + (16384 if rgb.dtype == np.uint16 else 0)) >> 15
    same = (r == g) & (g == b)
    return np.where(same, r, gray).astype(rgb.dtype)[..., None]


def _decode_png_array(data: bytes, channels: int, dtype, fn: str) -> np.ndarray:
    header = palette = trns = None
    idat = []
    for kind, body in _png_chunks(data, fn):
        if kind == b"IHDR":
            if header is not None or len(body) != 13:
                raise InvalidArgumentError(f"{fn}: corrupt PNG file: IHDR must come once, 13 bytes long")
            header = struct.unpack(">IIBBBBB", body)
        elif header is None:
            raise InvalidArgumentError(f"{fn}: corrupt PNG file: the first chunk is {kind!r}, not IHDR")
        elif kind == b"PLTE":
            if len(body) % 3 or not 3 <= len(body) <= 768:
                raise InvalidArgumentError(f"{fn}: corrupt PNG file: PLTE of {len(body)} bytes")
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat.append(body)
    if header is None:
        raise InvalidArgumentError(f"{fn}: corrupt PNG file: no IHDR chunk")
    width, height, depth, color, compression, filtering, interlace = header
    if color not in _PNG_DEPTHS or depth not in _PNG_DEPTHS[color] or compression or filtering or interlace > 1:
        raise InvalidArgumentError(f"{fn}: corrupt PNG file: unsupported header (colour type {color}, bit depth "
                                   f"{depth}, compression {compression}, filter {filtering}, interlace {interlace})")
    if width > 1_000_000 or height > 1_000_000:  # (libpng's default limits, which TF keeps)
        raise InvalidArgumentError(f"{fn}: the PNG file declares {width} x {height} pixels; at most 1000000 "
                                   "in each dimension")
    _check_size(width, height, 1, fn)
    if color == 3 and palette is None:
        raise InvalidArgumentError(f"{fn}: corrupt PNG file: a palette image without a PLTE chunk")
    samples = _PNG_SAMPLES[color]
    line = (width * depth * samples + 7) // 8 + 1
    expected = height * line if not interlace else sum(
        ((height - r0 + dr - 1) // dr if height > r0 else 0)
        * ((((width - c0 + dc - 1) // dc) * depth * samples + 7) // 8 + 1) * (width > c0)
        for r0, c0, dr, dc in _ADAM7)
    inflater = zlib.decompressobj()
    try:  # (never more than the header declares: a small file cannot inflate past its image)
        raw = inflater.decompress(b"".join(idat), expected + 1)
    except zlib.error as e:
        raise InvalidArgumentError(f"{fn}: corrupt PNG file: its image data do not decompress ({e})") from None
    pixels = _png_pixels(raw[:expected], width, height, depth, samples, bool(interlace), fn)

    # colour conversions, in libpng's order: palette / low depths expanded, transparency, then the channels asked
    has_alpha = color in (4, 6)
    file_depth = depth
    keyed = None  # gray / RGB pixels equal to the tRNS colour: transparent where an alpha channel is asked for
    if trns is not None and color in (0, 2):
        n = 1 if color == 0 else 3
        if len(trns) != 2 * n:
            raise InvalidArgumentError(f"{fn}: corrupt PNG file: tRNS of {len(trns)} bytes for colour type {color}")
        key = np.array(struct.unpack(f">{n}H", trns), np.int64)
        keyed = (pixels.astype(np.int64) == key).all(axis=-1)
    if color == 3:
        index = pixels[..., 0]
        if int(index.max(initial=0)) >= len(palette):
            raise InvalidArgumentError(f"{fn}: corrupt PNG file: a pixel indexes colour {int(index.max())} of a "
                                       f"{len(palette)}-colour palette")
        rgb = palette[index]
        if trns is not None:
            alpha = np.full(len(palette), 255, np.uint8)
            alpha[:min(len(trns), len(palette))] = np.frombuffer(trns, np.uint8)[:len(palette)]
            pixels, has_alpha = np.concatenate([rgb, alpha[index][..., None]], axis=-1), True
        else:
            pixels = rgb
        depth = 8
    elif depth < 8:
        pixels = _scale_low_depth(pixels, depth)
        depth = 8
    if channels:
        present = pixels.shape[-1]
        color_samples = present - 1 if has_alpha else present
        colour, alpha = pixels[..., :color_samples], pixels[..., color_samples:]
        if channels in (1, 2) and color_samples == 3:
            colour = _to_gray(colour)
        elif channels in (3, 4) and color_samples == 1:
            colour = np.repeat(colour, 3, axis=-1)
        if channels in (2, 4) and not has_alpha:  # (libpng's filler is the file's largest sample: 1 at 1 bit)
            alpha = np.full(colour.shape[:-1] + (1,), (1 << file_depth) - 1, colour.dtype)
            if keyed is not None:
                alpha[keyed] = 0
        pixels = np.concatenate([colour, alpha], axis=-1) if channels in (2, 4) else colour
    if depth == 16 and dtype == np.uint8:  # (after the colour conversions, as libpng orders them)
        pixels = (pixels >> 8).astype(np.uint8)
    elif depth == 8 and dtype == np.uint16:
        pixels = pixels.astype(np.uint16) * 257
    return pixels


def decode_png(contents, channels=0, dtype=backend.uint8, name=None) -> Tensor:
    """Decode a PNG file into a ``[height, width, channels]`` ``uint8`` (or ``uint16``) tensor, as
    ``tf.io.decode_png``.

    ``channels``: 0 the file's own (a palette: 3, or 4 with transparency), 1 gray, 3 RGB, 4 RGBA.

    Example:
        >>> import descend as ds, numpy as np
        >>> img = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
        >>> png = ds.image.encode_png(img)
        >>> bool((ds.image.decode_png(png).numpy() == img).all())
        True
    """
    fn = "decode_png"
    data = _contents(contents, fn)
    channels = _check_channels(channels, (0, 1, 3, 4), fn)
    dt = np.dtype(backend.np_dtype(dtype))
    if dt not in (np.dtype(np.uint8), np.dtype(np.uint16)):
        raise InvalidArgumentError(f"{fn}: `dtype` must be uint8 or uint16; received {dt.name}")
    return Tensor(_decode_png_array(data, channels, dt.type, fn))


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
    a = to_array(convert_to_tensor(image))
    if a.ndim != 3 or not 1 <= a.shape[2] <= 4:
        raise InvalidArgumentError(f"encode_png: image must be [height, width, channels] with 1 to 4 channels. "
                                   f"Received shape {list(a.shape)}")
    if a.dtype not in (np.uint8, np.uint16):
        raise InvalidArgumentError(f"encode_png: image must be uint8 or uint16. Received dtype {a.dtype.name}")
    if isinstance(compression, bool) or not isinstance(compression, (int, np.integer)):
        raise InvalidArgumentError(f"encode_png: compression must be an int in [-1, 9]. Received {compression!r}")
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
    return Tensor(np.array(_PNG_SIGNATURE + _chunk(b"IHDR", ihdr) + idat + _chunk(b"IEND", b""), dtype=object))


# ----------------------------------------------------------------------------------------------------- GIF
def _lzw(data: bytes, min_size: int, count: int, fn: str) -> np.ndarray:
    """GIF's LZW: ``count`` colour indices from the concatenated sub-blocks."""
    if not 2 <= min_size <= 11:
        raise InvalidArgumentError(f"{fn}: corrupt GIF file: LZW code size {min_size}")
    clear, end = 1 << min_size, (1 << min_size) + 1
    out = bytearray()
    table = [bytes([i]) for i in range(clear)] + [b"", b""]
    size = min_size + 1
    prev = None
    bits = int.from_bytes(data, "little")
    total = len(data) * 8
    pos = 0
    while len(out) < count and pos + size <= total:
        code = (bits >> pos) & ((1 << size) - 1)
        pos += size
        if code == clear:
            table = table[:clear + 2]
            size = min_size + 1
            prev = None
            continue
        if code == end:
            break
        if code < len(table) and code not in (clear, end):
            entry = table[code]
            if prev is not None:
                table.append(prev + entry[:1])
        elif code == len(table) and prev is not None:
            entry = prev + prev[:1]
            table.append(entry)
        else:
            raise InvalidArgumentError(f"{fn}: corrupt GIF file: LZW code {code} with {len(table)} entries")
        out += entry
        prev = entry
        if len(table) == (1 << size) and size < 12:
            size += 1
    if len(out) < count:
        raise InvalidArgumentError(f"{fn}: truncated GIF file: a frame holds {len(out)} of its {count} pixels")
    return np.frombuffer(bytes(out[:count]), np.uint8)


def _gif_colour_table(data: bytes, pos: int, flags: int, default, what: str, fn: str):
    """``(table, pos after it)``: the ``[n, 3]`` colour table at ``pos`` when ``flags`` (a screen's or a frame's)
    say one follows, else ``(default, pos)``."""
    if not flags & 0x80:
        return default, pos
    n = 3 << ((flags & 7) + 1)
    if pos + n > len(data):
        raise InvalidArgumentError(f"{fn}: truncated GIF file: {what} is cut off")
    return np.frombuffer(data, np.uint8, n, pos).reshape(-1, 3), pos + n


def _decode_gif_array(data: bytes, fn: str) -> np.ndarray:
    if len(data) < 13 or data[:6] not in (b"GIF87a", b"GIF89a"):
        raise InvalidArgumentError(f"{fn}: not a GIF file (no GIF87a / GIF89a signature)")
    width, height, flags = struct.unpack_from("<HHB", data, 6)
    pos = 13
    global_table, pos = _gif_colour_table(data, pos, flags, None, "the global colour table", fn)
    _check_size(width, height, 1, fn)
    frames = []
    canvas = np.zeros((height, width, 3), np.uint8)
    transparent = None

    def sub_blocks(p):
        parts = []
        while True:
            if p >= len(data):
                raise InvalidArgumentError(f"{fn}: truncated GIF file: a data sub-block is cut off")
            n = data[p]
            if n == 0:
                return b"".join(parts), p + 1
            if p + 1 + n > len(data):
                raise InvalidArgumentError(f"{fn}: truncated GIF file: a data sub-block is cut off")
            parts.append(data[p + 1:p + 1 + n])
            p += 1 + n

    while True:
        if pos >= len(data):
            break  # (a missing trailer: the frames read so far, as giflib)
        kind = data[pos]
        if kind == 0x3B:
            break
        if kind == 0x21:  # an extension; a graphic control extension names the transparent index
            if pos + 2 > len(data):
                raise InvalidArgumentError(f"{fn}: truncated GIF file: an extension is cut off")
            label = data[pos + 1]
            body, pos = sub_blocks(pos + 2)
            if label == 0xF9 and len(body) >= 4:
                transparent = body[3] if body[0] & 1 else None
            continue
        if kind != 0x2C:
            raise InvalidArgumentError(f"{fn}: corrupt GIF file: block type 0x{kind:02x} at byte {pos}")
        if pos + 10 > len(data):
            raise InvalidArgumentError(f"{fn}: truncated GIF file: an image descriptor is cut off")
        left, top, w, h, fflags = struct.unpack_from("<HHHHB", data, pos + 1)
        pos += 10
        table, pos = _gif_colour_table(data, pos, fflags, global_table, "a local colour table", fn)
        if table is None:
            raise InvalidArgumentError(f"{fn}: corrupt GIF file: a frame without a colour table")
        if left + w > width or top + h > height:
            raise InvalidArgumentError(f"{fn}: corrupt GIF file: frame {len(frames)} ({w} x {h} at {left}, {top}) "
                                       f"is outside the {width} x {height} image")
        _check_size(width, height, len(frames) + 1, fn)
        if pos >= len(data):
            raise InvalidArgumentError(f"{fn}: truncated GIF file: frame data cut off")
        min_size = data[pos]
        body, pos = sub_blocks(pos + 1)
        index = _lzw(body, min_size, w * h, fn).reshape(h, w) if w and h else np.zeros((0, 0), np.uint8)
        if fflags & 0x40:  # interlaced rows: 0, 8, 16..; 4, 12..; 2, 6..; 1, 3..
            order = np.concatenate([np.arange(0, h, 8), np.arange(4, h, 8), np.arange(2, h, 4), np.arange(1, h, 2)])
            rows = np.empty_like(index)
            rows[order] = index
            index = rows
        colours = table[np.minimum(index, len(table) - 1)]
        frame = canvas.copy()
        region = frame[top:top + h, left:left + w]
        keep = np.zeros(index.shape, bool) if transparent is None else index == transparent
        region[~keep] = colours[~keep]
        frames.append(frame)
        canvas = frame
        transparent = None
    if not frames:
        raise InvalidArgumentError(f"{fn}: the GIF file holds no frame")
    return np.stack(frames)


def decode_gif(contents, name=None) -> Tensor:
    """Decode a GIF file into ``[frames, height, width, 3]`` ``uint8``, as ``tf.io.decode_gif``: each frame
    drawn over the one before, its transparent pixels showing what was there."""
    return Tensor(_decode_gif_array(_contents(contents, "decode_gif"), "decode_gif"))


# ----------------------------------------------------------------------------------------------------- BMP
def _decode_bmp_array(data: bytes, channels: int, fn: str) -> np.ndarray:
    if len(data) < 26 or data[:2] != b"BM":
        raise InvalidArgumentError(f"{fn}: not a BMP file (no 'BM' signature)")
    (offset,) = struct.unpack_from("<I", data, 10)
    (header,) = struct.unpack_from("<I", data, 14)
    if header < 40 or len(data) < 14 + 40:
        raise InvalidArgumentError(f"{fn}: unsupported BMP header of {header} bytes (40 or more expected)")
    width, height, planes, bpp, compression = struct.unpack_from("<iiHHI", data, 18)
    if compression not in (0, 3) or bpp not in (8, 24, 32):
        raise InvalidArgumentError(f"{fn}: unsupported BMP: {bpp} bits per pixel, compression {compression} "
                                   "(uncompressed 8, 24 or 32 bits expected)")
    depth = bpp // 8
    if channels and (channels == 1) != (depth == 1):
        raise InvalidArgumentError(f"{fn}: `channels` is {channels} but the file has {depth} byte(s) per pixel")
    top_down = height < 0
    height = abs(height)
    _check_size(width, height, 1, fn)
    row = (width * depth + 3) // 4 * 4
    if offset > len(data) or offset + row * (height - 1) + width * depth > len(data):
        raise InvalidArgumentError(f"{fn}: truncated BMP file: {len(data)} bytes, the {width} x {height} pixels "
                                   f"need {offset + row * height}")
    rows = np.lib.stride_tricks.as_strided(np.frombuffer(data, np.uint8, offset=offset),
                                           shape=(height, width * depth), strides=(row, 1))
    pixels = rows.reshape(height, width, depth)
    if not top_down:
        pixels = pixels[::-1]
    if depth >= 3:  # BGR(A) -> RGB(A)
        pixels = pixels[..., [2, 1, 0, 3][:depth]]
    if channels == 3 and depth == 4:  # (TF drops the alpha, or adds an opaque one)
        pixels = pixels[..., :3]
    elif channels == 4 and depth == 3:
        pixels = np.concatenate([pixels, np.full(pixels.shape[:2] + (1,), 255, np.uint8)], axis=-1)
    return np.ascontiguousarray(pixels)


def decode_bmp(contents, channels=0, name=None) -> Tensor:
    """Decode an uncompressed BMP file (8, 24 or 32 bits a pixel) into ``[height, width, channels]`` ``uint8``
    (RGB order), as ``tf.io.decode_bmp``."""
    fn = "decode_bmp"
    data = _contents(contents, fn)
    return Tensor(_decode_bmp_array(data, _check_channels(channels, (0, 1, 3, 4), fn), fn))


# ---------------------------------------------------------------------------------------------------- JPEG
def is_jpeg(contents, name=None) -> Tensor:
    """Whether ``contents`` starts as a JPEG file does (``FF D8 FF``), as ``tf.io.is_jpeg``."""
    return Tensor(np.array(_contents(contents, "is_jpeg")[:3] == b"\xff\xd8\xff"))


def extract_jpeg_shape(contents, output_type=backend.int32, name=None) -> Tensor:
    """``[height, width, channels]`` of a JPEG file, read from its frame header, as
    ``tf.io.extract_jpeg_shape`` (the pixels are not decoded)."""
    fn = "extract_jpeg_shape"
    data = _contents(contents, fn)
    if data[:2] != b"\xff\xd8":
        raise InvalidArgumentError(f"{fn}: not a JPEG file (no FF D8 start-of-image marker)")
    pos = 2
    while pos + 4 <= len(data):
        if data[pos] != 0xFF:
            raise InvalidArgumentError(f"{fn}: corrupt JPEG file: no marker at byte {pos}")
        marker = data[pos + 1]
        if marker == 0xFF:
            pos += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):
            pos += 2
            continue
        (length,) = struct.unpack_from(">H", data, pos + 2)
        if length < 2:
            raise InvalidArgumentError(f"{fn}: corrupt JPEG file: segment length {length} at byte {pos}")
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            if pos + 10 > len(data):
                break
            height, width, components = struct.unpack_from(">HHB", data, pos + 5)
            dt = np.dtype(backend.np_dtype(output_type))
            if dt not in (np.dtype(np.int32), np.dtype(np.int64)):
                raise InvalidArgumentError(f"{fn}: `output_type` must be int32 or int64; received {dt.name}")
            return Tensor(np.array([height, width, components], dtype=dt))
        if marker == 0xDA:
            break
        pos += 2 + length
    raise InvalidArgumentError(f"{fn}: corrupt JPEG file: no frame header before the image data")


# --------------------------------------------------------------------------------------------------- any
def decode_image(contents, channels=None, dtype=backend.uint8, name=None, expand_animations=True) -> Tensor:
    """Decode a PNG, GIF or BMP file by its first bytes, as ``tf.io.decode_image``: ``[height, width,
    channels]`` (a GIF: ``[frames, height, width, 3]``, or its first frame with ``expand_animations=False``);
    a float ``dtype`` scales to ``[0, 1]`` as ``convert_image_dtype``. A JPEG file is refused: descend has no
    JPEG codec."""
    from ._common import convert_image_dtype

    fn = "decode_image"
    data = _contents(contents, fn)
    channels = _check_channels(channels, (0, 1, 3, 4), fn)
    dt = backend.as_dtype(dtype)
    np_dt = np.dtype(backend.np_dtype(dtype))
    if np_dt not in (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float16), np.dtype(np.float32),
                     np.dtype(np.float64)):
        raise InvalidArgumentError(f"{fn}: `dtype` must be uint8, uint16 or a float type; received {np_dt.name}")
    if data.startswith(_PNG_SIGNATURE):
        a = _decode_png_array(data, channels, np.uint16 if np_dt == np.uint16 else np.uint8, fn)
    elif data[:6] in (b"GIF87a", b"GIF89a"):
        if channels not in (0, 3):
            raise InvalidArgumentError(f"{fn}: a GIF has 3 channels; received channels={channels}")
        a = _decode_gif_array(data, fn)
        if not expand_animations:
            a = a[0]
    elif data[:2] == b"BM":
        a = _decode_bmp_array(data, channels, fn)
    elif data[:3] == b"\xff\xd8\xff":
        raise InvalidArgumentError(f"{fn}: a JPEG file: descend has no JPEG codec (decode it with Pillow: "
                                   "np.asarray(PIL.Image.open(path)))")
    else:
        raise InvalidArgumentError(f"{fn}: unknown image file format; PNG, GIF or BMP expected")
    out = Tensor(a)
    if np_dt.kind == "f" or (np_dt == np.uint16 and a.dtype != np.uint16):
        out = convert_image_dtype(out, dt)
    return out
