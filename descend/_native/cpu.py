"""The numba CPU backend: a :class:`~descend._native.backend.KernelSpec` becomes
a Python module of kernels that numba compiles, and a rule's updates are
launched on NumPy arrays in place. numba is imported on first use. The
element of every kernel is the one generator's (:mod:`descend._native.codegen`)
over the rule's elementwise loop, :attr:`KernelSpec.loop
<descend._native.backend.KernelSpec.loop>`, as a compiled plan's fused loops
are; this module adds only where each kernel finds its elements (chunks, rows,
replay blocks) and its threads.

Per dtype (float32, float64) the module holds two kernels:

* dense (``dense_<dtype>``): one call updates every variable of the step. It
  takes an offsets table -- for each variable the array objects of param,
  grad and slots (see :mod:`descend._native.jit`) -- each variable's decoupled
  weight-decay factor, and a list of chunks of at most ``descend._native.CHUNK``
  elements, which threads share (``prange``); so 1,000 small tensors cost one
  launch. The weight decay ``param <- param - param * d`` runs first in the
  same pass, in the NumPy path's arithmetic;
* lazy sparse rows (``rows_<dtype>``): chunk ``c`` belongs to gradient row
  ``r`` and updates row ``idx[r]`` of the variable and its slots (gather,
  update, scatter), so the cost depends on the number of touched rows, never
  on the table's size. It asks for the rows of param and slots
  :data:`PREFETCH_ROWS` gradient rows ahead (a software prefetch): a table's
  rows are scattered in memory and the loop alone waits on each in turn.

Small updates take the kernel's serial loop (``descend._native.serial``:
below 2**14 elements, or 2**18 while no core is idle; see
:mod:`descend._native` for that and for threads in forked processes). The serial kernel beats the NumPy path at every size
(about 7 us against 12 us per call for one element, Python overhead
included), so small arrays are fused too.

**Float32 stays float32.** The spec's scalar arguments are cast to the
variable's dtype before the call, and each literal becomes a module-level
constant ``_L<k>_<dtype> = _T_<dtype>(literal)``, so the kernel sees typed
constants. The results match the NumPy path to the last bit for ``+ - * /``
and ``sqrt`` (IEEE, no fast-math, no FMA contraction). NumPy's SIMD ``power``,
``exp``, ``log``, ... differ from the C library's (numba's) by an ulp here and
there; a rule that subtracts two such values (FTRL's ``n_new^p - n^p``) turns
that into a few ulps of the result's scale.

Measured on a 2-core Xeon (AVX-512), Adam, 10M float32 parameters in 20
tensors, update only: NumPy path 97-111 ms, one fused call 4.8-6 ms, a numba
"floor" kernel that reads 4 arrays and writes 3 with no arithmetic 4.9-6 ms
(the machine is noisy; see BENCHMARKS.md for same-run ratios).

**One compile per kernel text.** The kernel module holds no prologue and no
rule name, only the loops: rules whose kernels read the same (closures that
capture different numbers, which reach the kernel as scalar arguments; one
rule function re-created per optimizer class) share one module and its
compiled dispatchers. numba never frees compiled machine code (about 2-5 MB
per parallel kernel), so this sharing is what keeps memory flat when
optimizer classes are created and dropped; rules with different kernel texts
each cost one compile for the life of the process.

**Cold start.** The kernel module is written to :func:`cache_dir` under a name
that hashes its text, numba's version and the transform's version, and
imported from there, so ``cache=True`` works: a second process loads the
compiled kernel from disk instead of compiling it.

Example:

>>> import numpy as np
>>> from descend._native.backend import KernelSpec
>>> from descend._native.cpu import NumbaCPU
>>> spec = KernelSpec(name="sgd", qualname="sgd", arrays=("param", "grad"), coefficients=("lr",),
...                   defaults=(), prologue=(), scalars=(("s0", "c_lr"),), literals=(),
...                   body=("_o0 = v_param - v_grad * s0",))
>>> rule = NumbaCPU().compile(spec)
>>> p, g = np.ones(4), np.full(4, 2.0)
>>> rule.apply_dense([p], [g], [[]], [0.0], {"lr": 0.25})
True
>>> p
array([0.5, 0.5, 0.5, 0.5])
"""

from __future__ import annotations

import logging
import operator
import re
import warnings
import weakref

import numpy as np

from .. import _native
from . import codegen, modules
from .backend import DTYPES, Backend, DenseBatch, FusedKernelWarning, KernelSpec, RuleKernel, register_default, stats

__all__ = ["NumbaCPU", "NumbaDenseBatch", "NumbaRule", "cache_dir", "compiled_modules", "kernel_source"]

cache_dir, compiled_modules = modules.cache_dir, modules.compiled_modules

log = logging.getLogger("descend.fused")

#: the lazy rows kernel asks for the rows of param and slots this many gradient rows ahead (software prefetch):
#: the rows of a table are scattered, and the loop alone keeps about one row's misses in flight. Measured,
#: Adam, 4,096 random rows x 64 float32 of a 1M-row table, one thread (2-core EPYC): 1.17 ms without, 0.67 ms
#: at 4 rows ahead, 0.75 at 8, 0.78 at 16 (the memory floor kernel, which does not prefetch: 0.76 ms)
PREFETCH_ROWS = 4
#: rows wider than this many bytes are not prefetched (the hardware prefetcher follows a long row by itself,
#: and a long row's lines would leave the cache before the loop reaches them)
PREFETCH_ROW_BYTES = 2048


#: the replay kernel brings rows through their skipped updates in blocks of about this many elements (a few
#: arrays of a block stay in L1/L2 across the updates; many independent elements per update vectorize)
REPLAY_BLOCK = 2048


# ---------------------------------------------------------------------------- code generation
def _elementwise(spec: KernelSpec, t: str, decay: bool) -> list[str]:
    """The loop over one chunk: ``_p``, ``_g``, ``_s<k>`` are its 1-D pieces (a loop from 0 over
    1-D arrays: LLVM vectorizes it); with ``decay``, ``param <- param - param * _d`` first. The element is the
    one generator's (:func:`descend._native.codegen.element_lines`) over the rule's :attr:`KernelSpec.loop`."""
    param = spec.param
    # the chunk's piece of each array (the outputs are the parameter and the slots, written in place)
    piece = dict(zip(spec.arrays, ["_p", "_g"] + [f"_s{k}" for k in range(spec.n_slots)]))
    # decoupled weight decay, as the NumPy path computes it: var -= var * (wd * lr)
    after_read = {param: [f"v_{param} = v_{param} - v_{param} * _d"]} if decay else None
    element = codegen.element_lines(spec.loop, read=lambda k, name, layout: f"{piece[name]}[_j]",
                                    write=lambda k, name: f"{piece[name]}[_j]", dtype=t, after_read=after_read)
    return codegen.nest(["for _j in range(_p.shape[0]):"], element)


def _chunk_loop(spec: KernelSpec, loop: str, t: str, kind: str) -> list[str]:
    n_slots = spec.n_slots
    if kind == "dense":  # chunk c: elements [start, stop) of tensor _chunks[c, 0] of the table
        size = np.dtype(t).itemsize
        lines = [
            f"for _c in {loop}(_chunks.shape[0]):",
            "    _t = _chunks[_c, 0]",
            f"    _o = _chunks[_c, 1] * {size}",
            "    _m = _chunks[_c, 2] - _chunks[_c, 1]",
            "    _d = _decay[_t]",
            f"    _p = carray(data_at(_objs[_t, 0], _o), _m, np.{t})",
            f"    _g = carray(data_at(_objs[_t, 1], _o), _m, np.{t})",
        ]
        lines += [f"    _s{k} = carray(data_at(_objs[_t, {k + 2}], _o), _m, np.{t})" for k in range(n_slots)]
    else:  # chunk c belongs to gradient row r and updates row _idx[r] of the variable and slots
        lines = [
            f"for _c in {loop}(_nc):",
            "    _r = _c // _cpr",
            "    _j0 = (_c - _r * _cpr) * _B",
            "    _j1 = min(_j0 + _B, _n)",
            # the rows of a table are far apart: each waits on memory unless asked for ahead (see PREFETCH_ROWS)
            f"    if _pf != 0 and _r + {PREFETCH_ROWS} < _idx.shape[0]:",
            f"        _a = _idx[_r + {PREFETCH_ROWS}] * _pf",
            "        for _l in range(0, _pf, 64):",
            "            prefetch(_P, _a + _l)",
        ]
        lines += [f"            prefetch(_S{k}, _a + _l)" for k in range(n_slots)]
        lines += [
            "    _row = _idx[_r]",
            "    _p = _P[_row, _j0:_j1]",
            "    _g = _G[_r, _j0:_j1]",
        ]
        lines += [f"    _s{k} = _S{k}[_row, _j0:_j1]" for k in range(n_slots)]
    lines += [f"    if _d != _ZERO_{t}:"]
    lines += ["        " + line for line in _elementwise(spec, t, True)]
    lines += ["    else:"]
    lines += ["        " + line for line in _elementwise(spec, t, False)]
    return lines


def _replay_loop(spec: KernelSpec, loop: str, t: str) -> list[str]:
    """Block ``_b`` of ``_B`` gathered rows (sorted by the update they are at, ``_starts``), brought through
    the updates they skipped, up to ``_count - 1``: at update ``_k`` the rows of the block already at or past
    their start are a prefix, updated as one contiguous run of elements (independent elements, so the loop
    vectorizes and never waits on one element's chain), with update ``_k``'s scalar arguments (row ``_k`` of
    ``_scal``), its weight decay ``_decay[_k]`` and a zero gradient (``_Z``). A block stays in cache across
    all its updates."""
    lines = [
        f"for _b in {loop}((_n + _B - 1) // _B):",
        "    _r0 = _b * _B",
        "    _r1 = min(_r0 + _B, _n)",
        "    _r = _r0",
        "    for _k in range(_starts[_r0], _count):",
        "        while _r < _r1 and _starts[_r] <= _k:",
        "            _r += 1",
        "        _p = _P[_r0 * _W:_r * _W]",
        "        _g = _Z[:(_r - _r0) * _W]",
    ]
    lines += [f"        _s{k} = _S{k}[_r0 * _W:_r * _W]" for k in range(spec.n_slots)]
    lines += [f"        {arg} = _scal[_k, {i}]" for i, (arg, _) in enumerate(spec.scalars)]
    lines += ["        _d = _decay[_k]", f"        if _d != _ZERO_{t}:"]
    lines += ["            " + line for line in _elementwise(spec, t, True)]
    lines += ["        else:"]
    lines += ["            " + line for line in _elementwise(spec, t, False)]
    return lines


def kernel_source(spec: KernelSpec) -> str:
    """The kernel module numba compiles for ``spec``: ``dense_<dtype>`` and ``rows_<dtype>``
    (plain Python). It depends only on the spec's arrays, literals, scalar arguments and
    body, never on the rule's name or prologue, so equal kernels share one module."""
    slots = spec.slots
    scalars = [arg for arg, _ in spec.scalars]
    row_args = ["_P", "_G"] + [f"_S{k}" for k in range(len(slots))] + ["_idx", "_B", "_d", "_serial"]
    doc = [
        f"Fused update kernels generated by descend._native.cpu (code generation version {codegen.CODEGEN_VERSION}).",
        "",
        f"dense_<dtype>: row t of _objs holds the array objects (id) of {spec.param}, {spec.grad} and the slots"
        + (" (in order " + ", ".join(map(repr, slots)) + ")" if slots else ""),
        "of tensor t; _chunks rows are (tensor, start, stop); _decay[t] is tensor t's decoupled weight decay.",
        "rows_<dtype>: _P, _G, _S<k> as 2-D views; _G's row r updates row _idx[r].",
        "replay_<dtype>: _P, _S<k> gathered rows of _W elements, flat, sorted by _starts; row r goes through updates",
        "_starts[r] .. _count - 1 with a zero gradient (update k's scalar arguments in row k of _scal, its weight",
        "decay in _decay[k]), in blocks of _B rows.",
        f"Scalar arguments: {', '.join(scalars) or 'none'} (the rule's prologue computes them).",
        "Do not edit: the file name is a hash of this text.",
    ]
    imports = ["import numpy as np", "from numba import carray, prange", "",
               "from descend._native.jit import data_at, prefetch"]
    constants = [f"_T_{d.name} = np.{d.name}" for d in DTYPES] + [f"_ZERO_{d.name} = _T_{d.name}(0)" for d in DTYPES]
    constants += codegen.constant_lines(spec.loop, [d.name for d in DTYPES])
    functions = []
    for d in DTYPES:
        for kind, args, head in [
            ("dense", ["_objs", "_chunks", "_decay", "_serial"], []),
            ("rows", row_args, ["_n = _P.shape[1]", "_cpr = (_n + _B - 1) // _B", "_nc = _idx.shape[0] * _cpr",
                                f"_pf = _n * {d.itemsize} if _cpr == 1 and _n * {d.itemsize} <= {PREFETCH_ROW_BYTES} else 0"]),
        ]:
            function = [f"def {kind}_{d.name}({', '.join(args + scalars)}):"]
            function += [f"    {line}" for line in head]
            function += ["    if _serial:"]
            function += ["        " + line for line in _chunk_loop(spec, "range", d.name, kind)]
            function += ["    else:"]
            function += ["        " + line for line in _chunk_loop(spec, "prange", d.name, kind)]
            functions.append(function)
        replay_args = ["_P"] + [f"_S{k}" for k in range(len(slots))] + ["_Z", "_W", "_B", "_starts", "_count", "_scal",
                                                                         "_decay", "_serial"]
        function = [f"def replay_{d.name}({', '.join(replay_args)}):", "    _n = _starts.shape[0]", "    if _serial:"]
        function += ["        " + line for line in _replay_loop(spec, "range", d.name)]
        function += ["    else:"]
        function += ["        " + line for line in _replay_loop(spec, "prange", d.name)]
        functions.append(function)
    return codegen.module_source(doc, imports, constants, functions)


# ---------------------------------------------------------------------------- loading and compiling
_rule_modules: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # full generated text -> _RuleModule


def _load_module(source: str, name: str):
    """The kernel module ``source`` (:func:`descend._native.modules.load`, keyed by this generator's version)."""
    return modules.load(source, name, codegen.CODEGEN_VERSION)


#: what in a kernel's loop can differ from the NumPy path by an ulp: NumPy's SIMD ``power``, ``exp``,
#: ``log``... against the C library's, ``**`` (pow), and (to be safe) ``%`` and ``//``; ``+ - * /``,
#: ``sqrt``, ``abs``, ``sign``, ``maximum``/``minimum``, comparisons and conditionals are IEEE in both
_INEXACT = re.compile(r"\bnp\.(power|exp|expm1|log|log1p|tanh)\(|\*\*|%|//")


def _exact(spec: KernelSpec) -> bool:
    """Whether the rule's loop body gives the NumPy path's result to the last bit (nothing in it
    matches :data:`_INEXACT`); the prologue is Python in both paths."""
    return not any(_INEXACT.search(line) for line in spec.body)


class _RuleModule:
    """What a rule sees of its generated code: its ``prologue`` and the kernel module's
    ``dense_<dtype>``/``rows_<dtype>`` functions (shared by rules with the same kernel text).
    The kernel module (which imports numba) is loaded on first use of ``kernels``."""

    def __init__(self, source: str, prologue, kernel_text: str, name: str, exact: bool):
        self.source = source
        self.prologue = prologue
        self.exact = exact  # the NumPy path gives the kernel's bits
        self._text, self._name = kernel_text, name
        self._loaded = None

    def _load(self):
        if self._loaded is None:
            self._loaded = _load_module(self._text, self._name)
        return self._loaded

    @property
    def kernels(self):
        return self._load()[0]

    @property
    def cached(self) -> bool:
        return self._load()[1]

    def __getattr__(self, name):  # dense_float32, rows_float64, ...: the kernel module's functions
        if name.startswith(("dense_", "rows_", "replay_")):
            return getattr(self.kernels, name)
        raise AttributeError(name)


class NumbaRule(RuleKernel):
    """The fused kernels of one rule (one per kind and dtype, compiled on first use)."""

    def __init__(self, spec: KernelSpec, module: _RuleModule):
        super().__init__(spec, module.prologue)
        self.source = module.source
        self.module = module
        self.exact = module.exact
        self._kernels: dict = {}
        self._failed: set = set()

    @property
    def cached(self) -> bool:
        """Whether numba caches this rule's compiled kernels on disk (False where the cache
        directory cannot be written)."""
        return self.module.cached

    def kernel(self, kind: str, dtype):
        """The numba dispatcher of ``kind`` ("dense", "rows" or "replay") for ``dtype`` (created once per
        kernel module, so rules with the same kernel text share it; compiled or loaded from the
        cache on first call)."""
        key = (kind, dtype)
        k = self._kernels.get(key)
        if k is None:
            import numba

            with modules.lock():
                shared = self.module.kernels._dispatchers
                k = shared.get(f"{kind}_{dtype.name}")
                if k is None:
                    k = shared[f"{kind}_{dtype.name}"] = numba.njit(
                        parallel=True, cache=self.module.cached, error_model="numpy", nogil=True)(
                        getattr(self.module.kernels, f"{kind}_{dtype.name}"))
                self._kernels[key] = k
        return k

    def apply_dense(self, params: list, grads: list, slots: list, decays: list, coefficients: dict) -> bool:
        """Update every ``params[t]`` and its ``slots[t]`` (a list per tensor) with
        ``grads[t]`` in one kernel call, after the decoupled weight decay
        ``param -= param * decays[t]`` where ``decays[t]`` is not 0. False when
        this call must take the NumPy path (nothing changed then): arrays that
        are not C-contiguous, writable arrays of one float dtype and matching sizes,
        or numba still loading in the background (:func:`descend._native.ready`)."""
        dtype = params[0].dtype
        if dtype not in DTYPES or dtype in self._failed or not _native.ready(self.exact):
            return False
        width = 2 + self.n_slots
        objects = []
        add = objects.append
        for p, g, ss in zip(params, grads, slots):
            if len(ss) != self.n_slots:
                return False
            if type(p) is not np.ndarray:  # the kernel reads array objects by address: nothing else may go in
                return False
            size = p.size
            flags = p.flags
            if not (flags.c_contiguous and flags.writeable):
                return False
            add(id(p))
            for a in (g, *ss):
                if (type(a) is not np.ndarray or (a.dtype is not dtype and a.dtype != dtype) or a.size != size
                        or not a.flags.c_contiguous):
                    return False
                add(id(a))
        args = self.scalars(coefficients, dtype)
        if args is None:
            return False
        n = len(params)
        table = np.fromiter(objects, np.int64, n * width).reshape(n, width)
        sizes = np.fromiter((p.size for p in params), np.int64, n)
        chunks = _native.kernels().chunk_table(sizes, _native.CHUNK)
        return self._launch("dense", dtype, int(sizes.sum()),
                            (table, chunks, np.array(decays, dtype)) if n else None, args)

    def dense_batch(self, params: list, slots: list) -> NumbaDenseBatch | None:
        """The :class:`NumbaDenseBatch` of ``params`` and their ``slots`` (C-contiguous writable
        arrays of one float dtype, each slot the size of its parameter); None when they are not."""
        if not params:
            return None
        dtype = params[0].dtype
        if dtype not in DTYPES or dtype in self._failed or len(slots) != len(params):
            return None
        for p, ss in zip(params, slots):
            if len(ss) != self.n_slots:
                return None
            for a in (p, *ss):
                flags = a.flags if type(a) is np.ndarray else None
                if flags is None or not (flags.c_contiguous and flags.writeable) or a.dtype != dtype or a.size != p.size:
                    return None
        return NumbaDenseBatch(self, params, slots)

    def apply_rows(self, param: np.ndarray, grad: np.ndarray, slots: list, coefficients: dict, idx: np.ndarray,
                   decay: float = 0.0) -> bool:
        """Update the rows ``idx`` (unique) of ``param`` and ``slots`` in place with
        the rows of ``grad``, after ``param[idx] -= param[idx] * decay`` when
        ``decay`` is not 0; False when this call must take the NumPy path
        (nothing changed then)."""
        dtype = param.dtype
        if dtype not in DTYPES or dtype in self._failed or grad.dtype != dtype or len(slots) != self.n_slots:
            return False
        if not _native.ready(self.exact):  # numba still loading in the background
            return False
        shape = param.shape
        for a in (param, *slots):
            flags = a.flags
            if not (flags.c_contiguous and flags.writeable and a.dtype == dtype and a.shape == shape):
                return False
        if not param.size:
            return False
        args = self.scalars(coefficients, dtype)
        if args is None:
            return False
        rows = idx if idx.dtype == np.intp and idx.flags.c_contiguous else np.ascontiguousarray(idx, np.intp)
        width = param.size // shape[0]
        if grad.size != rows.shape[0] * width:
            return False
        G = grad.reshape(rows.shape[0], width) if grad.flags.c_contiguous else np.ascontiguousarray(
            grad).reshape(rows.shape[0], width)
        arrays = (param.reshape(-1, width), G, *[s.reshape(-1, width) for s in slots], rows, _native.CHUNK,
                  dtype.type(decay))
        return self._launch("rows", dtype, grad.size, arrays, args)

    def apply_replay(self, param: np.ndarray, slots: list, starts: np.ndarray, count: int, scalars: np.ndarray,
                     decays: np.ndarray) -> bool:
        """Bring row ``r`` of ``param`` and ``slots`` (gathered rows, 2-D, C-contiguous, one float dtype) through
        the updates ``starts[r] .. count - 1`` with a zero gradient, in place: update ``k``'s scalar arguments
        are row ``k`` of ``scalars`` (:meth:`scalar_rows`), its weight decay ``decays[k]``. False when this call
        must take the NumPy path (nothing changed then)."""
        dtype = param.dtype
        if dtype not in DTYPES or dtype in self._failed or len(slots) != self.n_slots:
            return False
        if not _native.ready(self.exact) or param.ndim != 2 or not param.size:
            return False
        for a in (param, *slots):
            flags = a.flags
            if not (flags.c_contiguous and flags.writeable and a.dtype == dtype and a.shape == param.shape):
                return False
        if scalars.dtype != dtype or decays.dtype != dtype or scalars.shape[0] < count or decays.shape[0] < count:
            return False
        starts = np.ascontiguousarray(starts, np.int64)
        if starts.shape != param.shape[:1] or (starts.size > 1 and (np.diff(starts) < 0).any()):
            return False  # the kernel needs the rows sorted by their start
        width = param.shape[1]
        block = max(1, REPLAY_BLOCK // width)
        work = int(count - starts[0]) * param.size
        arrays = (param.reshape(-1), *[s.reshape(-1) for s in slots], np.zeros(block * width, dtype), np.int64(width),
                  np.int64(block), starts, np.int64(count), scalars, decays)
        return self._launch("replay", dtype, work, arrays, ())

    def _launch(self, kind: str, dtype, n_elements: int, arrays, args) -> bool:
        if arrays is None:
            return True
        kernel = self._kernels.get((kind, dtype)) or self.kernel(kind, dtype)
        try:
            kernel(*arrays, _native.serial(n_elements), *args)
        except Exception as e:  # typing and compile errors come before any write
            self._failed.add(dtype)
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            warnings.warn(f"descend: cannot compile the fused {dtype.name} kernel of update rule "
                          f"{self.spec.qualname} ({type(e).__name__}: {first}); using the NumPy path",
                          FusedKernelWarning, stacklevel=5)
            log.debug("fused kernel compile failure", exc_info=True)
            return False
        stats[kind] += 1
        return True


_LAYOUT = operator.attrgetter("dtype", "shape", "strides")
_NDARRAY = {np.ndarray}


def thread_bounds(shapes: list, parts: int) -> np.ndarray:
    """``(len(shapes), parts + 1)`` int64: where ``parts`` threads share each tensor of an update
    (:func:`descend._native.jit.part_table`).

    A large tensor (more than a quarter of a thread's share of all the elements) is shared out by
    :func:`descend._native.blas.thread_parts`: a weight at the row cuts of a split product, so the thread that
    wrote a block of its gradient updates those rows (measured, 2-core EPYC VM, compiled AdamW step of the
    784-512-512-10 MLP: 5.5 ms against 6.4 ms with the chunks in tensor order, at a moment the cores' caches
    were slow to share). The other tensors go whole, in runs of consecutive tensors of about equal size, so
    each thread reads long runs of memory (measured, Adam over 1,000 x 10,000: 3.9 ms; 6.1 ms with every
    tensor halved between the threads).

    Example:
        >>> from descend._native.cpu import thread_bounds
        >>> thread_bounds([(784, 256), (256,), (256, 10), (10,)], 2).tolist()
        [[0, 98304, 200704], [0, 256, 256], [0, 0, 2560], [0, 0, 10]]
    """
    from .blas import thread_parts

    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    total = sum(sizes)
    bounds = np.zeros((len(shapes), parts + 1), np.int64)
    whole = []
    for t, (shape, size) in enumerate(zip(shapes, sizes)):
        if parts > 1 and 4 * parts * size > total:
            bounds[t] = thread_parts(shape, parts)
        else:
            whole.append(t)
    in_whole = sum(sizes[t] for t in whole)
    done = 0
    for t in whole:  # part j takes the tensors whose middle falls in the j-th equal run of these elements
        j = min(parts - 1, (2 * done + sizes[t]) * parts // max(2 * in_whole, 1))
        bounds[t, j + 1:] = sizes[t]
        done += sizes[t]
    return bounds


class NumbaDenseBatch(DenseBatch):
    """:meth:`NumbaRule.apply_dense` prepared for a fixed list of parameters and slots.

    The offsets table (the array objects of each parameter and its slots) and the chunk list are
    built once; a step writes the gradients' objects into a copy of the table, after checking that
    every gradient is an ndarray of the parameter's dtype, shape and strides (so C-contiguous like
    it): one compiled pass over the array headers (``jit.check_headers``, where ``jit.header_ok``
    holds), else two C-level passes over the Python objects. The batch holds the parameters and slots: they
    stay alive, and their addresses in the table stay valid, as long as it does.
    """

    def __init__(self, rule: NumbaRule, params: list, slots: list):
        self.rule = rule
        self.n = len(params)
        self.dtype = params[0].dtype
        self._arrays = (list(params), [list(ss) for ss in slots])  # keeps the addresses in the table valid
        width = 2 + rule.n_slots
        table = np.zeros((self.n, width), np.int64)
        table[:, 0] = np.fromiter(map(id, params), np.int64, self.n)
        for k in range(rule.n_slots):
            table[:, 2 + k] = np.fromiter((id(ss[k]) for ss in slots), np.int64, self.n)
        self._table = table
        self._layouts = list(map(_LAYOUT, params))  # (dtype, shape, strides) of C-contiguous arrays of these shapes
        # the same as flat arrays, for the compiled check of the gradients' array headers
        self._descr = id(self.dtype)
        self._nds = np.fromiter((p.ndim for p in params), np.int64, self.n)
        self._starts = np.zeros(self.n, np.int64)
        np.cumsum(2 * self._nds[:-1], out=self._starts[1:])
        self._flat_layout = np.fromiter((x for p in params for x in (*p.shape, *p.strides)), np.int64,
                                        int(2 * self._nds.sum()))
        self._sizes = np.fromiter((p.size for p in params), np.int64, self.n)
        self.total = int(self._sizes.sum())
        self._chunk = None
        self._chunks = None

    def _chunk_list(self) -> np.ndarray:
        """The chunks of the update (and of the gradients' check), grouped by thread (:func:`thread_bounds`)."""
        key = (_native.CHUNK, _native.kernels().threads())  # (tests change CHUNK at run time)
        if self._chunk != key:
            self._chunk = key
            bounds = thread_bounds([p.shape for p in self._arrays[0]], key[1])
            self._chunks = _native.kernels().part_table(bounds, key[0])
        return self._chunks

    def bind(self, grads: list):
        """``(table, gradient objects, gradients, chunks)`` for this step (the chunks grouped by thread once,
        for the check and the update alike), or None when a gradient is not an ndarray of its parameter's
        dtype, shape and layout."""
        if len(grads) != self.n:
            return None
        objects = np.array(list(map(id, grads)), np.int64)  # (grads holds them alive)
        k = _native.kernels()
        if not (k.header_ok() and k.check_headers(objects, self._descr, self._nds, self._starts, self._flat_layout) < 0):
            # the compiled check reads each array's header in place (no tuples made); where it cannot run or
            # says no (another dtype object of the same dtype, say), the same check on the Python objects
            if set(map(type, grads)) != _NDARRAY or list(map(_LAYOUT, grads)) != self._layouts:
                return None
        table = self._table.copy()
        table[:, 1] = objects
        return table, objects, grads, self._chunk_list()

    def rebind(self, bound):
        return bound[0], bound[1], bound[2], self._chunk_list()  # (the thread count may have changed)

    def find_nonfinite(self, bound) -> int:
        chunks = bound[3]
        if not chunks.shape[0]:
            return -1
        return _native.kernels().first_nonfinite(bound[1], chunks, self.dtype.itemsize, _native.serial(self.total))

    def apply(self, bound, coefficients: dict, decays=None) -> bool:
        rule = self.rule
        if self.dtype in rule._failed:
            return False
        args = rule.scalars(coefficients, self.dtype)
        if args is None:
            return False
        if decays is None:
            decays = np.zeros(self.n, self.dtype)
        return rule._launch("dense", self.dtype, self.total, (bound[0], bound[3], decays), args)


class NumbaCPU(Backend):
    """numba kernels on the CPU, for NumPy arrays (see the module docstring)."""

    name = "numba-cpu"

    def available(self) -> bool:
        return _native._numba_available()

    def source(self, spec: KernelSpec) -> str:
        """The prologue (run in Python) followed by the kernel module (compiled)."""
        return spec.prologue_source() + "\n\n" + kernel_source(spec)

    def compile(self, spec: KernelSpec) -> NumbaRule:
        """The :class:`NumbaRule` of ``spec`` (its kernels compile on first launch of each kind and dtype)."""
        source = self.source(spec)
        with modules.lock():
            module = _rule_modules.get(source)
            if module is None:
                module = _rule_modules[source] = _RuleModule(
                    source, spec.make_prologue(), kernel_source(spec),
                    "".join(ch if ch.isalnum() else "_" for ch in spec.name), exact=_exact(spec))
        return NumbaRule(spec, module)

    def compile_loop(self, spec):
        """The fused loop of ``spec`` (:mod:`descend._native.loops`)."""
        from .loops import compile_loop

        return compile_loop(spec)

    def loop_source(self, spec) -> str:
        from .loops import loop_source

        return loop_source(spec)

    def softmax_cross_entropy(self):
        from .loops import softmax_cross_entropy

        return softmax_cross_entropy()

    def windows(self):
        from .loops import windows

        return windows()

    def rows(self):
        from .loops import rows

        return rows()

    def lstm(self):
        from .rnn_loops import lstm

        return lstm()

    def find_nonfinite(self, arrays: list) -> int | None:
        """Index of the first array holding a NaN or Inf, -1 when none does; None when
        this check cannot take these arrays (the caller checks with NumPy)."""
        if not arrays or not _native.enabled() or not _native.ready(exact=True):  # NumPy's check: the same answer
            return None
        dtype = arrays[0].dtype
        if dtype not in DTYPES:
            return None
        total = 0
        for a in arrays:
            if type(a) is not np.ndarray or a.dtype != dtype or not a.flags.c_contiguous:
                return None
            total += a.size
        return _native.kernels().any_nonfinite(arrays, _native.CHUNK, _native.serial(total))


register_default(NumbaCPU)  # the backend descend._native.backend.default() makes
