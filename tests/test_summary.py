"""tf.summary (descend/summary.py): event files read back by TF's reader equal to those TF writes."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest

import descend as ds


def _write(m, logdir):
    writer = m.summary.create_file_writer(logdir)
    with writer.as_default(step=3):
        m.summary.scalar("loss", 0.5)
        m.summary.scalar("acc", np.float64(0.25), step=7, description="accuracy")
        m.summary.text("note", "hello")
        m.summary.text("notes", m.constant([["a", "b"]]))
        m.summary.histogram("h", [1.0, 2.0, 2.5, 10.0], buckets=3)
        m.summary.histogram("h_default", np.linspace(-3, 5, 101))
        m.summary.histogram("h_one_value", [2.0, 2.0], buckets=4)
        m.summary.histogram("h_empty", np.zeros(0), buckets=2)
        m.summary.image("img", np.linspace(0, 1, 2 * 4 * 5 * 3).reshape(2, 4, 5, 3).astype(np.float32), max_outputs=1)
        m.summary.image("img8", (np.arange(2 * 3 * 1) * 40).reshape(1, 2, 3, 1).astype(np.uint8))
        m.summary.write("raw", m.constant([[1, 2], [3, 4]]), step=9)
        with m.summary.record_if(False):
            assert not bool(m.summary.scalar("skipped", 1.0))
    writer.close()
    return glob.glob(os.path.join(logdir, "events.out.tfevents.*"))


def test_events_equal_tensorflows(tmp_path):
    tf = pytest.importorskip("tensorflow")
    ours = _write(ds, str(tmp_path / "ours"))
    theirs = _write(tf, str(tmp_path / "theirs"))
    assert len(ours) == len(theirs) == 1

    def events(path):
        out = []
        for e in tf.compat.v1.train.summary_iterator(path):
            e.wall_time = 0
            e.ClearField("source_metadata")
            out.append(e.SerializeToString(deterministic=True))
        return out

    assert events(ours[0]) == events(theirs[0])


def test_without_tensorflow(tmp_path):
    assert ds.summary.scalar("no_writer", 1.0) is False
    writer = ds.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set"):
            ds.summary.scalar("x", 1.0)
        ds.summary.experimental.set_step(5)
        assert ds.summary.experimental.get_step() == 5 and ds.summary.scalar("x", 1.0) is True
        with pytest.raises(ValueError, match="must be a scalar"):
            ds.summary.scalar("x", [1.0, 2.0])
        with pytest.raises(ValueError, match=r"\[k, h, w, c\]"):
            ds.summary.image("x", np.zeros((2, 2, 3)))
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        with writer.as_default(step=1):
            ds.summary.scalar("x", 1.0)
    ds.summary.experimental.set_step(None)
    noop = ds.summary.create_noop_writer()
    with noop.as_default(step=1):
        assert ds.summary.scalar("x", 1.0) is True
