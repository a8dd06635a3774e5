"""``Checkpoint``: save and restore objects by their structure (``tf.train.Checkpoint``).

Saving walks the objects from the roots given to ``Checkpoint(**roots)`` and
writes each one's state under its path (see :mod:`descend.persistence.checkpoint.trackable`).
Restoring verifies every file first, then asks every object for a restore
plan; a refused value (a wrong shape or dtype) is one :class:`CheckpointMismatchError`
listing every such path and nothing changes (in strict mode also every missing
and unexpected path); then every plan commits. Values for variables that do not exist yet (a model built after
the restore) are kept by path and given to each variable when a layer creates
it; the optimizer keeps its own pending slots the same way.

Example:
    >>> import tempfile
    >>> import descend as ds
    >>> import descend.train as train
    >>> w = ds.Variable([1.0, 2.0], name="w")
    >>> opt = ds.optimizers.Adam(0.1)
    >>> ckpt = train.Checkpoint(w=w, optimizer=opt)
    >>> path = ckpt.save(tempfile.mkdtemp() + "/ckpt")
    >>> _ = w.assign([0.0, 0.0])
    >>> _ = ckpt.restore(path)
    >>> w.numpy()
    array([1., 2.], dtype=float32)
"""

from __future__ import annotations

import base64
import os
import threading
import weakref
from collections.abc import MutableSequence

import numpy as np

from ...framework import context
from ...framework.variable import Variable
from ...framework.module import register_attribute_hook
from ...layers.base import register_build_hook, register_weight_hook
from ..checkpoint_errors import (
    CheckpointAssertionError,
    CheckpointCorruptedError,
    CheckpointError,
    CheckpointMismatchError,
    RestoreReport,
    mismatch_message,
    short,
)
from ..formats import tf_bundle
from . import collective, tf_checkpoint, tf_writer
from . import optimizer_protocol as optim
from .descend_format import (
    MANIFEST_FILE,
    check_tables,
    is_checkpoint_dir,
    new_manifest,
    read_checkpoint,
    read_json_file,
    write_checkpoint_dir,
)
from .trackable import OptimizerLeaf, VariableLeaf, _qualname, is_trackable, join_state, split_state, walk

__all__ = ["Checkpoint"]

def _tables_of(path: str) -> dict:
    """The tables sharded over ranks a checkpoint's manifest records, checked (its checksum and tensors are
    verified when the checkpoint is read)."""
    try:
        manifest = read_json_file(path, MANIFEST_FILE, "manifest")
    except (OSError, CheckpointError):
        return {}  # reading the checkpoint reports it
    if not isinstance(manifest, dict) or "tables" not in manifest:
        return {}
    shards = manifest.get("shards")
    ranks = manifest.get("ranks", len(shards) + 1 if isinstance(shards, list) else 1)
    if isinstance(ranks, bool) or not isinstance(ranks, int) or not 0 < ranks <= 1 << 16:
        return {}  # reading the checkpoint reports it
    return check_tables(manifest["tables"], ranks, os.path.join(os.fspath(path), MANIFEST_FILE))


#: the most aliases a manifest may list (second paths to objects saved once)
MAX_ALIASES = 1 << 20


def _aliases_of(manifest: dict, path: str) -> dict[str, list[str]]:
    """The manifest's aliases (second path -> first path), checked, as first path -> second paths."""
    raw = manifest.get("aliases")
    if raw is None:
        return {}
    if not isinstance(raw, dict) or len(raw) > MAX_ALIASES or not all(
            isinstance(k, str) and isinstance(v, str) and k != v for k, v in raw.items()):
        raise CheckpointCorruptedError(f"checkpoint '{path}': the manifest's 'aliases' must map paths to other paths "
                                       f"(at most {MAX_ALIASES}); received {short(raw, 200)}", ["aliases"])
    out: dict[str, list[str]] = {}
    for second, first in raw.items():
        out.setdefault(first, []).append(second)
    return out


def _prefixes(key: str):
    """``key``'s own path, then each shorter prefix: ``a/b/c``, ``a/b``, ``a``."""
    end = len(key)
    while end > 0:
        yield key[:end]
        end = key.rfind("/", 0, end)


def _names_of(key: str, aliases: dict[str, list[str]]) -> list[str]:
    """Every path a saved value is known by: its key, then the same value through each alias of a prefix."""
    names = [key]
    if aliases:
        for p in _prefixes(key):
            names += [a + key[len(p):] for a in aliases.get(p, ())]
    return names


def _via(aliases: dict[str, str], name: str) -> str:
    """``name`` along the objects' first paths (a second path to an object becomes its first)."""
    if aliases:
        for p in _prefixes(name):
            if p in aliases:
                return aliases[p] + name[len(p):]
    return name


def _owner(leaves: dict, name: str) -> tuple[str, str] | None:
    """The object whose state holds the value at ``name``: ``(its path, the key inside its state)``."""
    leaf = leaves.get(name)
    if isinstance(leaf, VariableLeaf):
        return name, ""
    for p in _prefixes(name):
        if p != name:
            leaf = leaves.get(p)
            if leaf is not None and not isinstance(leaf, VariableLeaf):
                return p, name[len(p) + 1:]
    return None


class _TrackedList(MutableSequence):
    """A list assigned to a :class:`Checkpoint` (TensorFlow's ``ListWrapper``): it wraps the list (changes
    through either are the same list), and an object appended or assigned through it is given the value
    a restore kept for its path."""

    def __init__(self, storage: list):
        self._storage = storage

    def _changed(self):
        _apply_everywhere()

    def _trackable_children(self) -> dict:
        return {str(i): v for i, v in enumerate(self._storage)}

    def __len__(self):
        return len(self._storage)

    def __getitem__(self, i):
        return self._storage[i]

    def _change(self, edit) -> None:
        before = list(self._storage)
        edit(self._storage)
        try:
            self._changed()
        except Exception:
            self._storage[:] = before  # a refused object is not kept: the list is as it was
            raise

    def __setitem__(self, i, value):
        self._change(lambda s: s.__setitem__(i, value))

    def __delitem__(self, i):
        del self._storage[i]

    def insert(self, i, value):
        self._change(lambda s: s.insert(i, value))

    def __eq__(self, other):
        return self._storage == (other._storage if isinstance(other, _TrackedList) else other)

    __hash__ = None

    def __repr__(self):
        return f"ListWrapper({self._storage!r})"


def _track(value):
    """A plain list assigned to a Checkpoint, wrapped so that later appends are restored."""
    return _TrackedList(value) if type(value) is list else value


def _tf_fields(tf_keys: dict[str, str], tf_json: dict[str, list], graph: bytes) -> dict:
    """The manifest's fields naming the values by TensorFlow's keys, which :class:`~.reader.CheckpointReader`
    (``list_variables``, ``load_checkpoint``) shows: ``tf_keys`` (descend's key of each tensor -> TensorFlow's),
    ``tf_json_keys`` (TensorFlow's key of each JSON value -> ``[object path, name]``) and ``tf_object_graph``
    (the ``_CHECKPOINTABLE_OBJECT_GRAPH``, base64). Two values TensorFlow's graph would give one key (state
    kept for a variable not created yet, at a path the graph now places elsewhere) are told apart by the
    second's descend path (:func:`~.tf_writer.path_key`)."""
    taken = set(tf_json) | {tf_writer.SAVE_COUNTER_KEY, tf_bundle.OBJECT_GRAPH_KEY}
    unique = {}
    for key in sorted(tf_keys):
        name = tf_keys[key]
        if name in taken:
            name = tf_writer.path_key(key)
        if name in taken:
            raise ValueError(f"Checkpoint: the values '{key}' and another are both keyed '{name}'")
        taken.add(name)
        unique[key] = name
    return {"tf_keys": unique, "tf_json_keys": tf_json, "tf_object_graph": base64.b64encode(graph).decode("ascii")}


def _format(value) -> str:
    if value not in ("descend", "tensorflow"):
        raise ValueError(f"Checkpoint: format must be 'descend' (descend's folder) or 'tensorflow' (TensorFlow's "
                         f"object-graph bundle). Received: format={value!r}")
    return value


def _same_state(a, b) -> bool:
    """Whether two states (JSON values and arrays, nested in dicts and lists) are equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_state(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_state(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Checkpoint:
    """Save and restore trackable objects, keyed by their paths from these roots.

    Args:
        **roots: the objects to save, by name (letters, digits and ``_.-:``):
            models and layers, optimizers, Variables, metrics, dataset
            iterators, random generators, objects implementing the state
            protocol, and dicts/lists of these.

    Example:
        >>> import tempfile
        >>> import numpy as np
        >>> import descend as ds
        >>> import descend.train as train
        >>> step = ds.Variable(np.int64(3), name="step", trainable=False)
        >>> rng = np.random.default_rng(0)
        >>> ckpt = train.Checkpoint(step=step, rng=rng)
        >>> path = ckpt.save(tempfile.mkdtemp() + "/ckpt")
        >>> before = rng.random()
        >>> _ = step.assign_add(1)
        >>> report = ckpt.restore(path)
        >>> int(step), rng.random() == before
        (3, True)
    """

    def __init__(self, **roots):
        reserved = sorted(k for k in roots if k.startswith("_") or hasattr(type(self), k))
        if reserved:  # TensorFlow cannot set them either (save_counter is the root's own child)
            raise ValueError(f"Checkpoint: {reserved} name the Checkpoint's own attributes or methods; a root cannot "
                             "be named so. Received roots: " + short(sorted(roots), 300))
        self._objects = {k: _track(v) for k, v in roots.items()}
        walk(self._objects)  # fail now, naming the object, if something is not trackable
        self._save_counter = 0
        self._pending: dict[str, tuple[np.ndarray, str]] = {}  # path -> (value, key), variables not created yet
        self._restored_tf: dict[str, str] = {}  # descend's key -> TensorFlow's, in the checkpoint last restored
        self._claimed: list = []  # (weakref to a variable, its value before) given a pending value, until all are
        self._refused = None  # (message, key) once a pending value did not fit: every later claim fails
        self._graph = None

    # -- facts -------------------------------------------------------------------------------------------------
    @property
    def save_counter(self) -> int:
        """How many times :meth:`save` has run (restored by :meth:`restore`); numbers the next save."""
        return self._save_counter

    def __getattr__(self, name):
        objects = self.__dict__.get("_objects")
        if objects is not None and name in objects:
            return objects[name]
        raise AttributeError(f"'Checkpoint' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        """``ckpt.name = obj`` adds a root, as TensorFlow tracks attributes set after construction; values a
        restore kept for paths under ``name`` are given to the object now (a deferred restore). A value that
        is not trackable (a number, a string) is a plain attribute, not saved, as in TensorFlow."""
        if name.startswith("_") or hasattr(type(self), name):
            object.__setattr__(self, name, value)
            return
        objects = self.__dict__["_objects"]
        tracked = _track(value)
        if not is_trackable(tracked):
            objects.pop(name, None)
            object.__setattr__(self, name, value)
            return
        self.__dict__.pop(name, None)
        value = tracked
        had, before = name in objects, objects.get(name)
        objects[name] = value
        try:
            _apply_everywhere()
        except Exception:
            if had:
                objects[name] = before
            else:
                del objects[name]
            raise

    def __delattr__(self, name):
        objects = self.__dict__.get("_objects")
        if objects is not None and name in objects and name not in self.__dict__:
            del objects[name]
            return
        object.__delattr__(self, name)

    def _trackable_children(self) -> dict:
        """The roots, for a Checkpoint nested in another (``Checkpoint(net=Checkpoint(bias=v))``)."""
        return dict(self._objects)

    # -- saving ------------------------------------------------------------------------------------------------
    def _collect(self, counter: int) -> tuple[dict[str, np.ndarray], dict, dict, object, dict]:
        """``(tensors, objects, variable names, graph, tf)``: every value by descend's path, the objects' JSON
        state, and ``tf``, the manifest's fields naming each value by TensorFlow's key (see :func:`_tf_fields`)."""
        graph = walk(self._objects)
        tensors: dict[str, np.ndarray] = {}
        objects: dict = {}
        names: dict = {}
        split, optimizer_states = [], {}
        for leaf in graph.leaves:
            state = leaf.state()
            if isinstance(leaf, OptimizerLeaf):
                optimizer_states[id(leaf.obj)] = state  # (TensorFlow's graph places its slots: not read twice)
            t, js = split_state(state, leaf.path)
            split.append((leaf, sorted(t), sorted(js or {})))
            if isinstance(leaf, VariableLeaf):
                names[leaf.path] = leaf.obj.scoped_name
            else:
                entry = {"kind": leaf.kind, "class": _qualname(leaf.obj)}
                if js:
                    entry["json"] = js
                if isinstance(leaf, OptimizerLeaf):
                    entry.update(leaf.config())
                objects[leaf.path] = entry
            for inner, arr in t.items():
                key = leaf.full(inner)
                if key in tensors:
                    raise ValueError(f"Checkpoint: two objects save the same key '{key}'")
                tensors[key] = np.array(arr, dtype=arr.dtype.newbyteorder("<"), order="C", copy=True)
        # values restored for variables not created yet are state too: a save before they exist keeps them
        by_key: dict[str, list[str]] = {}
        for path, (_, key) in self._pending.items():
            by_key.setdefault(key, []).append(path)
        for key, paths in by_key.items():
            if not any(p in tensors or p in graph.vars_by_path for p in paths):
                value = self._pending[paths[0]][0]
                tensors[key] = np.array(value, dtype=value.dtype.newbyteorder("<"), order="C", copy=True)
        tf_names = tf_writer.KeyNames(self._objects, counter, optimizer_states)
        tf_keys: dict[str, str] = {}  # descend's key of a tensor -> TensorFlow's
        tf_json: dict[str, list] = {}  # TensorFlow's key of a JSON value -> [its object's path, its name there]
        for leaf, arrays, values in split:
            for inner in arrays:
                key = leaf.full(inner)
                tf_keys[key] = tf_names.key(leaf, inner)
                if tf_keys[key] not in tf_names.placed and key in self._restored_tf:  # e.g. a slot still waiting
                    tf_keys[key] = self._restored_tf[key]  # for its variable: the key it was restored from
            for inner in values:
                tf_json[tf_names.key(leaf, inner)] = [leaf.path, inner]
        for key in tensors.keys() - tf_keys.keys():  # values kept for variables not created yet
            tf_keys[key] = self._restored_tf.get(key) or tf_writer.path_key(key)  # the key it was restored from
        return tensors, objects, names, graph, _tf_fields(tf_keys, tf_json, tf_names.graph())

    def _write(self, path, counter: int, extra: dict | None = None) -> str:
        path = os.fspath(path)
        tensors, objects, names, graph, tf_fields = self._collect(counter)
        extra = dict(extra or {}, **tf_fields)
        if graph.aliases:  # second paths to objects saved under their first: a restore finds them by either
            extra = dict(extra, aliases=dict(graph.aliases))
        layout = collective.layout_of(graph, tensors, context.strategy_of)
        if layout is not None:  # state that differs by rank: every rank writes its part (a collective)
            collective.write(layout, path, tensors, objects, names, counter, extra)
            return path
        write_checkpoint_dir(path, tensors, new_manifest(objects, names, counter, extra))
        return path

    def collective_group(self):
        """The process group whose every rank takes part in :meth:`write` and :meth:`save` (state that
        differs by rank: tables sharded over the ranks, sharded optimizer state), or None: one process
        writes."""
        return collective.group_of(walk(self._objects), context.strategy_of)

    def write(self, path, *, format: str = "descend") -> str:  # noqa: A002 - the option's name
        """Write a checkpoint to exactly ``path`` (a directory; an existing checkpoint there is
        replaced atomically). Does not change :attr:`save_counter`. Returns ``path``.

        ``format="tensorflow"`` writes TensorFlow's files instead (``<path>.index`` and
        ``<path>.data-00000-of-00001`` with the object graph, see :mod:`descend.persistence.checkpoint.tf_writer`):
        ``tf.train.Checkpoint`` restores them; they hold variables, layers and Keras 3 optimizers only.

        Collective for state that differs by rank (tables sharded over the ranks, sharded optimizer state):
        every rank calls it and writes its part (see :mod:`descend.persistence.checkpoint.collective`)."""
        if _format(format) == "tensorflow":
            return self._write_tensorflow(os.fspath(path), self._save_counter)
        return self._write(path, self._save_counter)

    def _write_tensorflow(self, path: str, counter: int) -> str:
        if self.collective_group() is not None:
            raise ValueError("Checkpoint: these objects hold state that differs by rank (tables sharded over the "
                             "ranks or sharded optimizer state), which TensorFlow's format cannot hold; save "
                             "descend's format (the default)")
        return tf_writer.write_object_checkpoint(path, self._objects, counter)

    def save(self, file_prefix, *, format: str = "descend") -> str:  # noqa: A002 - the option's name
        """Write ``<file_prefix>-<save_counter + 1>`` and return its path (``format="tensorflow"``: TensorFlow's
        files, see :meth:`write`), and name it the newest in the folder's ``checkpoint`` file, as
        ``tf.train.Checkpoint.save`` keeps it: ``latest_checkpoint(folder)``, ``list_variables(folder)`` and
        ``load_checkpoint(folder)`` then find it (a folder a :class:`CheckpointManager` keeps answers by its
        own index first)."""
        n = self._save_counter + 1
        path = f"{os.fspath(file_prefix)}-{n}"
        if _format(format) == "tensorflow":
            self._write_tensorflow(path, n)
        else:
            self._write(path, n)
        group = self.collective_group()
        if group is None or group.rank == 0:  # (a collective save: every rank wrote its part; one names it)
            tf_writer.record_latest(path)
        self._save_counter = n
        return path

    # -- restoring ---------------------------------------------------------------------------------------------
    def restore(self, path, *, strict: bool | None = None) -> RestoreReport:
        """Restore every object from the checkpoint at ``path``, matching by path.

        Every checksum and field is verified first, then every object's plan
        is made. As TensorFlow's, the restore is not strict by default
        (``strict=None``): objects the checkpoint lacks keep their values,
        values for objects that do not exist yet wait for them (a variable a
        layer creates, or an object assigned to this checkpoint or appended to
        one of its lists later), and the returned status says the rest
        (``assert_consumed()``, ``assert_existing_objects_matched()``,
        ``assert_nontrivial_match()``, ``expect_partial()``); a value of the
        wrong shape or dtype, or state an object refuses, raises
        :class:`CheckpointMismatchError` and no object changes (TensorFlow
        raises there too). ``strict=True`` also refuses a missing or unexpected
        path, all listed in one error; ``strict=False`` refuses nothing:
        refused values are only listed in the status. A corrupted checkpoint
        raises :class:`CheckpointCorruptedError` either way. ``path=None``
        restores nothing (TF's "start from scratch").

        Returns:
            a :class:`RestoreReport` (TensorFlow's load status).
        """
        return self._restore(path, strict=strict, counter=True)

    def read(self, path, *, strict: bool | None = None) -> RestoreReport:
        """:meth:`restore` without restoring :attr:`save_counter` (pairs with :meth:`write`)."""
        return self._restore(path, strict=strict, counter=False)

    def _restore(self, path, *, strict: bool | None, counter: bool) -> RestoreReport:
        group = collective.replica_group(walk(self._objects), context.strategy_of)
        if group is None:
            if path is None:
                return RestoreReport(None, self)
            manifest, saved, foreign = self._read_for_restore(os.fspath(path))
        else:  # every replica restores, and the same checkpoint, or the replicas would diverge: checked together
            manifest = saved = foreign = error = None
            try:
                if path is not None:
                    manifest, saved, foreign = self._read_for_restore(os.fspath(path))
            except Exception as e:  # noqa: BLE001 -- every rank hears of it in agree()
                error = e
            collective.agree(group, f"Checkpoint.restore('{path}')", collective.fingerprint(path, manifest, saved),
                             error)
            if path is None:
                return RestoreReport(None, self)
        return self._restore_from(os.fspath(path), manifest, saved, strict=strict, counter=counter, foreign=foreign)

    def _read_for_restore(self, path: str):
        """``(manifest, saved values, foreign)`` of the checkpoint at ``path``, verified (see
        :meth:`_restore_from` for ``foreign``)."""
        if tf_bundle.is_bundle(path) and not is_checkpoint_dir(path):  # TensorFlow's files: <path>.index
            manifest, saved, missing, unexpected = tf_checkpoint.read_object_checkpoint(path, self._objects)
            return manifest, saved, (missing, unexpected)
        tables = _tables_of(path)
        rows = None
        if tables:  # tables sharded over ranks when saved: this process's rows of each, checked first
            rows, problems = collective.wanted_rows(walk(self._objects), tables)
            if problems:
                raise CheckpointMismatchError(
                    f"checkpoint '{path}' does not match the tables to restore; nothing was restored:\n    "
                    + "\n    ".join(problems), mismatched=problems)
        manifest, saved = read_checkpoint(path, rows=rows)
        return manifest, saved, None

    def _restore_from(self, path, manifest, saved, *, strict: bool | None, counter: bool,
                      foreign=None) -> RestoreReport:
        """Match ``saved`` (descend's keys -> arrays) to the objects and commit, all or nothing. ``foreign``:
        ``(missing, unexpected)`` of a file another program wrote, which holds variables and optimizer
        state only: descend's other state (random generators, iterators) is left as it is."""
        graph = walk(self._objects)
        leaves = {leaf.path: leaf for leaf in graph.leaves}
        per_leaf: dict[str, dict] = {p: {} for p in leaves}
        orphans: dict[str, list[str]] = {}  # a value no object takes now -> every path it is known by
        file_aliases = _aliases_of(manifest, path)
        # the paths a file's aliases may make us try: a few per value and alias (a shared layer is reached along
        # a handful of paths), so a forged list of aliases costs no more than a bounded multiple of its size
        budget = 64 * (len(saved) + sum(len(a) for a in file_aliases.values())) + 4096
        for key, arr in saved.items():
            names = _names_of(key, file_aliases)
            budget -= len(names)
            if budget < 0:
                raise CheckpointCorruptedError(f"checkpoint '{path}': the manifest's 'aliases' give its values more "
                                               "paths than the objects of a checkpoint can have", ["aliases"])
            hit = False
            for name in names:  # the value reaches every object it is saved for, along any of its paths
                target = _owner(leaves, _via(graph.aliases, name))
                if target is not None and target[1] not in per_leaf[target[0]]:
                    per_leaf[target[0]][target[1]] = arr
                    hit = True
            if not hit:
                orphans[key] = names
        objects = manifest["objects"]
        # each object's saved state, along any of its paths (an optimizer saved as a root, restored through the
        # compiled model holding it: model/optimizer, or the other way round), its own path first
        saved_for = {q: q for q in objects if q in leaves}
        for q in objects:
            names = _names_of(q, file_aliases)
            budget -= len(names)
            if budget < 0:
                raise CheckpointCorruptedError(f"checkpoint '{path}': the manifest's 'aliases' give its objects more "
                                               "paths than the objects of a checkpoint can have", ["aliases"])
            for name in names:
                target = _via(graph.aliases, name)
                if target in leaves and target not in saved_for:
                    saved_for[target] = q
        report = RestoreReport(path, self)
        plans, pending = [], {}
        for p, leaf in leaves.items():
            entry = objects.get(saved_for[p]) if p in saved_for else None
            if isinstance(leaf, VariableLeaf):
                if "" not in per_leaf[p]:
                    report.missing.append(p)
                    continue
            elif entry is None and not per_leaf[p]:
                if foreign is None:
                    report.missing.append(f"{p} (no such object in the checkpoint)")
                elif isinstance(leaf, OptimizerLeaf):
                    report.missing.append(f"{p} (the checkpoint holds no state for this optimizer)")
                continue
            elif entry is not None and entry.get("kind") != leaf.kind:
                report.mismatched.append(f"{p}: the checkpoint holds a {_cut(str(entry.get('kind')), 80)} "
                                         f"({_cut(str(entry.get('class')), 200)}), not the state of a {leaf.kind} "
                                         f"({_qualname(leaf.obj)})")
                continue
            elif isinstance(leaf, OptimizerLeaf) and entry is not None and entry.get("class_name") not in (
                    None, type(leaf.obj).__name__):
                report.mismatched.append(f"{p}: the checkpoint holds the state of a {_cut(str(entry.get('class_name')), 80)} "
                                         f"optimizer; the object to restore is a {type(leaf.obj).__name__}")
                continue
            json_state = (entry or {}).get("json")
            if json_state is not None and not isinstance(json_state, dict):
                report.mismatched.append(f"{p}: the manifest's 'json' field is not an object")
                continue
            try:
                state = join_state(per_leaf[p], json_state, f"objects.{p}.json")
                commit = leaf.plan(state, strict is True) if isinstance(leaf, OptimizerLeaf) else leaf.plan(state)
            except (ValueError, TypeError, KeyError, AttributeError) as e:
                report.mismatched.append(f"{p}: {_cut(str(e), 2000)}" if str(e) else f"{p}: {type(e).__name__}")
                continue
            if isinstance(leaf, OptimizerLeaf):  # strict=False: what the optimizer left as it is
                report.missing += [f"{p}/{k}" for k in getattr(commit, "missing", ())]
                report.unexpected += [f"{p}/{k}" for k in getattr(commit, "unexpected", ())]
                report.mismatched += [f"{p}/{k}" for k in getattr(commit, "mismatched", ())]
            plans.append((leaf, commit))
            report.restored.append(p)
        for key in sorted(orphans):
            names = orphans[key]
            owners = [graph.layer_owning(n) for n in names]
            if any(o is not None and o[1].built is not True for o in owners):
                report.deferred.append(key)  # a variable this layer creates when it is built
            else:
                report.unexpected.append(key)
                if strict:
                    continue
                report.waiting.append(key)  # TF: kept for an object assigned or appended later
            for n in names:
                pending.setdefault(n, (saved[key], key))
        found = set(saved_for.values())
        report.unexpected += sorted(f"{p} (object)" for p in objects if p not in found)
        if foreign is not None:
            have = {m.split(" (", 1)[0] for m in report.missing}
            report.missing += [m for m in foreign[0] if m.split(" (", 1)[0] not in have]
            later = {} if strict else tf_checkpoint.waiting_values(path, foreign[1])
            taken = {k for _, k in later.values()}
            report.unexpected += [f"{k} (a value in the file that no object takes)" for k in foreign[1]
                                  if k not in taken]
            for p, (value, k) in sorted(later.items()):  # TF: kept for an object assigned or appended later
                report.unexpected.append(k)
                report.waiting.append(k)
                pending.setdefault(p, (value, k))
        if strict is None and report.mismatched:
            raise CheckpointMismatchError(
                mismatch_message(f"checkpoint '{path}' holds values the objects refuse; nothing was restored "
                                 "(restore(path, strict=False) restores the rest):", [], [], report.mismatched),
                mismatched=report.mismatched)
        if strict and not report.complete:
            hint = ""
            if any(m.endswith("(no such object in the checkpoint)") for m in report.missing):
                tops = sorted({k.split("/", 1)[0] for k in list(objects) + list(saved)})
                hint = f"  the checkpoint holds the objects: {short(tops, 1000)}"
            raise CheckpointMismatchError(
                mismatch_message(f"checkpoint '{path}' does not match the objects to restore; nothing was "
                                 "restored (without strict=True, restore(path) restores what matches):",
                                 report.missing, report.unexpected, report.mismatched, hint),
                report.missing, report.unexpected, report.mismatched)
        self._commit(plans, path)
        self._graph = graph
        self._pending, self._claimed, self._refused = pending, [], None
        file_keys = manifest.get("tf_keys") if foreign is None else {key: key for _, key in pending.values()}
        self._restored_tf = {k: v for k, v in file_keys.items() if isinstance(k, str) and isinstance(v, str)} if (
            isinstance(file_keys, dict)) else {}
        if pending:
            _register(self)
        else:
            _unregister(self)
        if counter:
            sc = manifest.get("save_counter")
            if isinstance(sc, int) and not isinstance(sc, bool):
                self._save_counter = sc
                report.counter_restored = True  # the root's save_counter matched (TF's nontrivial match)
        return report

    @staticmethod
    def _commit(plans, path: str) -> None:
        # objects whose set_state may refuse go first, each undone if a later one refuses;
        # then the plans that cannot fail
        undo = []
        for leaf, commit in [p for p in plans if p[0].fallible]:
            rollback, before = leaf.snapshot(), leaf.state()
            try:
                commit()
            except Exception as e:
                failures = []
                try:  # the refusing object too, where its set_state changed part of it before refusing
                    changed = not _same_state(leaf.state(), before)
                except Exception:  # noqa: BLE001 -- a state that cannot be read: put it back to be sure
                    changed = True
                for rb in ([rollback] if changed else []) + undo[::-1]:
                    try:
                        rb()
                    except Exception as e2:
                        failures.append(f"{type(e2).__name__}: {_cut(str(e2), 200)}")
                tail = ("every object was returned to its previous state" if not failures else
                        f"rolling back also failed: {failures}")
                raise CheckpointError(f"restoring '{leaf.path}' from checkpoint '{path}' failed: "
                                      f"{type(e).__name__}: {_cut(str(e), 500)}; {tail}") from e
            undo.append(rollback)
        for leaf, commit in plans:
            if not leaf.fallible:
                commit()

    # -- deferred restoration ----------------------------------------------------------------------------------
    @property
    def pending(self) -> list[str]:
        """Paths restored for variables that do not exist yet, still waiting (a value saved under one
        path and known by others, its aliases, is listed once, under the path it was saved under)."""
        return sorted({key for _, key in self._pending.values()})

    def _claim(self, var) -> bool:
        graph = self._graph
        if graph is None or not self._pending:
            return False
        path = graph.var_key(var)
        if path not in self._pending:
            return False
        value, key = self._pending[path]
        if self._refused is None and (tuple(value.shape) != tuple(var.shape) or value.dtype != var.dtype.dtype):
            # all or nothing: undo the values this restore already gave, and fail every later claim the same way
            self._refused = (f"restored value '{key}' has shape {tuple(value.shape)} {value.dtype.name}; the variable "
                             f"created there ('{var.name}') has shape {tuple(var.shape)} {var.dtype.name}. Nothing "
                             "from this checkpoint was restored; build a model that matches it", key)
            for ref, before in self._claimed:
                if ref() is not None:
                    ref().assign(before)
            self._claimed = []
        if self._refused is not None:
            raise CheckpointMismatchError(self._refused[0], mismatched=[self._refused[1]])
        self._claimed.append((weakref.ref(var), var.numpy()))
        for p in [p for p, (_, k) in self._pending.items() if k == key]:
            del self._pending[p]
        var.assign(value)
        if not self._pending:
            self._claimed = []
            _unregister(self)
        return True

    def apply_pending(self, only=None) -> list[str]:
        """Hand waiting values to variables that exist now (for variables not created through
        ``add_weight``); ``only``: a collection of Variables to consider. Returns the paths applied."""
        applied = []
        if self._graph is None or not self._pending:
            return applied
        fresh = walk(self._objects)
        self._graph = fresh
        ids = None if only is None else {id(v) for v in only}
        for path, var in fresh.vars_by_path.items():
            if path in self._pending and (ids is None or id(var) in ids):
                self._claim(var)
                applied.append(path)
        return applied

    def assert_consumed(self) -> None:
        """Raise if restored values are still waiting for variables or optimizer slots that were
        never created (paths in the checkpoint that the program never built)."""
        waiting = self.pending
        for leaf in walk(self._objects).leaves:
            if isinstance(leaf, OptimizerLeaf):
                waiting += [f"{leaf.path}/{k}" for k in optim.pending_of(leaf.obj)]
        if waiting:
            raise CheckpointAssertionError(
                "restored values were never used: no variable or slot was created at these paths:\n"
                + "\n".join(f"    {w}" for w in waiting), unexpected=waiting)

    def __repr__(self):
        return f"<Checkpoint {sorted(self._objects)} save_counter={self._save_counter}>"


# ---------------------------------------------------------------------------------------------------------------
# deferred restoration: layers call the hook for every weight they create
# ---------------------------------------------------------------------------------------------------------------
_pending_lock = threading.RLock()
_pending_owners: list[weakref.ref] = []  # Checkpoints holding values for variables not created yet, oldest first


def _claim_pending(variable) -> bool:
    """Give a newly created weight the value restored for its path; the most recent restore wins."""
    if not _pending_owners:
        return False
    with _pending_lock:
        for ref in reversed(list(_pending_owners)):
            ckpt = ref()
            if ckpt is not None and ckpt._claim(variable):
                return True
    return False


def _claim_after_build(layer) -> None:
    """After a layer's build: values waiting for Variables it assigned as attributes."""
    if not _pending_owners:
        return
    own = list(layer.__dict__.get("_own_weights", [])) + [v for v in layer.__dict__.values() if isinstance(v, Variable)]
    with _pending_lock:
        for ref in list(_pending_owners):
            ckpt = ref()
            if ckpt is not None:
                ckpt.apply_pending(own)


def _apply_everywhere() -> None:
    """An object was attached to a checkpoint or one of its lists (perhaps inside another checkpoint): every
    restore still holding values hands them to the variables its roots now reach, the most recent first."""
    if not _pending_owners:
        return
    with _pending_lock:
        owners = [c for c in (r() for r in reversed(list(_pending_owners))) if c is not None]
        registered = list(_pending_owners)
        # a refused object is detached by the caller: every restore goes back to its state before (its waiting
        # values, the values it gave earlier objects, which a refusal undoes), so a matching object takes them
        saved = [(c, dict(c._pending), list(c._claimed), c._refused, c._graph,
                  [(ref, ref().numpy()) for ref, _ in c._claimed if ref() is not None]) for c in owners]
        try:
            for ckpt in owners:
                ckpt.apply_pending()
        except Exception:
            for c, pending, claimed, refused, graph, given in saved:
                old = {id(entry) for entry in claimed}
                for entry in c._claimed:  # given during this call (a refusal already undid its own)
                    if id(entry) not in old and entry[0]() is not None:
                        entry[0]().assign(entry[1])
                for ref, value in given:
                    if ref() is not None:
                        ref().assign(value)
                c._pending, c._claimed, c._refused, c._graph = pending, claimed, refused, graph
            _pending_owners[:] = registered
            raise


def _register(ckpt) -> None:
    with _pending_lock:
        _pending_owners[:] = [r for r in _pending_owners if r() is not None and r() is not ckpt]
        _pending_owners.append(weakref.ref(ckpt))


def _unregister(ckpt) -> None:
    with _pending_lock:
        _pending_owners[:] = [r for r in _pending_owners if r() is not None and r() is not ckpt]


def _reset_after_fork() -> None:
    global _pending_lock
    _pending_lock = threading.RLock()


def _claim_after_assignment(module) -> None:
    """After a Variable (or a Module holding some) is assigned to a tf.Module: the values waiting for it."""
    _apply_everywhere()


register_weight_hook(_claim_pending)
register_build_hook(_claim_after_build)
register_attribute_hook(_claim_after_assignment)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)
