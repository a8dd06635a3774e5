"""The kernel backend seam: the intermediate form of an elementwise update rule,
and what a backend must do to turn it into kernels and launch them.

Nothing here imports numba (or any accelerator library): this module is the
contract between the producer of the intermediate form,
:func:`descend.optimizers.rewrite.rewrite` (an optimizer's pure rule ->
:class:`KernelSpec`), and the backends that compile it. The optimizers import
the backend; no backend imports the optimizers.

**The intermediate form** (:class:`KernelSpec`) describes one rule
``update(param, grad, *slots, **coefficients) -> (new_param, *new_slots)``:

* ``arrays``: the rule's positional names, ``(param, grad, *slots)``;
  ``coefficients``: its keyword-only names, ``defaults`` their defaults;
* ``prologue`` and ``scalars``: Python statements and expressions that compute,
  from the coefficients (named ``c_<coefficient>``), every value of the rule
  that involves no array (``1 - beta_1``, ``lr * momentum``), once per call and
  with NumPy's rules, exactly as the NumPy path computes them.
  :meth:`KernelSpec.make_prologue` compiles them into
  ``prologue(*, c_<name>...) -> tuple`` (plain Python, shared by every backend);
* ``literals``: ``(name, value)`` of each number written inside an array
  expression; a backend makes each a constant of the kernel's dtype;
* ``body``: the scalar loop body, lines of a small Python subset (blocks
  indented by 4 spaces). It reads ``v_<array>`` (one element of each array),
  the scalar arguments ``s<k>`` and the literals ``_L<k>``; it assigns
  ``v_<local>`` names and, last, ``_o0`` (the new parameter) and ``_o<k+1>``
  (the new slot ``k``). Statements: ``name = expr`` and ``if expr:`` / ``else:``.
  Expressions: names, ``True``/``False``, ``+ - * / // % **`` (``x ** 2`` and
  ``x ** 0.5`` are already ``np.square``/``np.sqrt``), unary ``-``/``+``/``not``,
  comparisons, ``and``/``or``, ``x if c else y``, ``abs(x)`` and
  ``np.<f>(...)`` for ``f`` in ``descend.optimizers.rewrite.ALLOWED_FUNCTIONS``.
  Every operation keeps the dtype of its operands (float32 math stays float32).

**A backend** (:class:`Backend`) implements:

* ``available() -> bool``: whether it can run here (library installed, device present);
* ``compile(spec) -> RuleKernel``: the kernels of ``spec`` (compiling may be
  deferred to the first launch of each dtype; a failure there warns with
  :class:`FusedKernelWarning` and declines, so the NumPy path runs);
* ``source(spec) -> str``: the code it generates, for inspection;
* ``find_nonfinite(arrays) -> int | None``: index of the first array holding a
  NaN or Inf, -1 when none does, None when it does not take these arrays.

**A compiled rule** (:class:`RuleKernel`) implements, for arrays the backend owns
(NumPy arrays for the CPU backend; a CuPy backend would take CuPy arrays):

* ``apply_dense(params, grads, slots, decays, coefficients) -> bool``: update
  every ``params[t]`` and its ``slots[t]`` (a list per tensor) in place with
  ``grads[t]``, after the decoupled weight decay ``param <- param - param * decays[t]``
  where ``decays[t]`` is not 0, in the arithmetic of the NumPy path;
* ``apply_rows(param, grad, slots, coefficients, idx, decay=0.0) -> bool``: the
  same for the rows ``idx`` (unique) of ``param`` and its slots, row ``r`` of
  ``grad`` updating row ``idx[r]``;

both return False, having written nothing, when they do not take these arrays
(another array type, dtype or layout); the caller then takes the NumPy path.

* ``apply_replay(param, slots, starts, count, scalars, decays) -> bool``
  (optional; the default declines): gathered rows brought through the updates
  ``starts[r] .. count - 1`` with a zero gradient, one call for all of them
  (``sparse_updates="exact_lazy"``'s replay; ``scalar_rows`` builds ``scalars``);
* ``dense_batch(params, slots) -> DenseBatch | None`` (optional; the default
  returns None): ``apply_dense`` prepared once for a fixed list of parameters
  and slots, so that a step with new gradients does no per-tensor work beyond
  reading the gradients' layout (see :class:`DenseBatch`).
:class:`RuleKernel` turns ``coefficients`` into the kernel's scalar arguments
(the prologue, then a cast to the arrays' dtype), so a backend only launches.

A CuPy backend would translate ``body`` (``ast.parse`` of the lines) into CUDA
C, build one raw kernel over a chunk table of device pointers for
``apply_dense`` and one over ``(row, column)`` for ``apply_rows``, answer
``find_nonfinite`` with a reduction on the device, and decline NumPy arrays.

**Elementwise loops**: :class:`LoopSpec` is the one intermediate form of an
elementwise loop, and :mod:`descend._native.codegen` the one generator of its
source. A rule's kernels are generated from :attr:`KernelSpec.loop` (its arrays
read and written in place per element; the backend places that loop in its
chunk table, its sparse rows and its replay). ``descend.function``'s plans fuse
a chain of elementwise ops over a 2-D iteration space (``rows x cols``) into
one: inputs read per element (``"full"``), per column (``"row"``: a bias), per
row (``"col"``) or once (``"scalar"``); a body in the same small language as
``KernelSpec.body``; outputs written per element, and column sums accumulated
over the rows (a bias gradient), in row order, as NumPy's ``sum(axis=0)`` adds
them for two columns or more (a plan never asks for a sum over one column:
NumPy sums that pairwise). A backend implements
``compile_loop(spec) -> callable(rows, cols, *inputs, *outputs, *sums)`` and
``loop_source(spec)``; ``softmax_cross_entropy()`` gives the exact row kernels
of sparse softmax cross-entropy and its gradient around NumPy's exp, log and
sums (``pick(labels, shifted, lse, out)`` and ``gradient(g, labels, e, s, out,
one)``, each returning the first row with a label out of range, else -1). A
backend without them raises ``NotImplementedError`` and plans keep their
NumPy calls.

Example:

>>> from descend._native.backend import KernelSpec
>>> spec = KernelSpec(name="sgd", qualname="sgd", arrays=("param", "grad"), coefficients=("lr",),
...                   defaults=(), prologue=(), scalars=(("s0", "c_lr"),), literals=(),
...                   body=("_o0 = v_param - s0 * v_grad",))
>>> spec.make_prologue()(c_lr=0.5)
(0.5,)
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import os
import threading

import numpy as np

__all__ = ["DTYPES", "Backend", "DenseBatch", "FusedKernelWarning", "KernelSpec", "LoopSpec", "RuleKernel", "default",
           "register_default", "row_kernels", "set_default", "stats", "window_kernels"]

#: the dtypes the kernels are generated for
DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

#: how many updates each compiled path applied, for tests and profiling: ``stats["dense"]``, ``stats["rows"]``
stats: collections.Counter = collections.Counter()


class FusedKernelWarning(UserWarning):
    """An update rule could not be fused; the NumPy reference path is used for it."""


@dataclasses.dataclass(frozen=True)
class KernelSpec:
    """The intermediate form of one elementwise update rule (see the module docstring).

    Pure data: two specs are equal when their kernels are the same, whatever
    function they came from (``name`` and ``qualname`` only label messages and files).
    """

    name: str = dataclasses.field(compare=False)
    qualname: str = dataclasses.field(compare=False)
    arrays: tuple
    coefficients: tuple
    defaults: tuple  # ((coefficient, default value), ...)
    prologue: tuple  # Python statements, run in order
    scalars: tuple  # ((kernel argument, prologue expression), ...)
    literals: tuple  # ((constant name, Python number), ...)
    body: tuple  # lines of the scalar loop body

    def __post_init__(self):
        if len(self.arrays) < 2:
            raise ValueError(f"KernelSpec.arrays must name (param, grad, *slots); received {self.arrays!r}")

    @property
    def param(self) -> str:
        return self.arrays[0]

    @property
    def grad(self) -> str:
        return self.arrays[1]

    @property
    def slots(self) -> tuple:
        return tuple(self.arrays[2:])

    @property
    def n_slots(self) -> int:
        return len(self.arrays) - 2

    @functools.cached_property
    def loop(self) -> LoopSpec:
        """The rule's elementwise loop: every array read per element (``"full"``), the literals of the kernel's
        dtype, the body, and ``_o0`` written to the parameter and ``_o<k+1>`` to slot ``k``, in place; the scalar
        arguments are the prologue's. The backends generate the rule's kernels from this one description."""
        return LoopSpec(name=self.name, inputs=tuple((a, "full") for a in self.arrays),
                        literals=tuple((name, None, value) for name, value in self.literals), body=self.body,
                        outputs=((self.param, "_o0"),) + tuple((s, f"_o{k + 1}") for k, s in enumerate(self.slots)),
                        sums=(), scalars=tuple(arg for arg, _ in self.scalars))

    def prologue_source(self) -> str:
        """``def prologue(*, c_<coefficient>...)`` returning the scalar arguments, as Python source."""
        params = ", ".join(["*"] + [f"c_{c}" for c in self.coefficients]) if self.coefficients else ""
        values = [expr for _, expr in self.scalars]
        lines = [f"def prologue({params}):",
                 '    """The kernel\'s scalar arguments, computed from the coefficients with NumPy\'s rules."""']
        lines += [f"    {line}" for line in self.prologue]
        lines += [f"    return ({', '.join(values)}{',' if len(values) == 1 else ''})"]
        return "\n".join(lines) + "\n"

    def make_prologue(self):
        """The prologue as a Python function (``np`` is the only global it sees)."""
        namespace = {"np": np, "__name__": f"descend_prologue_{self.name}"}
        exec(compile(self.prologue_source(), f"<prologue of {self.qualname}>", "exec"), namespace)
        return namespace["prologue"]


@dataclasses.dataclass(frozen=True)
class LoopSpec:
    """The one intermediate form of an elementwise loop (see the module docstring), which
    :mod:`descend._native.codegen` turns into source: a compiled plan's fused loops and, through
    :attr:`KernelSpec.loop`, every optimizer kernel.

    ``inputs``: ``((name, layout), ...)``, layout ``"full"`` (one element per element), ``"row"`` (cols,: one per
    column), ``"col"`` (rows,: one per row) or ``"scalar"`` (an array of one element); the body reads element
    ``v_<name>``. ``literals``: ``((name, dtype name, value), ...)``: constants the body reads by name, of that
    dtype, or of the kernel's dtype where the dtype is None (a kernel generated for several dtypes).
    ``body``: statements in the small language of :attr:`KernelSpec.body`. ``outputs``: ``((array, value), ...)``:
    the body's ``value`` is written to element of ``array`` (an input's name: in place); ``sums``: ``((array,
    value), ...)``: ``value`` summed over the rows, per column, into ``array``. ``scalars``: the scalar arguments
    the body reads. Pure data: equal specs are the same loop (``name`` only labels it).
    """

    name: str = dataclasses.field(compare=False)
    inputs: tuple
    literals: tuple
    body: tuple
    outputs: tuple
    sums: tuple
    scalars: tuple = ()

    @property
    def n_arrays(self) -> int:
        return len(self.inputs) + len(self.outputs) + len(self.sums)


class RuleKernel:
    """The kernels of one rule on one backend; subclasses launch them.

    Holds what every backend shares: the prologue, and the conversion of a
    coefficient dict into the kernel's scalar arguments in the arrays' dtype.
    """

    def __init__(self, spec: KernelSpec, prologue=None):
        self.spec = spec
        self.name = spec.name
        self.n_slots = spec.n_slots
        self.coefs = tuple(spec.coefficients)
        self.defaults = dict(spec.defaults)
        self.prologue = prologue if prologue is not None else spec.make_prologue()
        self._coef_set = set(self.coefs)
        self._last: dict = {}  # dtype -> (coefficient dict, scalar arguments)

    def scalars(self, coefficients: dict, dtype) -> tuple | None:
        """The kernel's scalar arguments in ``dtype`` (None: not scalars; use the NumPy path).

        Cached for the last coefficient dict per dtype: the base class computes
        one dict per step and dtype and never changes it."""
        hit = self._last.get(dtype)
        if hit is not None and hit[0] is coefficients:
            return hit[1]
        given = coefficients
        if coefficients.keys() != self._coef_set:
            if not (coefficients.keys() <= self._coef_set and self._coef_set - coefficients.keys() <= set(
                    self.defaults)):
                return None  # the reference path reports the mismatch
            coefficients = {**self.defaults, **coefficients}
        args = []
        for v in self.prologue(**{f"c_{k}": v for k, v in coefficients.items()}):
            if isinstance(v, (bool, np.bool_)):
                args.append(bool(v))
            elif isinstance(v, (int, float, np.number)) or (isinstance(v, np.ndarray) and v.ndim == 0):
                args.append(dtype.type(v))
            else:
                return None
        args = tuple(args)
        self._last[dtype] = (given, args)
        return args

    def apply_dense(self, params: list, grads: list, slots: list, decays: list, coefficients: dict) -> bool:
        raise NotImplementedError

    def apply_rows(self, param, grad, slots: list, coefficients: dict, idx, decay: float = 0.0) -> bool:
        raise NotImplementedError

    def scalar_rows(self, coefficients: list, dtype) -> np.ndarray | None:
        """The kernel's scalar arguments of each dict of ``coefficients`` (one update each), as the rows of a
        ``dtype`` array for :meth:`apply_replay`; None when one of them is not a number (a flag)."""
        out = np.empty((len(coefficients), len(self.spec.scalars)), dtype)
        for k, c in enumerate(coefficients):
            args = self.scalars(c, dtype)
            if args is None or any(isinstance(a, bool) for a in args):
                return None
            out[k] = args
        return out

    def apply_replay(self, param, slots: list, starts, count: int, scalars, decays) -> bool:
        """Optional (the default declines): bring row ``r`` of ``param`` and ``slots`` (gathered rows) through
        the updates ``starts[r] .. count - 1`` with a zero gradient -- each update's weight decay ``decays[k]``
        first, then the rule with the scalar arguments ``scalars[k]`` -- in place, in the arithmetic of
        ``apply_rows``. False when it does not take these arrays."""
        return False

    def dense_batch(self, params: list, slots: list) -> DenseBatch | None:
        """A :class:`DenseBatch` updating ``params[t]`` and its ``slots[t]`` (a list per tensor), or None
        when this backend prepares no batches or does not take these arrays (then ``apply_dense`` each step)."""
        return None


class DenseBatch:
    """A dense update of a fixed list of tensors (parameters and their slots), prepared once by
    :meth:`RuleKernel.dense_batch` and launched every step with that step's gradients.

    ``bind(grads)`` takes the step's gradients (one per parameter, in order) and returns what the
    other two methods take, or None when they do not fit (another array type, dtype, shape or
    layout: the caller then takes the general path; nothing was changed); ``rebind(bound)`` the same
    for the very arrays of an earlier ``bind``.
    ``find_nonfinite(bound)`` is the index of the first gradient holding a NaN or Inf, -1 when none
    does; ``apply(bound, coefficients, decays=None)`` updates every parameter and its slots in place
    as :meth:`RuleKernel.apply_dense` does (``decays``: an array of the parameters' dtype, one
    decoupled weight-decay factor per parameter; None: no decay) and returns False, having written
    nothing, when it cannot (the caller then takes the NumPy path).
    """

    #: how many parameters the batch updates
    n: int = 0
    #: their dtype (a batch holds one)
    dtype = None

    def bind(self, grads: list):
        raise NotImplementedError

    def rebind(self, bound):
        """What :meth:`bind` would return for the very gradient arrays ``bound`` holds (the caller owns them and
        has reshaped none), without checking them again."""
        return bound

    def find_nonfinite(self, bound) -> int:
        raise NotImplementedError

    def apply(self, bound, coefficients: dict, decays=None) -> bool:
        raise NotImplementedError


class Backend:
    """What a kernel backend implements (see the module docstring)."""

    #: a short name, e.g. ``"numba-cpu"``
    name: str = "?"

    def available(self) -> bool:
        raise NotImplementedError

    def compile(self, spec: KernelSpec) -> RuleKernel:
        raise NotImplementedError

    def source(self, spec: KernelSpec) -> str:
        raise NotImplementedError

    def find_nonfinite(self, arrays: list) -> int | None:
        raise NotImplementedError

    def compile_loop(self, spec: LoopSpec):
        """``f(rows, cols, *arrays)`` running the fused loop ``spec`` (see the module docstring)."""
        raise NotImplementedError

    def loop_source(self, spec: LoopSpec) -> str:
        raise NotImplementedError

    def softmax_cross_entropy(self):
        """``(pick, gradient)`` row kernels of sparse softmax cross-entropy (see the module docstring)."""
        raise NotImplementedError

    def windows(self):
        """``(patches, add_patches, pool_max, pool_scatter, pool_gather)`` kernels of convolution and pooling windows
        (exact copies, maxima and the eager ops' sums: :func:`descend._native.loops.windows`)."""
        raise NotImplementedError

    def rows(self):
        """``(row_sum, row_max, softmax)``: reductions over the last axis of a C-contiguous 2-D array with NumPy's bits,
        each returning False where it leaves the reduction to NumPy, and a softmax made of them
        (:func:`descend._native.loops.rows`)."""
        raise NotImplementedError

    def lstm(self):
        """``(forward, backward)``: the LSTM sequence op's whole-sequence kernels, with its NumPy path's bits
        (:func:`descend._native.rnn_loops.lstm`)."""
        raise NotImplementedError


_default: Backend | None = None
_default_lock = threading.Lock()


def _after_fork_in_child():
    global _default_lock
    _default_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_registered: list = []  # what default() calls to make the backend (the latest): registered by its module


def register_default(make) -> None:
    """Have ``make()`` (a function or a :class:`Backend` class) give the backend :func:`default` returns while
    :func:`set_default` chose none: the module of the backend registers it when imported (numba on the CPU:
    :mod:`descend._native.cpu`, imported by ``descend.optimizers.fused`` and the compiled plan). This module
    imports no backend."""
    if not callable(make):
        raise TypeError(f"register_default expects a function or a Backend class; received {make!r}")
    _registered.append(make)


def set_default(backend: Backend | None) -> Backend | None:
    """Make ``backend`` the one :func:`default` returns (None: the registered one, numba on the CPU, again);
    returns the previous one. ``descend.optimizers.fused.set_backend`` also forgets the
    rules compiled by the previous backend: use that one."""
    global _default
    if backend is not None and not isinstance(backend, Backend):
        raise TypeError(f"`backend` must be a descend._native.backend.Backend or None; received {backend!r}")
    with _default_lock:
        previous, _default = _default, backend
    return previous


_tried: dict = {}  # (kind, dtype) -> the default backend's kernels of that kind, compiled and tried once


def _kernels(kind: str, dtype, trial, what: str, exact: bool = False):
    """The default backend's ``kind`` kernels (a :class:`Backend` method's name) for arrays of ``dtype``, compiled
    and run once on tiny arrays (``trial(kernels, dtype)``), or None where they cannot run here: not float32/float64,
    descend's kernels turned off or still loading, none in the backend, or their compile failed (warned once,
    naming ``what`` runs instead). ``exact``: the caller's NumPy path gives the kernels' bits, so while numba loads in
    the background it takes that path (None, asked again later) instead of waiting (``_native.ready``)."""
    from .. import _native

    dtype = np.dtype(dtype)
    if dtype not in DTYPES or not _native.enabled() or (_default is None and not _registered):
        return None  # (no backend yet: the optimizers' and the plans' modules register numba's when imported)
    if not _native.ready(exact=exact):
        return None
    key = (kind, dtype)
    if key in _tried:
        return _tried[key]
    import warnings

    try:
        kernels = getattr(default(), kind)()
        trial(kernels, dtype)
    except NotImplementedError:
        kernels = None
    except Exception as e:  # noqa: BLE001 - NumPy's calls run instead
        warnings.warn(f"cannot compile the {kind} kernels ({type(e).__name__}: {e}); {what}", FusedKernelWarning,
                      stacklevel=4)
        kernels = None
    _tried[key] = kernels
    return kernels


def _try_windows(kernels, dtype):
    x, one, y = np.zeros((1, 1, 1, 1), dtype), np.zeros((1, 1, 1, 1, 1, 1), dtype), np.zeros((1, 1, 1, 1), dtype)
    kernels[0](x, one, 1, 1, 1, 1, True)  # (serial: a trial starts no threads)
    kernels[1](one, x, 1, 1, 1, 1, True)
    for arg_dtype in (np.int8, np.int32):
        arg = np.zeros((1, 1, 1, 1), arg_dtype)
        kernels[2](x, y, arg, 1, 1, 1, 1, 0, 0, True)
        if kernels[3](y, arg, x, 1, 1, 1, 1, 0, 0, True) >= 0 or kernels[4](x, arg, y, 1, 1, 1, 1, 0, 0, True) >= 0:
            raise RuntimeError("the pooling kernels refused a window's own offset")


def window_kernels(dtype):
    """The default backend's exact window kernels (``Backend.windows``: :func:`descend._native.loops.windows`) for
    arrays of ``dtype``, compiled now, or None where they cannot run here (see :func:`_kernels`). The convolution
    and pooling ops and the compiled plan both call them, so eager and compiled steps give the same bits; None: the
    ops' NumPy calls run, with the same bits too."""
    return _kernels("windows", dtype, _try_windows, "the convolution and pooling ops run their NumPy calls")


def _try_lstm(kernels, dtype):
    from . import blas, numpy_loops

    gemm = blas.gemm_function(dtype)
    loops = [numpy_loops.strided_loop(f, dtype) for f in (np.exp, np.tanh)]
    if gemm is None or None in loops:
        raise NotImplementedError  # (the op's NumPy calls run: no BLAS function or NumPy loop to call from a kernel)
    steps, b, u = 2, 1, 1
    one, cuts = np.ones(1, dtype)[0], np.array([0, b], np.int64)
    xw, acts = np.zeros((steps, b, 4 * u), dtype), np.zeros((steps, b, 4 * u), dtype)
    hs, cs, tcs = (np.zeros((steps, b, u), dtype) for _ in range(3))
    h0, c0, dh0, dc0, dc, zc, g = (np.zeros((b, u), dtype) for _ in range(7))
    w, p, z, ne = np.zeros((u, 4 * u), dtype), np.zeros((b, 4 * u), dtype), np.zeros((b, 4 * u), dtype), \
        np.zeros((b, 3 * u), dtype)
    calls = np.zeros((1, numpy_loops.CALL_WORDS), np.int64)
    (exp_loop, tanh_loop) = loops
    kernels[0](xw, h0, c0, w, hs, cs, acts, tcs, p, z, ne, zc, g, cuts, gemm, exp_loop.function, exp_loop.context,
               exp_loop.auxdata, tanh_loop.function, tanh_loop.context, tanh_loop.auxdata, calls, one, True)
    kernels[1](hs, cs, hs, cs, acts, tcs, c0, np.zeros((4 * u, u), dtype), xw, dh0, dc0, dc, cuts, gemm, one, True)
    if not (cs[-1, 0, 0] == 0 and acts[0, 0, 0] == dtype.type(0.5)):
        raise RuntimeError("the LSTM kernels gave a wrong step on zeros")


def lstm_kernels(dtype):
    """The default backend's exact LSTM sequence kernels (``Backend.lstm``: :func:`descend._native.rnn_loops.lstm`) for
    arrays of ``dtype``, compiled now, or None where they cannot run here (see :func:`_kernels`): the LSTM op's NumPy
    calls run then, with the same bits."""
    return _kernels("lstm", dtype, _try_lstm, "the LSTM op's NumPy calls run", exact=True)


def _try_rows(kernels, dtype):
    from . import numpy_loops

    x, out = np.ones((2, 3), dtype), np.empty(2, dtype)
    if not (kernels[0](x, out) and kernels[1](x, out)):
        raise RuntimeError("the row kernels refused a finite, non-zero input")
    loop = numpy_loops.strided_loop(np.exp, dtype)
    if loop is not None:  # (without NumPy's loop the softmax kernel never runs: the plans make NumPy's calls)
        y, sh, e = np.empty_like(x), np.empty_like(x), np.empty_like(x)
        calls = np.zeros((1, numpy_loops.CALL_WORDS), np.int64)
        if not kernels[2](x, out, sh, e, np.empty(2, dtype), y, loop.function, loop.context, loop.auxdata, calls, 1) \
                or not (y == dtype.type(1) / dtype.type(3)).all():
            raise RuntimeError("the softmax kernel gave a wrong softmax of ones")


def row_kernels(dtype):
    """``(row_sum, row_max, softmax)``, the default backend's reductions over the last axis of short rows with NumPy's
    bits and the softmax made of them (``Backend.rows``: :func:`descend._native.loops.rows`), for arrays of
    ``dtype``, or None where they cannot run here (see :func:`_kernels`): NumPy's calls run then, with the same
    bits."""
    return _kernels("rows", dtype, _try_rows, "NumPy's reductions run", exact=True)


def default() -> Backend:
    """The backend optimizers use: the registered one (:func:`register_default`: numba on the CPU,
    :mod:`descend._native.cpu`) unless :func:`set_default` chose another."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                if not _registered:
                    raise RuntimeError("No kernel backend is registered: import descend._native.cpu (it registers "
                                       "numba on the CPU) or choose one with set_default(backend)")
                _default = _registered[-1]()
    return _default
