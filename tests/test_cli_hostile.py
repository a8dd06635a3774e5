"""Hostile and careless data for the ``descend`` command: CSV and ``.npz`` files, run folders for
``descend predict``, ``--out`` and ``--output`` paths.

Every case is one line on stderr, exit code 2 and nothing written; the tables name the exact error
each input gives. The memory bounds are checked in subprocesses under ``RLIMIT_AS``: a clear error,
never ``MemoryError``. (Issue 25, items 7, 8, 9, 11, 13, 14.)
"""

import csv
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

from descend.cli import main
from descend.cli.tabular import DataError, read_csv, read_npz

ROOT = os.path.join(os.path.dirname(__file__), "..")
LINUX = sys.platform.startswith("linux")


def _lines(n=40, sep=","):
    return "".join(f"{i}{sep}{i * 2}{sep}{i % 2}\n" for i in range(n))


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def _load(path):
    with open(path) as f:
        return json.load(f)


def _sparse(path, size):
    open(path, "w").close()
    os.truncate(path, size)


def _save_npy(path):
    with open(path, "wb") as f:
        np.save(f, np.ones(3))


def _npz(path, **arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _npz_declaring(path, shape, dtype="<f8"):
    """An .npz whose x declares ``shape`` but holds 16 bytes (its header alone says the size)."""
    header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': {tuple(shape)}, }}"
    header += " " * (-(len(header) + 11) % 64) + "\n"
    npy = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 16
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("x.npy", npy)
        z.writestr("y.npy", npy)


def _zip_declaring_directory(path, size):
    """A zip whose end record declares a central directory of ``size`` bytes (the file is 1 KiB)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("x.npy", b"")
    raw = bytearray(buf.getvalue())
    i = raw.rfind(b"PK\x05\x06")
    raw[i + 12:i + 16] = size.to_bytes(4, "little")
    _write(path, bytes(raw))


# (id, file name, content: text, bytes or a function of the path, extra flags, the error's text after "PATH: ")
CSV_CASES = [
    ("long-field", "f.csv", "a,b,label\n" + _lines(35) + "1,2," + "x" * 200_000 + "\n", [],
     "line 37: a cell is longer than 131,072 characters, the most the CSV reader takes"),
    ("sparse-2GB", "s.csv", lambda p: _sparse(p, 2 * 2**30), [], "not a text file (line 1 holds a NUL byte)"),
    ("nul-byte", "n.csv", "a,b,label\n" + _lines(5) + "1,\0,1\n" + _lines(30), [],
     "not a text file (line 7 holds a NUL byte)"),
    ("utf-16", "u.csv", ("a,b,label\n" + _lines()).encode("utf-16"), [], "the file is UTF-16 or UTF-32 text; save it "
                                                                          "as UTF-8"),
    ("utf-32", "u.csv", ("a,b,label\n" + _lines()).encode("utf-32"), [], "the file is UTF-16 or UTF-32 text"),
    ("underscore-number", "us.csv", "a,b,label\n" + _lines(35) + "1_000,1,0\n", [],
     "feature columns must be numeric; found text at line 37, column 'a': '1_000'"),
    ("arabic-digits", "ar.csv", "a,b,label\n" + _lines(35) + "\u0661\u0662,1,0\n", [],
     "feature columns must be numeric; found text at line 37, column 'a': '\u0661\u0662'"),
    ("latin-1", "l.csv", b"a,b,label\n" + "".join(f"{i},{i},caf\xe9\n" for i in range(40)).encode("latin-1"), [],
     "not a UTF-8 text file (line 2: byte 8 of the line cannot be decoded)"),
    ("line-over-32MiB", "w.csv", "a,b,label\n" + "1" * (33 << 20) + "\n", [],
     "line 2 is longer than 32 MiB; rows of at most 32 MiB are read (is this a CSV file?)"),
    ("too-many-fields", "m.csv", ",".join(["1"] * ((1 << 20) + 5)) + "\n", [],
     "the row ending at line 1 has more than 1,048,576 fields; at most that many are read"),
    ("quote-never-closed", "q.csv", "a,b,label\n" + _lines(35) + '1,2,"x\n' + _lines(5), [],
     "the quoted cell of the row starting at line 37 is not closed by the end of the file"),
    ("bad-quoting", "b.csv", "a,b,label\n" + _lines(35) + '1,"2"3,x\n', [],
     "line 37: not a well-formed CSV row (',' expected after '\"')"),
    ("lone-cr", "c.csv", "a,b,label\r" + _lines(40).replace("\n", "\r"), [],
     "line 1: lines end with a lone carriage return (\\r); save the file with \\n or \\r\\n line ends"),
    ("ragged", "r.csv", "a,b,label\n" + _lines(5) + "1,2\n" + _lines(5) + "1,2,3,4\n", [],
     "line 7 has 2 fields; line 13 has 4 fields (the header has 3)"),
    ("nan-cell", "nan.csv", "a,b,label\n" + _lines(35) + "NaN,1,0\n", [],
     "1 missing value(s): line 37, column 'a'; fill or remove those rows"),
    ("inf-cell", "inf.csv", "a,b,label\n" + _lines(35) + "1,-Infinity,0\n", [], "infinite value at line 37, column 'b'"),
    ("overflow-cell", "o.csv", "a,b,label\n" + _lines(35) + "1,1e999,0\n", [], "infinite value at line 37, column 'b'"),
    ("huge-numbers", "h.csv", "a,b,label\n" + "".join(f"{i},{1e308 * (-1) ** i},{i % 2}\n" for i in range(40)), [],
     "column 'b' holds values too large to standardize (up to 1e+308); rescale it"),
    ("nan-label", "nl.csv", "a,b,y\n" + "".join(f"{i},{i},{i * 0.37}\n" for i in range(39)) + "1,2,nan\n", [],
     "label 'y' is not finite at line 41: 'nan'"),
    ("text-feature", "t.csv", "a,b,label\n" + _lines(35) + "1,two,0\n", [],
     "feature columns must be numeric; found text at line 37, column 'b': 'two'"),
    ("many-text-labels", "ml.csv", "a,b,label\n" + "".join(f"{i},{i},c{i}\n" for i in range(1100)), [],
     "the label column 'label' holds text (e.g. 'c0' at line 2) and more than 1,000 distinct values; text labels are "
     "classes, at most 1,000"),
    ("header-twice", "d.csv", "a,a,label\n" + _lines(), [], "the header names column 'a' twice"),
    ("header-only", "ho.csv", "a,b,label\n", [], "the header has no data rows under it"),
    ("table-over-bound", "big.csv", "a,b,label\n" + _lines(60_000), ["--max-data-mb", "1"],
     "the table is larger than 1 MiB, the most descend reads (more than 37,449 rows of 2 features as 8-byte numbers); "
     "pass --max-data-mb to allow more"),
    ("fifo", "p.csv", lambda p: os.mkfifo(p), [], "the data file is a named pipe (fifo), not a regular file"),
    ("dev-zero", "z.csv", lambda p: os.symlink("/dev/zero", p), [],
     "the data file is a symbolic link to /dev/zero, which is a character device, not a regular file"),
    ("folder", "dir.csv", lambda p: os.mkdir(p), [], "is a folder; --data needs a .csv or .npz file"),
    ("dangling-link", "gone.csv", lambda p: os.symlink(p + ".nowhere", p), [], "which does not exist"),
]

NPZ_CASES = [
    ("empty-x", lambda p: _npz(p, x=np.zeros((0, 5)), y=np.zeros(0)), "x has no rows (shape (0, 5))"),
    ("no-features", lambda p: _npz(p, x=np.zeros((40, 0)), y=np.zeros(40)), "x has no features (shape (40, 0))"),
    ("declared-2TB", lambda p: _npz_declaring(p, (2**38, 1)),
     "array 'x' declares shape (274877906944, 1) of float64 (2,097,152 MiB as descend holds it), more than 1,024 MiB, "
     "the most descend reads; pass --max-data-mb to allow more (refused before reading it)"),
    ("zip-directory-2GB", lambda p: _zip_declaring_directory(p, 2**31),
     "not a readable .npz file (its zip directory declares 2,048 MiB for 1 arrays; at most 1 MiB for 1,000 arrays "
     "are read)"),
    ("pickled", lambda p: _npz(p, x=np.array([{"a": 1}] * 40, dtype=object), y=np.zeros(40)),
     "holds object (pickled) arrays, which are not read"),
    ("complex-x", lambda p: _npz(p, x=np.ones((40, 2), complex), y=np.zeros(40)),
     "x must be numeric; received dtype complex128"),
    ("npy-not-npz", _save_npy, "not a readable .npz file (not a zip archive)"),
    ("float16-inf", lambda p: _npz(p, x=np.full((40, 2), np.inf, np.float16), y=np.arange(40) % 2),
     "x contains NaN or infinite values (first at row 0)"),
    ("truncated", lambda p: (_npz(p, x=np.ones((400, 20)), y=np.zeros(400)), os.truncate(p, 3000)),
     "not a readable .npz file"),
    ("many-text-labels", lambda p: _npz(p, x=np.ones((1100, 2)), y=np.array([f"c{i}" for i in range(1100)])),
     "y holds 1,100 distinct texts; text labels are classes, at most 1,000"),
]


def _one_line_exit_2(argv, capsys, tmp_path):
    listing = sorted(os.listdir(tmp_path))
    capsys.readouterr()
    code = main(argv)
    out = capsys.readouterr()
    lines = [line for line in out.err.splitlines() if line.strip()]
    assert code == 2, (argv, out.err)
    assert len(lines) == 1 and "Traceback" not in out.err and out.out == "", out.err
    assert sorted(os.listdir(tmp_path)) == listing  # no run folder appeared
    return lines[0]


@pytest.mark.skipif(not LINUX, reason="fifos, /dev/zero, sparse files")
@pytest.mark.parametrize("name,content,flags,message", [pytest.param(*c[1:], id=c[0]) for c in CSV_CASES])
def test_hostile_csv_is_one_line_exit_2(tmp_path, capsys, name, content, flags, message):
    path = str(tmp_path / name)
    content(path) if callable(content) else _write(path, content)
    line = _one_line_exit_2(["train", "--data", path, "--out", str(tmp_path / "run"), *flags], capsys, tmp_path)
    assert line.startswith("descend train: error: ") and message in line, line


@pytest.mark.parametrize("make,message", [pytest.param(*c[1:], id=c[0]) for c in NPZ_CASES])
def test_hostile_npz_is_one_line_exit_2(tmp_path, capsys, make, message):
    path = str(tmp_path / "d.npz")
    make(path)
    line = _one_line_exit_2(["train", "--data", path, "--out", str(tmp_path / "run")], capsys, tmp_path)
    assert f"descend train: error: {path}: {message}" in line, line


def test_a_headerless_csv_with_text_labels_keeps_its_first_row(tmp_path):
    """Issue 25 item 13: the first row of a headerless file is data (60 rows, not 59)."""
    rows = [f"{5 + i % 3}.{i % 10},{3 + i % 2}.5,{('setosa', 'virginica')[i % 2]}" for i in range(60)]
    (tmp_path / "h.csv").write_text("\n".join(rows) + "\n")
    t = read_csv(tmp_path / "h.csv")
    assert t.x.shape == (60, 2) and t.feature_names == ["column_1", "column_2"] and t.label_name == "column_3"
    assert list(t.labels[:2]) == ["setosa", "virginica"] and t.x[0].tolist() == [5.0, 3.5]
    # a header is still found by its text over columns of numbers, decimal commas and missing values included
    (tmp_path / "a.csv").write_text("x;y;kind\n1;1,5;a\n2;2,5;b\n")
    assert read_csv(tmp_path / "a.csv").feature_names == ["x", "y"]
    (tmp_path / "m.csv").write_text("x,y,kind\n1,NA,a\n2,3,b\n")
    with pytest.raises(DataError, match="1 missing value\\(s\\): line 2, column 'y'"):
        read_csv(tmp_path / "m.csv")


def test_a_quoted_line_break_stays_in_the_value(tmp_path, capsys):
    """Issue 25 item 13: the label "two\\nlines" is one class with its line break, not "twolines"."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["a", "b", "label"])
    for i in range(60):
        w.writerow([i % 7, i % 5, "two\nlines" if i % 2 else "one"])
    (tmp_path / "q.csv").write_text(buf.getvalue())
    t = read_csv(tmp_path / "q.csv")
    assert sorted(set(t.labels)) == ["one", "two\nlines"] and len(t.labels) == 60
    assert main(["train", "--data", str(tmp_path / "q.csv"), "--epochs", "1", "--hidden", "4",
                 "--out", str(tmp_path / "run")]) == 0
    classes = json.loads((tmp_path / "run" / "config.json").read_text())["data"]["classes"]
    assert classes == ["one", "two\nlines"]
    capsys.readouterr()


def test_npz_byte_string_labels_are_text(tmp_path):
    _npz(tmp_path / "b.npz", x=np.arange(80.0).reshape(40, 2), y=np.array([b"cat", b"dog"] * 20))
    t = read_npz(tmp_path / "b.npz")
    assert list(t.labels[:2]) == ["cat", "dog"]  # not "b'cat'"


def test_the_table_bound_counts_before_it_allocates(tmp_path):
    """The declared shape of an .npz array is refused before its bytes are read, and a CSV stops
    growing its table at the bound (the error says how many rows fitted)."""
    _npz(tmp_path / "x.npz", x=np.ones((1000, 100)), y=np.zeros(1000))
    with pytest.raises(DataError) as info:
        read_npz(tmp_path / "x.npz", max_bytes=100_000)
    assert ("array 'x' declares shape (1000, 100) of float64 (800,000 bytes as descend holds it), more than "
            "100,000 bytes") in str(info.value)
    (tmp_path / "x.csv").write_text("a,b,y\n" + _lines(10_000))
    with pytest.raises(DataError, match="the table is larger than 100,000 bytes"):
        read_csv(tmp_path / "x.csv", max_bytes=100_000)
    assert read_csv(tmp_path / "x.csv", max_bytes=400_000).x.shape == (10_000, 2)


# ---------------------------------------------------------------- run folders for predict
@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("run")
    data = base / "d.csv"
    data.write_text("a,b,label\n" + "".join(f"{i % 7},{i % 5},{'xy'[i % 2]}\n" for i in range(60)))
    assert main(["train", "--data", str(data), "--epochs", "1", "--hidden", "4", "--out", str(base / "run")]) == 0
    return str(base / "run"), str(data)


def _deep(n):
    return "[" * n + "]" * n


def _edit(config, **changes):
    config = json.loads(json.dumps(config))
    for where, value in changes.items():
        section, key = where.split("__")
        config[section][key] = value
    return config


RUN_CASES = [
    ("nested-100k", lambda c, p: _write(p, '{"settings": ' + _deep(100_000) + "}"),
     "cannot read the run's settings (config.json) (its JSON nests too deeply)"),
    ("sparse-3GB", lambda c, p: (_write(p, "{}"), os.truncate(p, 3 * 10**9)),
     "the run's settings (config.json) has 3,000,000,000 bytes; at most 134,217,728 are read (refused without "
     "reading it)"),
    ("many-values", lambda c, p: _write(p, '{"a": [' + "0," * 4_300_000 + "0]}"),
     "holds more than 4,294,304 values; refused before parsing"),
    ("hidden-2e9", lambda c, p: _write(p, json.dumps(_edit(c, settings__hidden=2e9))),
     "the saved setting 'hidden' is 2000000000.0; expected an integer in [1, 16384]"),
    ("hidden-bool", lambda c, p: _write(p, json.dumps(_edit(c, settings__hidden=True))),
     "the saved setting 'hidden' is True; expected an integer in [1, 16384]"),
    ("optimizer-unknown", lambda c, p: _write(p, json.dumps(_edit(c, settings__optimizer="os.system"))),
     "the saved setting 'optimizer' is 'os.system'; expected one of sgd, momentum"),
    ("features-thrice", lambda c, p: _write(p, json.dumps(_edit(c, data__features=c["data"]["features"] * 3))),
     "data field 'features' names column 'a' more than once"),
    ("features-not-names", lambda c, p: _write(p, json.dumps(_edit(c, data__features=[1, 2]))),
     "data field 'features' must be a list of 1 to 1,048,576 column names; found [1, 2]"),
    ("mean-short", lambda c, p: _write(p, json.dumps(_edit(c, data__x_mean=[0.0]))),
     "data field 'x_mean' must be a list of 2 finite numbers (one per feature); found [0.0]"),
    ("std-zero", lambda c, p: _write(p, json.dumps(_edit(c, data__x_std=[0.0, 1.0]))),
     "data field 'x_std' must be a list of 2 finite positive numbers"),
    ("std-nan", lambda c, p: _write(p, json.dumps(_edit(c, data__x_std=[float("nan"), 1.0]))),
     "data field 'x_std' must be a list of 2 finite positive numbers"),
    ("std-1e999", lambda c, p: _write(p, json.dumps(_edit(c, data__x_std=[1.0, 1.0])).replace(
        '"x_std": [1.0, 1.0]', '"x_std": [1e999, 1.0]')), "data field 'x_std' must be a list of 2 finite positive"),
    ("classes-twice", lambda c, p: _write(p, json.dumps(_edit(c, data__classes=["x", "x"]))),
     "data field 'classes' names a class more than once"),
    ("classes-one", lambda c, p: _write(p, json.dumps(_edit(c, data__classes=["x"]))),
     "data field 'classes' must be a list of 2 to 1,000 class names or numbers"),
    ("task-unknown", lambda c, p: _write(p, json.dumps(_edit(c, data__task="ranking"))),
     "data field 'task' must be 'classification' or 'regression'; found 'ranking'"),
    ("clicks-1e7-users", lambda c, p: _write(p, json.dumps(dict(c, data={"source": "example clicks",
                                                                       "num_users": 10**7, "num_items": 10}))),
     "the model would have 160,000,170 weights (10,000,000 users and 10 items); at most 134,217,728 are built"),
    ("clicks-2e9-users", lambda c, p: _write(p, json.dumps(dict(c, data={"source": "example clicks",
                                                                       "num_users": 2 * 10**9, "num_items": 10}))),
     "data field 'num_users' must be an integer in [1, 134,217,728]; found 2000000000"),
    ("wide-and-deep", lambda c, p: _write(p, json.dumps(_edit(
        _edit(c, settings__hidden=16384), data__features=[f"f{j}" for j in range(9000)],
        data__x_mean=[0.0] * 9000, data__x_std=[1.0] * 9000))),
     "the model would have 415,956,994 weights (9,000 features and --hidden 16384 and 2 outputs); at most "
     "134,217,728 are built (lower --hidden, or use --model linear)"),
    ("not-an-object", lambda c, p: _write(p, "[1, 2]"), "the run's settings (config.json) is not a JSON object"),
    ("not-utf8", lambda c, p: _write(p, b'{"a": "\xff"}'), "cannot read the run's settings (config.json) "
                                                           "(UnicodeDecodeError"),
    ("big-integer", lambda c, p: _write(p, '{"a": ' + "9" * 5000 + "}"), "cannot read the run's settings"),
    ("config-is-dev-zero", lambda c, p: (os.unlink(p), os.symlink("/dev/zero", p)),
     "the settings (config.json) is a symbolic link to /dev/zero, which is a character device, not a regular file"),
    ("config-is-fifo", lambda c, p: (os.unlink(p), os.mkfifo(p)),
     "the settings (config.json) is a named pipe (fifo), not a regular file"),
]


@pytest.mark.skipif(not LINUX, reason="fifos, /dev/zero, sparse files")
@pytest.mark.parametrize("damage,message", [pytest.param(*c[1:], id=c[0]) for c in RUN_CASES])
def test_hostile_run_folder_for_predict_is_one_line_exit_2(finished_run, tmp_path, capsys, damage, message):
    run, data = finished_run
    copy = str(tmp_path / "run")
    shutil.copytree(run, copy)
    cpath = os.path.join(copy, "config.json")
    damage(_load(cpath), cpath)
    line = _one_line_exit_2(["predict", "--run", copy, "--data", data], capsys, tmp_path)
    assert line.startswith("descend predict: error: ") and message in line, line


def test_predict_still_reads_a_good_run(finished_run, capsys):
    run, data = finished_run
    capsys.readouterr()
    assert main(["predict", "--run", run, "--data", data]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 61


def test_a_hostile_saved_setting_is_refused_on_resume(finished_run, tmp_path, capsys):
    run, _ = finished_run
    copy = str(tmp_path / "run")
    shutil.copytree(run, copy)
    shutil.rmtree(os.path.join(copy, "final"))
    os.unlink(os.path.join(copy, "summary.json"))
    cpath = os.path.join(copy, "config.json")
    _write(cpath, json.dumps(_edit(_load(cpath), settings__hidden=2 * 10**9)))
    line = _one_line_exit_2(["train", "--out", copy, "--resume"], capsys, tmp_path)
    assert "the saved setting 'hidden' is 2000000000; expected an integer in [1, 16384]" in line, line


# ---------------------------------------------------------------- --output and --out paths
def _device(path):
    """A character device node like /dev/null, made in the test's folder: were the code under test to
    replace it, the machine's own /dev/null would stay (as root, a replaced /dev/null is the machine's)."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs CAP_MKNOD")
    return path


OUTPUT_CASES = [
    ("char-device", lambda p: _device(p), "is a character device; descend replaces only a regular file (leave "
                                          "--output out to write to stdout)"),
    ("fifo", lambda p: (os.mkfifo(p), p)[1], "is a named pipe (fifo); descend replaces only a regular file"),
    ("folder", lambda p: (os.mkdir(p), p)[1], "is a folder; name a file"),
    ("link-to-device", lambda p: (_device(p + "-dev"), os.symlink(p + "-dev", p), p)[2],
     "-dev) is a character device; descend replaces only a regular file"),
    ("nowhere", lambda p: p + "/no/such/folder/p.csv", "does not exist"),
]


@pytest.mark.skipif(not LINUX, reason="fifos and devices")
@pytest.mark.parametrize("make,message", [pytest.param(*c[1:], id=c[0]) for c in OUTPUT_CASES])
def test_predict_output_is_replaced_only_when_a_regular_file(finished_run, tmp_path, capsys, make, message):
    run, data = finished_run
    target = make(str(tmp_path / "out"))
    before = os.lstat(target) if os.path.lexists(target) else None
    line = _one_line_exit_2(["predict", "--run", run, "--data", data, "--output", target], capsys, tmp_path)
    assert message in line, line
    if before is not None:  # the same inode, the same kind: nothing replaced
        after = os.lstat(target)
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_predict_output_through_a_link_writes_its_target_and_never_follows_a_tmp_link(finished_run, tmp_path,
                                                                                      capsys):
    """Issue 25 item 9: a link to a regular file keeps being that link (its target gets the predictions);
    a ``PATH.tmp`` link planted beside it is neither followed nor removed."""
    run, data = finished_run
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (tmp_path / "link.csv.tmp").symlink_to(victim)
    (tmp_path / "real.csv.tmp").symlink_to(victim)
    assert main(["predict", "--run", run, "--data", data, "--output", str(link)]) == 0
    assert os.path.islink(link) and os.readlink(link) == str(real)
    with open(real) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 60 and set(rows[0]) == {"row", "prediction", "probability"}
    assert victim.read_text() == "precious\n"
    assert os.path.islink(tmp_path / "link.csv.tmp") and os.path.islink(tmp_path / "real.csv.tmp")
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")]  # no temporary file left
    dangling = tmp_path / "dangling.csv"
    dangling.symlink_to(tmp_path / "created.csv")  # a link to a free name: the file is created there
    assert main(["predict", "--run", run, "--data", data, "--output", str(dangling)]) == 0
    assert os.path.islink(dangling) and len((tmp_path / "created.csv").read_text().splitlines()) == 61
    capsys.readouterr()


@pytest.mark.skipif(not LINUX, reason="fifos")
@pytest.mark.parametrize("make,message", [
    pytest.param(lambda p: os.symlink(p + "-gone", p), "is a symbolic link to {p}-gone, which does not exist, not a "
                                                       "folder", id="dangling-link"),
    pytest.param(lambda p: os.mkfifo(p), "is a named pipe (fifo), not a folder", id="fifo"),
    pytest.param(lambda p: os.symlink("/dev/null", p), "is a symbolic link to /dev/null, which is a character "
                                                       "device, not a folder", id="link-to-device"),  # (not written)
])
def test_out_says_what_the_path_is(tmp_path, capsys, make, message):
    """Issue 25 item 14: a dangling --out link is not "a file"."""
    p = str(tmp_path / "out")
    make(p)
    line = _one_line_exit_2(["train", "--epochs", "1", "--out", p], capsys, tmp_path)
    assert message.format(p=p) in line, line


# ---------------------------------------------------------------- memory and time bounds
_UNDER_LIMIT = textwrap.dedent("""
    import contextlib, io, json, os, resource, sys
    from descend.cli import main
    import descend.cli.job, descend.cli.tabular, descend.cli.rundir, descend.cli.training, descend.checkpoint
    import matplotlib.figure
    def vm():
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    budget = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (vm() + budget, resource.RLIM_INFINITY))
    results = []
    for argv in json.loads(sys.argv[2]):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except MemoryError:
                code = "MemoryError"
        results.append([code, err.getvalue()])
    print(json.dumps(results))
""")


@pytest.mark.skipif(not LINUX, reason="RLIMIT_AS, /proc, sparse files")
def test_readers_keep_their_memory_bound_under_rlimit_as(finished_run, tmp_path):
    """Each reader refuses, with its one line, inputs whose naive reading would need gigabytes, in a
    process whose address space may grow by 600 MB only: the table, row and declared-size bounds hold
    (never a MemoryError)."""
    run, data = finished_run
    t = str(tmp_path)
    _sparse(f"{t}/sparse.csv", 2 * 2**30)
    with open(f"{t}/long.csv", "w") as f:  # a 40 MB line of digits
        f.write("a,b,label\n" + "1" * (40 << 20) + "\n")
    with open(f"{t}/rows.csv", "w") as f:  # 130 MB of rows against a 64 MiB table bound
        f.write("a,b,c,d,label\n")
        line = "1.5,2.5,3.5,4.5,1\n" * 10_000
        for _ in range(720):
            f.write(line)
    _npz_declaring(f"{t}/declared.npz", (2**40,))
    _zip_declaring_directory(f"{t}/directory.npz", 2**31)
    huge = f"{t}/huge-run"
    shutil.copytree(run, huge)
    open(f"{huge}/config.json", "w").close()
    os.truncate(f"{huge}/config.json", 3 * 10**9)
    deep = f"{t}/deep-run"
    shutil.copytree(run, deep)
    _write(f"{deep}/config.json", '{"settings": ' + _deep(100_000) + "}")
    wide = f"{t}/wide-run"
    shutil.copytree(run, wide)
    config = _load(f"{wide}/config.json")
    config["settings"]["hidden"] = 2 * 10**9
    _write(f"{wide}/config.json", json.dumps(config))
    out = f"{t}/out"
    cases = [
        (["train", "--data", f"{t}/sparse.csv", "--out", out], "not a text file (line 1 holds a NUL byte)"),
        (["train", "--data", f"{t}/long.csv", "--out", out], "line 2 is longer than 32 MiB"),
        (["train", "--data", f"{t}/rows.csv", "--out", out, "--max-data-mb", "64"], "the table is larger than 64 MiB"),
        (["train", "--data", f"{t}/declared.npz", "--out", out], "refused before reading it"),
        (["train", "--data", f"{t}/directory.npz", "--out", out], "its zip directory declares"),
        (["predict", "--run", huge, "--data", data], "has 3,000,000,000 bytes; at most"),
        (["predict", "--run", deep, "--data", data], "its JSON nests too deeply"),
        (["predict", "--run", wide, "--data", data], "the saved setting 'hidden' is 2000000000"),
    ]
    env = {**os.environ, "PYTHONPATH": ROOT, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    result = subprocess.run([sys.executable, "-c", _UNDER_LIMIT, str(600 << 20), json.dumps([c[0] for c in cases])],
                            capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    for (argv, message), (code, err) in zip(cases, json.loads(result.stdout)):
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 2 and len(lines) == 1 and message in lines[0], (argv, code, err[-2000:])


def test_a_wide_csv_is_read_in_time_linear_in_its_columns(tmp_path):
    """Issue 25 item 7: 300,000 columns (the reader was quadratic: 20,000 took 12-29 s, so this took
    more than half an hour). Read in a subprocess with a limit 50 times what it needs, a hang detector
    rather than a timing claim."""
    cols = 300_000
    rng = np.random.default_rng(0)
    with open(tmp_path / "wide.csv", "w") as f:
        f.write(",".join(f"c{j}" for j in range(cols)) + ",label\n")
        for i in range(3):
            f.write(",".join(f"{v:.4f}" for v in rng.random(cols)) + f",{i % 2}\n")
    code = ("import sys; from descend.cli.tabular import read_csv; t = read_csv(sys.argv[1]); "
            "print(t.x.shape, t.feature_names[-1], t.label_name)")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "wide.csv")], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "PYTHONPATH": ROOT}, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["(3,", "300000)", "c299999", "label"]


# ---------------------------------------------------------------- issue 38, items 16 and 17
def _descend_here():
    """PYTHONPATH that imports the descend under test (in a child process)."""
    import descend

    return os.path.dirname(os.path.dirname(os.path.abspath(descend.__file__)))


@pytest.mark.skipif(not LINUX, reason="/dev/stdout and pipes")
@pytest.mark.parametrize("output", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_predict_output_to_stdout_into_a_pipe_writes_the_pipe(finished_run, tmp_path, output):
    """Item 16: ``--output /dev/stdout`` with stdout a pipe writes the predictions into the pipe (exit 0), as
    without ``--output``; no temporary file is made anywhere."""
    run, data = finished_run
    proc = subprocess.run([sys.executable, "-m", "descend", "predict", "--run", run, "--data", data, "--output",
                           output], capture_output=True, text=True, timeout=300, cwd=str(tmp_path),
                          env=dict(os.environ, PYTHONPATH=_descend_here()))
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert len(rows) == 60 and set(rows[0]) == {"row", "prediction", "probability"}
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(not LINUX, reason="/dev/stdout")
def test_predict_output_to_stdout_redirected_to_a_file_replaces_that_file(finished_run, tmp_path):
    run, data = finished_run
    target = tmp_path / "p.csv"
    with open(target, "w") as f:
        f.write("old\n")
    with open(target, "r+") as out:
        proc = subprocess.run([sys.executable, "-m", "descend", "predict", "--run", run, "--data", data, "--output",
                               "/dev/stdout"], stdout=out, stderr=subprocess.PIPE, text=True, timeout=300,
                              cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=_descend_here()))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(target.read_text().splitlines()) == 61


UNSEEN_CASES = [  # (the rows' labels, the accuracy note expected, or None: no note)
    ("xy", None),
    ("xz", "(30 of them labelled with 1 class the run never saw in training ('z'): counted as wrong"),
    ("xyzw", "(30 of them labelled with 2 classes the run never saw in training ('z', 'w'): counted as wrong"),
]


@pytest.mark.parametrize("labels,note", UNSEEN_CASES, ids=[c[0] for c in UNSEEN_CASES])
def test_predict_says_when_labels_were_never_seen_in_training(finished_run, tmp_path, capsys, labels, note):
    """Item 16: rows labelled with a class the run never saw are counted as wrong, and the accuracy line
    says how many and which."""
    run, _ = finished_run
    data = tmp_path / "new.csv"
    data.write_text("a,b,label\n" + "".join(f"{i % 7},{i % 5},{labels[i % len(labels)]}\n" for i in range(60)))
    capsys.readouterr()
    assert main(["predict", "--run", run, "--data", str(data)]) == 0
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if x.startswith("accuracy on the 60 labelled rows"))
    if note is None:
        assert "never saw" not in line, line
    else:
        assert note in line, line
        assert "since the model predicts only the 2 classes it was trained on" in line


def test_predict_numeric_labels_unseen_in_training(tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("a,b,label\n" + "".join(f"{i % 7},{i % 5},{i % 2}\n" for i in range(60)))
    assert main(["train", "--data", str(data), "--epochs", "1", "--hidden", "4", "--out", str(tmp_path / "r")]) == 0
    new = tmp_path / "n.csv"
    new.write_text("a,b,label\n" + "".join(f"{i % 7},{i % 5},{i % 3}\n" for i in range(60)))
    capsys.readouterr()
    assert main(["predict", "--run", str(tmp_path / "r"), "--data", str(new)]) == 0
    assert "(20 of them labelled with 1 class the run never saw in training (2)" in capsys.readouterr().err


def test_train_with_max_steps_beyond_an_epoch_warns_nothing_and_trains_the_whole_epochs(tmp_path, capsys):
    """Item 17: ``--max-steps`` above an epoch's batches means whole epochs: no library warning (about input
    running out, ``.repeat()``), and the very run of no ``--max-steps``."""
    import warnings

    import descend.train as train

    runs = {}
    for name, extra in (("beyond", ["--max-steps", "1000"]), ("none", [])):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert main(["train", "--epochs", "2", "--hidden", "4", "--out", str(tmp_path / name), *extra]) == 0
        assert [str(w.message) for w in caught] == [], name
        reader = train.load_checkpoint(str(tmp_path / name / "final"))
        # the tensors (the object graph and descend's JSON state are bytes, the graph naming variables by name)
        runs[name] = {k: v for k in reader.keys() if isinstance(v := reader.get_tensor(k), np.ndarray)}
    assert runs["beyond"].keys() == runs["none"].keys()
    assert all(np.array_equal(runs["beyond"][k], runs["none"][k]) for k in runs["none"])
    assert "UserWarning" not in capsys.readouterr().err
