"""keras.utils.audio_dataset_from_directory (descend/keras/utils.py) against Keras'."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds


def _folder(tmp_path):
    rng = np.random.default_rng(0)
    for cls, lengths in (("dog", [5, 9, 3]), ("cat", [7, 4])):
        (tmp_path / cls).mkdir()
        for i, n in enumerate(lengths):
            clip = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
            (tmp_path / cls / f"{i}.wav").write_bytes(ds.audio.encode_wav(clip, 16000).numpy())
    (tmp_path / "cat" / "notes.txt").write_text("not audio")
    return str(tmp_path)


def _collect(d):
    out = []
    for batch in d:
        parts = batch if isinstance(batch, tuple) else (batch,)
        out.append([np.asarray(p.numpy()) for p in parts])
    return out


@pytest.mark.parametrize("kwargs", [
    {"shuffle": False, "batch_size": 2},
    {"shuffle": False, "batch_size": 2, "output_sequence_length": 6, "label_mode": "categorical"},
    {"shuffle": False, "batch_size": None, "label_mode": "binary"},
    {"shuffle": False, "batch_size": 3, "label_mode": None},
    {"shuffle": True, "seed": 3, "batch_size": 2, "validation_split": 0.4, "subset": "validation"},
])
def test_batches_equal_kerass(tmp_path, kwargs):
    keras = pytest.importorskip("keras")
    folder = _folder(tmp_path)
    ours = ds.keras.utils.audio_dataset_from_directory(folder, verbose=False, **kwargs)
    theirs = keras.utils.audio_dataset_from_directory(folder, verbose=False, **kwargs)
    assert ours.class_names == theirs.class_names
    a, b = _collect(ours), _collect(theirs)
    if kwargs.get("shuffle"):  # the files of the split are Keras'; the order within it is descend's shuffle
        assert sorted(int(v) for batch in a for v in batch[1]) == sorted(int(v) for batch in b for v in batch[1])
        assert sum(len(x[0]) for x in a) == sum(len(x[0]) for x in b)
        return
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert len(x) == len(y)
        for u, v in zip(x, y):
            assert u.shape == v.shape and u.dtype == v.dtype
            np.testing.assert_array_equal(u, v)


def test_refusals(tmp_path):
    folder = _folder(tmp_path)
    with pytest.raises(NotImplementedError, match="sampling_rate"):
        ds.keras.utils.audio_dataset_from_directory(folder, sampling_rate=8000)
    with pytest.raises(NotImplementedError, match="ragged"):
        ds.keras.utils.audio_dataset_from_directory(folder, ragged=True)
    with pytest.raises(ValueError, match="label_mode='binary' needs 2 classes"):
        (tmp_path / "emu").mkdir()
        ds.keras.utils.audio_dataset_from_directory(folder, label_mode="binary", verbose=False)
