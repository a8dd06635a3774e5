"""Saving over what is there, and saving when the disk refuses (issue 38, items 8, 9 and 14).

Each table row names the item it holds; every row failed on the main branch before the fix:
* a replaced file keeps the mode (and owner, where the writer may set it) of the file it replaces;
* a save still running in another process keeps its temporary files while this process saves the same
  target (only a killed save's leftovers are cleared: tests/test_kill.py holds that half);
* a full disk (ENOSPC), the file-size limit (EFBIG, RLIMIT_FSIZE) and a read-only folder give an error
  naming the target, never only a temporary name, and leave the old file as it was and no temporary file.
"""

import errno
import os
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import descend as ds

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(ds.__file__)))  # the descend under test


def _model():
    model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(4), ds.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 2), np.float32), epochs=1, verbose=0)
    return model


SAVES = {  # target -> (write it, is it a file)
    "m.keras": (lambda model, path: model.save(path), True),
    "w.weights.h5": (lambda model, path: model.save_weights(path), True),
    "model": (lambda model, path: model.save(path), False),
    "weights": (lambda model, path: model.save_weights(path), False),
    "ckpt": (lambda model, path: ds.train.Checkpoint(model=model).write(path), False),
}


def _tmp_names(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith(".tmp-"))


# ---------------------------------------------------------------------------------------------------------------
# item 8: the replaced file's mode and owner
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
@pytest.mark.parametrize("name", sorted(SAVES))
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755])
def test_saving_over_a_file_keeps_its_mode(tmp_path, name, mode):
    save, _ = SAVES[name]
    model, path = _model(), str(tmp_path / name)
    save(model, path)
    os.chmod(path, mode)
    save(model, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == mode


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="setting another owner needs root")
@pytest.mark.parametrize("name", ["m.keras", "w.weights.h5"])
def test_saving_over_a_file_keeps_its_owner_where_allowed(tmp_path, name):
    save, _ = SAVES[name]
    model, path = _model(), str(tmp_path / name)
    save(model, path)
    os.chown(path, 4321, 4322)
    os.chmod(path, 0o600)
    save(model, path)
    st = os.stat(path)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 4322, 0o600)


def test_a_new_file_gets_the_usual_mode(tmp_path):
    old = os.umask(0o022)
    try:
        SAVES["m.keras"][0](_model(), str(tmp_path / "m.keras"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "m.keras").st_mode) == 0o644


# ---------------------------------------------------------------------------------------------------------------
# item 9: a save running in another process keeps its temporary files
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
@pytest.mark.parametrize("name", sorted(SAVES))
def test_a_save_running_in_another_process_is_not_cleared(tmp_path, name):
    save, _ = SAVES[name]
    model, path = _model(), str(tmp_path / name)
    save(model, path)
    go_r, go_w = os.pipe()
    at_r, at_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # a second writer, stopped at its first rename until told to go on
        code = 1
        try:
            real_rename, real_replace = os.rename, os.replace
            first = [True]

            def stop(real):
                def wrapped(*a, **k):
                    if first[0]:
                        first[0] = False
                        os.write(at_w, b"x")
                        os.read(go_r, 1)
                    return real(*a, **k)
                return wrapped

            os.rename, os.replace = stop(real_rename), stop(real_replace)
            save(model, path)
            code = 0
        finally:
            os._exit(code)
    try:
        assert os.read(at_r, 1) == b"x"
        theirs = _tmp_names(tmp_path)
        assert theirs  # the other writer's temporary copy, written, not renamed yet
        save(model, path)  # this process saves the same target meanwhile
        assert set(theirs) <= set(_tmp_names(tmp_path)), "a live writer's temporary files were removed"
    finally:
        os.write(go_w, b"g")
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0  # the other save ended well
    assert _tmp_names(tmp_path) == []


# ---------------------------------------------------------------------------------------------------------------
# item 14: errors name the target
# ---------------------------------------------------------------------------------------------------------------
class _NoSpace:
    """A file whose writes fail as on a full disk."""

    def __init__(self, f):
        self._f = f

    def write(self, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


def _full_disk(monkeypatch, folder):
    import builtins

    real_open = builtins.open

    def fake_open(file, mode="r", *a, **k):
        f = real_open(file, mode, *a, **k)
        if any(c in mode for c in "wxa") and (isinstance(file, int) or os.fspath(file).startswith(str(folder))):
            return _NoSpace(f)
        return f

    monkeypatch.setattr(builtins, "open", fake_open)


def _read_only(monkeypatch, folder):
    """As root, chmod does not stop a write: refuse it the way a read-only mount does (EROFS)."""
    real_open, real_mkdir = os.open, os.mkdir

    def ro_open(p, flags, *a, **k):
        if os.fspath(p).startswith(str(folder)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, "Read-only file system", os.fspath(p))
        return real_open(p, flags, *a, **k)

    def ro_mkdir(p, *a, **k):
        if os.fspath(p).startswith(str(folder)):
            raise OSError(errno.EROFS, "Read-only file system", os.fspath(p))
        return real_mkdir(p, *a, **k)

    monkeypatch.setattr(os, "open", ro_open)
    monkeypatch.setattr(os, "mkdir", ro_mkdir)


def _snapshot(path):
    if os.path.isdir(path):
        return {n: open(os.path.join(d, n), "rb").read() for d, _, names in os.walk(path) for n in names}
    return open(path, "rb").read()


@pytest.mark.parametrize("name", sorted(SAVES))
@pytest.mark.parametrize("fault,code", [(_full_disk, errno.ENOSPC), (_read_only, errno.EROFS)])
def test_a_refused_write_names_the_target_and_changes_nothing(tmp_path, monkeypatch, name, fault, code):
    save, _ = SAVES[name]
    folder = tmp_path / "out"
    folder.mkdir()
    model, path = _model(), str(folder / name)
    save(model, path)
    before = _snapshot(path)
    model.layers[0].kernel.assign(np.zeros((3, 4), np.float32))
    fault(monkeypatch, folder)
    with pytest.raises(OSError) as info:
        save(model, path)
    monkeypatch.undo()
    assert info.value.errno == code or f"[Errno {code}]" in str(info.value), str(info.value)
    assert path in str(info.value), str(info.value)
    assert _snapshot(path) == before
    assert _tmp_names(folder) == []


_FSIZE = textwrap.dedent("""
    import os, resource, sys
    import numpy as np
    import descend as ds
    name, path = sys.argv[1], sys.argv[2]
    model = ds.Sequential([ds.keras.Input((64,)), ds.layers.Dense(256)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 64), np.float32), np.ones((4, 256), np.float32), epochs=1, verbose=0)
    resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))  # the model's files are ~200 KB
    try:
        (model.save_weights if "weights" in name else model.save)(path)
    except OSError as e:
        print("ERRNO", e.errno, "|", e)
        sys.exit(0)
    print("SAVED")
""")


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE")
@pytest.mark.parametrize("name", sorted(SAVES))
def test_the_file_size_limit_names_the_target(tmp_path, name):
    path = str(tmp_path / name)
    proc = subprocess.run([sys.executable, "-c", _FSIZE, name, path], capture_output=True, text=True, timeout=300,
                          cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout.strip()
    assert out.startswith(f"ERRNO {errno.EFBIG} |"), out
    assert path in out, out
    assert not os.path.exists(path) and _tmp_names(tmp_path) == []


def test_the_error_keeps_its_class_and_errno():
    from descend.persistence import durable

    with pytest.raises(PermissionError) as info:
        with durable.naming_target("/x/target"):
            raise PermissionError(errno.EACCES, "Permission denied", "/x/.tmp-target-0123456789ab")
    assert info.value.errno == errno.EACCES and info.value.filename == "/x/target"
    assert ".tmp-target-0123456789ab" in str(info.value)


