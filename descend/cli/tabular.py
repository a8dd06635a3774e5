"""Reading the user's data for ``descend train`` / ``descend predict``: CSV and ``.npz`` files.

CSV files: the delimiter is sniffed (``,`` ``;`` tab ``|``), the first row is
the header (a first row of numbers only is taken as data, with columns named
``column_1`` ...), cells may be quoted, a semicolon file may use decimal
commas. Every cell except the label's must be a number; a missing cell or a
row with the wrong number of fields is reported by its line and column.

The task is inferred from the label column: text labels, or at most
``MAX_CLASSES_BY_DEFAULT`` distinct values, make a classification (labels
mapped to classes 0..k-1 in sorted order, the mapping kept for
``descend predict``); any other numeric column is a regression target.

Example:
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("a;b;kind\\n1,5;2;cat\\n3;4;dog\\n")
    >>> t = read_csv(path)
    >>> t.delimiter, t.feature_names, t.label_name, t.x.tolist(), list(t.labels)
    (';', ['a', 'b'], 'kind', [[1.5, 2.0], [3.0, 4.0]], ['cat', 'dog'])
"""

from __future__ import annotations

import csv
import hashlib
import math
import os

import numpy as np

__all__ = ["DataError", "Table", "read_csv", "read_npz", "infer_task", "class_mapping", "file_sha256", "MAX_CLASSES_BY_DEFAULT"]

MAX_CLASSES_BY_DEFAULT = 20
_SNIFF_BYTES = 64 * 1024
_MAX_LISTED = 3


class DataError(ValueError):
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
    """

    def __init__(self, x, labels, feature_names, label_name, delimiter=None, lines=None):
        self.x, self.labels, self.feature_names = x, labels, list(feature_names)
        self.label_name, self.delimiter = label_name, delimiter
        self.lines = lines  # the file line of each row (for messages)


def file_sha256(path) -> str:
    """The SHA-256 of a file's bytes (to tell on ``--resume`` that the data changed)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _number(text: str, decimal_comma: bool) -> float | None:
    t = text.strip()
    if decimal_comma:
        t = t.replace(",", ".")
    try:
        return float(t)
    except ValueError:
        return None


def _listing(items, total) -> str:
    shown = "; ".join(items[:_MAX_LISTED])
    return shown + (f"; and {total - _MAX_LISTED} more" if total > _MAX_LISTED else "")


def read_csv(path, label: str | None = None, *, require_label: bool = True, feature_names=None) -> Table:
    """Read a CSV file of numeric features and one label column (any text).

    Args:
        path: the file.
        label: the label column's name (default: the last column).
        require_label: False for ``descend predict``: the label column may be absent.
        feature_names: the columns to read as features, in this order (``predict``
            uses the training run's); default: every column but the label.

    Returns:
        a :class:`Table`.

    Raises:
        DataError: unreadable file, no rows, unknown label column, a missing
            cell, a row with the wrong number of fields, a non-numeric feature.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise DataError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DataError(f"{path}: not a UTF-8 text file (byte {e.start} cannot be decoded)") from None
    if "\x00" in text:
        raise DataError(f"{path}: not a text file (it holds NUL bytes)")
    if not text.strip():
        raise DataError(f"{path}: the file is empty")
    sample = text[:_SNIFF_BYTES]
    try:
        delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        delimiter = ","
    rows = [(i + 1, r) for i, r in enumerate(csv.reader(text.splitlines(), delimiter=delimiter))]
    rows = [(line, r) for line, r in rows if any(c.strip() for c in r)]  # blank lines are not rows
    decimal_comma = delimiter == ";" and any("," in c for _, r in rows[1:6] for c in r)
    first = rows[0][1]
    if all(_number(c, decimal_comma) is not None for c in first):
        header = [f"column_{j + 1}" for j in range(len(first))]
        data = rows
    else:
        header = [h.strip() for h in first]
        data = rows[1:]
        empty = [j + 1 for j, h in enumerate(header) if not h]
        if empty:
            raise DataError(f"{path}: header column {empty[0]} has no name")
        dup = sorted({h for h in header if header.count(h) > 1})
        if dup:
            raise DataError(f"{path}: the header names column '{dup[0]}' twice")
    if not data:
        raise DataError(f"{path}: the header has no data rows under it")
    if len(header) < 2 and require_label:
        raise DataError(f"{path}: found 1 column (delimiter {delimiter!r}); need features and a label column")
    if label is None and require_label:
        label = header[-1]
    if label is not None and label not in header:
        if require_label:
            raise DataError(f"{path}: label column '{label}' does not exist; columns are {header}")
        label = None
    j_label = header.index(label) if label is not None else None
    if feature_names is None:
        feature_names = [h for h in header if h != label]
    else:
        missing = [h for h in feature_names if h not in header]
        if missing:
            raise DataError(f"{path}: feature column(s) {missing} of the trained model are missing; columns are "
                            f"{header}")
    cols = [header.index(h) for h in feature_names]
    bad_width = [(line, len(r)) for line, r in data if len(r) != len(header)]
    if bad_width:
        raise DataError(f"{path}: " + _listing([f"line {line} has {n} fields" for line, n in bad_width],
                                               len(bad_width)) + f" (the header has {len(header)})")
    x = np.empty((len(data), len(cols)), np.float64)
    missing_cells, text_cells = [], []
    for i, (line, r) in enumerate(data):
        for k, j in enumerate(cols):
            cell = r[j]
            if not cell.strip() or cell.strip().lower() in ("na", "nan", "null", "none", "?"):
                missing_cells.append(f"line {line}, column '{header[j]}'")
                continue
            v = _number(cell, decimal_comma)
            if v is None:
                text_cells.append(f"line {line}, column '{header[j]}': {cell.strip()[:30]!r}")
                continue
            x[i, k] = v
        if j_label is not None and not r[j_label].strip():
            missing_cells.append(f"line {line}, column '{label}'")
    if missing_cells:
        raise DataError(f"{path}: {len(missing_cells)} missing value(s): " + _listing(missing_cells, len(missing_cells))
                        + "; fill or remove those rows")
    if text_cells:
        raise DataError(f"{path}: feature columns must be numeric; found text at "
                        + _listing(text_cells, len(text_cells)))
    if not np.all(np.isfinite(x)):
        i, k = np.argwhere(~np.isfinite(x))[0]
        raise DataError(f"{path}: infinite value at line {data[i][0]}, column '{feature_names[k]}'")
    labels = None
    if j_label is not None:
        raw_labels = [r[j_label].strip() for _, r in data]
        numbers = [_number(v, decimal_comma) for v in raw_labels]
        if all(v is not None for v in numbers):
            labels = np.asarray(numbers, np.float64)
            if not np.all(np.isfinite(labels)):
                i = int(np.argwhere(~np.isfinite(labels))[0][0])
                raise DataError(f"{path}: label '{label}' is not finite at line {data[i][0]}: {raw_labels[i]!r}")
        else:
            labels = np.asarray(raw_labels, dtype=object)
    return Table(x, labels, feature_names, label, delimiter, [line for line, _ in data])


def read_npz(path, *, require_label: bool = True) -> Table:
    """Read arrays ``x`` and ``y`` from an ``.npz`` file (names ``X``/``features``/``images`` and
    ``Y``/``labels``/``label``/``target`` are accepted too). ``x`` is flattened per example."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise DataError(f"{path}: cannot read ({e.strerror or e})") from None
    if magic[:2] != b"PK":
        raise DataError(f"{path}: not a readable .npz file (not a zip archive)")
    try:
        with np.load(path, allow_pickle=False) as f:
            keys = set(f.files)
            xk = next((k for k in ("x", "X", "features", "images") if k in keys), None)
            yk = next((k for k in ("y", "Y", "labels", "label", "target") if k in keys), None)
            if xk is None or (yk is None and require_label):
                raise DataError(f"{path}: expected arrays named x and y (found {sorted(keys)})")
            x = np.asarray(f[xk])
            y = np.asarray(f[yk]) if yk is not None else None
    except DataError:
        raise
    except ValueError as e:
        if "pickle" in str(e):
            raise DataError(f"{path}: holds object (pickled) arrays, which are not read; save numbers or "
                            "strings") from None
        raise DataError(f"{path}: not a readable .npz file ({e})") from None
    except Exception as e:  # noqa: BLE001 - any reader failure (zip, header) means a malformed file
        raise DataError(f"{path}: not a readable .npz file ({type(e).__name__}: {e})") from None
    if x.ndim == 0:
        raise DataError(f"{path}: x must have one row per example (shape (n, features...)); received a scalar")
    if x.ndim == 1:
        x = x[:, None]
    if x.dtype.kind not in "fiub":
        raise DataError(f"{path}: x must be numeric; received dtype {x.dtype}")
    x = x.reshape(len(x), -1).astype(np.float64)
    if x.shape[1] == 0:
        raise DataError(f"{path}: x has no features (shape {x.shape})")
    bad = np.argwhere(~np.isfinite(x))
    if len(bad):
        raise DataError(f"{path}: x contains NaN or infinite values (first at row {int(bad[0][0])})")
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
            labels = np.asarray([str(v).strip() for v in y], dtype=object)
        elif y.dtype.kind in "fiub":
            labels = y.astype(np.float64)
            bad = np.argwhere(~np.isfinite(labels))
            if len(bad):
                raise DataError(f"{path}: y contains NaN or infinite values (first at row {int(bad[0][0])})")
        else:
            raise DataError(f"{path}: y must hold numbers or strings; received dtype {y.dtype}")
    names = [f"x{j}" for j in range(x.shape[1])]
    return Table(x, labels, names, "y" if labels is not None else None)


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
    return out, idx.astype(np.int32)
