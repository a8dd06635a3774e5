"""Checkpoints of state that differs by rank: written by every rank at once, read at any number of ranks.

Two kinds of state live on some ranks only:

* **tables sharded over the ranks** (``descend.distribute.ShardedEmbedding``): rank ``r`` holds rows
  ``[lo_r, hi_r)`` of the table and of its optimizer slots. A layer that holds such a table says so
  with ``table_shard()`` (its variable, the global shape, its rows and the process group);
* **sharded optimizer state** (``shard_optimizer_state=True``, ZeRO stage 1): each dense variable's
  slots live on one rank, its owner. The strategy the variables belong to says who owns what
  (``strategy.checkpoint_owners(graph)``).

A checkpoint holding either is written by every rank: ``write``/``save`` are collective (every rank
calls them; a checkpoint of state every replica holds alike is written by whichever process calls it,
rank 0 under ``fit``). Rank ``r > 0`` writes its rows and the slots it owns to a staging directory,
rank 0 writes everything else (the state every replica holds alike), adopts the staging directories
as ``shard-<r>`` and renames the one directory into place: a crash leaves the previous checkpoint or the
new one, never a mix. The manifest lists the shards with
their manifests' checksums (``shards``), each sharded table's global shape and rows per shard
(``tables``) and the slot owners (``zero``).

Reading works at any number of ranks, one process included: each rank takes the rows it holds now of
each table (from the shards that hold them; the others are not read) and everything else, then
restores as for any checkpoint.
"""

from __future__ import annotations

import os
import secrets
import shutil

import numpy as np

from .. import durable
from ..checkpoint_errors import CheckpointError
from ..durable import TMP_PREFIX
from . import descend_format as fmt

__all__ = ["Layout", "agree", "fingerprint", "group_of", "layout_of", "replica_group", "write", "wanted_rows"]


class Layout:
    """Who writes what in a collective checkpoint: the group, each sharded table's rows per rank (and the
    keys holding its rows), each ZeRO slot's owner."""

    def __init__(self, group, tables: dict, owners: dict):
        self.group = group
        self.tables = tables    # path -> {"global_shape", "dtype", "row_ranges", "keys"}
        self.owners = owners    # "<optimizer path>/<variable path>" -> rank

    def manifest_fields(self) -> dict:
        out = {"ranks": self.group.size}
        if self.tables:
            out["tables"] = self.tables
        if self.owners:
            out["zero"] = {"ranks": self.group.size, "owners": dict(sorted(self.owners.items()))}
        return out


def _shards_of(graph) -> dict:
    """``{variable path: table_shard() info}`` of the layers holding a table sharded over several ranks."""
    out = {}
    for layer in graph.layers.values():
        shard_of = getattr(layer, "table_shard", None)
        info = shard_of() if callable(shard_of) else None
        if info is None or info["shards"] <= 1 or info["variable"] is None:
            continue
        path = graph.var_paths.get(id(info["variable"]))
        if path is not None:
            out[path] = info
    return out


def _row_keys(graph, path: str, tensors: dict) -> list:
    """The saved keys holding rows of the table at ``path``: the table, then its optimizer slots."""
    keys = [path]
    for leaf in graph.leaves:
        if leaf.kind == "optimizer":
            prefix = f"{leaf.path}/{path}/"
            keys += sorted(k for k in tensors if k.startswith(prefix) and "/" not in k[len(prefix):])
    return keys


def _candidates(graph) -> list:
    out = list(graph.vars_by_path.values())
    out += [leaf.obj.iterations for leaf in graph.leaves
            if leaf.kind == "optimizer" and hasattr(leaf.obj, "iterations")]
    return out


def group_of(graph, strategy_of):
    """The process group every rank of which takes part in writing a checkpoint of ``graph`` -- when it holds
    state that differs by rank: tables sharded over the ranks, optimizer state sharded by the strategy --
    or None (state every replica holds alike: one process writes it)."""
    groups = {id(info["group"]): info["group"] for info in _shards_of(graph).values()}
    for var in _candidates(graph):
        strategy = strategy_of(var)
        if strategy is not None and strategy.checkpoint_owners(graph) is not None:
            groups[id(strategy.group)] = strategy.group
            break
    if len(groups) > 1:
        raise CheckpointError("Checkpoint: the objects were trained under different process groups; save each "
                              "group's objects in a checkpoint of their own")
    group = next(iter(groups.values()), None)
    return group if group is not None and group.size > 1 else None


def replica_group(graph, strategy_of):
    """The process group of the replicas that hold ``graph``'s state -- every rank of which restores it: the
    group of :func:`group_of`, else that of the strategy owning any of its variables -- or None (one process,
    or variables no strategy of several replicas owns)."""
    group = group_of(graph, strategy_of)
    if group is not None:
        return group
    for var in _candidates(graph):
        strategy = strategy_of(var)
        group = getattr(strategy, "group", None) if strategy is not None else None
        if group is not None and group.size > 1:
            return group
    return None


def fingerprint(path, manifest: dict | None, saved: dict | None) -> dict:
    """What identifies the checkpoint a rank restores, whatever path it reaches it by: its manifest's checksum
    (which covers every tensor's), else (another program's files) a digest of the values read; and the path,
    to name it."""
    import hashlib

    if path is None:
        return {"path": None, "content": None, "save_counter": None}
    digest = manifest.get("manifest_sha256") if isinstance(manifest, dict) else None
    if not isinstance(digest, str) and saved is not None:
        h = hashlib.sha256()
        for key in sorted(saved):
            arr = saved[key]
            h.update(f"{key}\0{arr.dtype.str}\0{arr.shape}\0".encode())
            h.update(memoryview(np.ascontiguousarray(arr)).cast("B"))
        digest = "values:" + h.hexdigest()
    counter = manifest.get("save_counter") if isinstance(manifest, dict) else None
    return {"path": os.path.abspath(os.fspath(path)), "content": digest,
            "save_counter": counter if isinstance(counter, int) and not isinstance(counter, bool) else None}


def _shown(fp: dict) -> str:
    if fp["path"] is None:
        return "nothing (path None: start from scratch)"
    content = str(fp["content"] or "?")
    tail = f", save_counter {fp['save_counter']}" if fp["save_counter"] is not None else ""
    return f"'{fp['path']}' (content {content.split(':')[-1][:16]}{tail})"


def agree(group, what: str, mine, error: BaseException | None = None) -> None:
    """A collective every rank calls with its value (``mine``: a :func:`fingerprint` for a restore, a path for
    a save) or the error it met preparing: raises on every rank when any rank failed (naming it; the rank's
    own error is raised as it is) or when the ranks' values differ ("the ranks disagree", naming what each
    rank has). Nothing has changed on any rank then."""
    report = None if error is None else f"{type(error).__name__}: {str(error).splitlines()[0][:500] if str(error) else ''}"
    everyone = group.allgather_object((mine if error is None else None, report))
    if error is not None:
        raise error
    failed = [f"rank {r}: {e}" for r, (_, e) in enumerate(everyone) if e is not None]
    if failed:
        raise CheckpointError(f"{what} failed on {len(failed)} of the {group.size} ranks; nothing was changed on "
                              f"any rank: {'; '.join(failed)}")
    values = [v for v, _ in everyone]
    key = (lambda v: (v["content"], v["path"] is None)) if isinstance(mine, dict) else (lambda v: v)
    if all(key(v) == key(values[0]) for v in values):
        return
    groups: dict = {}
    for r, v in enumerate(values):
        groups.setdefault(key(v), []).append(r)
    shown = []
    for ranks in groups.values():
        v = values[ranks[0]]
        who = f"rank {ranks[0]}" if len(ranks) == 1 else f"ranks {', '.join(map(str, ranks))}"
        shown.append(f"{who}: {_shown(v) if isinstance(v, dict) else repr(v)}")
    raise CheckpointError(f"{what}: the ranks disagree ({'; '.join(shown)}); every rank of the {group.size} must "
                          f"name the same {'checkpoint' if isinstance(mine, dict) else 'path'}. Nothing was "
                          "changed on any rank")


def layout_of(graph, tensors: dict, strategy_of) -> Layout | None:
    """The collective layout of a checkpoint of ``graph`` (None: one process writes it all).
    ``strategy_of(variable)`` gives the strategy a variable belongs to."""
    group = group_of(graph, strategy_of)
    if group is None:
        return None
    shards = _shards_of(graph)
    owners = {}
    for var in _candidates(graph):
        strategy = strategy_of(var)
        found = None if strategy is None else strategy.checkpoint_owners(graph)
        if found:
            owners = found
            break
    tables = {}
    for path, info in sorted(shards.items()):
        rows, cols = info["global_shape"]
        tables[path] = {"global_shape": [int(rows), int(cols)], "dtype": info["variable"].dtype.name,
                        "row_ranges": [list(info["row_ranges"][r]) for r in range(group.size)],
                        "keys": _row_keys(graph, path, tensors)}
    return Layout(group, tables, owners)


def write(layout: Layout, path, tensors, objects, names, counter, extra) -> None:
    """Every rank writes its share of the checkpoint at ``path`` (a collective: every rank calls it)."""
    group, rank = layout.group, layout.group.rank
    row_keys = {k for spec in layout.tables.values() for k in spec["keys"]}

    def owner(key: str) -> int:
        return layout.owners.get(key.rsplit("/", 1)[0], 0)

    if rank == 0:
        mine = {k: a for k, a in tensors.items() if owner(k) == 0}
    else:  # its rows of every table and the slots it owns; the rest is the same on every rank: rank 0 has it
        mine = {k: a for k, a in tensors.items() if k in row_keys or (k.rsplit("/", 1)[0] in layout.owners
                                                                       and owner(k) == rank)}
    agree(group, f"writing the checkpoint '{path}' on {group.size} ranks", os.path.abspath(os.fspath(path)))
    if rank == 0:  # what killed saves of this path left (no rank stages this save's parts before the token)
        durable.clear_leftovers(path)
    token = group.allgather_object(secrets.token_hex(6) if rank == 0 else None)[0]
    parent = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(os.path.abspath(path))

    def staging(r):
        return os.path.join(parent, f"{TMP_PREFIX}{base}-{token}-shard-{r}")

    error, digest, held = None, None, None
    if rank > 0 and mine:  # a rank with nothing of its own (the state every replica holds alike) writes no shard
        try:
            os.makedirs(parent, exist_ok=True)
            manifest = fmt.new_manifest({}, {}, counter, {"shard": {"rank": rank, "ranks": group.size}})
            fmt.write_checkpoint_dir(staging(rank), mine, manifest)
            held = durable.hold_dir(staging(rank))  # locked until adopted: not a dead save's leftover
            digest = manifest["manifest_sha256"]
        except Exception as e:  # noqa: BLE001 -- reported on every rank below
            error = f"{type(e).__name__}: {e}"
    tf_keys = (extra or {}).get("tf_keys", {})  # TensorFlow's key of each tensor: of the whole, on rank 0
    reports = group.allgather_object((error, digest, {k: tf_keys[k] for k in mine if k in tf_keys}))
    failed = [f"rank {r}: {e}" for r, (e, _, _) in enumerate(reports) if e]
    if not failed and rank == 0:
        shards = [{"dir": f"shard-{r}", "rank": r, "manifest_sha256": d} for r, (_, d, _) in enumerate(reports)
                  if r and d is not None]
        if "tf_keys" in (extra or {}):
            extra = dict(extra, tf_keys={k: v for _, _, keys in reports for k, v in keys.items()})  # (each rank's part)
        try:
            fmt.write_checkpoint_dir(path, mine, fmt.new_manifest(
                objects, names, counter, dict(extra or {}, shards=shards, **layout.manifest_fields())),
                adopt={s["dir"]: staging(s["rank"]) for s in shards})
        except Exception as e:  # noqa: BLE001
            error = f"{type(e).__name__}: {e}"
    final = group.allgather_object(error if rank == 0 else None)[0]
    if rank > 0 and os.path.lexists(staging(rank)):  # not adopted: rank 0 failed
        shutil.rmtree(staging(rank), ignore_errors=True)
    if held is not None:
        held.release()
    if failed or final:
        raise CheckpointError(f"writing the checkpoint '{path}' on {group.size} ranks failed; nothing was written: "
                              f"{'; '.join(failed) if failed else 'rank 0: ' + final}")


def wanted_rows(graph, tables: dict) -> tuple[dict, list]:
    """``({table path: (lo, hi)}, problems)``: the rows of each sharded table of a checkpoint this process
    restores now -- a sharded layer's own rows (built or not), an ordinary variable's every row -- and the
    tables whose global shape differs from the checkpoint's."""
    mine = {}
    for layer_path, layer in graph.layers.items():
        shard_of = getattr(layer, "table_shard", None)
        info = shard_of() if callable(shard_of) else None
        if info is not None:
            path = graph.var_paths.get(id(info["variable"])) if info["variable"] is not None else \
                f"{layer_path}/{info['name']}"
            mine[path] = (tuple(info["global_shape"]), tuple(info["row_ranges"][info["rank"]]))
    wanted, problems = {}, []
    for path, spec in tables.items():
        shape = tuple(spec["global_shape"])
        if path in mine:
            have, rows = mine[path]
        else:
            var = graph.resolve(path)
            owner = graph.layer_owning(path)
            if var is not None:
                have, rows = tuple(var.shape), (0, int(var.shape[0]) if var.shape else 0)
            elif owner is not None:  # a layer not built yet: the whole table, checked when it is created
                have, rows = shape, (0, shape[0])
            else:
                continue  # nothing restores it here: the restore reports it
        if have != shape:
            problems.append(f"{path}: the checkpoint holds a table of global shape {shape}; the table to restore "
                            f"has global shape {have}")
            continue
        wanted[path] = rows
    return wanted, problems
