"""``tf.signal`` over real tensors: framing and overlap-add, windows, the mel filterbank, DCTs (types 1-4),

The public namespace; the implementation is :mod:`descend.composites.signal_ops`."""

from .composites.signal_ops import (  # noqa: F401
    dct,
    fftshift,
    frame,
    hamming_window,
    hann_window,
    idct,
    ifftshift,
    inverse_stft_window_fn,
    kaiser_bessel_derived_window,
    kaiser_window,
    linear_to_mel_weight_matrix,
    mfccs_from_log_mel_spectrograms,
    overlap_and_add,
    vorbis_window,
)

__all__ = ['dct', 'fftshift', 'frame', 'hamming_window', 'hann_window', 'idct', 'ifftshift', 'inverse_stft_window_fn', 'kaiser_bessel_derived_window', 'kaiser_window', 'linear_to_mel_weight_matrix', 'mfccs_from_log_mel_spectrograms', 'overlap_and_add', 'vorbis_window']
