"""Image files against TensorFlow's bytes and arrays on files TF and Pillow wrote; see test_image_codecs.py for the
decoding equal to TF's on files TF and Pillow write (palettes, low bit depths, interlacing, animations)."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest

import descend as ds

RNG = np.random.default_rng(0)
IMAGES = {
    "rgb_small": RNG.integers(0, 256, (2, 3, 3)).astype(np.uint8),
    "gray": RNG.integers(0, 256, (7, 5, 1)).astype(np.uint8),
    "gray_alpha": RNG.integers(0, 256, (4, 9, 2)).astype(np.uint8),
    "rgba": RNG.integers(0, 256, (6, 6, 4)).astype(np.uint8),
    "smooth": (np.add.outer(np.arange(40), np.arange(50))[..., None] * [1, 2, 3] % 256).astype(np.uint8),
    "rgb16": RNG.integers(0, 65536, (5, 4, 3)).astype(np.uint16),
    "big": (RNG.integers(0, 4, (120, 130, 3)) * 60).astype(np.uint8),  # several IDAT chunks at level 0
    "one_pixel": np.array([[[200]]], np.uint8),
}


@pytest.mark.parametrize("compression", [-1, 0, 1, 9])
@pytest.mark.parametrize("name", sorted(IMAGES))
def test_encode_png_bytes_equal_tensorflows(name, compression):
    tf = pytest.importorskip("tensorflow")
    img = IMAGES[name]
    ours = ds.image.encode_png(img, compression=compression).numpy()
    theirs = tf.io.encode_png(img, compression=compression).numpy()
    assert ours == theirs


@pytest.mark.parametrize("channels", [0, 1, 3, 4])
@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
@pytest.mark.parametrize("name", sorted(IMAGES))
def test_decode_png_equals_tensorflows(name, channels, dtype):
    tf = pytest.importorskip("tensorflow")
    data = tf.io.encode_png(IMAGES[name]).numpy()
    ours = ds.image.decode_png(data, channels=channels, dtype=dtype).numpy()
    theirs = tf.io.decode_png(data, channels=channels, dtype=getattr(tf, dtype)).numpy()
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape and np.array_equal(ours, theirs)


def _pillow_png(mode, array, **save):
    Image = pytest.importorskip("PIL.Image")
    buf = io.BytesIO()
    img = Image.fromarray(array) if mode is None else Image.fromarray(array).convert(mode)
    img.save(buf, format="PNG", **save)
    return buf.getvalue()


def _pillow_files():
    pytest.importorskip("PIL")
    rgb = IMAGES["smooth"]
    out = {
        "palette": _pillow_png("P", rgb),
        "bilevel": _pillow_png("1", rgb),
        "interlaced_rgb": _pillow_png(None, rgb, optimize=False) if False else None,
        "gray": _pillow_png("L", rgb),
        "la": _pillow_png("LA", rgb),
        "rgba": _pillow_png("RGBA", rgb),
    }
    from PIL import Image, PngImagePlugin  # noqa: F401

    pal = Image.fromarray(rgb).convert("P")
    pal.info["transparency"] = 3
    buf = io.BytesIO()
    pal.save(buf, format="PNG", transparency=3)
    out["palette_trns"] = buf.getvalue()
    out.pop("interlaced_rgb")
    out["interlaced"] = _interlaced_png(rgb)
    out["gray4"] = _gray_low_depth(RNG.integers(0, 16, (9, 11)).astype(np.uint8), 4)
    return out


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _interlaced_png(rgb):
    """An Adam7-interlaced RGB PNG written here (filter None on every row)."""
    h, w, _ = rgb.shape
    raw = b""
    for x0, y0, dx, dy in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
                           (0, 1, 1, 2)]:
        sub = rgb[y0::dy, x0::dx]
        if sub.size:
            raw += b"".join(b"\0" + row.tobytes() for row in sub)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 1)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")


def _gray_low_depth(values, depth):
    h, w = values.shape
    per = 8 // depth
    rows = []
    for row in values:
        padded = np.concatenate([row, np.zeros((-len(row)) % per, np.uint8)]).reshape(-1, per)
        packed = sum(padded[:, i].astype(np.uint16) << (8 - depth * (i + 1)) for i in range(per)).astype(np.uint8)
        rows.append(b"\x02" + packed.tobytes())  # filter Up
    # filter Up needs the differences: write the rows with Up applied
    data, prev = b"", np.zeros(len(rows[0]) - 1, np.uint8)
    for r in rows:
        cur = np.frombuffer(r[1:], np.uint8)
        data += b"\x02" + ((cur.astype(np.int16) - prev) % 256).astype(np.uint8).tobytes()
        prev = cur
    ihdr = struct.pack(">IIBBBBB", w, h, depth, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(data)) + _chunk(b"IEND", b"")


@pytest.mark.parametrize("channels", [0, 1, 3, 4])
@pytest.mark.parametrize("kind", ["palette", "bilevel", "gray", "la", "rgba", "palette_trns", "interlaced", "gray4"])
def test_decode_png_of_other_writers_equals_tensorflows(kind, channels):
    tf = pytest.importorskip("tensorflow")
    data = _pillow_files()[kind]
    ours = ds.image.decode_png(data, channels=channels).numpy()
    theirs = tf.io.decode_png(data, channels=channels).numpy()
    assert ours.shape == theirs.shape and np.array_equal(ours, theirs)


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
@pytest.mark.parametrize("channels", [0, 3, 4])
def test_decode_bmp_equals_tensorflows(mode, channels):
    tf = pytest.importorskip("tensorflow")
    Image = pytest.importorskip("PIL.Image")
    buf = io.BytesIO()
    Image.fromarray(IMAGES["smooth"][:13, :7]).convert(mode).save(buf, format="BMP")
    data = buf.getvalue()
    ours = ds.image.decode_bmp(data, channels=channels).numpy()
    theirs = tf.io.decode_bmp(data, channels=channels).numpy()
    assert ours.shape == theirs.shape and np.array_equal(ours, theirs)


def _gif(frames, **save):
    Image = pytest.importorskip("PIL.Image")
    buf = io.BytesIO()
    imgs = [Image.fromarray(f).convert("P") for f in frames]
    imgs[0].save(buf, format="GIF", save_all=True, append_images=imgs[1:], **save)
    return buf.getvalue()


@pytest.mark.parametrize("case", ["one", "animated", "interlaced"])
def test_decode_gif_equals_tensorflows(case):
    tf = pytest.importorskip("tensorflow")
    base = IMAGES["smooth"]
    if case == "one":
        data = _gif([base])
    elif case == "animated":
        second = base.copy()
        second[5:20, 10:30] = [255, 0, 0]
        data = _gif([base, second, base[::-1].copy()], duration=10)
    else:
        data = _gif([base], interlace=True)
    ours = ds.image.decode_gif(data).numpy()
    theirs = tf.io.decode_gif(data).numpy()
    assert ours.shape == theirs.shape and np.array_equal(ours, theirs)
    assert np.array_equal(ds.image.decode_image(data).numpy(), tf.io.decode_image(data).numpy())
    assert np.array_equal(ds.image.decode_image(data, expand_animations=False).numpy(),
                          tf.io.decode_image(data, expand_animations=False).numpy())


def test_decode_image_dispatches_and_scales_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    data = tf.io.encode_png(IMAGES["rgba"]).numpy()
    for dtype in ("uint8", "uint16", "float32"):
        ours = ds.image.decode_image(data, channels=3, dtype=dtype).numpy()
        theirs = tf.io.decode_image(data, channels=3, dtype=getattr(tf, dtype)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_jpeg_headers_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    Image = pytest.importorskip("PIL.Image")
    for mode, progressive in [("RGB", False), ("L", False), ("RGB", True)]:
        buf = io.BytesIO()
        Image.fromarray(IMAGES["smooth"]).convert(mode).save(buf, format="JPEG", progressive=progressive)
        data = buf.getvalue()
        assert bool(ds.image.is_jpeg(data)) is bool(tf.io.is_jpeg(data))
        assert ds.image.extract_jpeg_shape(data).numpy().tolist() == tf.io.extract_jpeg_shape(data).numpy().tolist()
        with pytest.raises(ds.errors.InvalidArgumentError, match="JPEG codec"):
            ds.image.decode_image(data)
    png = tf.io.encode_png(IMAGES["gray"]).numpy()
    assert bool(ds.image.is_jpeg(png)) is bool(tf.io.is_jpeg(png)) is False


def test_round_trip_without_tensorflow():
    for img in IMAGES.values():
        back = ds.image.decode_png(ds.image.encode_png(img), dtype=img.dtype.name).numpy()
        assert np.array_equal(back, img)


def _valid_png():
    return ds.image.encode_png(IMAGES["rgb_small"]).numpy()


@pytest.mark.parametrize("data,match", [
    (b"not a png", "not a PNG file"),
    (_valid_png()[:40], "ends|declares|truncated|cut off"),
    (_valid_png()[:30] + bytes([_valid_png()[30] ^ 1]) + _valid_png()[31:], "CRC"),
    (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1 << 20, 1 << 20, 8, 2, 0, 0, 0)) +
     _chunk(b"IDAT", zlib.compress(b"\0")) + _chunk(b"IEND", b""), "cap|at most|MAX_PIXELS"),
    (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)) +
     _chunk(b"IDAT", zlib.compress(b"\0" * 3)) + _chunk(b"IEND", b""), "ends early|truncated"),
    (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)) +
     _chunk(b"IDAT", zlib.compress(b"\x07\x00")) + _chunk(b"IEND", b""), "filter type 7"),
    (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 3, 2, 0, 0, 0)) +
     _chunk(b"IDAT", zlib.compress(b"\0\0")) + _chunk(b"IEND", b""), "does not define|unsupported header"),
])
def test_malformed_png_files_are_refused(data, match):
    with pytest.raises(ds.errors.InvalidArgumentError, match=match):
        ds.image.decode_png(data)


def test_a_zlib_bomb_is_not_inflated_past_the_image():
    # 1x1 grey image whose IDAT inflates to 50 MB: only the 2 bytes the image needs are inflated
    bomb = zlib.compress(b"\0" * 50_000_000, 9)
    data = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)) + \
        _chunk(b"IDAT", bomb) + _chunk(b"IEND", b"")
    assert ds.image.decode_png(data).numpy().tolist() == [[[0]]]


@pytest.mark.parametrize("make,error,match", [
    (lambda: ds.image.encode_png(np.zeros((2, 2), np.uint8)), ds.errors.InvalidArgumentError, "channels"),
    (lambda: ds.image.encode_png(np.zeros((2, 2, 3), np.float32)), ds.errors.InvalidArgumentError, "uint8 or uint16"),
    (lambda: ds.image.encode_png(np.zeros((2, 2, 3), np.uint8), compression=12), ds.errors.InvalidArgumentError,
     "compression"),
    (lambda: ds.image.decode_png(_valid_png(), channels=2), ds.errors.InvalidArgumentError, "channels"),
    (lambda: ds.image.decode_bmp(b"BMxx"), ds.errors.InvalidArgumentError, "not a BMP"),
    (lambda: ds.image.decode_gif(b"GIF89a"), ds.errors.InvalidArgumentError, "not a GIF"),
    (lambda: ds.image.decode_image(b"????"), ds.errors.InvalidArgumentError, "unknown image file format"),
    (lambda: ds.image.extract_jpeg_shape(b"\xff\xd8\xff\xe0\x00\x10"), ds.errors.InvalidArgumentError, "declares|no frame header"),
])
def test_bad_arguments_are_refused(make, error, match):
    with pytest.raises(error, match=match):
        make()
