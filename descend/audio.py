"""``tf.audio``: 16-bit PCM WAV files to and from float32 samples in [-1, 1), as TF's ``decode_wav`` and

The public namespace; the implementation is :mod:`descend.persistence.formats.wav`."""

from .persistence.formats.wav import (  # noqa: F401
    decode_wav,
    encode_wav,
)

__all__ = ['decode_wav', 'encode_wav']
