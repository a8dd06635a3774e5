"""``STFTSpectrogram``: each mode and layout against Keras (skips without Keras), against NumPy's FFT, output
shapes, configs and refusals. The differential harness compares three configurations' outputs and gradients."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_X = np.random.default_rng(0).standard_normal((2, 40, 3)).astype(np.float32)


@pytest.mark.parametrize("kwargs", [
    dict(mode="real", frame_length=8), dict(mode="imag", frame_length=8, frame_step=2),
    dict(mode="angle", frame_length=7, fft_length=16, window="blackman"),
    dict(mode="magnitude", frame_length=8, padding="same", expand_dims=True),
    dict(mode="psd", frame_length=8, window=None, scaling=None),
    dict(mode="log", frame_length=10, data_format="channels_first", expand_dims=True),
    dict(mode="stft", frame_length=8, data_format="channels_first"),
])
def test_modes_and_layouts_equal_keras(kwargs):
    keras = pytest.importorskip("keras")
    x = np.ascontiguousarray(_X.transpose(0, 2, 1)) if kwargs.get("data_format") == "channels_first" else _X
    theirs = keras.layers.STFTSpectrogram(**kwargs)
    ours = L.STFTSpectrogram(**kwargs)
    want = np.asarray(theirs(x))
    got = ours(x).numpy()
    assert got.shape == want.shape == ours.compute_output_shape(x.shape)
    for w, k in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(w, k, rtol=1e-6, atol=1e-7)  # the same initial kernels
    tol = 1e-3 if kwargs["mode"] == "angle" else 1e-4
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_magnitude_is_numpys_fft():
    layer = L.STFTSpectrogram(mode="magnitude", frame_length=16, frame_step=16, window=None, scaling=None,
                              dtype="float64")
    x = np.random.default_rng(1).standard_normal((1, 64, 1))
    frames = x[0, :, 0].reshape(4, 16)
    want = np.abs(np.fft.rfft(frames, axis=1))
    np.testing.assert_allclose(layer(x).numpy()[0], want, rtol=1e-9, atol=1e-9)


def test_trainable_kernels_get_gradients():
    layer = L.STFTSpectrogram(mode="log", frame_length=8)
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(layer(_X))
    grads = tape.gradient(loss, layer.trainable_weights)
    assert [w.name.split("/")[-1] for w in layer.trainable_weights] == ["real_kernel", "imag_kernel"]
    assert all(np.abs(ds.convert_to_tensor(g).numpy()).sum() > 0 for g in grads)


def test_config_round_trip():
    layer = L.STFTSpectrogram(mode="psd", frame_length=12, frame_step=5, fft_length=16, window="hamming",
                              periodic=True, scaling="spectrum", padding="same", expand_dims=True)
    config = layer.get_config()
    again = L.STFTSpectrogram.from_config(config)
    assert again.get_config() == config
    np.testing.assert_allclose(again(_X).numpy(), layer(_X).numpy(), rtol=1e-6)


@pytest.mark.parametrize("kwargs", [dict(mode="power"), dict(frame_step=0), dict(frame_length=8, frame_step=9),
                                    dict(frame_length=8, fft_length=4), dict(padding="causal"),
                                    dict(window="kaiser_unknown"), dict(scaling="power"), dict(data_format="x")])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        L.STFTSpectrogram(**kwargs)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="rank 3"):
        L.STFTSpectrogram(frame_length=4)(np.zeros((2, 8), np.float32))
    with pytest.raises(TypeError, match="float"):
        L.STFTSpectrogram(frame_length=4)(np.zeros((1, 8, 1), np.int32))
