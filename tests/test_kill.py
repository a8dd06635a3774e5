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
    assert "every resume bit-exact: True" in out
