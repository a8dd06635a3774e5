"""``Coordinator`` (as ``tf.train.Coordinator``): threads that stop together, and the first error they hit.

Threads poll :meth:`Coordinator.should_stop`; any of them may :meth:`~Coordinator.request_stop` (with the
exception that made it stop); :meth:`~Coordinator.join` waits for them all and re-raises that exception.
``OutOfRangeError`` (the end of a dataset) counts as a clean stop by default.

Example:
    >>> import threading
    >>> import descend as ds
    >>> coord = ds.train.Coordinator()
    >>> def work(n):
    ...     with coord.stop_on_exception():
    ...         if n == 2:
    ...             raise ValueError("bad input")
    ...         coord.wait_for_stop()
    >>> threads = [threading.Thread(target=work, args=(n,)) for n in range(3)]
    >>> for t in threads:
    ...     t.start()
    >>> try:
    ...     coord.join(threads)
    ... except ValueError as e:
    ...     print(e)
    bad input
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time

from ..errors import OutOfRangeError

__all__ = ["Coordinator"]


class Coordinator:
    """Coordinates the stop of a set of threads (``tf.train.Coordinator``).

    Args:
        clean_stop_exception_types: exception types that stop the threads without being re-raised by
            :meth:`join` (default: ``(descend.errors.OutOfRangeError,)``).
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (OutOfRangeError,)
        types = tuple(clean_stop_exception_types)
        if not all(isinstance(t, type) and issubclass(t, BaseException) for t in types):
            raise TypeError("Coordinator: `clean_stop_exception_types` must hold exception types. Received: "
                            f"{clean_stop_exception_types!r}")
        self._clean_stop_exception_types = types
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads: set = set()

    def _filter(self, ex):
        """The ``exc_info`` triple of ``ex`` (an exception or a triple), or None for a clean stop."""
        if isinstance(ex, tuple):
            exc_info = ex
        else:
            exc_info = sys.exc_info()
            if exc_info[1] is not ex:  # not the exception being handled: give it a traceback of its own
                try:
                    raise ex
                except BaseException:  # noqa: BLE001 - captured to re-raise in join
                    exc_info = sys.exc_info()
        if exc_info[1] is None or isinstance(exc_info[1], self._clean_stop_exception_types):
            return None
        return exc_info

    def request_stop(self, ex=None):
        """Asks the threads to stop; ``ex`` (an exception, or ``sys.exc_info()``) is kept for :meth:`join` if it
        is the first and not a clean-stop type. After :meth:`join`, ``ex`` is raised at once."""
        with self._lock:
            exc_info = None if ex is None else self._filter(ex)
            if self._joined and exc_info is not None:
                raise exc_info[1].with_traceback(exc_info[2])
            if not self._stop_event.is_set():
                if exc_info is not None and self._exc_info_to_raise is None:
                    self._exc_info_to_raise = exc_info
                self._stop_event.set()

    def clear_stop(self):
        """Forgets the stop request, the kept exception, the join and the registered threads."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._registered_threads = set()
            self._stop_event.clear()

    def should_stop(self) -> bool:
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A context in which an exception requests a stop (and is kept for :meth:`join`) instead of escaping."""
        try:
            yield
        except BaseException:  # noqa: BLE001 - TF's rule: every exception requests the stop
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None) -> bool:
        """Waits until a stop is requested (at most ``timeout`` seconds); whether it was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        """Adds ``thread`` to those :meth:`join` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self):
        """Raises the kept exception, if any."""
        with self._lock:
            if self._exc_info_to_raise is not None:
                raise self._exc_info_to_raise[1].with_traceback(self._exc_info_to_raise[2])

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for ``threads`` (and the registered ones) to end or for a stop request, then up to
        ``stop_grace_period_secs`` more for them to end; re-raises the kept exception.

        Raises:
            RuntimeError: threads still run after the grace period (unless ``ignore_live_threads``).
        """
        with self._lock:
            threads = set(self._registered_threads) | set(threads or ())
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        grace = float(stop_grace_period_secs)
        step = 0.001
        while any(t.is_alive() for t in threads) and grace >= 0.0:
            time.sleep(step)
            grace -= step
            step = max(min(2 * step, grace), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            exc_info = self._exc_info_to_raise
        if exc_info is not None:
            raise exc_info[1].with_traceback(exc_info[2])
        if stragglers:
            if ignore_live_threads:
                logging.getLogger(__name__).info("Coordinator stopped with threads still running: %s",
                                                 " ".join(stragglers))
            else:
                raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(stragglers)}")
