"""What one ``descend train`` job trains: the data split, the model, the schedule and the optimizer.

Everything here is decided from the settings alone (and the data), so that
``--resume`` and ``descend predict`` rebuild exactly the run's model.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .options import CLICKS_LR_FACTOR, USUAL_LR, UsageError, warmup_default
from .tabular import DataError, class_mapping, file_sha256, infer_task, read_csv, read_npz

__all__ = ["Data", "load_data", "features_for_predict", "build_model", "build_optimizer", "schedule_text",
           "plan_updates", "MIN_EXAMPLES"]

MIN_EXAMPLES = 30  # 20% test and 10% validation of 30 rows: 6 and 3 examples
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


def _read_table(path, label, require_label=True, feature_names=None):
    if os.path.isdir(path):
        raise DataError(f"{path}: is a folder; --data needs a .csv or .npz file")
    if not os.path.exists(path):
        raise DataError(f"data file not found: {path}")
    if os.path.getsize(path) == 0:
        raise DataError(f"{path}: the file is empty")
    low = path.lower()
    if low.endswith(".npz"):
        if label is not None:
            raise DataError("--label names a column of a .csv file; a .npz file has arrays x and y")
        return read_npz(path, require_label=require_label)
    if low.endswith((".csv", ".tsv", ".txt")):
        return read_csv(path, label, require_label=require_label, feature_names=feature_names)
    raise DataError(f"{path}: unsupported data format; expected .csv (header and a label column) or .npz (x, y)")


def load_data(s: dict) -> Data:
    """Read and split the data the settings ``s`` name; raises UsageError with one line on bad data."""
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
        table = _read_table(path, s["label"])
        task, why = infer_task(table.labels, None if s["task"] in (None, "auto") else s["task"])
    except DataError as e:
        raise UsageError(str(e)) from None
    n = len(table.x)
    if n < MIN_EXAMPLES:
        raise UsageError(f"{path}: need at least {MIN_EXAMPLES} examples (for the train, validation and test "
                         f"splits); found {n}")
    tr, va, te = _split(n, seed)
    mean = table.x[tr].mean(axis=0)
    std = table.x[tr].std(axis=0)
    std[std == 0] = 1.0  # a constant column stays 0 after centring
    x = ((table.x - mean) / std).astype(np.float32)
    info = {"source": os.path.abspath(path), "sha256": file_sha256(path), "label": table.label_name,
            "features": table.feature_names, "x_mean": mean.tolist(), "x_std": std.tolist(), "task": task,
            "delimiter": table.delimiter}
    if task == "classification":
        classes, y = class_mapping(table.labels)
        if len(classes) < 2:
            raise UsageError(f"{path}: the label column '{table.label_name}' holds one class only "
                             f"({classes[0]!r}); need at least 2")
        if len(classes) > 1000:
            raise UsageError(f"{path}: the label column '{table.label_name}' holds {len(classes):,} classes "
                             "(more than 1,000); for a numeric target pass --task regression")
        info["classes"] = classes
        shown = ", ".join(map(str, classes[:6])) + (", ..." if len(classes) > 6 else "")
        desc = f"task: classification into {len(classes)} classes ({shown}) from '{table.label_name}' ({why})"
        out = len(classes)
        y_all = y
    else:
        y = table.labels.astype(np.float64)
        y_mean, y_std = float(y[tr].mean()), float(y[tr].std())
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


def features_for_predict(path, info: dict) -> tuple[np.ndarray, object]:
    """The standardized features of ``path`` for a run trained on data described by ``info``,
    and the file's label column when it has one (else None)."""
    try:
        if path.lower().endswith(".npz"):
            table = _read_table(path, None, require_label=False)
            if table.x.shape[1] != len(info["features"]):
                raise DataError(f"{path}: x has {table.x.shape[1]} features; the run was trained on "
                                f"{len(info['features'])}")
        else:
            table = _read_table(path, info.get("label"), require_label=False, feature_names=info["features"])
    except DataError as e:
        raise UsageError(str(e)) from None
    if "x_mean" in info:  # files are standardized with the training split's statistics; the bundled data is not
        x = ((table.x - np.asarray(info["x_mean"])) / np.asarray(info["x_std"])).astype(np.float32)
    else:
        x = table.x.astype(np.float32)
    labels = table.labels if table.label_name == info.get("label") else None
    return x, labels


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
