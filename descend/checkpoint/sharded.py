"""``ShardedCheckpoint``: checkpoints of tables sharded over MPI ranks, restorable on any number of ranks.

A :class:`~descend.distribute.ShardedEmbedding` holds different rows on each
rank, so one rank cannot save it. ``ShardedCheckpoint(**roots)`` takes the same
roots as :class:`~descend.checkpoint.Checkpoint`; ``write``/``save`` are
collective (every rank calls them) and produce one directory::

    <path>/sharded.json                  the layout (written last, by rank 0)
    <path>/shard-00000-of-00003/         rank 0: every object's state, its rows of each table
    <path>/shard-00001-of-00003/         rank 1: its rows of each table (and of their slots)
    <path>/shard-00002-of-00003/         ...

Each ``shard-*`` directory is an ordinary checkpoint (safetensors and a
verified manifest). ``sharded.json`` records, for each sharded table (keyed by
its path from the roots), its global shape, dtype, every shard's row range and
the keys that hold rows (the table and its optimizer slots). The ranks write
into one temporary directory that rank 0 renames into place once all
succeeded, so a crash leaves the previous checkpoint or the new one, never a
mix.

``restore``/``read`` work at any number of ranks, in one process included (into
a ShardedEmbedding without MPI or a plain ``Embedding``): each rank takes the
rows it owns now from the shard files that hold them (files holding none of its
rows are not read) and everything else from shard 0, then restores through
:class:`Checkpoint` (every check, strict mode and deferred restoration as
there). A table whose global shape differs from the checkpoint's is refused on
every rank with a :class:`CheckpointMismatchError`, nothing restored.

Example:
    >>> import tempfile
    >>> import numpy as np
    >>> import descend as ds
    >>> from descend.checkpoint import ShardedCheckpoint
    >>> ds.clear_session()
    >>> table = ds.distribute.ShardedEmbedding(6, 2)
    >>> _ = table(ds.constant([0]))
    >>> path = ShardedCheckpoint(table=table).write(tempfile.mkdtemp() + "/ckpt")
    >>> plain = ds.layers.Embedding(6, 2); plain.build()
    >>> _ = ShardedCheckpoint(table=plain).restore(path)   # one process, an ordinary Embedding
    >>> bool((plain.embeddings.numpy() == table.embeddings.numpy()).all())
    True
"""

from __future__ import annotations

import json
import os
import secrets
import shutil

import numpy as np

from ..distribute import strategy as _strategy
from ..distribute.sharded import ShardedEmbedding
from ..distribute.split import split_bounds
from .checkpoint import Checkpoint
from .errors import CheckpointCorruptedError, CheckpointError, CheckpointMismatchError, short
from .format import (
    TMP_PREFIX,
    fsync_dir,
    new_manifest,
    parse_json,
    read_checkpoint,
    write_checkpoint_dir,
    write_durable,
)
from .trackable import OptimizerLeaf, walk

__all__ = ["ShardedCheckpoint", "SHARDED_MANIFEST", "SHARDED_FORMAT", "shard_dir_name"]

SHARDED_MANIFEST = "sharded.json"
SHARDED_FORMAT = "descend.sharded-checkpoint"
_VERSION = 1


def shard_dir_name(index: int, count: int) -> str:
    """The directory holding shard ``index`` of ``count``: ``shard-00001-of-00003``."""
    return f"shard-{index:05d}-of-{count:05d}"


def _tables(graph) -> dict:
    """``{path: (layer, variable)}`` of the ShardedEmbedding tables the roots reach."""
    out = {}
    for layer in graph.layers.values():
        if isinstance(layer, ShardedEmbedding) and layer.embeddings is not None:
            path = graph.var_paths.get(id(layer.embeddings))
            if path is not None:
                out[path] = (layer, layer.embeddings)
    return out


def _row_keys(graph, path: str, tensors: dict) -> list:
    """The saved keys holding rows of the table at ``path``: the table, then its optimizer slots."""
    keys = [path]
    for leaf in graph.leaves:
        if isinstance(leaf, OptimizerLeaf):
            prefix = f"{leaf.path}/{path}/"
            keys += sorted(k for k in tensors if k.startswith(prefix) and "/" not in k[len(prefix):])
    return keys


class ShardedCheckpoint(Checkpoint):
    """A :class:`Checkpoint` whose sharded tables are saved one shard per rank (see the module docs).

    Every rank must call :meth:`write`, :meth:`save`, :meth:`restore` and :meth:`read` (they are
    collective under mpiexec); the group is that of the strategy the tables were built under.
    """

    def _group(self):
        graph = walk(self._objects)
        groups = {id(layer.group): layer.group for layer, _ in _tables(graph).values()}
        if len(groups) > 1:
            raise ValueError("ShardedCheckpoint: the sharded tables were built under different process groups")
        return next(iter(groups.values())) if groups else _strategy.get_strategy().group

    # -- saving ------------------------------------------------------------------------------------------------
    def _write(self, path, counter: int, extra: dict | None = None) -> str:
        path = os.path.abspath(os.fspath(path))
        group = self._group()
        n, rank = group.size, group.rank
        graph = walk(self._objects)
        tensors, objects, names, _ = self._collect()
        tables = _tables(graph)
        layout, mine = {}, {}
        for vpath, (layer, var) in sorted(tables.items()):
            keys = _row_keys(graph, vpath, tensors)
            layout[vpath] = {"global_shape": [layer.input_dim, layer.output_dim], "dtype": var.dtype.name,
                             "row_ranges": [list(split_bounds(layer.input_dim, n, r)) for r in range(n)],
                             "keys": keys}
            mine.update({k: tensors[k] for k in keys})
        if rank != 0:  # the other objects' state is the same on every rank: shard 0 holds it
            tensors, objects, names = mine, {}, {}
        parent, base = os.path.split(path)
        token = np.frombuffer(secrets.token_bytes(8), np.int64).copy()
        group.bcast(token, 0)
        tmp = os.path.join(parent, f"{TMP_PREFIX}{base}-{int(token[0]) & 0xFFFFFFFFFFFF:012x}")
        error = None
        try:
            if rank == 0:
                if os.path.islink(path) or (os.path.lexists(path) and not _is_sharded_dir(path) and not (
                        os.path.isdir(path) and not os.listdir(path))):
                    raise FileExistsError(f"ShardedCheckpoint: '{path}' exists and is not a sharded checkpoint; "
                                          "refusing to replace it")
                os.makedirs(tmp)
        except OSError as e:
            error = f"{type(e).__name__}: {e}"
        error = _first_error(group, error)
        if error is None:
            try:
                write_checkpoint_dir(os.path.join(tmp, shard_dir_name(rank, n)), tensors,
                                     new_manifest(objects, names, counter, extra))
            except (OSError, ValueError, TypeError) as e:
                error = f"rank {rank}: {type(e).__name__}: {e}"
            error = _first_error(group, error)
        if error is None and rank == 0:
            try:
                manifest = {"format": SHARDED_FORMAT, "version": _VERSION, "num_shards": n,
                            "save_counter": int(counter), "tables": layout}
                write_durable(os.path.join(tmp, SHARDED_MANIFEST), json.dumps(manifest, indent=1).encode())
                fsync_dir(tmp)
                aside = None
                if os.path.lexists(path):
                    aside = os.path.join(parent, f"{TMP_PREFIX}old-{base}-{secrets.token_hex(6)}")
                    os.rename(path, aside)
                os.rename(tmp, path)
                fsync_dir(parent)
                if aside is not None:
                    shutil.rmtree(aside, ignore_errors=True)
            except OSError as e:
                error = f"{type(e).__name__}: {e}"
        error = _first_error(group, error)
        if error is not None:
            if rank == 0:
                shutil.rmtree(tmp, ignore_errors=True)
            raise CheckpointError(f"ShardedCheckpoint: writing '{path}' failed: {error}")
        return path

    # -- restoring ---------------------------------------------------------------------------------------------
    def _restore(self, path, *, strict: bool, counter: bool):
        if path is None:
            return super()._restore(path, strict=strict, counter=counter)
        path = os.path.abspath(os.fspath(path))
        layout = _read_layout(path)
        n_saved = layout["num_shards"]
        graph = walk(self._objects)
        wanted, problems = {}, []
        for vpath, spec in layout["tables"].items():
            rng = _wanted_rows(graph, vpath, spec, problems)
            if rng is not None:
                wanted[vpath] = rng
        if problems:
            raise CheckpointMismatchError(
                f"checkpoint '{path}' does not match the tables to restore; nothing was restored:\n    "
                + "\n    ".join(problems), mismatched=problems)
        manifest, saved = read_checkpoint(os.path.join(path, shard_dir_name(0, n_saved)))
        row_keys = {k for spec in layout["tables"].values() for k in spec["keys"]}
        assembled = {k: v for k, v in saved.items() if k not in row_keys}
        pieces: dict = {}
        for s in range(n_saved):
            needed = [(vpath, lo, hi) for vpath, (lo, hi) in wanted.items()
                      if min(hi, layout["tables"][vpath]["row_ranges"][s][1])
                      > max(lo, layout["tables"][vpath]["row_ranges"][s][0])]
            if not needed:
                continue  # none of this rank's rows: the file is not read
            _, shard = (manifest, saved) if s == 0 else read_checkpoint(os.path.join(path, shard_dir_name(s, n_saved)))
            for vpath, lo, hi in needed:
                a, b = layout["tables"][vpath]["row_ranges"][s]
                for key in layout["tables"][vpath]["keys"]:
                    arr = shard.get(key)
                    if arr is None or arr.ndim < 1 or arr.shape[0] != b - a:
                        raise CheckpointCorruptedError(f"checkpoint '{path}': shard {s} holds no rows [{a}, {b}) "
                                                       f"of '{key}' as {SHARDED_MANIFEST} records", [key])
                    pieces.setdefault(key, []).append((max(lo, a), arr[max(lo, a) - a:min(hi, b) - a]))
            del shard
        for vpath, (lo, hi) in wanted.items():
            for key in layout["tables"][vpath]["keys"]:
                parts = sorted(pieces.get(key, []), key=lambda p: p[0])
                got = sum(p.shape[0] for _, p in parts)
                if got != hi - lo:
                    raise CheckpointCorruptedError(f"checkpoint '{path}': the shards hold {got} of the rows "
                                                   f"[{lo}, {hi}) of '{key}'", [key])
                assembled[key] = np.concatenate([p for _, p in parts]) if len(parts) != 1 else parts[0][1]
        return self._restore_from(path, manifest, assembled, strict=strict, counter=counter)


def _first_error(group, error):
    """Every rank learns the first rank's error (or None): nobody goes on alone."""
    errors = group.allgather_object(error)
    return next((e for e in errors if e is not None), None)


def _is_sharded_dir(path: str) -> bool:
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, SHARDED_MANIFEST))


def _read_layout(path: str) -> dict:
    mpath = os.path.join(path, SHARDED_MANIFEST)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"No sharded checkpoint at '{path}' (expected a directory holding "
                                f"{SHARDED_MANIFEST})")
    try:
        with open(mpath, "rb") as f:
            raw = f.read(1 << 24)
    except FileNotFoundError:
        raise FileNotFoundError(f"No sharded checkpoint at '{path}': {SHARDED_MANIFEST} is missing (a "
                                "ShardedCheckpoint reads what ShardedCheckpoint.write/save wrote)") from None
    layout = parse_json(raw, mpath, "sharded manifest")

    def bad(what):
        return CheckpointCorruptedError(f"checkpoint '{path}': {SHARDED_MANIFEST} {what}", [SHARDED_MANIFEST])

    if not isinstance(layout, dict) or layout.get("format") != SHARDED_FORMAT:
        raise bad(f"is not a {SHARDED_FORMAT} manifest")
    if layout.get("version") != _VERSION:
        raise bad(f"has version {short(layout.get('version'))}; this descend reads version {_VERSION}")
    n = layout.get("num_shards")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise bad(f"has num_shards={short(n)}; expected a positive integer")
    tables = layout.get("tables")
    if not isinstance(tables, dict):
        raise bad("has no 'tables' object")
    for vpath, spec in tables.items():
        ok = (isinstance(spec, dict) and isinstance(spec.get("global_shape"), list)
              and len(spec["global_shape"]) == 2 and all(isinstance(d, int) and d > 0 for d in spec["global_shape"])
              and isinstance(spec.get("keys"), list) and all(isinstance(k, str) for k in spec["keys"])
              and spec.get("row_ranges") == [list(split_bounds(spec["global_shape"][0], n, r)) for r in range(n)])
        if not ok:
            raise bad(f"describes table '{short(vpath)}' inconsistently (global_shape, row_ranges or keys)")
    for s in range(n):
        if not os.path.isdir(os.path.join(path, shard_dir_name(s, n))):
            raise CheckpointCorruptedError(f"checkpoint '{path}': {shard_dir_name(s, n)} is missing",
                                           [shard_dir_name(s, n)])
    return layout


def _wanted_rows(graph, vpath: str, spec: dict, problems: list):
    """The global rows ``[lo, hi)`` this rank restores of the table saved at ``vpath``, or None (not restored
    here: Checkpoint then reports it); a shape mismatch is appended to ``problems``."""
    shape = tuple(spec["global_shape"])
    tables = _tables(graph)
    if vpath in tables:
        layer, _ = tables[vpath]
        have = (layer.input_dim, layer.output_dim)
        rng = layer.row_range
    else:
        var = graph.resolve(vpath)
        owner = graph.layer_owning(vpath)
        if var is not None:
            have, rng = tuple(var.shape), (0, int(var.shape[0]) if var.shape else 0)
        elif owner is not None and isinstance(owner[1], ShardedEmbedding):  # not built yet: its rows once built
            layer = owner[1]
            have = (layer.input_dim, layer.output_dim)
            rng = split_bounds(layer.input_dim, layer.group.size, layer.group.rank)
        elif owner is not None:  # an ordinary layer not built yet: the whole table, checked when it is created
            have, rng = shape, (0, shape[0])
        else:
            return None
    if have != shape:
        problems.append(f"{vpath}: the checkpoint holds a table of global shape {shape}; the table to restore "
                        f"has global shape {have}")
        return None
    return rng
