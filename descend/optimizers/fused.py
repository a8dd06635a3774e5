"""Fused kernels derived from an optimizer's elementwise update rule: what the
optimizers call.

An optimizer written the short way has a pure rule
``update(param, grad, *slots, **coefficients) -> (new_param, *new_slots)``
that the base class applies with NumPy on whole arrays (the reference path).
:func:`kernel_for` turns it into kernels that update params and slots in place
in a single pass, in two steps on either side of the kernel backend seam:

1. :func:`descend.optimizers.rewrite.rewrite` (pure Python) reads the rule's
   source and produces its intermediate form, a
   :class:`~descend._native.backend.KernelSpec`: the scalar loop body, the
   prologue that computes the scalar arguments with NumPy's rules, the
   coefficients and the literals;
2. the backend (:func:`descend._native.backend.default`: numba on the CPU,
   :mod:`descend._native.cpu`) generates and compiles the kernels and launches
   them. :mod:`descend._native.backend` documents the interface a backend
   implements (a CuPy backend would implement the same one).

**The rule cache is bounded.** :func:`kernel_for` keeps the compiled rule of at
most :data:`MAX_RULES` rule functions, least recently used first out, and
drops an entry as soon as its rule function is garbage collected: creating and
dropping optimizer classes does not grow memory. (Compiled machine code is
shared by every rule with the same kernel text and lives as long as the
process: numba never frees it; see :mod:`descend._native.cpu`.)

**Fallback.** Without numba, with ``DESCEND_DISABLE_FUSED=1`` (read at import;
:func:`set_enabled` switches at run time), with ``Optimizer.use_fused = False``,
and for variables or slots that are not C-contiguous float32/float64 arrays,
the base class uses the NumPy path. A rule that cannot be rewritten or compiled
warns once (:class:`FusedKernelWarning`, saying why) and uses the NumPy path
from then on.

Example:

>>> from descend.optimizers import fused
>>> from descend.optimizers.adam import adam_update
>>> kernel = fused.kernel_for(adam_update)  # None without numba
>>> kernel is None or kernel.spec.arrays == ("param", "grad", "m", "v")
True
"""

from __future__ import annotations

import collections
import os
import threading
import warnings
import weakref

from .. import _native
from .._native import backend as _backend
from .._native.backend import FusedKernelWarning, KernelSpec, RuleKernel, stats
from .._native.cpu import cache_dir
from .rewrite import ALLOWED_FUNCTIONS, TRANSFORM_VERSION, UnsupportedRule, rewrite

__all__ = [
    "ALLOWED_FUNCTIONS", "MAX_RULES", "TRANSFORM_VERSION", "FusedKernelWarning", "FusedRule", "KernelSpec",
    "UnsupportedRule", "cache_dir", "cache_info", "clear_cache", "enabled", "find_nonfinite", "generate_source",
    "kernel_for", "rewrite", "set_backend", "set_enabled", "stats",
]

#: what :func:`kernel_for` returns: the compiled rule of the active backend
FusedRule = RuleKernel

#: whether optimizers use fused kernels, and turning them on or off: the switch of all compiled kernels
enabled = _native.enabled
set_enabled = _native.set_enabled

#: the most rule functions whose compiled rule :func:`kernel_for` keeps (least recently used first out)
MAX_RULES = 128
#: the most rule functions remembered as "warned once, cannot be fused"
_MAX_WARNED = 1024


def find_nonfinite(arrays: list) -> int | None:
    """Index of the first array holding a NaN or Inf, -1 when none does; None when
    the fused check cannot take these arrays (the caller checks with NumPy)."""
    return _backend.default().find_nonfinite(arrays)


def generate_source(rule) -> str:
    """The code generated for ``rule``: the prologue computing the kernel's scalar
    arguments (run in Python) and the kernel module (plain Python that
    :func:`kernel_for` compiles with numba). Raises :class:`UnsupportedRule`
    (a ``ValueError``) naming what the rewrite does not support."""
    return _backend.default().source(rewrite(rule))


class _Ref(weakref.ref):
    __slots__ = ("key",)


class _RuleCache:
    """``rule -> compiled rule | None``: at most ``capacity`` entries, least recently used
    first out, and an entry leaves as soon as its rule function is collected."""

    def __init__(self):
        self._entries: collections.OrderedDict = collections.OrderedDict()  # id(rule) -> (_Ref, kernel | None)
        self._dead: list = []  # refs whose rules died (their callbacks only append: they run inside allocations)

    def get(self, rule, default):
        entry = self._entries.get(id(rule))
        if entry is None or entry[0]() is not rule:
            return default
        try:
            self._entries.move_to_end(id(rule))
        except KeyError:  # evicted by another thread just now
            pass
        return entry[1]

    def _forget(self, ref):
        self._dead.append(ref)

    def purge(self):
        while self._dead:
            ref = self._dead.pop()
            entry = self._entries.get(ref.key)
            if entry is not None and entry[0] is ref:
                del self._entries[ref.key]

    def put(self, rule, kernel, capacity: int):
        ref = _Ref(rule, self._forget)
        ref.key = id(rule)
        self.purge()
        self._entries[ref.key] = (ref, kernel)
        self._entries.move_to_end(ref.key)
        while len(self._entries) > max(capacity, 1):
            self._entries.popitem(last=False)

    def clear(self):
        self._entries.clear()
        self._dead.clear()

    def __len__(self):
        self.purge()
        return len(self._entries)


_rules = _RuleCache()
_entries = _rules._entries
_warned: collections.OrderedDict = collections.OrderedDict()  # code objects of rules that could not be fused
_rules_lock = threading.RLock()
_MISSING = object()


def _after_fork_in_child():
    # a thread of the parent may have held the lock (building a rule) when another forked:
    # the child has no such thread, so its copy of the lock would stay held forever
    global _rules_lock
    _rules_lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def kernel_for(rule) -> RuleKernel | None:
    """The compiled rule of ``rule`` (see :mod:`descend._native.backend` for what it
    offers), built once per rule function while it stays in the cache; None when
    the rule cannot be fused (a :class:`FusedKernelWarning` says why, once per
    function) or the backend cannot run here (numba missing)."""
    entry = _entries.get(id(rule))  # the hit path, inlined: it runs on every update
    if entry is not None and entry[0]() is rule:
        try:
            _entries.move_to_end(id(rule))
        except KeyError:  # evicted by another thread just now
            pass
        return entry[1]
    with _rules_lock:
        kernel = _rules.get(rule, _MISSING)
        if kernel is not _MISSING:
            return kernel
        try:
            weakref.ref(rule)
        except TypeError:  # not weakly referenceable: not a plain function
            return None
        kernel = None
        backend = _backend.default()
        if backend.available():
            try:
                spec = rewrite(rule)
            except UnsupportedRule as e:
                code = getattr(rule, "__code__", None)
                if code is None or code not in _warned:
                    _warned[code] = True
                    while len(_warned) > _MAX_WARNED:
                        _warned.popitem(last=False)
                    warnings.warn(f"descend: cannot fuse update rule {e.rule_name}: {e.reason}; "
                                  "using the NumPy path", FusedKernelWarning, stacklevel=4)
            else:
                kernel = backend.compile(spec)
        _rules.put(rule, kernel, MAX_RULES)
        return kernel


def set_backend(backend: _backend.Backend | None) -> _backend.Backend | None:
    """Compile and launch fused kernels with ``backend`` from now on (None: numba on the
    CPU); returns the previous backend. The rules compiled by the previous one are
    forgotten. See :mod:`descend._native.backend` for what a backend implements."""
    with _rules_lock:
        previous = _backend.set_default(backend)
        _rules.clear()
    return previous


def cache_info() -> dict:
    """What the rule cache holds: ``{"rules": entries, "capacity": MAX_RULES}``."""
    with _rules_lock:
        return {"rules": len(_rules), "capacity": MAX_RULES}


def clear_cache() -> None:
    """Forget every compiled rule (kernels already compiled stay loaded: numba cannot free
    them; a rule that could not be fused is still not warned about twice)."""
    with _rules_lock:
        _rules.clear()
