"""Image files (PNG, GIF, BMP, the JPEG header): decoded as TensorFlow decodes them, over a table of files that
covers every PNG colour type, bit depth and interlacing, and refused with a clear error when hostile."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

import descend as ds
from descend.errors import InvalidArgumentError
from descend.image import codecs

RNG = np.random.default_rng(7)


# ------------------------------------------------------------------ files written independently of the decoder
def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _pack_row(values: np.ndarray, depth: int) -> bytes:
    """One scanline's samples (a flat array) packed at ``depth`` bits, most significant bits first."""
    if depth == 16:
        return values.astype(">u2").tobytes()
    if depth == 8:
        return values.astype(np.uint8).tobytes()
    bits = ((values[:, None].astype(np.uint16) >> np.arange(depth - 1, -1, -1)) & 1).astype(np.uint8).reshape(-1)
    return np.packbits(bits).tobytes()


def _filtered(line: bytes, prev: bytes, bpp: int, kind: int) -> bytes:
    """``line`` under PNG filter ``kind`` (the encoder's side, written from the specification)."""
    out = bytearray()
    for i, x in enumerate(line):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i] if prev else 0
        c = prev[i - bpp] if prev and i >= bpp else 0
        if kind == 0:
            pred = 0
        elif kind == 1:
            pred = a
        elif kind == 2:
            pred = b
        elif kind == 3:
            pred = (a + b) // 2
        else:
            p = a + b - c
            pred = min((abs(p - a), 0, a), (abs(p - b), 1, b), (abs(p - c), 2, c))[2]
        out.append((x - pred) % 256)
    return bytes(out)


def make_png(samples: np.ndarray, depth: int, color: int, *, interlace=False, palette=None, trns=None,
             filters=(0, 1, 2, 3, 4)) -> bytes:
    """A PNG of ``samples`` ([h, w, n] sample values), every filter type used in turn."""
    h, w, n = samples.shape
    bpp = max(1, depth * n // 8)
    passes = ([(0, 0, 1, 1)] if not interlace else
              [(0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2), (1, 0, 2, 1)])
    raw = bytearray()
    k = 0
    for r0, c0, dr, dc in passes:
        sub = samples[r0::dr, c0::dc]
        if sub.shape[0] == 0 or sub.shape[1] == 0:
            continue
        prev = b""
        for row in sub:
            line = _pack_row(row.reshape(-1), depth)
            kind = filters[k % len(filters)]
            k += 1
            raw += bytes([kind]) + _filtered(line, prev, bpp, kind)
            prev = line
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, int(interlace)))
    if palette is not None:
        out += _chunk(b"PLTE", palette.astype(np.uint8).tobytes())
    if trns is not None:
        out += _chunk(b"tRNS", trns)
    data = zlib.compress(bytes(raw))
    return out + _chunk(b"IDAT", data[:len(data) // 2]) + _chunk(b"IDAT", data[len(data) // 2:]) + _chunk(b"IEND", b"")


def _png_case(color, depth, interlace, *, trns=False, h=11, w=13):
    n = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
    top = (1 << depth) - 1
    palette = None
    if color == 3:
        colours = min(1 << depth, 40)
        palette = RNG.integers(0, 256, (colours, 3))
        samples = RNG.integers(0, colours, (h, w, 1))
    else:
        samples = RNG.integers(0, top + 1, (h, w, n))
        if color in (2, 6):  # some gray pixels (equal samples), which rgb->gray keeps as they are
            samples[0, :, 1:3] = samples[0, :, :1]
    t = None
    if trns:
        t = bytes(RNG.integers(0, 256, len(palette)).astype(np.uint8)) if color == 3 else \
            struct.pack(">" + "H" * n, *([int(samples[0, 0, 0])] * n))
    return make_png(samples, depth, color, interlace=interlace, palette=palette, trns=t)


PNG_FILES = {f"color{c}-depth{d}{'-interlaced' if i else ''}{'-trns' if t else ''}": (c, d, i, t)
             for c, depths in codecs._PNG_DEPTHS.items() for d in depths for i in (False, True)
             for t in ((False, True) if c in (0, 2, 3) and d == 8 else (False,))}


def _tf():
    return pytest.importorskip("tensorflow")


# ------------------------------------------------------------------ PNG against TensorFlow
@pytest.mark.parametrize("key", sorted(PNG_FILES))
@pytest.mark.parametrize("channels", [0, 1, 3, 4])
@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
def test_png_decodes_as_tensorflow_decodes_it(key, channels, dtype):
    tf = _tf()
    data = _png_case(*PNG_FILES[key][:3], trns=PNG_FILES[key][3])
    want = tf.io.decode_png(data, channels=channels, dtype=getattr(tf, dtype)).numpy()
    got = ds.io.decode_png(data, channels=channels, dtype=dtype).numpy() if hasattr(ds, "io") else \
        ds.image.decode_png(data, channels=channels, dtype=dtype).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype,channels", [("uint8", 1), ("uint8", 2), ("uint8", 3), ("uint8", 4),
                                            ("uint16", 1), ("uint16", 3), ("uint16", 4)])
def test_encode_png_round_trips_and_tensorflow_reads_it(dtype, channels):
    img = RNG.integers(0, np.iinfo(dtype).max + 1, (9, 7, channels)).astype(dtype)
    png = ds.image.encode_png(img)
    np.testing.assert_array_equal(ds.image.decode_png(png, dtype=dtype).numpy(), img)
    tf = pytest.importorskip("tensorflow")
    np.testing.assert_array_equal(tf.io.decode_png(png.numpy(), dtype=getattr(tf, dtype)).numpy(), img)
    theirs = tf.io.encode_png(img).numpy()
    np.testing.assert_array_equal(ds.image.decode_png(theirs, dtype=dtype).numpy(), img)


def test_decoders_read_what_the_independent_writer_wrote():
    """Without TensorFlow: the decoder gives back the samples the test's own writer packed."""
    for (color, depth) in [(0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (2, 8), (2, 16), (4, 8), (6, 16)]:
        for interlace in (False, True):
            n = codecs._PNG_SAMPLES[color]
            samples = RNG.integers(0, 1 << depth, (10, 9, n))
            data = make_png(samples, depth, color, interlace=interlace)
            got = ds.image.decode_png(data, dtype="uint16" if depth == 16 else "uint8").numpy().astype(np.int64)
            want = samples if depth >= 8 else samples * (255 // ((1 << depth) - 1))
            np.testing.assert_array_equal(got, want, err_msg=f"color {color} depth {depth} interlace {interlace}")


# ------------------------------------------------------------------ GIF, BMP, JPEG header
def _lzw_encode(indices: bytes, min_size: int) -> bytes:
    """GIF LZW (the encoder's side), with a clear code up front and the code size growing as the table does."""
    clear, end = 1 << min_size, (1 << min_size) + 1
    table = {bytes([i]): i for i in range(clear)}
    size, codes, w = min_size + 1, [(clear, min_size + 1)], b""
    for ch in indices:
        wc = w + bytes([ch])
        if wc in table:
            w = wc
            continue
        codes.append((table[w], size))
        if len(table) + 2 < 4096:
            table[wc] = len(table) + 2
            if len(table) + 2 > (1 << size) and size < 12:
                size += 1
        w = bytes([ch])
    codes += [(table[w], size), (end, size)]
    acc = nbits = 0
    out = bytearray()
    for code, s in codes:
        acc |= code << nbits
        nbits += s
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8
    if nbits:
        out.append(acc)
    return bytes(out)


def make_gif(frames, palette, *, transparent=None, offsets=None) -> bytes:
    h, w = frames[0].shape
    bits = max(1, int(np.ceil(np.log2(len(palette)))))
    table = np.zeros((1 << bits, 3), np.uint8)
    table[:len(palette)] = palette
    out = b"GIF89a" + struct.pack("<HHBBB", w, h, 0x80 | (bits - 1), 0, 0) + table.tobytes()
    for k, frame in enumerate(frames):
        if transparent is not None:
            out += b"\x21\xf9\x04" + bytes([1, 0, 0, transparent]) + b"\x00"
        top, left = offsets[k] if offsets else (0, 0)
        fh, fw = frame.shape
        min_size = max(2, bits)
        data = _lzw_encode(frame.astype(np.uint8).tobytes(), min_size)
        blocks = b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255))
        out += b"\x2c" + struct.pack("<HHHHB", left, top, fw, fh, 0) + bytes([min_size]) + blocks + b"\x00"
    return out + b"\x3b"


def test_gif_frames_as_tensorflow_decodes_them():
    palette = RNG.integers(0, 256, (16, 3))
    frames = [RNG.integers(0, 16, (12, 15)) for _ in range(3)]
    small = RNG.integers(0, 16, (5, 6))
    for kwargs, fr in [({}, frames), ({"transparent": 3}, frames),
                       ({"offsets": [(0, 0), (2, 4)]}, [frames[0], small])]:
        data = make_gif(fr, palette, **kwargs)
        got = ds.image.decode_gif(data).numpy()
        assert got.shape == (len(fr), 12, 15, 3)
        np.testing.assert_array_equal(got[0], palette[frames[0]] if "transparent" not in kwargs else
                                      np.where((frames[0] == 3)[..., None], 0, palette[frames[0]]))
        tf = pytest.importorskip("tensorflow")
        np.testing.assert_array_equal(got, tf.io.decode_gif(data).numpy(), err_msg=str(kwargs))


def make_bmp(img: np.ndarray, top_down=False) -> bytes:
    h, w, c = img.shape
    row = (w * c + 3) // 4 * 4
    px = img[..., [2, 1, 0, 3][:c]] if c >= 3 else img
    rows = px if top_down else px[::-1]
    body = b"".join(r.astype(np.uint8).tobytes().ljust(row, b"\0") for r in rows)
    offset = 14 + 40 + (1024 if c == 1 else 0)
    palette = bytes(b for i in range(256) for b in (i, i, i, 0)) if c == 1 else b""
    header = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, 8 * c, 0, len(body), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", offset + len(body), 0, 0, offset) + header + palette + body


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("top_down", [False, True])
def test_bmp_as_tensorflow_decodes_it(channels, top_down):
    img = RNG.integers(0, 256, (7, 5, channels)).astype(np.uint8)
    data = make_bmp(img, top_down)
    got = ds.image.decode_bmp(data).numpy()
    np.testing.assert_array_equal(got, img)
    tf = pytest.importorskip("tensorflow")
    np.testing.assert_array_equal(got, tf.io.decode_bmp(data).numpy())


def _jpeg_header(h, w, c):
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 8 + 3 * c, 8, h, w, c) + b"".join(bytes([i + 1, 0x11, 0]) for i in range(c))
    return b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0\1\1\0\0\1\0\1\0\0" + sof + b"\xff\xda\0\2"


def test_jpeg_header_is_read_without_a_codec():
    data = _jpeg_header(480, 640, 3)
    assert bool(ds.image.is_jpeg(data).numpy()) and not bool(ds.image.is_jpeg(b"\x89PNG....").numpy())
    np.testing.assert_array_equal(ds.image.extract_jpeg_shape(data).numpy(), [480, 640, 3])
    assert ds.image.extract_jpeg_shape(data, output_type="int64").numpy().dtype == np.int64
    tf = pytest.importorskip("tensorflow")
    real = tf.io.encode_jpeg(np.zeros((33, 17, 3), np.uint8)).numpy()
    np.testing.assert_array_equal(ds.image.extract_jpeg_shape(real).numpy(), tf.io.extract_jpeg_shape(real).numpy())
    assert bool(ds.image.is_jpeg(real).numpy()) == bool(tf.io.is_jpeg(real).numpy())


def test_decode_image_dispatches_on_the_first_bytes():
    img = RNG.integers(0, 256, (4, 6, 3)).astype(np.uint8)
    png, bmp = ds.image.encode_png(img).numpy(), make_bmp(img)
    gif = make_gif([RNG.integers(0, 4, (4, 6))] * 2, RNG.integers(0, 256, (4, 3)))
    np.testing.assert_array_equal(ds.image.decode_image(png).numpy(), img)
    np.testing.assert_array_equal(ds.image.decode_image(bmp).numpy(), img)
    assert ds.image.decode_image(gif).shape == (2, 4, 6, 3)
    assert ds.image.decode_image(gif, expand_animations=False).shape == (4, 6, 3)
    f = ds.image.decode_image(png, dtype="float32").numpy()
    np.testing.assert_allclose(f, img / 255.0, rtol=1e-6)
    with pytest.raises(InvalidArgumentError, match="no JPEG codec"):
        ds.image.decode_image(_jpeg_header(2, 2, 3))


# ------------------------------------------------------------------ hostile files
_GOOD_PNG = make_png(np.zeros((4, 4, 3), np.uint8), 8, 2)


def _png_with_header(w, h, depth=8, color=2, idat=b""):
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, 0))
            + _chunk(b"IDAT", idat) + _chunk(b"IEND", b""))


HOSTILE = {
    "png: empty": (ds.image.decode_png, b"", "not a PNG"),
    "png: signature only": (ds.image.decode_png, b"\x89PNG\r\n\x1a\n", "truncated"),
    "png: truncated in IDAT": (ds.image.decode_png, _GOOD_PNG[:-20], "truncated|CRC"),
    "png: bad CRC on IHDR": (ds.image.decode_png, _GOOD_PNG[:29] + b"\0\0\0\0" + _GOOD_PNG[33:], "CRC"),
    "png: chunk length past the end": (ds.image.decode_png, _GOOD_PNG[:8] + b"\x7f\xff\xff\xf0IHDR" + b"\0" * 20,
                                       "truncated"),
    "png: 1,000,000 x 1,000,000 declared": (ds.image.decode_png, _png_with_header(1_000_000, 1_000_000,
                                            idat=zlib.compress(b"\0" * 1000)), "MAX_PIXELS"),
    "png: 20000 x 20000 zeros bomb (small IDAT)": (ds.image.decode_png, _png_with_header(
        20000, 10000, idat=zlib.compress(b"\0" * 100_000)), "MAX_PIXELS|truncated"),
    "png: declared larger than its data": (ds.image.decode_png, _png_with_header(
        4000, 4000, idat=zlib.compress(b"\0" * 5000)), "truncated"),
    "png: zero width": (ds.image.decode_png, _png_with_header(0, 5), "empty image"),
    "png: bad bit depth": (ds.image.decode_png, _png_with_header(4, 4, depth=3), "unsupported header"),
    "png: palette without PLTE": (ds.image.decode_png, _png_with_header(4, 4, color=3), "without a PLTE"),
    "png: garbage IDAT": (ds.image.decode_png, _png_with_header(4, 4, idat=b"not zlib at all"), "decompress"),
    "png: bad filter type": (ds.image.decode_png, _png_with_header(2, 1, idat=zlib.compress(b"\x09" + b"\0" * 6)),
                             "filter type"),
    "png: palette index out of range": (ds.image.decode_png, make_png(
        np.full((2, 2, 1), 9), 8, 3, palette=np.zeros((4, 3))), "palette"),
    "gif: header only": (ds.image.decode_gif, b"GIF89a", "not a GIF"),
    "gif: no frame": (ds.image.decode_gif, b"GIF89a" + struct.pack("<HHBBB", 4, 4, 0, 0, 0) + b"\x3b", "no frame"),
    "gif: 65535 x 65535 declared, one tiny frame": (ds.image.decode_gif, b"GIF89a" + struct.pack(
        "<HHBBB", 65535, 65535, 0x80, 0, 0) + b"\0" * 6 + b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0)
        + b"\x02\x02\x44\x01\x00\x3b", "MAX_PIXELS|truncated"),
    "gif: frame outside the image": (ds.image.decode_gif, make_gif([np.zeros((2, 2))], np.zeros((2, 3)),
                                     offsets=[(3, 3)])[:0] + make_gif([np.zeros((2, 2))], np.zeros((2, 3)))
                                     .replace(b"\x2c\x00\x00\x00\x00", b"\x2c\x05\x00\x05\x00", 1), "outside"),
    "gif: frame data cut off": (ds.image.decode_gif, make_gif([np.arange(64).reshape(8, 8) % 4],
                                np.zeros((4, 3)))[:-6], "truncated|cut off"),
    "bmp: not a BMP": (ds.image.decode_bmp, b"BX" + b"\0" * 60, "not a BMP"),
    "bmp: pixels past the end": (ds.image.decode_bmp, make_bmp(np.zeros((8, 8, 3), np.uint8))[:-40], "truncated"),
    "bmp: huge declared size": (ds.image.decode_bmp, make_bmp(np.zeros((1, 1, 3), np.uint8))[:18]
                                + struct.pack("<ii", 100000, 100000) + make_bmp(np.zeros((1, 1, 3), np.uint8))[26:],
                                "MAX_PIXELS|truncated"),
    "bmp: compressed (RLE)": (ds.image.decode_bmp, make_bmp(np.zeros((2, 2, 3), np.uint8))[:30] + b"\1\0\0\0"
                              + make_bmp(np.zeros((2, 2, 3), np.uint8))[34:], "unsupported"),
    "jpeg: no frame header": (ds.image.extract_jpeg_shape, b"\xff\xd8\xff\xda\x00\x02", "no frame header"),
    "jpeg: not a JPEG": (ds.image.extract_jpeg_shape, b"GIF89a", "not a JPEG"),
    "jpeg: zero segment length": (ds.image.extract_jpeg_shape, b"\xff\xd8\xff\xe0\x00\x00", "segment length"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_files_are_refused_with_a_clear_error(case):
    import tracemalloc

    fn, data, message = HOSTILE[case]
    tracemalloc.start()
    try:
        with pytest.raises(InvalidArgumentError, match=message):
            fn(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, f"{case}: {peak / 2**20:.0f} MiB allocated to refuse a {len(data)}-byte file"


@pytest.mark.parametrize("call,message", [
    (lambda: ds.image.decode_png(_GOOD_PNG, channels=2), "channels"),
    (lambda: ds.image.decode_png(_GOOD_PNG, dtype="float32"), "uint8 or uint16"),
    (lambda: ds.image.decode_png(ds.constant([b"a", b"b"])), "scalar string"),
    (lambda: ds.image.decode_png(ds.constant(1.0)), "scalar string"),
    (lambda: ds.image.encode_png(np.zeros((2, 2, 3), np.float32)), "uint8 or uint16"),
    (lambda: ds.image.encode_png(np.zeros((2, 2, 5), np.uint8)), "1 to 4 channels"),
    (lambda: ds.image.encode_png(np.zeros((2, 2), np.uint8)), "1 to 4 channels"),
    (lambda: ds.image.encode_png(np.zeros((2, 2, 3), np.uint8), compression=10), "compression"),
    (lambda: ds.image.decode_bmp(make_bmp(np.zeros((2, 2, 3), np.uint8)), channels=1), "channels"),
])

def test_bad_arguments_say_what_was_expected(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()


def test_bmp_channels_convert_between_rgb_and_rgba_as_tensorflow():
    img = RNG.integers(0, 256, (3, 5, 3)).astype(np.uint8)
    rgba = ds.image.decode_bmp(make_bmp(img), channels=4).numpy()
    np.testing.assert_array_equal(rgba[..., :3], img)
    assert (rgba[..., 3] == 255).all()
    four = RNG.integers(0, 256, (3, 5, 4)).astype(np.uint8)
    np.testing.assert_array_equal(ds.image.decode_bmp(make_bmp(four), channels=3).numpy(), four[..., :3])
