"""``MelSpectrogram``: against Keras for windows, strides, dB and linear outputs, single signals (skips without
Keras); the mel filter bank's shape; a pure tone's band; configs; refusals."""

import numpy as np
import pytest

import descend as ds
from descend.layers.mel_spectrogram import linear_to_mel_weight_matrix

L = ds.layers
_X = np.random.default_rng(0).standard_normal((2, 1000)).astype(np.float32)


@pytest.mark.parametrize("kwargs, x", [
    (dict(fft_length=256, sequence_stride=64, num_mel_bins=20), _X),
    (dict(fft_length=128, sequence_stride=50, sequence_length=100, window="hamming", power_to_db=False, mag_exp=1.0,
          num_mel_bins=16, sampling_rate=8000, min_freq=50.0, max_freq=3000), _X),
    (dict(fft_length=64, sequence_stride=16, window=None, num_mel_bins=10, top_db=20.0, ref_power=2.0), _X),
    (dict(fft_length=64, sequence_stride=32, num_mel_bins=12), _X[0]),
])
def test_equals_keras(kwargs, x):
    keras = pytest.importorskip("keras")
    want = np.asarray(keras.layers.MelSpectrogram(**kwargs)(x))
    layer = L.MelSpectrogram(**kwargs)
    got = layer(x).numpy()
    assert got.shape == want.shape == layer.compute_output_shape(x.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


def test_filter_bank_triangles():
    m = linear_to_mel_weight_matrix(10, 129, 16000, 20.0, 8000.0)
    assert m.shape == (129, 10) and (m[0] == 0).all() and (m >= 0).all() and m.max() <= 1.0
    peaks = m.argmax(axis=0)
    assert (np.diff(peaks) > 0).all()  # bands rise with frequency


def test_a_tone_lands_in_its_band():
    sr, f = 8000, 1000.0
    tone = np.sin(2 * np.pi * f * np.arange(4000) / sr).astype(np.float32)
    layer = L.MelSpectrogram(fft_length=256, sequence_stride=128, sampling_rate=sr, num_mel_bins=20,
                             power_to_db=False)
    band = int(layer(tone[None]).numpy()[0].mean(axis=1).argmax())
    m = linear_to_mel_weight_matrix(20, 129, sr, 20.0, sr / 2)
    assert band in (m[int(round(f / (sr / 2) * 128))].argmax() - 1, m[int(round(f / (sr / 2) * 128))].argmax(),
                    m[int(round(f / (sr / 2) * 128))].argmax() + 1)


def test_config_round_trip():
    layer = L.MelSpectrogram(fft_length=128, sequence_stride=32, sequence_length=100, window="hamming",
                             num_mel_bins=40, min_freq=10.0, max_freq=4000, power_to_db=False)
    config = layer.get_config()
    assert L.MelSpectrogram.from_config(config).get_config() == config


@pytest.mark.parametrize("kwargs", [dict(fft_length=0), dict(fft_length=64, sequence_length=128),
                                    dict(window="blackman"), dict(num_mel_bins=0), dict(min_freq=9000.0),
                                    dict(top_db="a")])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        L.MelSpectrogram(**kwargs)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="signals"):
        L.MelSpectrogram(fft_length=16)(np.zeros((1, 2, 40), np.float32))
    with pytest.raises(ValueError, match="longer"):
        L.MelSpectrogram(fft_length=64)(np.zeros((1, 20), np.float32))
