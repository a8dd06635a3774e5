"""tf.train.get_checkpoint_state (descend/persistence/checkpoint/checkpoint_state.py): the state file TF writes, read as TF reads it."""

from __future__ import annotations

import os

import pytest

import descend as ds


def test_reads_the_state_tensorflows_manager_writes_as_tensorflow_does(tmp_path):
    tf = pytest.importorskip("tensorflow")
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(tmp_path), max_to_keep=2)
    for _ in range(3):
        manager.save()
    theirs = tf.train.get_checkpoint_state(str(tmp_path))
    ours = ds.train.get_checkpoint_state(str(tmp_path))
    assert ours.model_checkpoint_path == theirs.model_checkpoint_path
    assert ours.all_model_checkpoint_paths == list(theirs.all_model_checkpoint_paths)
    assert ours.all_model_checkpoint_timestamps == pytest.approx(list(theirs.all_model_checkpoint_timestamps))
    assert ours.last_preserved_timestamp == pytest.approx(theirs.last_preserved_timestamp)
    assert len(ours.all_model_checkpoint_paths) == 2


@pytest.mark.parametrize("text,model,all_paths", [
    ('model_checkpoint_path: "b"\nall_model_checkpoint_paths: "a"\nall_model_checkpoint_paths: "b"\n', "b", ["a", "b"]),
    ('model_checkpoint_path: "/abs/x"\n', "/abs/x", []),
    ('# comment\nmodel_checkpoint_path: "caf\\303\\251"\nlast_preserved_timestamp: 12.5\n', "caf\u00e9", []),
])
def test_relative_paths_join_the_folder(tmp_path, text, model, all_paths):
    (tmp_path / "checkpoint").write_text(text)
    state = ds.train.get_checkpoint_state(tmp_path)
    join = lambda p: p if os.path.isabs(p) else os.path.join(str(tmp_path), p)  # noqa: E731
    assert state.model_checkpoint_path == join(model)
    assert state.all_model_checkpoint_paths == [join(p) for p in all_paths]
    tf = pytest.importorskip("tensorflow")
    theirs = tf.train.get_checkpoint_state(str(tmp_path))
    assert (state.model_checkpoint_path, state.all_model_checkpoint_paths) == (
        theirs.model_checkpoint_path, list(theirs.all_model_checkpoint_paths))


def test_no_state_file_is_none_and_a_custom_name_is_read(tmp_path):
    assert ds.train.get_checkpoint_state(tmp_path) is None
    (tmp_path / "mine").write_text('model_checkpoint_path: "m"\n')
    assert ds.train.get_checkpoint_state(tmp_path) is None
    assert ds.train.get_checkpoint_state(tmp_path, "mine").model_checkpoint_path == os.path.join(str(tmp_path), "m")


@pytest.mark.parametrize("text,match", [
    ('all_model_checkpoint_paths: "a"\n', "Invalid checkpoint state"),
    ("model_checkpoint_path: 3\n", "expects a string"),
    ('unknown_field: "a"\n', "not a CheckpointState field"),
    ('model_checkpoint_path: "a\n', "not a CheckpointState field"),
])
def test_bad_state_files_are_refused(tmp_path, text, match):
    (tmp_path / "checkpoint").write_text(text)
    with pytest.raises(ValueError, match=match):
        ds.train.get_checkpoint_state(tmp_path)


def test_descends_own_manager_folder_names_its_newest(tmp_path):
    manager = ds.train.CheckpointManager(ds.train.Checkpoint(w=ds.Variable([1.0])), str(tmp_path), max_to_keep=2)
    manager.save()
    newest = manager.save()
    state = ds.train.get_checkpoint_state(tmp_path)
    assert state.model_checkpoint_path == newest == ds.train.latest_checkpoint(tmp_path)
