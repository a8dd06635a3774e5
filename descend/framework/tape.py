"""``GradientTape``: records ops on watched values and runs them backwards.

Recording is one tuple per op ``(op, inputs, output, attrs, versions)`` on
each active tape that watches one of the op's inputs. ``gradient`` first
marks the entries that depend on the requested sources, then walks them in
reverse, calling each op's VJP. VJPs are built from ops, so while an outer
tape is recording, the backward pass is recorded too (higher derivatives);
a *persistent* tape whose ``gradient`` is called inside its own block
records its backward pass on itself, as TensorFlow's does.

Gradients for the same value are summed; two ``IndexedSlices`` are summed by
concatenation (still sparse), and a sparse gradient is densified only where
it meets a dense one or enters a VJP that needs a dense gradient. That
arithmetic is the ops layer's (:mod:`descend.framework.ops_bridge`): this
module calls no op by name.

For :func:`descend.debugging.explain_gradient` a tape also notes, cheaply,
where a gradient path was cut: the outputs of ops without a gradient
(``stop_gradient``, ``argmax``...) and integer outputs computed from watched
values, and the ids of the values computed while it recorded from nothing it
watches (so it can tell those from values computed outside its block).
"""

from __future__ import annotations

import contextlib
import threading
import warnings
import weakref
from threading import get_ident

import numpy as np

from ..errors import InvalidArgumentError, NoGradientError
from . import nest
from .indexed_slices import IndexedSlices
from .ops_bridge import FUNCTIONS as _ops
from .tensor import ArrayLike, Tensor
from .unconnected_gradients import as_unconnected
from .variable import Variable

__all__ = ["GradientTape", "record", "no_gradient_error", "last_missing_gradients", "forget_missing_gradients",
           "paused", "recording"]

_active: list = []  # tapes currently recording, innermost last
_FLOAT_KINDS = "fc"
_last = threading.local()  # the latest gradient() call of this thread that left a source without a gradient


def no_gradient_error(op, index: int) -> NoGradientError:
    """The error raised when the backward pass reaches ``op``, which has no VJP for input ``index``."""
    return NoGradientError(
        f"No gradient is defined for op '{op.name}' (input {index}); register one with "
        f"@{op.name}.defvjp or wrap the computation in descend.stop_gradient"
    )


def record(op, inputs, result, attrs, has_var):
    """Note ``op`` on every active tape of this thread; append it to those that watch one of ``inputs``.

    A differentiable op whose input is watched is recorded for the backward
    pass. An op with no gradient, or one whose outputs are all integers, cuts
    the path: the tape keeps a note of it (for ``explain_gradient``) instead.
    """
    multi = type(result) is tuple
    thread = get_ident()
    for tape in _active:
        if tape._thread != thread:  # a tape records only the thread that opened it (as TF's tape stack)
            continue
        watched = tape._watched
        hit = False
        for x in inputs:
            if id(x) in watched:
                hit = True
            elif has_var and tape._watch_accessed and type(x) is Variable and x._trainable:
                if not op.differentiable:  # read by an op without a gradient: noted, not watched
                    tape._cut(op, inputs, result, _cut_reason(op), reads=x)
                    continue
                watched.add(id(x))
                tape._keep.append(x)
                hit = True
        if not hit:
            # computed while recording, from nothing watched: its id is noted (a recorded or cut value is
            # known by the watched set or the cut notes, so the common path pays nothing for this)
            if multi:
                tape._seen.extend(id(o) for o in result)
            else:
                tape._seen.append(id(result))
            if tape._cuts and any(id(x) in tape._cuts for x in inputs):
                tape._cut(op, inputs, result, None)
            continue
        if not op.differentiable:
            tape._cut(op, inputs, result, _cut_reason(op))
            continue
        floats = False
        if multi:
            for o in result:
                if o._value.dtype.kind in _FLOAT_KINDS:
                    watched.add(id(o))
                    floats = True
        elif result._value.dtype.kind in _FLOAT_KINDS:
            watched.add(id(result))
            floats = True
        if not floats:
            tape._cut(op, inputs, result, "integer")
            continue
        versions = tuple((x, x._version) for x in inputs if type(x) is Variable) if has_var else None
        tape._entries.append((op, inputs, result, attrs, versions))


def recording() -> bool:
    """Whether a tape of this thread is recording."""
    if not _active:
        return False
    me = get_ident()
    return any(t._thread == me for t in _active)


@contextlib.contextmanager
def paused():
    """No tape of this thread records inside this block (``descend.function`` runs a traced branch or
    loop body this way: the tape sees the control-flow construct, not one path through it)."""
    me = get_ident()
    mine = [t for t in _active if t._thread == me]
    if not mine:
        yield
        return
    for t in mine:
        t._stop()
    try:
        yield
    finally:
        _active.extend(t for t in mine if t._recording)


def _cut_reason(op) -> str:
    return "stop_gradient" if op.name == "stop_gradient" else "no_gradient"


def last_missing_gradients():
    """The latest ``gradient()`` call of this thread that gave a source no gradient, or ``None``.

    Returns a tuple ``(tape, targets, sources)`` (flat lists) for
    :func:`descend.debugging.explain_gradient`; ``tape`` is ``None`` when the
    tape no longer exists (the note holds it weakly).
    """
    call = getattr(_last, "call", None)
    if call is None:
        return None
    return (call[0](),) + call[1:]


def forget_missing_gradients() -> None:
    """Drop the note :func:`last_missing_gradients` returns (and the record it keeps alive)."""
    _last.call = None


class GradientTape:
    """Records operations for automatic differentiation, like ``tf.GradientTape``.

    Args:
        persistent: allow more than one ``gradient``/``jacobian`` call.
        watch_accessed_variables: watch every trainable Variable an op reads
            while the tape is recording.

    Example:
        >>> import descend as ds
        >>> x = ds.constant(3.0)
        >>> with ds.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * x
        >>> float(tape.gradient(y, x))
        6.0
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._watched: set[int] = set()
        self._keep: list = []  # explicitly/automatically watched objects: keeps their ids valid
        self._entries: list = []
        self._cuts: dict = {}  # id(value) -> (op name, reason or None, parent ids, value): where a path ended
        self._seen: list[int] = []  # ids of the values computed while recording from nothing watched
        self._used = False
        self._recording = False
        self._released = None  # a released record kept for explain_gradient (see _release)
        self._missing = None  # (targets, sources without a gradient) of the latest such gradient() call
        self._thread = get_ident()

    # -- recording -----------------------------------------------------------------
    def __enter__(self):
        if self._recording:
            raise ValueError("This GradientTape is already recording: a tape's `with` block cannot be entered "
                             "inside itself. Use a second GradientTape for nested recording")
        if self._used and not self._persistent:
            raise RuntimeError("This non-persistent GradientTape was already used; make a new one")
        self._thread = get_ident()
        self._recording = True
        _active.append(self)
        return self

    def __exit__(self, *exc):
        self._recording = False
        self._stop()
        return False

    def _stop(self):
        for i in range(len(_active) - 1, -1, -1):
            if _active[i] is self:
                del _active[i]
                return True
        return False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside this context are not recorded on this tape."""
        if not self._stop():
            raise RuntimeError("stop_recording() needs a tape that is recording (inside its `with` block)")
        try:
            yield
        finally:
            if self._recording:
                _active.append(self)

    def watch(self, tensor) -> None:
        """Watch a Tensor or Variable (or a nested structure of them)."""
        for t in nest.flatten(tensor):
            if not isinstance(t, ArrayLike):  # TF's ValueError and wording
                raise ValueError(f"Passed in object {t!r} of type {type(t).__name__!r}, not a Tensor or Variable: "
                                 "GradientTape.watch expects Tensors or Variables (convert with ds.constant)")
            if t.dtype.kind not in _FLOAT_KINDS:  # TF's warning (its gradient will be None)
                warnings.warn(f"The dtype of the watched tensor must be floating (e.g. float32), got {t.dtype.name}: "
                              "only floating-point values have gradients", stacklevel=2)
            if id(t) not in self._watched:
                self._watched.add(id(t))
                self._keep.append(t)

    def watched_variables(self) -> tuple:
        """The Variables this tape watches, in the order it started watching them
        (still listed after a non-persistent tape computed its gradient, as TF)."""
        return tuple(v for v in self._keep if isinstance(v, Variable))

    def reset(self) -> None:
        """Forget everything recorded so far."""
        self._watched.clear()
        self._keep.clear()
        self._entries.clear()
        self._cuts.clear()
        self._seen.clear()

    def _cut(self, op, inputs, result, reason, reads=None) -> None:
        """Note that ``result`` carries no gradient from its inputs (``reason``; ``None``: an input was cut)."""
        cuts = self._cuts
        parents = tuple(id(x) for x in inputs)
        note = (op.name, reason, parents, reads)
        for o in (result if type(result) is tuple else (result,)):
            cuts[id(o)] = note + (o,)  # the value is kept so its id stays valid while noted

    # -- differentiation -------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients: str = "none"):
        """Gradient of the sum of ``target`` with respect to ``sources``.

        Args:
            target: a Tensor (non-scalar targets are summed) or a nested
                structure of Tensors, whose gradients are added.
            sources: a Tensor/Variable or nested list/tuple/dict of them; the
                result has the same structure.
            output_gradients: the upstream gradient of each target (default ones).
            unconnected_gradients: ``UnconnectedGradients.NONE`` or ``"none"``
                (give ``None``), ``UnconnectedGradients.ZERO`` or ``"zero"``
                (give zeros) for a source the target does not depend on;
                :func:`descend.debugging.explain_gradient` says why.

        Returns:
            Tensors (or ``IndexedSlices`` for sources only gathered from). A
            source that is itself a target gets the target's upstream gradient
            (ones), watched or not, as in TF.
        """
        self._check_usable("gradient")
        unconnected_gradients = as_unconnected(unconnected_gradients)
        flat_sources = self._check_sources(sources, integers="warn")
        flat_targets = nest.flatten(target)
        if output_gradients is None:
            flat_out = [None] * len(flat_targets)
        else:
            flat_out = nest.flatten(output_gradients)
            if len(flat_out) != len(flat_targets):
                raise ValueError(f"output_gradients has {len(flat_out)} entries; target has {len(flat_targets)}")
        grads = self._run_backward(flat_targets, flat_out, flat_sources)
        result = []
        missing = False
        for s in flat_sources:
            g = grads.get(id(s)) if s.dtype.kind in _FLOAT_KINDS else None  # (TF: an integer source has None)
            if g is None:
                missing = True
                if unconnected_gradients == "zero":
                    g = Tensor(np.zeros(s.shape, s.dtype))
            result.append(g)
        if missing:
            self._missing = (flat_targets, [s for s in flat_sources if grads.get(id(s)) is None])
            _last.call = (weakref.ref(self),) + self._missing  # weak: the note never keeps a tape alive
        if not self._persistent:
            self._release(keep_record=missing)
        return nest.pack_like(sources, result)

    def jacobian(self, target, sources, unconnected_gradients: str = "none", parallel_iterations=None,
                 experimental_use_pfor: bool = True):
        """Full Jacobian ``d target[i...] / d source[j...]``, shape ``target.shape + source.shape``.

        Args:
            target: a Tensor.
            sources: a Tensor/Variable or a nested structure of them; the result
                has the same structure.
            unconnected_gradients: ``"none"`` or ``"zero"``, as in :meth:`gradient`.
            parallel_iterations, experimental_use_pfor: accepted for TF code;
                descend computes the rows one by one.

        Example:
            >>> import descend as ds
            >>> x = ds.constant([1.0, 2.0])
            >>> with ds.GradientTape() as tape:
            ...     tape.watch(x)
            ...     y = x * x
            >>> tape.jacobian(y, x).numpy()
            array([[2., 0.],
                   [0., 4.]], dtype=float32)
        """
        self._check_usable("jacobian")
        unconnected_gradients = as_unconnected(unconnected_gradients)
        flat = self._check_sources(sources)
        t = self._as_target(target, "jacobian")
        rows = self._rows(t, flat, t.shape, None)
        if not self._persistent:
            self._release(keep_record=False)
        out = [self._assemble(r, t.shape, s, None, unconnected_gradients) for r, s in zip(rows, flat)]
        return nest.pack_like(sources, out)

    def batch_jacobian(self, target, source, unconnected_gradients: str = "none", parallel_iterations=None,
                       experimental_use_pfor: bool = True):
        """Per-example Jacobians: ``out[b, i..., j...] = d target[b, i...] / d source[b, j...]``.

        ``target`` and ``source`` share their first (batch) axis, and target
        row ``b`` must depend only on source row ``b`` (as in TF, this is
        assumed, not checked). The result has shape
        ``target.shape + source.shape[1:]``. A source the target does not
        depend on gets zeros under either ``unconnected_gradients`` (TF's
        ``batch_jacobian`` never returns ``None``); the value is still checked.

        Example:
            >>> import descend as ds
            >>> x = ds.constant([[1.0, 2.0], [3.0, 4.0]])
            >>> with ds.GradientTape() as tape:
            ...     tape.watch(x)
            ...     y = x * x
            >>> tape.batch_jacobian(y, x).numpy()[1]
            array([[6., 0.],
                   [0., 8.]], dtype=float32)
        """
        self._check_usable("batch_jacobian")
        unconnected_gradients = as_unconnected(unconnected_gradients)
        (src,) = self._check_sources([source])
        t = self._as_target(target, "batch_jacobian")
        if t.ndim < 1 or src.ndim < 1:
            raise ValueError(f"batch_jacobian needs a target and a source of rank >= 1 (a batch axis); received "
                             f"shapes {tuple(t.shape)} and {tuple(src.shape)}")
        if t.shape[0] != src.shape[0]:
            raise ValueError(f"batch_jacobian: target and source must have one batch size; received target shape "
                             f"{tuple(t.shape)} and source shape {tuple(src.shape)}")
        (rows,) = self._rows(t, [src], t.shape[1:], t.shape[0])
        if not self._persistent:
            self._release(keep_record=False)
        return self._assemble(rows, t.shape[1:], src, t.shape[0], "zero")  # TF's: zeros, never None

    @staticmethod
    def _as_target(target, what):
        if isinstance(target, ArrayLike):
            return target
        if isinstance(target, IndexedSlices):
            return target._to_dense()
        raise TypeError(f"{what} expects a Tensor target. Received: {type(target).__name__}")

    def _rows(self, t, sources, row_shape, batch):
        """One backward pass per element of ``row_shape``; seeds are one-hot (over the batch too)."""
        n = int(np.prod(row_shape, dtype=np.int64))
        rows = [[] for _ in sources]
        for k in range(n):
            seed = np.zeros(n, t.dtype)
            seed[k] = 1
            seed = seed.reshape(row_shape)
            if batch is not None:
                seed = np.broadcast_to(seed, (batch,) + tuple(row_shape)).copy()
            grads = self._run_backward([t], [Tensor(seed)], sources)
            for r, s in zip(rows, sources):
                r.append(grads.get(id(s)))
        return rows

    @staticmethod
    def _assemble(rows, row_shape, src, batch, unconnected):
        if rows and all(r is None for r in rows) and unconnected == "none":
            return None
        dense = [Tensor(np.zeros(src.shape, src.dtype)) if r is None else
                 (r._to_dense() if isinstance(r, IndexedSlices) else r) for r in rows]
        if batch is None:
            if not dense:
                return Tensor(np.zeros(tuple(row_shape) + tuple(src.shape), src.dtype))
            return _ops.stack(dense, tuple(row_shape) + tuple(src.shape), 0)
        if not dense:
            return Tensor(np.zeros((batch,) + tuple(row_shape) + tuple(src.shape[1:]), src.dtype))
        return _ops.stack(dense, (batch,) + tuple(row_shape) + tuple(src.shape[1:]), 1)

    def _check_usable(self, what):
        if self._used:
            raise RuntimeError(  # TF's wordings (TF 2's first releases, then today's) first
                f"GradientTape.{what} can only be called once on non-persistent tapes. A non-persistent "
                "GradientTape can only be used to compute one set of gradients (or jacobians): "
                f"this {what}() call is its second. Use a fresh tape, or GradientTape(persistent=True) to call it "
                "more than once"
            )

    def _release(self, keep_record: bool):
        """A non-persistent tape's record goes after its one call; its watched variables stay listed.

        With ``keep_record`` (the call left a source without a gradient) the
        record is kept, as long as the tape object lives, for
        :func:`descend.debugging.explain_gradient`.
        """
        self._used = True
        if self._recording:  # as TF: a non-persistent tape stops recording once it has computed gradients
            self._recording = False
            self._stop()
        self._released = (self._entries, self._watched, self._keep, self._cuts, self._seen) if keep_record else None
        self._entries = []
        self._cuts = {}
        self._seen = []
        self._keep = [v for v in self._keep if isinstance(v, Variable)]
        self._watched = {id(v) for v in self._keep}

    def _record_for_explain(self):
        """``(entries, watched ids, watched objects, cuts, seen ids)`` as of the last gradient call."""
        if self._used and self._released is not None:
            return self._released
        return self._entries, self._watched, self._keep, self._cuts, self._seen

    @staticmethod
    def _check_sources(sources, integers: str = "raise") -> list:
        """The flat sources; a source that is not floating raises TypeError, or with ``integers="warn"``
        (``gradient``, as TF) warns with TF's words (its gradient is then None)."""
        flat = nest.flatten(sources)
        for i, s in enumerate(flat):
            t = type(s)
            if (t is Variable or t is Tensor) and s._value.dtype.kind in _FLOAT_KINDS:
                continue  # (the common case, without the checks below)
            if not isinstance(s, ArrayLike):
                raise TypeError(f"gradient sources must be Tensors or Variables; source {i} is {type(s).__name__}")
            if s.dtype.kind not in _FLOAT_KINDS and integers == "warn" and s.dtype.kind in "iub":
                warnings.warn(f"The dtype of the source tensor must be floating (e.g. float32) when calling "
                              f"GradientTape.gradient, got {s.dtype.name}: its gradient is None", stacklevel=3)
            elif s.dtype.kind not in _FLOAT_KINDS:
                name = f" '{s.name}'" if isinstance(s, Variable) else ""
                raise TypeError(
                    f"gradient: source {i}{name} has dtype {s.dtype.name}; expected a floating-point source"
                )
        return flat

    def _run_backward(self, targets, out_grads, sources) -> dict:
        # inside its own block, a persistent tape records its backward pass (second derivatives);
        # a non-persistent one does not (TF's rule)
        pause = self._recording and not self._persistent
        if pause:
            self._stop()
        try:
            # a source the tape never watched (nor derived from a watched value) has no gradient, unless
            # it is itself a target
            watched = [s for s in sources if id(s) in self._watched]
            target_ids = {id(t) for t in targets}
            seeded = [s for s in sources if id(s) in target_ids and id(s) not in self._watched]
            return _backward(self._entries, targets, out_grads, watched, seeded)
        finally:
            if pause:
                _active.append(self)


def _backward(entries, targets, out_grads, sources, seeded=()) -> dict:
    # 1. which recorded values depend on a source
    relevant = {id(s) for s in sources}
    keep = set(relevant)
    marked = []
    for e in entries:
        for x in e[1]:
            if id(x) in relevant:
                marked.append(e)
                res = e[2]
                if type(res) is tuple:
                    relevant.update(id(o) for o in res)
                else:
                    relevant.add(id(res))
                break
    keep.update(id(s) for s in seeded)
    # 2. seed the targets
    grads: dict = {}
    for t, og in zip(targets, out_grads):
        if not isinstance(t, ArrayLike) or (id(t) not in relevant and id(t) not in keep):
            continue
        if og is None:
            seed = Tensor(np.ones(t.shape, t.dtype))
        else:
            seed = og if isinstance(og, (Tensor, IndexedSlices)) else Tensor(np.asarray(og, t.dtype))
            if tuple(seed.shape if not isinstance(seed, IndexedSlices) else seed.dense_shape) != tuple(t.shape):
                raise InvalidArgumentError(
                    f"output_gradients: expected shape {tuple(t.shape)} (the target's), received {tuple(seed.shape)}"
                )
        i = id(t)
        grads[i] = seed if i not in grads else _ops.aggregate(grads[i], seed)
    # 3. reverse sweep
    aggregate = _ops.aggregate
    for op, inputs, res, attrs, versions in reversed(marked):
        if type(res) is tuple:
            g = [grads.get(id(o)) if id(o) in keep else grads.pop(id(o), None) for o in res]
            if all(x is None for x in g):
                continue
            g = [x._to_dense() if isinstance(x, IndexedSlices) and not op.sparse_grad else x for x in g]
        else:
            i = id(res)
            g = grads.get(i) if i in keep else grads.pop(i, None)
            if g is None:
                continue
            if type(g) is IndexedSlices and not op.sparse_grad:
                g = g._to_dense()
        if versions:
            for var, ver in versions:
                if var._version != ver:
                    raise RuntimeError(
                        f"Variable '{var.name}' was modified in place (version {ver} -> {var._version}) after "
                        f"the tape recorded its use in '{op.name}'; compute gradients before updating it"
                    )
        vjps = op.vjps
        if vjps is not None:  # one VJP per input: call only those needed
            for k, x in enumerate(inputs):
                i = id(x)
                if i not in relevant:
                    continue
                f = vjps[k]
                if f is None:
                    raise no_gradient_error(op, k)
                gx = f(g, res, *inputs, **attrs)
                if gx is not None:
                    prev = grads.get(i)
                    grads[i] = gx if prev is None else aggregate(prev, gx)
            continue
        if op.vjp is None:
            idx = next(k for k, x in enumerate(inputs) if id(x) in relevant)
            raise no_gradient_error(op, idx)
        in_grads = op.vjp(g, res, *inputs, **attrs)
        if type(in_grads) is not tuple:
            in_grads = tuple(in_grads) if isinstance(in_grads, list) else (in_grads,)
        for x, gx in zip(inputs, in_grads):
            if gx is None:
                continue
            i = id(x)
            if i in relevant:
                prev = grads.get(i)
                grads[i] = gx if prev is None else aggregate(prev, gx)
    return grads
