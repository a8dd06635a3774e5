"""The ``descend`` command's arguments: the parser, the range of every number, the defaults.

Every flag is checked while it is parsed, so a bad value ends the command in
one line (exit code 2) before anything is read or written. Defaults that
depend on other flags (the learning rate depends on the optimizer, the
warm-up on the number of updates) are filled in by :func:`resolve_defaults`;
flags left out stay ``None`` until then, so that ``--resume`` can tell what
the user asked for from what the saved run used.
"""

from __future__ import annotations

import argparse
import math
import sys

__all__ = ["UsageError", "OPTIMIZERS", "SCHEDULES", "EXAMPLES", "USUAL_LR", "SETTINGS", "CHANGEABLE", "parser",
           "resolve_defaults", "warmup_default", "check_settings"]


class UsageError(ValueError):
    """Bad input from the user: reported in one line, exit code 2."""


# the learning rate each optimizer is usually run at on small dense problems (the MLP on digits):
# SGD needs a large one, Adadelta ~1 by design, sign-based Lion ~3-10x less than Adam
USUAL_LR = {"sgd": 0.1, "momentum": 0.03, "adam": 3e-3, "adamw": 3e-3, "adagrad": 0.05, "adagraddecay": 0.05,
            "rmsprop": 1e-3, "adadelta": 1.0, "adamax": 5e-3, "nadam": 3e-3, "ftrl": 0.1, "lion": 3e-4,
            "lamb": 5e-3, "adamweightdecay": 3e-3}
CLICKS_LR_FACTOR = 7.0  # embedding rows see few updates each: the click example runs each rate ~7x higher
OPTIMIZERS = tuple(USUAL_LR)
SCHEDULES = ("cosine", "linear", "exponential", "constant")
EXAMPLES = ("digits", "clicks")
TASKS = ("auto", "classification", "regression")
WARMUP_FRACTION, WARMUP_CAP = 0.05, 1000

# (name, type, low, high, low_inclusive): the range of every numeric flag
_INT, _FLOAT = "an integer", "a number"
RANGES = {
    "seed": (_INT, 0, 2**32 - 1, True),
    "hidden": (_INT, 1, 16384, True),
    "epochs": (_INT, 1, 100_000, True),
    "batch_size": (_INT, 1, 1_000_000, True),
    "max_steps": (_INT, 1, 1_000_000_000, True),
    "accum_steps": (_INT, 1, 1024, True),
    "warmup_steps": (_INT, 0, 10_000_000, True),
    "checkpoint_every": (_INT, 1, 1_000_000_000, True),
    "examples": (_INT, 1000, 10_000_000, True),
    "lr": (_FLOAT, 0.0, 10.0, False),
    "weight_decay": (_FLOAT, 0.0, 1.0, True),
    "clip_norm": (_FLOAT, 0.0, 1e6, False),
    "max_data_mb": (_INT, 1, 1 << 20, True),
}

# the settings of a run, saved in its config.json; --resume compares them with the flags given
SETTINGS = ("data", "label", "task", "example", "examples", "model", "hidden", "optimizer", "lr", "schedule",
            "warmup_steps", "weight_decay", "clip_norm", "accum_steps", "epochs", "batch_size", "max_steps", "seed")
# the ones --resume may change when --allow-change names them: they change no shape and no data order, and
# no constant the optimizer checkpoints (a restore would set a saved constant such as weight_decay back)
CHANGEABLE = ("lr", "schedule", "warmup_steps", "clip_norm", "epochs")
MODELS = ("mlp", "linear")
_CHOICES = {"task": TASKS, "example": EXAMPLES, "model": MODELS, "optimizer": OPTIMIZERS, "schedule": SCHEDULES}
_MAY_BE_NONE = ("data", "label", "example", "examples", "max_steps", "clip_norm", "weight_decay")
DEFAULT_MAX_DATA_MB = 1024


def _numeric(name):
    kind, lo, hi, lo_incl = RANGES[name]
    flag = "--" + name.replace("_", "-")

    def parse(text):
        try:
            value = int(text) if kind is _INT else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be {kind}; received: {text!r}") from None
        ok = (lo <= value if lo_incl else lo < value) and value <= hi and (kind is _INT or math.isfinite(value))
        if not ok:
            interval = f"{'[' if lo_incl else '('}{lo:g}, {hi:g}]"
            raise argparse.ArgumentTypeError(f"{flag} must be {kind} in {interval}; received: {text}")
        return value

    parse.__name__ = name
    return parse


def _choice(name, choices):
    flag = "--" + name.replace("_", "-")

    def parse(text):
        key = text.strip().lower().replace("_", "").replace("-", "") if name == "optimizer" else text.strip().lower()
        if key not in choices:
            raise argparse.ArgumentTypeError(f"unknown {name} '{text}'; known {name}s: {', '.join(choices)}")
        return key

    parse.__name__ = flag
    return parse


class _Parser(argparse.ArgumentParser):
    """argparse that reports an error in one line (no usage block), exit code 2."""

    def error(self, message):
        if message.startswith("argument ") and ": " in message:
            flag, rest = message[len("argument "):].split(": ", 1)
            if rest.startswith((flag.split("/")[-1] + " ", "unknown ")):
                message = rest  # our own messages already name the flag
            elif rest == "expected one argument":
                message = (f"{flag} needs a value (a value that starts with '-' is written {flag}=VALUE, "
                           f"e.g. {flag}=-1)")
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(2)


def _describe_ranges(name) -> str:
    kind, lo, hi, lo_incl = RANGES[name]
    return f"{'>=' if lo_incl else '>'} {lo:g}, <= {hi:g}"


def parser() -> argparse.ArgumentParser:
    """The ``descend`` argument parser (subcommands ``train``, ``compare``, ``predict``)."""
    from .. import __version__

    lists = (f"optimizers: {', '.join(OPTIMIZERS)}\n"
             f"schedules: {', '.join(SCHEDULES)} (after a linear warm-up)\n"
             f"examples: digits (8x8 handwritten digits, 10 classes), clicks (embeddings on a generated click "
             "log)\n"
             "exit codes: 0 done, 2 bad input (one line on stderr), 130/143 interrupted by Ctrl-C/SIGTERM "
             "(checkpoint saved)")
    fmt = argparse.RawDescriptionHelpFormatter
    p = _Parser(prog="descend", description="Train, compare and use models with descend.", epilog=lists,
                formatter_class=fmt, allow_abbrev=False)
    p.add_argument("--version", action="version", version=f"descend {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="{train,compare,predict}")

    def common(sp):
        d = sp.add_argument_group("data")
        d.add_argument("--data", metavar="FILE", help="a .csv (header, numeric features, a label column) or "
                       ".npz (arrays x, y) file; default: the bundled --example")
        d.add_argument("--label", metavar="COLUMN", help="the label column of a .csv file (default: the last)")
        d.add_argument("--task", type=_choice("task", TASKS), metavar="{auto,classification,regression}",
                       help="default auto: text labels or <= 20 distinct values are classes, "
                            "other numbers a regression (mean squared error)")
        d.add_argument("--example", type=_choice("example", EXAMPLES), metavar="{digits,clicks}",
                       help="bundled data when --data is not given (default: digits)")
        d.add_argument("--examples", type=_numeric("examples"), metavar="N",
                       help=f"rows of the generated click log ({_describe_ranges('examples')}; default: 60000)")
        m = sp.add_argument_group("model and optimizer")
        m.add_argument("--model", type=_choice("model", ("mlp", "linear")), metavar="{mlp,linear}",
                       help="default: mlp (two hidden ReLU layers)")
        m.add_argument("--hidden", type=_numeric("hidden"), metavar="UNITS",
                       help=f"hidden units per MLP layer ({_describe_ranges('hidden')}; default: 128)")
        m.add_argument("--lr", type=_numeric("lr"), metavar="RATE",
                       help="peak learning rate (default: the optimizer's usual rate: "
                            + ", ".join(f"{k} {v:g}" for k, v in USUAL_LR.items())
                            + f"; x{CLICKS_LR_FACTOR:g} for --example clicks)")
        m.add_argument("--schedule", type=_choice("schedule", SCHEDULES), metavar="{" + ",".join(SCHEDULES) + "}",
                       help="decay after the warm-up (default: cosine, to 1%% of the peak)")
        m.add_argument("--warmup-steps", type=_numeric("warmup_steps"), metavar="N",
                       help=f"linear warm-up updates (default: {WARMUP_FRACTION * 100:.0f}%% of the run's updates, at "
                            f"most {WARMUP_CAP})")
        m.add_argument("--weight-decay", type=_numeric("weight_decay"), metavar="WD",
                       help="decoupled weight decay, [0, 1] (default: 0.004 for adamw, none otherwise)")
        m.add_argument("--clip-norm", type=_numeric("clip_norm"), metavar="C",
                       help="clip gradients to this global norm, > 0 (default: no clipping)")
        m.add_argument("--accum-steps", type=_numeric("accum_steps"), metavar="K",
                       help="gradient accumulation: one update per K batches (default: 1)")
        t = sp.add_argument_group("training")
        t.add_argument("--epochs", type=_numeric("epochs"), metavar="E",
                       help="default: 40 (3 for --example clicks)")
        t.add_argument("--batch-size", type=_numeric("batch_size"), metavar="B",
                       help="default: 64 (256 for --example clicks)")
        t.add_argument("--max-steps", type=_numeric("max_steps"), metavar="N",
                       help="stop each epoch after N batches (default: the whole epoch)")
        t.add_argument("--seed", type=_numeric("seed"), metavar="S",
                       help="seeds the split, the initial weights and the shuffling (default: 0)")
        _max_data(d)
        o = sp.add_argument_group("run folder")
        o.add_argument("--out", metavar="DIR", help="run folder (default: runs/<command>-<date>-<time>)")
        o.add_argument("--overwrite", action="store_true", help="replace the run already in --out")

    t = sub.add_parser("train", help="train and evaluate one model; write a run folder", formatter_class=fmt,
                       allow_abbrev=False, epilog=lists)
    t.add_argument("--optimizer", type=_choice("optimizer", OPTIMIZERS), metavar="NAME",
                   help="default: adamw; one of " + ", ".join(OPTIMIZERS))
    common(t)
    r = t.add_argument_group("checkpoints and resume")
    r.add_argument("--checkpoint-every", type=_numeric("checkpoint_every"), metavar="N",
                   help="also checkpoint every N batches (default: at each epoch's end only)")
    r.add_argument("--resume", action="store_true",
                   help="continue the run in --out from its newest valid checkpoint, with its saved settings")
    r.add_argument("--allow-change", metavar="NAMES", default="",
                   help="with --resume: settings that may differ from the saved run, comma-separated, from: "
                        + ", ".join(CHANGEABLE))
    c = sub.add_parser("compare", help="train the same model with several optimizers; plot their curves",
                       formatter_class=fmt, allow_abbrev=False, epilog=lists)
    c.add_argument("--optimizers", metavar="NAMES", default="sgd,momentum,adam,adamw",
                   help="comma-separated optimizer names (default: sgd,momentum,adam,adamw)")
    c.add_argument("--lr-sweep", action="store_true",
                   help="try each optimizer at 1/3x, 1x and 3x its usual rate; keep the best on validation data")
    c.add_argument("--conventions", metavar="NAMES", default="keras",
                   help="comma-separated conventions each optimizer runs under, from keras, tf1, torch, optax (whose "
                        "arithmetic and defaults; default: keras); with several, the plot also shows each run's "
                        "training loss against the first convention's")
    common(c)
    pr = sub.add_parser("predict", help="predict with a trained run's final weights", formatter_class=fmt,
                        allow_abbrev=False)
    pr.add_argument("--run", required=True, metavar="DIR", help="a run folder written by descend train")
    pr.add_argument("--data", required=True, metavar="FILE", help="a .csv or .npz file with the run's features")
    pr.add_argument("--output", metavar="FILE",
                    help="write the predictions to this CSV file (default: stdout)")
    _max_data(pr)
    return p


def _max_data(group):
    group.add_argument("--max-data-mb", type=_numeric("max_data_mb"), metavar="MIB", default=DEFAULT_MAX_DATA_MB,
                       help="the largest table read from --data, in MiB of 8-byte numbers; a larger file is refused "
                            f"before it fills memory ({_describe_ranges('max_data_mb')}; default: "
                            f"{DEFAULT_MAX_DATA_MB})")


def check_settings(saved, where: str) -> dict:
    """The settings a run saved in its config.json (``where``), each checked as its flag would be
    (type and range, or one of the choices); raises UsageError naming the first bad one."""
    from ..persistence.checkpoint_errors import short

    if not isinstance(saved, dict) or not set(SETTINGS) <= set(saved):
        raise UsageError(f"{where} does not hold a run's settings")
    out = {}
    for k in SETTINGS:
        v = saved[k]
        if v is None and k in _MAY_BE_NONE:
            out[k] = None
            continue
        if k in RANGES:
            kind, lo, hi, lo_incl = RANGES[k]
            number = (isinstance(v, int) if kind is _INT else isinstance(v, (int, float))) and not isinstance(v, bool)
            ok = number and (isinstance(v, int) or math.isfinite(v)) and (lo <= v if lo_incl else lo < v) and v <= hi
            expected = f"{kind} in {'[' if lo_incl else '('}{lo:g}, {hi:g}]"
        elif k in _CHOICES:
            ok, expected = v in _CHOICES[k], "one of " + ", ".join(_CHOICES[k])
        else:
            ok, expected = isinstance(v, str) and 0 < len(v) <= 4096, "a file or column name"
        if not ok:
            raise UsageError(f"{where}: the saved setting '{k}' is {short(v, 60)}; expected {expected}")
        out[k] = v
    return out


def warmup_default(total_updates: int) -> int:
    """The default warm-up: 5% of the run's updates, at most 1000 (0 for runs under 20 updates)."""
    return min(int(round(total_updates * WARMUP_FRACTION)), WARMUP_CAP)


def resolve_defaults(s: dict) -> dict:
    """Fill the defaults that do not depend on the data (in place); returns ``s``."""
    clicks = s.get("data") is None and (s.get("example") or "digits") == "clicks"
    s.setdefault("example", None)
    if s["data"] is None and s["example"] is None:
        s["example"] = "digits"
    fixed = {"task": "auto", "model": "mlp", "hidden": 128, "optimizer": "adamw", "schedule": "cosine",
             "accum_steps": 1, "seed": 0, "epochs": 3 if clicks else 40, "batch_size": 256 if clicks else 64}
    if clicks:
        fixed["examples"] = 60000
    for k, v in fixed.items():
        if s.get(k) is None:
            s[k] = v
    if s.get("lr") is None:
        s["lr"] = USUAL_LR[s["optimizer"]] * (CLICKS_LR_FACTOR if clicks else 1.0)
    if s.get("weight_decay") is None and s["optimizer"] == "adamw":
        s["weight_decay"] = 0.004
    return s
