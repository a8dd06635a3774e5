"""``tf.audio``: 16-bit PCM WAV files to and from float32 samples in [-1, 1), as TF's ``decode_wav`` and
``encode_wav`` (written from the RIFF/WAVE layout: a ``fmt `` chunk, then ``data``; other chunks skipped).

Encoding scales by 32768, rounds half away from zero and clamps to [-32768, 32767] (NaN becomes 0), as
TF; decoding divides by 32768.

Example:
    >>> import descend as ds
    >>> wav = ds.audio.encode_wav([[0.0], [0.5], [-1.0]], 16000)
    >>> out = ds.audio.decode_wav(wav)
    >>> out.audio.numpy().ravel(), int(out.sample_rate)
    (array([ 0. ,  0.5, -1. ], dtype=float32), 16000)
"""

from __future__ import annotations

import collections
import struct

import numpy as np

from ... import backend
from ...errors import InvalidArgumentError
from ...framework.tensor import Tensor, convert_to_tensor

__all__ = ["decode_wav", "encode_wav"]

DecodeWav = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])

_MAX_RATE = (1 << 31) - 1


def encode_wav(audio, sample_rate, name=None):
    """A scalar string tensor holding ``audio`` (float32 ``[samples, channels]``) as a 16-bit PCM WAV file."""
    a = np.asarray(convert_to_tensor(audio, dtype="float32").numpy(), np.float32)
    if a.ndim != 2:
        raise InvalidArgumentError(f"encode_wav: audio must be 2-dimensional [samples, channels]. Received shape "
                                   f"{list(a.shape)}")
    rate = int(np.asarray(convert_to_tensor(sample_rate).numpy()))
    if not 0 < rate <= _MAX_RATE:
        raise InvalidArgumentError(f"encode_wav: sample_rate must be in (0, 2**31). Received {rate}")
    samples, channels = a.shape
    if channels == 0 or channels > 0xFFFF:
        raise InvalidArgumentError(f"encode_wav: audio must have 1 to 65535 channels. Received {channels}")
    scaled = np.nan_to_num(a.astype(np.float64) * 32768.0, nan=0.0)
    pcm = np.clip(np.sign(scaled) * np.floor(np.abs(scaled) + 0.5), -32768, 32767).astype("<i2")
    data = pcm.tobytes()
    if len(data) > 0xFFFFFFFF - 36:
        raise InvalidArgumentError(f"encode_wav: {len(data)} bytes of samples do not fit a WAV file's 32-bit size")
    block = 2 * channels
    header = (b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE" + b"fmt " +
              struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * block, block, 16) +
              b"data" + struct.pack("<I", len(data)))
    return Tensor(np.array(header + data, dtype=object))


def _bytes_of(contents) -> bytes:
    t = convert_to_tensor(contents)
    if t.dtype != backend.string or np.ndim(t.numpy()) != 0:
        raise TypeError(f"decode_wav: contents must be a scalar string tensor. Received dtype {t.dtype.name}, "
                        f"shape {list(np.shape(t.numpy()))}")
    value = t.numpy()
    return value if isinstance(value, bytes) else value.item()


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """``DecodeWav(audio, sample_rate)``: float32 samples ``[samples, channels]`` and the int32 rate.

    ``desired_channels``: keep the first channels, or repeat the last one up to this many (-1: the file's);
    ``desired_samples``: cut or pad with zeros to this many (-1: the file's)."""
    data = _bytes_of(contents)
    where = "decode_wav"
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise InvalidArgumentError(f"{where}: not a RIFF/WAVE file (the first 12 bytes are {data[:12]!r})")
    pos, fmt, pcm = 12, None, None
    while pos + 8 <= len(data):
        chunk_id, size = data[pos:pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
        body = pos + 8
        if size > len(data) - body:
            raise InvalidArgumentError(f"{where}: chunk {chunk_id!r} declares {size} bytes; {len(data) - body} remain")
        if chunk_id == b"fmt ":
            if size < 16:
                raise InvalidArgumentError(f"{where}: a fmt chunk of {size} bytes (at least 16 expected)")
            fmt = struct.unpack_from("<HHIIHH", data, body)
        elif chunk_id == b"data":
            pcm = data[body:body + size]
            break
        pos = body + size + (size & 1)  # chunks are padded to an even size
    if fmt is None or pcm is None:
        raise InvalidArgumentError(f"{where}: the file has no {'fmt ' if fmt is None else 'data'} chunk")
    tag, channels, rate, _byte_rate, _block, bits = fmt
    if tag not in (1, 0xFFFE) or bits != 16:
        raise InvalidArgumentError(f"{where}: only 16-bit PCM is supported. Received format tag {tag}, {bits} bits")
    if channels == 0:
        raise InvalidArgumentError(f"{where}: the file declares 0 channels")
    if len(pcm) % (2 * channels):
        raise InvalidArgumentError(f"{where}: {len(pcm)} bytes of samples are not whole frames of {channels} "
                                   "16-bit channels")
    audio = np.frombuffer(pcm, "<i2").reshape(-1, channels).astype(np.float32) / np.float32(32768)
    want_c = int(desired_channels)
    if want_c > 0:
        audio = audio[:, np.minimum(np.arange(want_c), channels - 1)]
    want_s = int(desired_samples)
    if want_s >= 0:
        audio = audio[:want_s] if want_s <= len(audio) else np.concatenate(
            [audio, np.zeros((want_s - len(audio), audio.shape[1]), np.float32)])
    return DecodeWav(Tensor(np.ascontiguousarray(audio)), Tensor(np.array(rate, np.int32)))
