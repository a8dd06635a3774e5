"""Reading the user's data for ``descend train`` / ``descend predict``: CSV and ``.npz`` files.

CSV files are read as a stream, one row at a time, in time linear in the
file's size. The delimiter is the one of ``,`` ``;`` tab ``|`` that splits the
first rows into the same number (at least 2) of fields, the most fields
winning; cells may be quoted (a quoted cell may hold the delimiter or a line
break); a semicolon file may use decimal commas. The first row is a header
when one of its cells is text in a column whose next rows hold numbers;
otherwise (a headerless file: ``5.1,3.5,setosa``) it is data and the columns
are named ``column_1`` ... Every cell except the label's must be a number; a
missing cell (empty, ``NA``, ``NaN``, ``null``, ``none``, ``?``) or a row with
the wrong number of fields is reported by its line and column.

The task is inferred from the label column: text labels, or at most
``MAX_CLASSES_BY_DEFAULT`` distinct values, make a classification (labels
mapped to classes 0..k-1 in sorted order, the mapping kept for
``descend predict``); any other numeric column is a regression target.

Memory: the readers hold the features as 8-byte floats and refuse a table
larger than ``max_bytes`` (default :data:`MAX_TABLE_BYTES`, 1 GiB, counting 12
bytes per row for its label) when it reaches that size, or, for
``.npz``, from the arrays' declared shapes before reading them. A CSV row is
at most :data:`MAX_ROW_BYTES` (32 MiB) of text and :data:`MAX_COLUMNS`
fields; parsing one row holds at most about 12 times its size. So reading
takes at most ``max_bytes`` plus about 400 MB whatever the file holds; an
``.npz`` file at most twice ``max_bytes`` (its arrays as stored, and as
8-byte floats).

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("a;b;kind\\n1,5;2;cat\\n3;4;dog\\n")
    >>> t = read_csv(path)
    >>> t.delimiter, t.feature_names, t.label_name, t.x.tolist(), list(t.labels)
    (';', ['a', 'b'], 'kind', [[1.5, 2.0], [3.0, 4.0]], ['cat', 'dog'])
    >>> _ = open(path, "w").write('5.1,3.5,setosa\\n4.9,3.0,"two\\nlines"\\n')
    >>> t = read_csv(path)  # no header: the first row is data
    >>> t.feature_names, list(t.labels)
    (['column_1', 'column_2'], ['setosa', 'two\\nlines'])
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import math
import operator
import os
import zipfile

import numpy as np

from .files import open_input
from .options import UsageError

__all__ = ["DataError", "Table", "read_csv", "read_npz", "infer_task", "class_mapping", "file_sha256",
           "MAX_CLASSES_BY_DEFAULT", "MAX_CLASSES", "MAX_TABLE_BYTES", "MAX_ROW_BYTES", "MAX_COLUMNS"]

MAX_CLASSES_BY_DEFAULT = 20
MAX_CLASSES = 1000  # a label column with more distinct text values is refused
MAX_TABLE_BYTES = 1 << 30  # the default bound on the table a reader builds (features as 8-byte floats)
MAX_ROW_BYTES = 32 << 20  # the longest CSV row (its text, quoted line breaks included)
MAX_COLUMNS = 1 << 20  # the most fields in a CSV row, and features in an .npz file
MAX_ZIP_DIRECTORY = 1 << 20  # an .npz file's zip directory (the list of its arrays), in bytes
_ROW_EXTRA = 8 + 4  # per row beside the features: the label as a float, its class code
_SAMPLE_LINES, _SAMPLE_BYTES = 20, 1 << 20  # what the delimiter and the header are judged on
_MAX_LISTED = 3
_MISSING = frozenset(("", "na", "nan", "null", "none", "?"))
_DELIMITERS = (",", ";", "\t", "|")


class DataError(UsageError):
    """The data file cannot be used; the message names the file, the row and the column."""


class Table:
    """Features and raw labels read from a file.

    Attributes:
        x: float64 array ``(n, features)``.
        labels: the label column, as read: a float64 array, or an object array
            of strings for text labels (None when the file has no label column).
        feature_names: the feature columns' names.
        label_name: the label column's name (None for a file without labels).
        delimiter: the CSV delimiter (None for ``.npz``).
        sha256: the SHA-256 of the file's bytes, as read.
    """

    def __init__(self, x, labels, feature_names, label_name, delimiter=None, sha256=None):
        self.x, self.labels, self.feature_names = x, labels, list(feature_names)
        self.label_name, self.delimiter, self.sha256 = label_name, delimiter, sha256


def _open(path, what="data file"):
    try:
        return open_input(path, what)
    except FileNotFoundError:
        raise DataError(f"data file not found: {path}") from None
    except UsageError as e:
        raise DataError(str(e)) from None


def file_sha256(path) -> str:
    """The SHA-256 of a file's bytes (to tell on ``--resume`` that the data changed)."""
    f, _ = _open(os.fspath(path))
    h = hashlib.sha256()
    with f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


def _listing(items, total) -> str:
    shown = "; ".join(items[:_MAX_LISTED])
    return shown + (f"; and {total - _MAX_LISTED} more" if total > _MAX_LISTED else "")


def _number(text: str, decimal_comma: bool) -> float | None:
    """The number a cell holds, or None. Python's float() also takes ``1_000`` and digits of other
    scripts; a CSV number is ASCII without underscores."""
    t = text.strip()
    if decimal_comma:
        t = t.replace(",", ".")
    if "_" in t or not t.isascii():
        return None
    try:
        return float(t)
    except ValueError:
        return None


# ---------------------------------------------------------------- CSV
class _Lines:
    """The file's lines as text, each checked (UTF-8, no NUL byte, rows bounded) as it is read; hashes the
    bytes. ``new_row()`` starts counting a row's size afresh (a quoted line break continues a row)."""

    def __init__(self, f, path):
        self.f, self.path = f, path
        self.hash = hashlib.sha256()
        self.line = 0  # lines read from the file
        self.row_bytes = 0
        self.row_fields = 0
        self.delimiter = None  # once known: fields are counted as lines are read
        self.buffer = []  # (text, bytes) read ahead to judge the delimiter and the header, served first

    def __iter__(self):
        return self

    def read_line(self):
        """The next line as ``(text, bytes)``, or None at the end."""
        raw = self.f.readline(MAX_ROW_BYTES + 1)
        if not raw:
            return None
        self.hash.update(raw)
        self.line += 1
        if self.line == 1:
            if raw.startswith((b"\xff\xfe", b"\xfe\xff", b"\0\0\xfe\xff")):
                raise DataError(f"{self.path}: the file is UTF-16 or UTF-32 text; save it as UTF-8")
            if raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
        if b"\0" in raw:
            raise DataError(f"{self.path}: not a text file (line {self.line} holds a NUL byte)")
        if len(raw) > MAX_ROW_BYTES:
            raise DataError(f"{self.path}: line {self.line} is longer than {_mib(MAX_ROW_BYTES)}; rows of at most "
                            f"{_mib(MAX_ROW_BYTES)} are read (is this a CSV file?)")
        try:
            return raw.decode("utf-8"), len(raw)
        except UnicodeDecodeError as e:
            raise DataError(f"{self.path}: not a UTF-8 text file (line {self.line}: byte {e.start + 1} of the "
                            "line cannot be decoded)") from None

    def new_row(self):
        self.row_bytes = self.row_fields = 0

    def __next__(self):
        if self.buffer:
            text, size = self.buffer.pop(0)
        else:
            got = self.read_line()
            if got is None:
                raise StopIteration
            text, size = got
        self.row_bytes += size
        if self.row_bytes > MAX_ROW_BYTES:
            raise DataError(f"{self.path}: the row ending at line {self.line} is longer than {_mib(MAX_ROW_BYTES)} "
                            "(a quoted cell that never closes?); rows of at most that size are read")
        if self.delimiter is not None:
            self.row_fields += text.count(self.delimiter)
            if self.row_fields >= MAX_COLUMNS:
                raise DataError(f"{self.path}: the row ending at line {self.line} has more than {MAX_COLUMNS:,} "
                                "fields; at most that many are read")
        return text


def _choose_delimiter(sample: list[str], complete: bool) -> str:
    """The delimiter that splits the sample's rows into the same number (>= 2) of fields, the most
    fields winning; else the one giving the first row the most fields; ``,`` for a single column."""
    first = sample[0]
    best, best_key = ",", (False, 0)
    for d in _DELIMITERS:
        count = first.count(d)
        if count == 0 or count >= MAX_COLUMNS:
            continue
        try:
            rows = list(csv.reader(sample, delimiter=d))
        except csv.Error:  # e.g. a cell longer than the reader takes: not this delimiter's evidence
            continue
        if not complete and len(rows) > 1:
            rows = rows[:-1]  # the sample may end inside a row
        widths = [len(r) for r in rows if any(c.strip() for c in r)]
        consistent = len(set(widths)) == 1 and widths[0] >= 2
        key = (consistent, widths[0] if widths else 0)
        if key > best_key:
            best, best_key = d, key
    return best


def _all_numbers(cells, decimal_comma: bool) -> bool:
    try:
        if decimal_comma:
            sum(float(c.replace(",", ".")) for c in cells)
        else:
            sum(map(float, cells))
        return True
    except ValueError:
        return False


def _is_header(first: list[str], rows: list[list[str]], decimal_comma: bool) -> bool:
    """The first row is a header when one of its cells is text (not a number, not a missing-value mark)
    in a column whose other sampled cells are numbers; with no such column, when it holds text and no
    other column holds numbers either."""
    if _all_numbers(first, decimal_comma):
        return False

    def text(c):
        return _number(c, decimal_comma) is None and c.strip().lower() not in _MISSING

    def numeric_column(j):
        return (all(_number(r[j], decimal_comma) is not None or r[j].strip().lower() in _MISSING for r in rows)
                and any(_number(r[j], decimal_comma) is not None for r in rows))

    rows = [r for r in rows if len(r) == len(first)]
    if not rows:
        return any(text(c) for c in first)
    some_text = False
    for j, c in enumerate(first):  # usually decided by the first column
        if text(c):
            some_text = True
            if numeric_column(j):
                return True
    # no text cell over numbers: a header only when no column holds numbers to tell one by
    return some_text and not any(numeric_column(j) for j, c in enumerate(first) if not text(c))


class _Growing:
    """The table's arrays, grown in place (by half) as blocks of rows arrive, never beyond ``limit`` bytes."""

    def __init__(self, n_features, limit, path):
        self.n_features, self.limit, self.path = n_features, limit, path
        self.row_bytes = 8 * n_features + _ROW_EXTRA
        self.n = 0
        self.x = np.zeros((0, n_features))
        self.y = np.zeros(0)
        self.codes = np.zeros(0, np.int32)

    def extend(self, xs, ys, codes) -> None:
        """Append rows: ``xs`` lists of features, ``ys`` labels as numbers, ``codes`` label classes."""
        end = self.n + len(xs)
        if end > len(self.y):
            fit = self.limit // self.row_bytes
            if end > fit:
                raise DataError(f"{self.path}: the table is larger than {_mib(self.limit)}, the most descend reads "
                                f"(more than {fit:,} rows of {self.n_features:,} features as 8-byte numbers); pass "
                                "--max-data-mb to allow more")
            rows = min(max(16, len(self.y) + len(self.y) // 2, end), fit)
            for a in (self.x, self.y, self.codes):
                a.resize((rows,) + a.shape[1:], refcheck=False)
        self.x[self.n:end] = xs
        self.y[self.n:end] = ys
        self.codes[self.n:end] = codes
        self.n = end

    def trimmed(self):
        for a in (self.x, self.y, self.codes):
            a.resize((self.n,) + a.shape[1:], refcheck=False)
        return self.x, self.y, self.codes


def read_csv(path, label: str | None = None, *, require_label: bool = True, feature_names=None,
             max_bytes: int = MAX_TABLE_BYTES) -> Table:
    """Read a CSV file of numeric features and one label column (any text).

    Args:
        path: the file.
        label: the label column's name (default: the last column).
        require_label: False for ``descend predict``: the label column may be absent.
        feature_names: the columns to read as features, in this order (``predict``
            uses the training run's); default: every column but the label.
        max_bytes: the largest table read (see the module's notes on memory).

    Returns:
        a :class:`Table`.

    Raises:
        DataError: unreadable file, no rows, unknown label column, a missing
            cell, a row with the wrong number of fields, a non-numeric feature,
            a table larger than ``max_bytes``.
    """
    path = os.fspath(path)
    f, size = _open(path)
    with f:
        if size == 0:
            raise DataError(f"{path}: the file is empty")
        return _read_csv(f, path, label, require_label, feature_names, max_bytes)


def _read_csv(f, path, label, require_label, feature_names, max_bytes) -> Table:
    lines = _Lines(f, path)
    sample, sampled = [], 0
    while len(sample) < 2 or (len(sample) < _SAMPLE_LINES and sampled < _SAMPLE_BYTES):
        got = lines.read_line()
        if got is None:
            break
        sample.append(got[0])
        lines.buffer.append(got)
        sampled += got[1]
    complete = len(sample) < _SAMPLE_LINES and sampled < _SAMPLE_BYTES  # the whole file is in the sample
    while sample and not sample[0].strip():  # blank lines before the first row
        sample.pop(0)
    if not sample:
        raise DataError(f"{path}: the file is empty")
    delimiter = _choose_delimiter(sample, complete)
    lines.delimiter = delimiter
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    end = 0  # the file line the previous row ended on

    def stream():
        """``(first line, cells)`` of each row; blank lines (and rows of empty cells) are not rows."""
        nonlocal end
        for row in reader:
            start, end = end + 1, reader.line_num
            lines.new_row()
            if row and ((row[0] and not row[0].isspace()) or any(c.strip() for c in row)):
                yield start, row

    try:
        all_rows = stream()
        first = next(all_rows, None)
        if first is None:
            raise DataError(f"{path}: the file is empty")
        ahead = []  # the rows after the first that the header is judged on
        while len(ahead) < _SAMPLE_LINES - 1 and lines.buffer:
            got = next(all_rows, None)
            if got is None:
                break
            ahead.append(got)
        decimal_comma = delimiter == ";" and any("," in c for _, r in ahead[:5] for c in r)
        header_line, first_row = first
        if _is_header(first_row, [r for _, r in ahead], decimal_comma):
            header = [h.strip() for h in first_row]
            rows = itertools.chain(ahead, all_rows)
            empty = [j + 1 for j, h in enumerate(header) if not h]
            if empty:
                raise DataError(f"{path}: header column {empty[0]} has no name")
            if len(set(header)) != len(header):
                seen = set()
                twice = next(h for h in header if h in seen or seen.add(h))
                raise DataError(f"{path}: the header names column '{twice[:100]}' twice")
        else:
            header = [f"column_{j + 1}" for j in range(len(first_row))]
            rows = itertools.chain([first], ahead, all_rows)
        return _read_rows(path, header, rows, label, require_label, feature_names, decimal_comma, delimiter,
                          max_bytes, lines)
    except csv.Error as e:
        why = str(e)
        if "field larger than field limit" in why:
            raise DataError(f"{path}: line {reader.line_num}: a cell is longer than {csv.field_size_limit():,} "
                            "characters, the most the CSV reader takes") from None
        if "unexpected end of data" in why:
            raise DataError(f"{path}: the quoted cell of the row starting at line {end + 1} is not closed by the "
                            "end of the file") from None
        if "new-line character seen in unquoted field" in why:
            raise DataError(f"{path}: line {reader.line_num}: lines end with a lone carriage return (\\r); save the "
                            "file with \\n or \\r\\n line ends") from None
        raise DataError(f"{path}: line {reader.line_num}: not a well-formed CSV row ({why})") from None


def _picker(cols):
    """A function from a row's cells to its feature cells, in ``cols``' order."""
    if len(cols) == 1:
        return lambda r: [r[cols[0]]]
    return operator.itemgetter(*cols)


def _read_rows(path, header, rows, label, require_label, feature_names, decimal_comma, delimiter, max_bytes,
               lines) -> Table:
    width = len(header)
    if width < 2 and require_label:
        raise DataError(f"{path}: found 1 column (delimiter {delimiter!r}); need features and a label column")
    shown = header if width <= 20 else header[:20] + [f"... ({width - 20:,} more)"]
    if label is None and require_label:
        label = header[-1]
    j_label = None
    if label is not None:
        j_label = next((j for j in range(width - 1, -1, -1) if header[j] == label), None)  # the last, usually
        if j_label is None:
            if require_label:
                raise DataError(f"{path}: label column '{label}' does not exist; columns are {shown}")
            label = None
    if feature_names is None:  # every column but the label's
        feature_names = header[:j_label] + header[j_label + 1:] if j_label is not None else list(header)
        pick = None
    else:
        feature_names = list(feature_names)
        if len(set(feature_names)) != len(feature_names):
            raise DataError(f"{path}: a feature column is named twice in the run's list of features")
        position = {h: j for j, h in enumerate(header)}
        missing = [h for h in feature_names if h not in position]
        if missing:
            raise DataError(f"{path}: feature column(s) {missing[:20]}{' ...' if len(missing) > 20 else ''} of the "
                            f"trained model are missing; columns are {shown}")
        cols = [position[h] for h in feature_names]
        del position
        pick = None if cols == [j for j in range(width) if j != j_label] else _picker(cols)
    n_features = len(feature_names)
    table = _Growing(n_features, max_bytes, path)
    block = max(1, (1 << 20) // (8 * n_features + 8))  # rows gathered in lists, then stored at once
    xs, ys, cs = [], [], []
    width_bad, missing, text, infinite, label_bad = [0, []], [0, []], [0, []], [], []
    names, codes = {}, True  # distinct label texts -> class code (while at most MAX_CLASSES)
    text_labels = None  # the first label that is not a number: (line, text)
    for line, r in rows:
        if len(r) != width:
            width_bad[0] += 1
            if len(width_bad[1]) < _MAX_LISTED:
                width_bad[1].append(f"line {line} has {len(r)} fields")
            continue
        if pick is None:  # the label's cell taken out: the rest are the features, in order
            lab = r.pop(j_label) if j_label is not None else None
            cells = r
        else:
            lab = r[j_label] if j_label is not None else None
            cells = pick(r)
        try:
            vals = list(map(float, cells)) if not decimal_comma else [float(c.replace(",", ".")) for c in cells]
            total = sum(vals)
            if total - total != 0.0:  # a NaN or an infinity (or an overflowing sum): look cell by cell
                raise ValueError
            joined = "".join(cells)
            if "_" in joined or not joined.isascii():  # what float() takes beyond CSV numbers (see _number)
                raise ValueError
        except ValueError:
            vals = [0.0] * n_features
            for k, cell in enumerate(cells):
                c = cell.strip()
                if c.lower() in _MISSING:
                    missing[0] += 1
                    if len(missing[1]) < _MAX_LISTED:
                        missing[1].append(f"line {line}, column '{feature_names[k]}'")
                    continue
                v = _number(c, decimal_comma)
                if v is None:
                    text[0] += 1
                    if len(text[1]) < _MAX_LISTED:
                        text[1].append(f"line {line}, column '{feature_names[k]}': {c[:30]!r}")
                    continue
                if not math.isfinite(v) and not infinite:
                    infinite.append(f"infinite value at line {line}, column '{feature_names[k]}'")
                vals[k] = v
        xs.append(vals)
        y, code = 0.0, 0
        if j_label is not None:
            lab = lab.strip()
            if not lab:
                missing[0] += 1
                if len(missing[1]) < _MAX_LISTED:
                    missing[1].append(f"line {line}, column '{label}'")
            else:
                y = _number(lab, decimal_comma)
                if y is None:
                    y = math.nan
                    if text_labels is None:
                        text_labels = (line, lab)
                elif not math.isfinite(y) and not label_bad:
                    label_bad.append(f"{path}: label '{label}' is not finite at line {line}: {lab[:30]!r}")
                if codes:
                    code = names.setdefault(lab, len(names))
                    if len(names) > MAX_CLASSES:
                        codes, names = False, {}
                if text_labels is not None and not codes:
                    raise DataError(f"{path}: the label column '{label}' holds text (e.g. {text_labels[1][:30]!r} at "
                                    f"line {text_labels[0]}) and more than {MAX_CLASSES:,} distinct values; text "
                                    f"labels are classes, at most {MAX_CLASSES:,}")
        ys.append(y)
        cs.append(code if codes else 0)
        if len(xs) >= block:
            table.extend(xs, ys, cs)
            xs, ys, cs = [], [], []
    if xs:
        table.extend(xs, ys, cs)
    if width_bad[0]:
        raise DataError(f"{path}: " + _listing(width_bad[1], width_bad[0]) + f" (the header has {width})")
    if table.n == 0:
        raise DataError(f"{path}: the header has no data rows under it")
    if missing[0]:
        raise DataError(f"{path}: {missing[0]} missing value(s): " + _listing(missing[1], missing[0])
                        + "; fill or remove those rows")
    if text[0]:
        raise DataError(f"{path}: feature columns must be numeric; found text at " + _listing(text[1], text[0]))
    if infinite:
        raise DataError(f"{path}: {infinite[0]}")
    if text_labels is None and label_bad:
        raise DataError(label_bad[0])
    x, y, code = table.trimmed()
    labels = None
    if j_label is not None:
        if text_labels is None:
            labels = y
        else:
            labels = np.array(list(names), dtype=object)[code]
    return Table(x, labels, feature_names, label, delimiter, lines.hash.hexdigest())


# ---------------------------------------------------------------- npz
def _zip_directory_size(f, size, path) -> None:
    """Refuse an .npz file whose zip directory (read whole when the archive is opened) is larger than
    MAX_ZIP_DIRECTORY, from its end record, before the archive is opened."""
    tail = min(size, 65536 + 22)
    f.seek(size - tail)
    end = f.read(tail)
    i = end.rfind(b"PK\x05\x06")
    if i < 0 or len(end) < i + 22:
        raise DataError(f"{path}: not a readable .npz file (no zip end record)")
    entries = int.from_bytes(end[i + 10:i + 12], "little")
    directory = int.from_bytes(end[i + 12:i + 16], "little")
    if (entries == 0xFFFF or directory == 0xFFFFFFFF) and i >= 20 and end[i - 20:i - 16] == b"PK\x06\x07":
        offset = int.from_bytes(end[i - 12:i - 4], "little")  # the zip64 end record
        if offset + 56 <= size:
            f.seek(offset)
            record = f.read(56)
            if record[:4] == b"PK\x06\x06":
                entries = int.from_bytes(record[32:40], "little")
                directory = int.from_bytes(record[40:48], "little")
    if directory > MAX_ZIP_DIRECTORY or entries > 1000:
        raise DataError(f"{path}: not a readable .npz file (its zip directory declares {_mib(directory)} for "
                        f"{entries:,} arrays; at most {_mib(MAX_ZIP_DIRECTORY)} for 1,000 arrays are read)")
    f.seek(0)


def _npy_header(archive, member, path, name):
    """``(shape, dtype)`` of an array in the archive, from its header alone."""
    fmt = np.lib.format
    with archive.open(member) as m:
        version = fmt.read_magic(m)
        if version == (1, 0):
            shape, _, dtype = fmt.read_array_header_1_0(m, max_header_size=10000)
        elif version == (2, 0):
            shape, _, dtype = fmt.read_array_header_2_0(m, max_header_size=10000)
        else:
            raise DataError(f"{path}: array '{name}' has .npy format version {version}; versions 1.0 and 2.0 "
                            "are read")
    return shape, dtype


def read_npz(path, *, require_label: bool = True, max_bytes: int = MAX_TABLE_BYTES) -> Table:
    """Read arrays ``x`` and ``y`` from an ``.npz`` file (names ``X``/``features``/``images`` and
    ``Y``/``labels``/``label``/``target`` are accepted too). ``x`` is flattened per example.

    The arrays' declared shapes are checked against ``max_bytes`` before they are read; nothing
    pickled is read."""
    path = os.fspath(path)
    f, size = _open(path)
    with f:
        if size == 0:
            raise DataError(f"{path}: the file is empty")
        h = hashlib.sha256()
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
        f.seek(0)
        if f.read(4)[:2] != b"PK":
            raise DataError(f"{path}: not a readable .npz file (not a zip archive)")
        _zip_directory_size(f, size, path)
        try:
            x, y = _npz_arrays(f, path, require_label, max_bytes)
        except DataError:
            raise
        except Exception as e:  # noqa: BLE001 - any reader failure (zip, header) means a malformed file
            raise DataError(f"{path}: not a readable .npz file ({type(e).__name__}: {' '.join(str(e).split())[:200]})"
                            ) from None
    return _npz_table(path, x, y, h.hexdigest())


def _npz_arrays(f, path, require_label, max_bytes):
    with zipfile.ZipFile(f) as archive:
        members = {n[:-4]: n for n in archive.namelist() if n.endswith(".npy")}
        xk = next((k for k in ("x", "X", "features", "images") if k in members), None)
        yk = next((k for k in ("y", "Y", "labels", "label", "target") if k in members), None)
        if xk is None or (yk is None and require_label):
            raise DataError(f"{path}: expected arrays named x and y (found {sorted(members)[:20]})")
        found = {}
        for key in (xk, yk):
            if key is None:
                continue
            shape, dtype = _npy_header(archive, members[key], path, key)
            if dtype.hasobject:
                raise DataError(f"{path}: holds object (pickled) arrays, which are not read; save numbers or "
                                "strings")
            if dtype.kind not in ("fiub" if key == xk else "fiubUS"):
                what = "x must be numeric" if key == xk else "y must hold numbers or strings"
                raise DataError(f"{path}: {what}; received dtype {dtype}")
            count = math.prod(shape)
            need = count * max(dtype.itemsize, 8 if key == xk else 0)
            if need > max_bytes:
                raise DataError(f"{path}: array '{key}' declares shape {tuple(shape)} of {dtype} ({_mib(need)} as "
                                f"descend holds it), more than {_mib(max_bytes)}, the most descend reads; pass "
                                "--max-data-mb to allow more (refused before reading it)")
            found[key] = (shape, dtype)
        xshape = found[xk][0]
        if len(xshape) >= 2 and math.prod(xshape[1:]) > MAX_COLUMNS:
            raise DataError(f"{path}: x has {math.prod(xshape[1:]):,} features per example (shape {tuple(xshape)}); "
                            f"at most {MAX_COLUMNS:,} are read")
        with archive.open(members[xk]) as m:
            x = np.lib.format.read_array(m, allow_pickle=False)
        y = None
        if yk is not None:
            with archive.open(members[yk]) as m:
                y = np.lib.format.read_array(m, allow_pickle=False)
    return x, y


def _first_nonfinite(a) -> int | None:
    """The first row of ``a`` holding a NaN or an infinity (checked in blocks: no array of a's size)."""
    rows = len(a)
    step = max(1, (1 << 22) // max(1, a[0].size if rows else 1))
    for i in range(0, rows, step):
        bad = ~np.isfinite(a[i:i + step])
        if bad.any():
            return i + int(np.argwhere(bad)[0][0])
    return None


def _npz_table(path, x, y, sha256) -> Table:
    if x.ndim == 0:
        raise DataError(f"{path}: x must have one row per example (shape (n, features...)); received a scalar")
    if x.ndim == 1:
        x = x[:, None]
    if x.dtype.kind not in "fiub":
        raise DataError(f"{path}: x must be numeric; received dtype {x.dtype}")
    if len(x) == 0:
        raise DataError(f"{path}: x has no rows (shape {x.shape})")
    if x[0].size == 0:
        raise DataError(f"{path}: x has no features (shape {x.shape})")
    x = x.reshape(len(x), -1).astype(np.float64, copy=False)
    bad = _first_nonfinite(x)
    if bad is not None:
        raise DataError(f"{path}: x contains NaN or infinite values (first at row {bad})")
    labels = None
    if y is not None:
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1:
            raise DataError(f"{path}: y must be one label per example (shape (n,)); received shape {y.shape}"
                            + (" (one-hot labels? pass the class indices, y.argmax(1))" if y.ndim == 2 else ""))
        if len(y) != len(x):
            raise DataError(f"{path}: x has {len(x)} rows but y has {len(y)}")
        if y.dtype.kind in "US":
            distinct, index = np.unique(y, return_inverse=True)
            if len(distinct) > MAX_CLASSES:
                raise DataError(f"{path}: y holds {len(distinct):,} distinct texts; text labels are classes, at "
                                f"most {MAX_CLASSES:,}")
            texts = []
            for v in distinct:
                if isinstance(v, bytes):
                    try:
                        v = v.decode("utf-8")
                    except UnicodeDecodeError:
                        raise DataError(f"{path}: y holds bytes that are not UTF-8 text ({v[:30]!r})") from None
                texts.append(str(v).strip())
            labels = np.array(texts, dtype=object)[index.reshape(-1)]
        elif y.dtype.kind in "fiub":
            labels = y.astype(np.float64)
            bad = _first_nonfinite(labels)
            if bad is not None:
                raise DataError(f"{path}: y contains NaN or infinite values (first at row {bad})")
        else:
            raise DataError(f"{path}: y must hold numbers or strings; received dtype {y.dtype}")
    names = [f"x{j}" for j in range(x.shape[1])]
    return Table(x, labels, names, "y" if labels is not None else None, sha256=sha256)


# ---------------------------------------------------------------- labels
def infer_task(labels, override: str | None = None) -> tuple[str, str]:
    """``("classification" | "regression", reason)`` for a label column.

    Text labels, or at most ``MAX_CLASSES_BY_DEFAULT`` distinct values, are
    classes; any other numeric column is a regression target. ``override``
    (``--task``) wins, except that text cannot be a regression target.

    Example:
        >>> infer_task(np.array([0.5, 1.25, 3.0] * 10 + list(range(30)), float))[0]
        'regression'
        >>> infer_task(np.array([1.0, 2.0, 3.0]))[0]
        'classification'
    """
    text = labels.dtype == object
    distinct = len(np.unique(labels))
    if override == "regression" and text:
        raise DataError("--task regression needs a numeric label column; the labels are text "
                        f"(e.g. {labels[0]!r})")
    if override in ("classification", "regression"):
        return override, f"--task {override}"
    if text:
        return "classification", f"{distinct} text labels"
    if distinct <= MAX_CLASSES_BY_DEFAULT:
        return "classification", f"{distinct} distinct values"
    integral = bool(np.all(labels == np.round(labels)))
    kind = "integer" if integral else "float"
    return "regression", f"{distinct:,} distinct {kind} values; --task classification to override"


def class_mapping(labels) -> tuple[list, np.ndarray]:
    """``(classes, indices)``: the sorted distinct labels (as JSON-able values) and each row's class."""
    classes, idx = np.unique(labels, return_inverse=True)
    out = []
    for c in classes:
        if isinstance(c, str):
            out.append(c)
        else:
            f = float(c)
            out.append(int(f) if f == math.floor(f) and abs(f) < 2**53 else f)
    return out, idx.reshape(-1).astype(np.int32)
