"""``compat.v1.train.Saver()`` after ``clear_session()`` lists only the variables made since, as after TF's
graph reset (issue 38, small defect): in a fresh process, where ``clear_session`` runs before ``compat.v1`` is
first imported, and in this one."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import descend as ds

_FRESH = textwrap.dedent("""
    import descend as ds
    old = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2)])
    ds.clear_session()
    w = ds.Variable([1.0], name="w")
    print(sorted(ds.compat.v1.train.Saver()._vars()))
    print(sorted(v.op.name for v in ds.compat.v1.global_variables()))
""")


def test_saver_after_clear_session_in_a_fresh_process_lists_only_new_variables(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(ds.__file__)))
    proc = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True, timeout=300,
                          cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=root))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == ["['w']", "['w']"]


def test_saver_after_clear_session_restores_a_checkpoint_of_the_new_model(tmp_path):
    old = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2)])
    ds.clear_session()
    model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2)])
    saver = ds.compat.v1.train.Saver()
    path = saver.save(None, str(tmp_path / "c"))
    kernel = model.layers[0].kernel
    before = kernel.numpy().copy()
    kernel.assign(np.zeros_like(before))
    ds.compat.v1.train.Saver().restore(None, path)  # nothing of `old` is asked for
    assert np.array_equal(kernel.numpy(), before)
    assert old.built
