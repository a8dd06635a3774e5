"""A short run of tools/kill_test.py: SIGKILL training four times (once per scenario: checkpoint every
step, accumulation, epoch backups with shuffling, Dropout), resume, compare bit for bit.
(The full run, with 40 kills, is `python tools/kill_test.py`.)"""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_killed_and_resumed_training_ends_with_the_uninterrupted_weights(tmp_path, capsys, monkeypatch):
    import kill_test

    monkeypatch.setenv("PYTHONPATH", os.path.join(os.path.dirname(__file__), ".."))
    code = kill_test.main(["--kills", "4", "--workdir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("final weights identical to the uninterrupted run: True; metrics.csv identical: True") == 4
    assert out.count("leftovers after the clean resume: []") == 4, out
    assert "every resume bit-exact: True" in out


# ---------------------------------------------------------------------------------------------------------------
# SIGKILL mid-save: what a killed save leaves is cleared by the next save of the same target
# ---------------------------------------------------------------------------------------------------------------
def _model(ds, np):
    model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(4), ds.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 2), np.float32), epochs=1, verbose=0)
    return model


_SAVES = {  # the target's name -> how to write it
    "m.keras": lambda ds, model, path: model.save(path),
    "w.weights.h5": lambda ds, model, path: model.save_weights(path),
    "model": lambda ds, model, path: model.save(path),
    "ckpt": lambda ds, model, path: ds.train.Checkpoint(model=model).write(path),
}


def _killed_mid_save(save, model, path, nth: int) -> bool:
    """Fork; the child saves and stops at its ``nth`` rename (the temporary copies written, none renamed
    yet, or the old folder moved aside); SIGKILL it there. True when it reached that rename."""
    import signal

    import descend as ds

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(r)
            calls = [0]
            real_rename, real_replace = os.rename, os.replace

            def stop_at(real):
                def wrapped(*a, **k):
                    calls[0] += 1
                    if calls[0] == nth:
                        os.write(w, b"x")
                        while True:
                            signal.pause()
                    return real(*a, **k)
                return wrapped

            os.rename, os.replace = stop_at(real_rename), stop_at(real_replace)
            save(ds, model, path)
        finally:
            os._exit(0)
    os.close(w)
    reached = os.read(r, 1) == b"x"
    os.close(r)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return reached


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork and SIGKILL")
@pytest.mark.parametrize("name", sorted(_SAVES))
def test_kills_mid_save_then_one_clean_save_leave_nothing_behind(tmp_path, name):
    import numpy as np

    import descend as ds

    model, save = _model(ds, np), _SAVES[name]
    path = str(tmp_path / name)
    save(ds, model, path)
    (tmp_path / ".tmp-notes").write_text("mine")  # a user's files, named alike: never touched
    (tmp_path / f".tmp-{name}-draft").write_text("mine")
    reached = [_killed_mid_save(save, model, path, nth) for nth in (3, 2, 1)]  # the last one always lands
    assert any(reached)
    left = sorted(n for n in os.listdir(tmp_path) if n.startswith(".tmp-") and n not in (".tmp-notes",
                                                                                           f".tmp-{name}-draft"))
    assert left, "the kills left nothing: they did not land mid-save"
    save(ds, model, path)
    assert sorted(os.listdir(tmp_path)) == sorted([name, ".tmp-notes", f".tmp-{name}-draft"]), left
    if name == "m.keras":
        ds.keras.models.load_model(path)
    elif name == "model":
        ds.models.load_model(path)
