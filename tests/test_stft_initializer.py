"""``keras.initializers.STFT`` (in descend.initializers; also named ``STFTInitializer``, ``stft``): equal to Keras' values for each
side, window, scaling and periodicity (skips without Keras), configs and refusals."""

import numpy as np
import pytest

import descend as ds

I = ds.initializers


@pytest.mark.parametrize("side", ["real", "imag"])
@pytest.mark.parametrize("window, periodic", [("hann", False), ("hann", True), ("hamming", False),
                                              ("blackman", True), ("bartlett", False), ("boxcar", False),
                                              (None, False)])
@pytest.mark.parametrize("scaling", ["density", "spectrum", None])
def test_values_equal_keras(side, window, periodic, scaling):
    keras = pytest.importorskip("keras")
    for shape in [(8, 1, 5), (7, 1, 9), (1, 1, 2)]:
        want = np.asarray(keras.initializers.STFT(side, window, scaling, periodic)(shape))
        got = I.STFT(side, window, scaling, periodic)(shape).numpy()
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=str(shape))


def test_windows_match_their_formulas():
    np.testing.assert_allclose(I.STFT(window="hann", scaling=None, side="real")((5, 1, 2)).numpy()[:, 0, 0],
                               [0.0, 0.5, 1.0, 0.5, 0.0], atol=1e-7)
    periodic = I.STFT(window="hann", scaling=None, periodic=True)((4, 1, 2)).numpy()[:, 0, 0]
    np.testing.assert_allclose(periodic, [0.0, 0.5, 1.0, 0.5], atol=1e-7)
    given = I.STFT(window=[1.0, 2.0, 3.0], scaling="spectrum")((3, 1, 2)).numpy()[:, 0, 0]
    np.testing.assert_allclose(given, [1 / 6, 2 / 6, 3 / 6], rtol=1e-6)


def test_names_config_and_float64():
    assert I.STFTInitializer is I.stft is I.STFT is ds.keras.initializers.STFT
    init = I.get("stft")
    assert isinstance(init, I.STFT)
    custom = I.STFT(side="imag", window="hamming", scaling="spectrum", periodic=True)
    again = I.deserialize(I.serialize(custom))
    assert again.get_config() == custom.get_config()
    np.testing.assert_array_equal(again((6, 1, 4)).numpy(), custom((6, 1, 4)).numpy())
    assert custom((6, 1, 4), dtype="float64").dtype == ds.float64


@pytest.mark.parametrize("kwargs", [dict(side="both"), dict(window="kaiser_unknown"), dict(scaling="power"),
                                    dict(window=[[1.0, 2.0]])])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        I.STFT(**kwargs)


def test_bad_calls_are_refused():
    with pytest.raises(ValueError, match="frame_length"):
        I.STFT()((4, 3))
    with pytest.raises(ValueError, match="values"):
        I.STFT(window=[1.0, 2.0])((3, 1, 2))
    with pytest.raises(ValueError, match="float"):
        I.STFT()((3, 1, 2), dtype="int32")
