"""What one ``descend train`` job trains: the data split, the model, the schedule and the optimizer.

Everything here is decided from the settings alone (and the data), so that
``--resume`` and ``descend predict`` rebuild exactly the run's model.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .files import describe
from .options import CLICKS_LR_FACTOR, USUAL_LR, UsageError, warmup_default
from .tabular import MAX_CLASSES, MAX_COLUMNS, MAX_TABLE_BYTES, DataError, class_mapping, infer_task, read_csv, read_npz

__all__ = ["Data", "load_data", "features_for_predict", "build_model", "build_optimizer", "schedule_text",
           "plan_updates", "MIN_EXAMPLES", "MAX_PARAMETERS", "check_model_size", "check_run_data"]

MIN_EXAMPLES = 30  # 20% test and 10% validation of 30 rows: 6 and 3 examples
MAX_PARAMETERS = 1 << 27  # the largest model the command builds (512 MiB of float32 weights)
TEST_FRACTION, VAL_FRACTION = 0.2, 0.1


class Data:
    """The split data of a job and what ``predict`` needs to repeat its preprocessing.

    Attributes:
        kind: ``"classification"``, ``"regression"`` or ``"clicks"`` (binary, embeddings).
        train, val, test: ``(x, y)`` float32 / int32 arrays.
        n_outputs: units of the model's last layer.
        info: JSON-able facts saved in the run's config.json (columns, classes,
            standardization, the data file's SHA-256).
        description: one line printed when the job starts.
    """

    def __init__(self, kind, train, val, test, n_outputs, info, description):
        self.kind, self.train, self.val, self.test = kind, train, val, test
        self.n_outputs, self.info, self.description = n_outputs, info, description


def _split(n, seed):
    order = np.random.default_rng(seed).permutation(n)
    n_test, n_val = int(round(n * TEST_FRACTION)), int(round(n * VAL_FRACTION))
    return order[n_test + n_val:], order[n_test:n_test + n_val], order[:n_test]


def _read_table(path, label, require_label=True, feature_names=None, max_bytes=MAX_TABLE_BYTES):
    if os.path.isdir(path):
        raise DataError(f"{path}: is a folder; --data needs a .csv or .npz file")
    if not os.path.exists(path):
        if os.path.islink(path):
            raise DataError(f"data file not found: {path} is {describe(path)}")
        raise DataError(f"data file not found: {path}")
    low = path.lower()
    if low.endswith(".npz"):
        if label is not None:
            raise DataError("--label names a column of a .csv file; a .npz file has arrays x and y")
        return read_npz(path, require_label=require_label, max_bytes=max_bytes)
    if low.endswith((".csv", ".tsv", ".txt")):
        return read_csv(path, label, require_label=require_label, feature_names=feature_names, max_bytes=max_bytes)
    raise DataError(f"{path}: unsupported data format; expected .csv (header and a label column) or .npz (x, y)")


def _standardize(path, x, rows, names):
    """``(mean, std)`` of ``x[rows]`` per column; refuses a column whose statistics overflow."""
    with np.errstate(over="ignore", invalid="ignore"):
        part = x[rows]
        mean, std = part.mean(axis=0), part.std(axis=0)
    bad = np.flatnonzero(~(np.isfinite(mean) & np.isfinite(std)))
    if len(bad):
        j = int(bad[0])
        big = float(np.max(np.abs(x[:, j])))
        raise UsageError(f"{path}: column '{names[j]}' holds values too large to standardize (up to {big:.3g}); "
                         "rescale it")
    std[std == 0] = 1.0  # a constant column stays 0 after centring
    return mean, std


def load_data(s: dict, max_bytes: int = MAX_TABLE_BYTES) -> Data:
    """Read and split the data the settings ``s`` name; raises UsageError with one line on bad data.
    ``max_bytes`` bounds the table read (``--max-data-mb``)."""
    from .. import datasets

    seed = s["seed"]
    if s["data"] is None:
        if s["label"] is not None:
            raise UsageError("--label needs --data (a .csv file)")
        if s["task"] not in ("auto", None) and not (s["example"] == "digits" and s["task"] == "classification"):
            raise UsageError(f"--task {s['task']} does not apply to --example {s['example']}")
        if s["example"] != "clicks" and s.get("examples") is not None:
            raise UsageError("--examples sets the size of --example clicks; it does not apply to the digits")
        if s["example"] == "clicks":
            users, items, clicks = datasets.click_log(n=s["examples"], seed=seed)
            x = np.stack([users, items], axis=1)
            tr, va, te = _split(len(x), seed)
            info = {"source": "example clicks", "num_users": int(x[:, 0].max() + 1),
                    "num_items": int(x[:, 1].max() + 1)}
            return Data("clicks", (x[tr], clicks[tr]), (x[va], clicks[va]), (x[te], clicks[te]), 1, info,
                        f"data: generated click log, {len(tr):,} train / {len(va):,} validation / {len(te):,} test "
                        "rows; task: click prediction (binary cross-entropy, embeddings with sparse updates)")
        (x, y), (xt, yt) = datasets.load_digits(seed=seed)
        n_val = int(round(len(x) * VAL_FRACTION / (1 - TEST_FRACTION)))
        info = {"source": "example digits", "classes": list(range(10))}
        return Data("classification", (x[n_val:], y[n_val:]), (x[:n_val], y[:n_val]), (xt, yt), 10, info,
                    f"data: bundled digits, {len(x) - n_val:,} train / {n_val:,} validation / {len(xt):,} test "
                    "images; task: classification into 10 classes")
    if s.get("example") is not None:
        raise UsageError(f"--example {s['example']} and --data both name the data; pass one of them")
    if s.get("examples") is not None:
        raise UsageError("--examples sets the size of --example clicks; it does not apply to --data")
    path = s["data"]
    try:
        table = _read_table(path, s["label"], max_bytes=max_bytes)
        task, why = infer_task(table.labels, None if s["task"] in (None, "auto") else s["task"])
    except DataError as e:
        raise UsageError(str(e)) from None
    n = len(table.x)
    if n < MIN_EXAMPLES:
        raise UsageError(f"{path}: need at least {MIN_EXAMPLES} examples (for the train, validation and test "
                         f"splits); found {n}")
    tr, va, te = _split(n, seed)
    mean, std = _standardize(path, table.x, tr, table.feature_names)
    table.x -= mean
    table.x /= std
    x = table.x.astype(np.float32)
    table.x = None
    info = {"source": os.path.abspath(path), "sha256": table.sha256, "label": table.label_name,
            "features": table.feature_names, "x_mean": mean.tolist(), "x_std": std.tolist(), "task": task,
            "delimiter": table.delimiter}
    if task == "classification":
        classes, y = class_mapping(table.labels)
        if len(classes) < 2:
            raise UsageError(f"{path}: the label column '{table.label_name}' holds one class only "
                             f"({classes[0]!r}); need at least 2")
        if len(classes) > MAX_CLASSES:
            raise UsageError(f"{path}: the label column '{table.label_name}' holds {len(classes):,} classes "
                             f"(more than {MAX_CLASSES:,}); for a numeric target pass --task regression")
        info["classes"] = classes
        shown = ", ".join(map(str, classes[:6])) + (", ..." if len(classes) > 6 else "")
        desc = f"task: classification into {len(classes)} classes ({shown}) from '{table.label_name}' ({why})"
        out = len(classes)
        y_all = y
    else:
        y = table.labels.astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            y_mean, y_std = float(y[tr].mean()), float(y[tr].std())
        if not (math.isfinite(y_mean) and math.isfinite(y_std)):
            raise UsageError(f"{path}: the regression target '{table.label_name}' holds values too large to "
                             f"standardize (up to {float(np.max(np.abs(y))):.3g}); rescale it")
        if y_std == 0:
            raise UsageError(f"{path}: the regression target '{table.label_name}' is constant ({y_mean:g})")
        info["y_mean"], info["y_std"] = y_mean, y_std
        desc = (f"task: regression of '{table.label_name}' with mean squared error ({why}); the target is "
                f"standardized for training (mean {y_mean:.4g}, std {y_std:.4g})")
        out = 1
        y_all = ((y - y_mean) / y_std).astype(np.float32)[:, None]
    sep = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe", None: None}[table.delimiter]
    head = (f"data: {path}, {n:,} rows, {x.shape[1]} features" + (f" ({sep}-separated)" if sep else "")
            + f"; {len(tr):,} train / {len(va):,} validation / {len(te):,} test")
    return Data(task, (x[tr], y_all[tr]), (x[va], y_all[va]), (x[te], y_all[te]), out, info, head + "\n" + desc)


def features_for_predict(path, info: dict, max_bytes: int = MAX_TABLE_BYTES) -> tuple[np.ndarray, object]:
    """The standardized features of ``path`` for a run trained on data described by ``info`` (checked by
    :func:`check_run_data`), and the file's label column when it has one (else None)."""
    try:
        if path.lower().endswith(".npz"):
            table = _read_table(path, None, require_label=False, max_bytes=max_bytes)
            if table.x.shape[1] != len(info["features"]):
                raise DataError(f"{path}: x has {table.x.shape[1]} features; the run was trained on "
                                f"{len(info['features'])}")
        else:
            table = _read_table(path, info.get("label"), require_label=False, feature_names=info["features"],
                                max_bytes=max_bytes)
    except DataError as e:
        raise UsageError(str(e)) from None
    if "x_mean" in info:  # files are standardized with the training split's statistics; the bundled data is not
        x = ((table.x - np.asarray(info["x_mean"])) / np.asarray(info["x_std"])).astype(np.float32)
    else:
        x = table.x.astype(np.float32)
    labels = table.labels if table.label_name == info.get("label") else None
    return x, labels


def _short(value, limit: int = 60) -> str:
    from ..persistence.checkpoint_errors import short

    return short(value, limit)


def _finite(v) -> bool:
    try:
        return math.isfinite(v)
    except OverflowError:  # an integer beyond a float's range
        return False


def _finite_list(where, info, key, n, positive=False) -> list:
    v = info.get(key)
    if (not isinstance(v, list) or len(v) != n
            or not all(isinstance(a, (int, float)) and not isinstance(a, bool) and _finite(a)
                       and (a > 0 or not positive) for a in v)):
        raise UsageError(f"{where}: data field '{key}' must be a list of {n:,} finite"
                         + (" positive" if positive else "") + f" numbers (one per feature); found {_short(v)}")
    return v


def _finite_number(where, info, key, positive=False) -> float:
    v = info.get(key)
    if not (isinstance(v, (int, float)) and not isinstance(v, bool) and _finite(v) and (v > 0 or not positive)):
        raise UsageError(f"{where}: data field '{key}' must be a finite{' positive' if positive else ''} number; "
                         f"found {_short(v)}")
    return float(v)


def check_run_data(info, where: str) -> tuple[str, dict, int]:
    """``(task, info, outputs)`` for the data facts a run saved in its config.json (``where``), each field
    checked: types, lengths, finite numbers, distinct names and classes. Raises UsageError (one line)."""
    if not isinstance(info, dict):
        raise UsageError(f"{where}: the run's data facts ('data') are not a JSON object; found {_short(info)}")
    source = info.get("source")
    if source == "example digits":
        return "classification", {"source": source, "classes": list(range(10)),
                                  "features": [f"x{j}" for j in range(64)]}, 10
    if source == "example clicks":
        counts = {}
        for key in ("num_users", "num_items"):
            v = info.get(key)
            if not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_PARAMETERS):
                raise UsageError(f"{where}: data field '{key}' must be an integer in [1, {MAX_PARAMETERS:,}]; "
                                 f"found {_short(v)}")
            counts[key] = v
        return "clicks", {"source": source, "features": ["x0", "x1"], **counts}, 1
    features = info.get("features")
    if (not isinstance(features, list) or not 1 <= len(features) <= MAX_COLUMNS
            or not all(isinstance(f, str) for f in features)):
        raise UsageError(f"{where}: data field 'features' must be a list of 1 to {MAX_COLUMNS:,} column names; "
                         f"found {_short(features)}")
    if len(set(features)) != len(features):
        seen = set()
        twice = next(f for f in features if f in seen or seen.add(f))
        raise UsageError(f"{where}: data field 'features' names column {twice[:100]!r} more than once")
    label = info.get("label")
    if label is not None and not isinstance(label, str):
        raise UsageError(f"{where}: data field 'label' must be a column name; found {_short(label)}")
    out = {"source": source, "features": features, "label": label,
           "x_mean": _finite_list(where, info, "x_mean", len(features)),
           "x_std": _finite_list(where, info, "x_std", len(features), positive=True)}
    task = info.get("task")
    if task == "classification":
        classes = info.get("classes")
        if (not isinstance(classes, list) or not 2 <= len(classes) <= MAX_CLASSES
                or not all(isinstance(c, str) or (isinstance(c, (int, float)) and not isinstance(c, bool)
                                                  and _finite(c)) for c in classes)):
            raise UsageError(f"{where}: data field 'classes' must be a list of 2 to {MAX_CLASSES:,} class names or "
                             f"numbers; found {_short(classes)}")
        if len({(type(c) is str, c) for c in classes}) != len(classes):
            raise UsageError(f"{where}: data field 'classes' names a class more than once")
        return task, dict(out, classes=classes), len(classes)
    if task == "regression":
        return task, dict(out, y_mean=_finite_number(where, info, "y_mean"),
                          y_std=_finite_number(where, info, "y_std", positive=True)), 1
    raise UsageError(f"{where}: data field 'task' must be 'classification' or 'regression'; found {_short(task)}")


def count_parameters(s: dict, data_kind: str, n_features: int, n_outputs: int, info: dict) -> int:
    """The number of weights :func:`build_model` creates."""
    if data_kind == "clicks":
        return (info["num_users"] + info["num_items"]) * 16 + info["num_items"]
    if s["model"] == "linear":
        return (n_features + 1) * n_outputs
    h = s["hidden"]
    return (n_features + 1) * h + (h + 1) * h + (h + 1) * n_outputs


def check_model_size(s: dict, data_kind: str, n_features: int, n_outputs: int, info: dict, where: str) -> None:
    """Refuse, before anything is built, a model of more than :data:`MAX_PARAMETERS` weights."""
    n = count_parameters(s, data_kind, n_features, n_outputs, info)
    if n > MAX_PARAMETERS:
        detail = (f"{info['num_users']:,} users and {info['num_items']:,} items" if data_kind == "clicks" else
                  f"{n_features:,} features" + (f" and --hidden {s['hidden']}" if s["model"] == "mlp" else "")
                  + f" and {n_outputs:,} outputs")
        raise UsageError(f"{where}: the model would have {n:,} weights ({detail}); at most {MAX_PARAMETERS:,} are "
                         "built" + (" (lower --hidden, or use --model linear)"
                                    if data_kind != "clicks" and s["model"] == "mlp" else ""))


def build_model(s: dict, data_kind: str, n_outputs: int, info: dict):
    """The job's model (built lazily on its first batch)."""
    import descend as ds

    L = ds.layers
    if data_kind == "clicks":
        users, items = info["num_users"], info["num_items"]

        class ClickModel(ds.Model):
            def __init__(self):
                super().__init__(name="clicks")
                self.user_emb = L.Embedding(users, 16, name="user_embedding")
                self.item_emb = L.Embedding(items, 16, name="item_embedding")
                self.item_bias = L.Embedding(items, 1, name="item_bias")

            def call(self, x, training=None):
                u = self.user_emb(x[:, 0])
                i = self.item_emb(x[:, 1])
                return ds.reduce_sum(u * i, axis=1) + ds.reshape(self.item_bias(x[:, 1]), (-1,))

        return ClickModel()
    if s["model"] == "linear":
        return ds.Sequential([L.Dense(n_outputs)], name="linear")
    h = s["hidden"]
    return ds.Sequential([L.Dense(h, activation="relu"), L.Dense(h, activation="relu"), L.Dense(n_outputs)],
                         name="mlp")


def plan_updates(s: dict, n_train: int) -> tuple[int, int]:
    """``(batches per epoch, optimizer updates in the whole run)``."""
    per_epoch = math.ceil(n_train / s["batch_size"])
    if s["max_steps"] is not None:
        per_epoch = min(per_epoch, s["max_steps"])
    return per_epoch, (per_epoch * s["epochs"]) // s["accum_steps"]


def _schedule(s: dict, total: int):
    from ..optimizers import schedules as S

    lr, name, warm = s["lr"], s["schedule"], s["warmup_steps"]
    decay = max(total - warm, 1)
    if name == "constant":
        base = S.PiecewiseConstantDecay([], [lr])
    elif name == "cosine":
        base = S.CosineDecay(lr, decay, alpha=0.01)
    elif name == "linear":
        base = S.PolynomialDecay(lr, decay, end_learning_rate=lr * 0.01)
    else:
        base = S.ExponentialDecay(lr, max(decay // 4, 1), 0.5)
    return S.WarmUp(lr, base, warm) if warm > 0 else base


def schedule_text(s: dict, total: int) -> str:
    """The schedule a run actually follows, in words (for the start line and summary.json)."""
    lr, name, warm = s["lr"], s["schedule"], s["warmup_steps"]
    decay = max(total - warm, 1)
    tail = {"constant": f"constant {lr:g} for {decay:,} updates",
            "cosine": f"cosine decay {lr:g} -> {lr * 0.01:g} over {decay:,} updates",
            "linear": f"linear decay {lr:g} -> {lr * 0.01:g} over {decay:,} updates",
            "exponential": f"exponential decay from {lr:g}, halving every {max(decay // 4, 1):,} updates"}[name]
    if warm:
        return f"linear warm-up 0 -> {lr:g} over {warm:,} updates, then {tail}"
    return tail


#: optimizers whose update divides by the learning rate: a warm-up from 0 cannot start them
NO_WARMUP = ("ftrl",)


def resolve_warmup(s: dict, total: int, given: bool) -> None:
    """Fill ``warmup_steps`` (5% of the updates, capped; none for FTRL) or check the one given against the
    run's length and the optimizer."""
    if s["warmup_steps"] is None:
        s["warmup_steps"] = 0 if s.get("optimizer") in NO_WARMUP else warmup_default(total)
    elif given and s["warmup_steps"] >= total:
        raise UsageError(f"--warmup-steps must be below the run's {total:,} updates (epochs x batches per epoch "
                         f"/ accum steps); received: {s['warmup_steps']}")
    check_warmup(s.get("optimizer"), s["warmup_steps"])


def check_warmup(optimizer, warmup_steps: int) -> None:
    """Refuse a warm-up for an optimizer that divides by the learning rate (FTRL): its first update would be
    a division by the warm-up's rate of 0."""
    if optimizer in NO_WARMUP and warmup_steps:
        raise UsageError(f"--optimizer {optimizer} divides by the learning rate, so it cannot start from a warm-up "
                         f"at 0; use --warmup-steps 0 (received: {warmup_steps})")


def build_optimizer(name: str, s: dict, total: int, sparse: bool = False):
    """The optimizer ``name`` with the job's schedule, clipping, accumulation and weight decay."""
    from .. import optimizers as O

    schedule = _schedule(s, max(total, 1))
    common = {}
    if s["clip_norm"] is not None:
        common["global_clipnorm"] = s["clip_norm"]
    if s["accum_steps"] > 1:
        common["gradient_accumulation_steps"] = s["accum_steps"]
    if sparse:  # embedding tables: update only the rows a batch touches
        common["sparse_updates"] = "lazy"
    common["convention"] = s.get("convention", "keras")  # descend compare --conventions
    wd = s["weight_decay"] or None
    try:
        if name == "sgd":
            return O.SGD(schedule, weight_decay=wd, **common)
        if name == "momentum":
            return O.SGD(schedule, momentum=0.9, weight_decay=wd, **common)
        if name == "adamw":
            return O.AdamW(schedule, weight_decay=s["weight_decay"] or 0.0, **common)
        if name == "adamweightdecay":
            return O.AdamWeightDecay(schedule, weight_decay_rate=s["weight_decay"] or 0.0,
                                     exclude_from_weight_decay=["bias"], **common)
        cls = {"adam": O.Adam, "adagrad": O.Adagrad, "adagraddecay": O.AdagradDecay, "rmsprop": O.RMSprop,
               "adadelta": O.Adadelta, "adamax": O.Adamax, "nadam": O.Nadam, "ftrl": O.Ftrl, "lion": O.Lion,
               "lamb": O.Lamb}[name]
        return cls(schedule, weight_decay=wd, **common)
    except (ValueError, TypeError) as e:
        raise UsageError(f"--optimizer {name}: {e}") from None


def usual_lr(name: str, clicks: bool) -> float:
    return USUAL_LR[name] * (CLICKS_LR_FACTOR if clicks else 1.0)
